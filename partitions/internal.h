/*
 * What the partitions module's files share (never included outside
 * partitions/): the committed state, the store, and the change pipeline.
 */
#ifndef FABRICD_PARTITIONS_INTERNAL_H
#define FABRICD_PARTITIONS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "daemon/store.h"
#include "partitions/apply.h"
#include "partitions/model.h"
#include "partitions/plan.h"

/* The subnets one tenant space spans (sm.subnets' group of the first
 * subnet; one without sm.subnets or a group): a change lands on every
 * plane or on none, and a plane is an index into pt_state.planes. */
#define PT_MAX_PLANES	PT_APPLY_MAX_IOS

/* A port's table as last verified on the fabric. */
struct pt_table {
	uint8_t		 plane;
	const char	*subnet;	/* the plane's name, as the store keys it */
	uint64_t	 node_guid;
	uint8_t		 port;
	uint64_t	 port_guid;
	bool		 switch_ext;
	char		 label[FABRIC_NODE_DESC_LEN + 8];
	uint16_t	 n;
	uint16_t	*entries;
};

struct pt_state {
	bool		 running;
	struct store	*store;
	struct sm	*sm;		/* the SM it serves (the daemon's); NULL: off */
	struct sm	*planes[PT_MAX_PLANES];	/* [0] is sm; the rest its group */
	size_t		 nplanes;
	struct pt_config *model;	/* committed */
	struct pt_index	*index;		/* committed index of each key */
	size_t		 nindex;
	struct pt_table	*tables;
	size_t		 ntables;
	bool		 busy;		/* a change or a sweep is on the fabric */
	uint64_t	 changes_ok, changes_failed, changes_rejected;
};
extern struct pt_state pt_state;

/* ---- store (pstore.c) ---- */
int pt_store_load(struct store *st, struct pt_state *s, bool *seeded);
int pt_store_save_model(struct store *st, const struct pt_config *c,
    const struct pt_index *idx, size_t nidx);
int pt_store_save_tables(struct store *st, const struct pt_table *t, size_t n);
/* Rows from *done on, in one transaction, until budget_us has passed (one
 * at least); *done moves on.  -1 (logged) stores none of the slice. */
int pt_store_save_tables_slice(struct store *st, const struct pt_table *t, size_t n,
    size_t *done, int64_t budget_us);
int pt_store_set_seeded(struct store *st);
int pt_store_forget_table(struct store *st, const char *subnet, uint64_t node_guid, uint8_t port);
void pt_store_history(struct store *st, uid_t uid, bool has_uid, const char *action,
    const char *detail, const char *result, const char *message);
json_t *pt_store_history_list(struct store *st, long long limit);

/* ---- crash-safe changes (intent.c) ---- */
/* Store the ports p is about to write, with what they hold (own
 * transaction); an intent left on p's planes is replaced, others' kept. */
int pt_intent_record(struct store *st, const struct pt_plan *p, const char *action);
/* Inside the caller's commit (or rollback record): every plane's rows
 * (PT_ALL_PLANES) or one plane's. */
#define PT_ALL_PLANES	((size_t)-1)
int pt_intent_clear(struct store *st, size_t plane);
/* A change a crash interrupted, on plane (or any)?  action gets its name. */
bool pt_intent_pending(struct store *st, size_t plane, char *action, size_t len);
/* Forget the committed tables of plane's intent ports whose node is not
 * in nodes (inside the caller's transaction). */
void pt_intent_forget_missing(struct store *st, size_t plane, struct fabric_node **nodes,
    size_t n);
/* The plan that puts plane's ports back (nodes not in the fabric: *missing). */
size_t pt_intent_plan(struct store *st, size_t plane, struct fabric_node **nodes, size_t n,
    struct pt_plan *out, size_t *missing);

/* ---- committed state (state.c) ---- */
void pt_state_free(void);
/* sm_set_pkey_tables()'s provider: the tables last verified on end ports. */
int pt_sa_pkey_table(const struct fabric_port *p, uint16_t *keys, size_t max, void *arg);
struct sm_ipoib;
bool pt_sa_ipoib(size_t i, struct sm_ipoib *out, void *arg);
const struct pt_table *pt_table_find(size_t plane, uint64_t node_guid, uint8_t port);
/* Where pkey (membership bit aside) sits in t, or -1; *full (if given)
 * gets its membership bit. */
int pt_table_index(const struct pt_table *t, uint16_t pkey, bool *full);
/* A table's label ("desc:port") is a port of host: desc is host, or
 * starts with host and a space ("host HCA-1"). */
bool pt_label_is_host(const char *label, const char *host);
/* The subnet's name of a plane ("" for the one subnet without sm.subnets). */
const char *pt_plane_name(size_t plane);
/* pt_table_find() needs pt_state.tables in this order. */
void pt_tables_sort(struct pt_table *t, size_t n);
/* sm_set_pkey_expect()'s provider: the committed table of any port (arg:
 * the plane, as for pt_sa_pkey_table and pt_have_committed). */
int pt_audit_expect(uint64_t node_guid, uint8_t port, uint16_t *entries, size_t max,
    bool *switch_ext, void *arg);
/* A port whose table is no longer known (read before the next write). */
void pt_table_forget(size_t plane, uint64_t node_guid, uint8_t port);
/* Take the plan's have[] tables as the committed ones (known ports only). */
void pt_tables_update(const struct pt_plan *p);
/* The same in two halves: memory now (the changed rows come back, copied),
 * then the store a slice a turn (state.c), and then(arg) on a turn of its
 * own.  A store that fails is logged; then() runs regardless. */
struct pt_table *pt_tables_take(const struct pt_plan *p, size_t *nrows);
void pt_tables_rows_free(struct pt_table *rows, size_t n);
void pt_tables_save_turns(struct pt_table *rows, size_t n, void (*then)(void *), void *arg);
bool pt_have_committed(void *arg, uint64_t node_guid, uint8_t port, uint16_t *t, size_t n);

/* ---- the change pipeline (change.c) ---- */
struct ctl_req;
struct pt_change {
	const char		*action;	/* "create", "member add", ... */
	json_t			*detail;	/* the request's args (borrowed) */
	struct ctl_req		*req;		/* NULL: no one to answer */
	uid_t			 uid;
	bool			 has_uid;
	bool			 dry_run;
	struct pt_config	*proposed;	/* owned by the pipeline from here on */
	/* called once when the change has ended, committed (ok) or not,
	 * after its answer; never once the module has stopped */
	void			(*done)(void *arg, bool ok);
	/* adds to the answer of a committed change (after the commit) */
	void			(*decorate)(void *arg, json_t *result);
	void			*done_arg;
};
/* A caller over TLS (no uid) named in the request's args as "by", which
 * the history keeps. */
void pt_note_caller(struct ctl_req *req, json_t *args);
/* Plan, check, apply, verify, commit; answers ch->req exactly once. */
void pt_change_run(struct pt_change *ch);
/* Replace the committed model (c is taken) and index, in memory. */
void pt_commit_model(struct pt_config *c, const struct pt_index *idx, size_t nidx);
/* The SM's published fabric, or NULL when no SM runs (or none is linked):
 * the first plane's, and a plane's. */
struct fabric *pt_fabric_now(void);
struct fabric *pt_plane_fabric(size_t plane);
struct fabric_node **pt_nodes_of(struct fabric *f, size_t *n);
/* A plane's SM, and every plane's engine in ios and name in names (the
 * count returned). */
struct sm *pt_plane_sm(size_t plane);
size_t pt_plane_ios(struct mad_io *ios, const char **names);
/* What a plan of plane's fabric (nodes) needs from the committed state. */
void pt_plan_input(struct pt_plan_input *in, const struct pt_config *c,
    struct fabric_node **nodes, size_t n, bool strict, size_t plane);
void pt_set_index(const struct pt_index *idx, size_t n);
/* The module stopped, or the daemon is stopping: nothing is answered. */
bool pt_stopped(void);
/* SM_HOOK_BEFORE_ACTIVATE: new ports get their tables before ACTIVE (arg:
 * the plane whose SM sweeps). */
void pt_sweep_hook(struct fabric *f, bool topology_changed, void (*done)(void *token),
    void *token, void *arg);
/* Run a sweep hook that waited for a change to finish. */
void pt_sweep_resume(void);
/* The fabric-wide index of pkey per the committed state, or -1. */
int pt_committed_index(uint16_t pkey);
/* The plan's per-port diff as JSON (for --dry-run). */
json_t *pt_plan_diff_json(const struct pt_plan *p);

#endif
