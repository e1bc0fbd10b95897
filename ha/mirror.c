/*
 * A piece of state kept alike on every SM node (ha.h, ha_mirror_start):
 * the master, once it holds the writer lease and has read the key since
 * winning it, puts its snapshot whenever its owner says it changed; a
 * standby takes each new revision as its own.  The partitions' model is
 * not one of these: a change to it must be committed before it is applied
 * (partitions/replica.c).  These are the records an SM keeps as it goes
 * (LIDs, M_Keys, the ports an operator disabled, the history, alarms),
 * where a second's delay costs nothing and the last master's copy is
 * always the one to keep.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ha/ha_internal.h"

struct ha_mirror {
	struct ha		*ha;
	struct ha_mirror_ops	 ops;
	void			*arg;
	struct event		*tick_ev;
	bool			 dirty;		/* changed since the last put that landed */
	bool			 putting;	/* a put in flight */
	bool			 reading;	/* the read after winning the lease */
	bool			 fresh;		/* writer, and read the key since winning */
	bool			 stopped;	/* freed when the call in flight is answered */
	int64_t			 rev;		/* the revision held here (read or put) */
	ha_mirror_commit_fn	 commit_cb;	/* an operator's change waiting for its put */
	void			*commit_arg;
	bool			 commit_next;	/* ... which is the next put, not this one */
};

static void put(struct ha_mirror *m);

static void
mirror_free(struct ha_mirror *m)
{
	if (m->tick_ev)
		event_free(m->tick_ev);
	free(m);
}

static bool
still(void *arg)
{
	struct ha_mirror *m = arg;

	return m->ops.is_master(m->arg);
}

static void
take(struct ha_mirror *m, const char *value, size_t len, int64_t rev)
{
	if (value == NULL || rev == m->rev)
		return;		/* nothing there, or what we hold already */
	m->rev = rev;
	m->ops.adopt(value, len, rev, m->arg);
}

/* A standby's copy follows the key. */
static void
on_watch(const char *value, size_t len, int64_t rev, void *arg)
{
	struct ha_mirror *m = arg;

	if (!ha_is_writer(m->ha))
		take(m, value, len, rev);
}

/* Won the lease: what the last writer put is taken before ours replaces it,
 * so that nothing it recorded after our last poll is lost. */
static void
on_latest(int rc, const char *value, size_t len, int64_t rev, const char *err, void *arg)
{
	struct ha_mirror *m = arg;

	m->reading = false;
	if (m->stopped) {
		mirror_free(m);
		return;
	}
	if (rc < 0)
		return;		/* asked again at the next tick */
	if (rc == 0)
		take(m, value, len, rev);
	m->fresh = true;
	m->dirty = true;	/* ours, with what we did since, goes out now */
}

static void
tell_commit(struct ha_mirror *m, bool ok, const char *err)
{
	ha_mirror_commit_fn cb = m->commit_cb;

	m->commit_cb = NULL;
	if (cb)
		cb(ok, err, m->commit_arg);
}

static void
on_put(enum ha_txn_result r, int64_t rev, const char *err, void *arg)
{
	struct ha_mirror *m = arg;

	m->putting = false;
	if (m->stopped) {
		mirror_free(m);
		return;
	}
	if (r == HA_TXN_OK)
		m->rev = rev;
	else
		m->dirty = true;	/* tried again at the next tick */
	if (m->commit_next && r == HA_TXN_OK) {	/* the change waits for its own put */
		m->commit_next = false;
		put(m);
		if (m->putting)
			return;
		r = HA_TXN_UNAVAILABLE;
	}
	m->commit_next = false;
	tell_commit(m, r == HA_TXN_OK, r == HA_TXN_OK ? NULL : err ? err : "etcd refused it");
}

static void
put(struct ha_mirror *m)
{
	struct ha_op op = { m->ops.key, NULL, false };
	char *v = m->ops.snapshot(m->arg);

	if (v == NULL)
		return;
	op.value = v;
	if (ha_txn(m->ha, NULL, -1, &op, 1, on_put, m) == 0) {
		m->putting = true;
		m->dirty = false;
	}
	free(v);
}

/* Won the lease: the read goes now, not at the next tick (the SM writes
 * nothing until it is in). */
static void
gained(void *arg)
{
	struct ha_mirror *m = arg;

	if (!m->reading && !m->fresh && ha_get(m->ha, m->ops.key, on_latest, m) == 0)
		m->reading = true;
}

static void
tick(evutil_socket_t fd, short what, void *arg)
{
	struct ha_mirror *m = arg;
	struct timeval tv = clock_tv_ms(m->ops.period_ms);

	evtimer_add(m->tick_ev, &tv);
	if (!m->ops.is_master(m->arg)) {
		m->fresh = false;
		return;
	}
	if (!ha_is_writer(m->ha)) {
		m->fresh = false;
		ha_claim(m->ha, m->ops.own_guid(m->arg), still, gained, m);
		return;
	}
	if (!m->fresh) {
		if (!m->reading && ha_get(m->ha, m->ops.key, on_latest, m) == 0)
			m->reading = true;
		return;
	}
	if (m->dirty && !m->putting)
		put(m);
}

struct ha_mirror *
ha_mirror_start(struct ha *ha, const struct ha_mirror_ops *ops, void *arg)
{
	struct ha_mirror *m;
	struct timeval tv;

	if (ha == NULL)
		return NULL;
	m = xcalloc(1, sizeof(*m));
	m->ha = ha;
	m->ops = *ops;
	if (m->ops.period_ms == 0)
		m->ops.period_ms = 1000;
	m->arg = arg;
	m->dirty = true;
	m->tick_ev = evtimer_new(ha->base, tick, m);
	tv = clock_tv_ms(m->ops.period_ms);
	evtimer_add(m->tick_ev, &tv);
	ha_watch(ha, ops->key, on_watch, m);
	return m;
}

void
ha_mirror_changed(struct ha_mirror *m)
{
	if (m)
		m->dirty = true;
}

bool
ha_mirror_fresh(const struct ha_mirror *m)
{
	return m != NULL && m->fresh && ha_is_writer(m->ha);
}

int64_t
ha_mirror_revision(const struct ha_mirror *m)
{
	return m ? m->rev : 0;
}

const char *
ha_mirror_refusal(const struct ha_mirror *m, char *buf, size_t len)
{
	if (m == NULL)
		return NULL;
	if (ha_write_refusal(m->ha, buf, len) != NULL)
		return buf;
	if (!m->fresh)
		snprintf(buf, len, "this master has not read the SM's records from etcd yet");
	else if (m->commit_cb)
		snprintf(buf, len, "another change of the SM's records is being written to etcd; "
		    "run it again");
	else
		return NULL;
	return buf;
}

int
ha_mirror_commit(struct ha_mirror *m, ha_mirror_commit_fn cb, void *arg)
{
	char buf[200];

	if (ha_mirror_refusal(m, buf, sizeof(buf)) != NULL)
		return -1;
	m->commit_cb = cb;
	m->commit_arg = arg;
	if (m->putting) {		/* a put of before the change is out */
		m->commit_next = true;
		return 0;
	}
	put(m);
	if (!m->putting) {
		m->commit_cb = NULL;
		return -1;
	}
	return 0;
}

void
ha_mirror_stop(struct ha_mirror *m)
{
	if (m == NULL)
		return;
	tell_commit(m, false, "the daemon is stopping");
	ha_unwatch(m->ha, on_watch, m);
	ha_forget(m->ha, m);
	event_del(m->tick_ev);
	m->stopped = true;
	if (!m->putting && !m->reading)
		mirror_free(m);
}
