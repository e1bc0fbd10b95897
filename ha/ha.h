/*
 * High availability: the intent every SM node programs from, replicated
 * through etcd (docs/ha.md).  Without an `ha` section fabricd has none
 * (fd->ha NULL) and works on sqlite alone; every function here takes a
 * NULL ha as "off".
 *
 * Keys live under ha.etcd.prefix, then the subnet prefix in hex
 * ("/fabricd/fe80000000000000/partitions/model").  One key, "writer", is
 * held under a lease in the master SM's name: only its holder writes, and
 * every write is a transaction that compares "writer" with its own name,
 * so an old master that comes back, or was never told, cannot write.
 * Standbys poll the keys they follow (ha_watch) and keep a copy in sqlite.
 */
#ifndef FABRICD_HA_HA_H
#define FABRICD_HA_HA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "ha/etcd.h"

struct ha;
struct fabricd;

struct ha_config {
	char		*endpoints[ETCD_MAX_ENDPOINTS];
	size_t		 nendpoints;	/* 0: no ha */
	char		*prefix;	/* "/fabricd/" */
	char		*ca, *cert, *key;	/* TLS client files (https endpoints) */
	uint64_t	 lease_ttl_ms;	/* the writer's lease: a dead master's hold ends after it */
	uint64_t	 timeout_ms;	/* one call to etcd */
};

bool ha_on(const struct ha *ha);
/* The subnet whose keys these are (the SM's subnet prefix). */
void ha_scope(struct ha *ha, uint64_t subnet_prefix);

/* ---- the writer ---- */

/* The master SM (port GUID sm_guid) wants to write: the lease is taken
 * as soon as the last holder's has ended (tried again every second);
 * gained(arg) is called each time it is won (each module that claims
 * keeps its own, up to 4; NULL: none), and at once when it is held already
 * as it is registered.  still(arg) is asked every second:
 * false (no longer master) gives the lease up.  Idempotent. */
void ha_claim(struct ha *ha, uint64_t sm_guid, bool (*still)(void *arg),
    void (*gained)(void *arg), void *arg);
/* No longer master: the lease is given up (revoked). */
void ha_release(struct ha *ha);
bool ha_is_writer(const struct ha *ha);
/*
 * The lease is ours and, by this node's own clock, cannot have ended yet:
 * the last grant or keep-alive that etcd answered alive was sent less than
 * its TTL less a margin ago (a process that was frozen finds it false on
 * waking, before etcd has told it anything).  What every SubnSet of an SM
 * with ha asks (sm/core/fence.c).
 */
bool ha_lease_valid(const struct ha *ha);
/* fn(arg) when this node stops holding the lease (lost, expired by our
 * own clock, fenced, or given up); up to 4. */
void ha_on_lease_lost(struct ha *ha, void (*fn)(void *arg), void *arg);
/* The lease's TTL in ms (what a standby waits before it may take over). */
int64_t ha_lease_ttl_ms(const struct ha *ha);
/* Why a write would be refused now, NULL when it may be tried. */
const char *ha_write_refusal(const struct ha *ha, char *buf, size_t len);

/* ---- reading ---- */

/* rc 0: value (NUL-terminated) at mod_rev; 1: no such key; -1: err. A
 * linearizable read: it sees every committed write. */
typedef void (*ha_get_cb)(int rc, const char *value, size_t len, int64_t mod_rev,
    const char *err, void *arg);
int ha_get(struct ha *ha, const char *key, ha_get_cb cb, void *arg);

/* Polled every second while ha runs: fn when key's revision changes
 * (value NULL: deleted).  At most HA_MAX_WATCHES keys. */
#define HA_MAX_WATCHES	8
typedef void (*ha_watch_fn)(const char *value, size_t len, int64_t mod_rev, void *arg);
void ha_watch(struct ha *ha, const char *key, ha_watch_fn fn, void *arg);
/* The watch of fn with arg ends (its owner stops). */
void ha_unwatch(struct ha *ha, ha_watch_fn fn, void *arg);

/* ---- writing ---- */

struct ha_op {
	const char	*key;
	const char	*value;		/* NUL-terminated; NULL with del */
	bool		 del;
};
enum ha_txn_result {
	HA_TXN_OK,
	HA_TXN_CONFLICT,	/* cmp_key moved: another write came first */
	HA_TXN_FENCED,		/* "writer" is not ours: we are not the writer any more */
	HA_TXN_UNAVAILABLE,	/* no answer, no quorum: nothing is known to be written */
};
typedef void (*ha_txn_cb)(enum ha_txn_result r, int64_t rev, const char *err, void *arg);
/* The ops, all or none, if we hold "writer" and cmp_key's mod revision
 * is cmp_rev (0: it does not exist; -1: no compare).  0, or -1 when it
 * was refused at once (ha_write_refusal; cb is then not called). */
int ha_txn(struct ha *ha, const char *cmp_key, int64_t cmp_rev, const struct ha_op *ops,
    size_t n, ha_txn_cb cb, void *arg);

/* A module that used ha is stopping: every call in flight is answered
 * now, with an error, while its state still exists. */
void ha_drain(struct ha *ha);

/* ---- mirrors ----
 *
 * A record the master keeps as it goes, kept alike on every SM node: the
 * master puts snapshot() once it holds the lease and has read the key
 * (at most every period_ms, after ha_mirror_changed); a standby hands
 * each new revision to adopt().  For state where the last master's copy
 * is the one to keep and a second's delay costs nothing (not a change
 * that must be committed before it is applied: ha_txn). */
struct ha_mirror;
struct ha_mirror_ops {
	const char	*key;
	char		*(*snapshot)(void *arg);	/* malloc'd; NULL: nothing now */
	void		 (*adopt)(const char *value, size_t len, int64_t rev, void *arg);
	bool		 (*is_master)(void *arg);
	uint64_t	 (*own_guid)(void *arg);	/* the SM port GUID: the lease's name */
	uint64_t	 period_ms;			/* 0: 1 s */
};
/* NULL without ha. */
struct ha_mirror *ha_mirror_start(struct ha *ha, const struct ha_mirror_ops *ops, void *arg);
void ha_mirror_changed(struct ha_mirror *m);
int64_t ha_mirror_revision(const struct ha_mirror *m);
/* This node writes the record: it holds the lease and has read the key
 * since it won it (what the last master put is known here). */
bool ha_mirror_fresh(const struct ha_mirror *m);
/* An operator's change to the record, committed before it is applied
 * ("acknowledged means replicated"): why it cannot be written now (NULL:
 * it can); the snapshot put at once, cb(true) once etcd has it, else
 * cb(false, why).  -1: refused at once (cb not called). */
typedef void (*ha_mirror_commit_fn)(bool ok, const char *err, void *arg);
const char *ha_mirror_refusal(const struct ha_mirror *m, char *buf, size_t len);
int ha_mirror_commit(struct ha_mirror *m, ha_mirror_commit_fn cb, void *arg);
/* arg is no longer called (a commit waiting is told it failed); a put in
 * flight is let land. */
void ha_mirror_stop(struct ha_mirror *m);
/* The claims made with arg end (its owner stops). */
void ha_forget(struct ha *ha, void *arg);

/* What `status` shows: endpoints, members, leader, revision, lag, the writer. */
json_t *ha_status(const struct ha *ha);

extern const struct fabricd_module ha_module;

#endif
