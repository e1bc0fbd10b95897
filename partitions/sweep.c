/*
 * The sweep hook: each plane's SM, at each sweep, gives the ports it has
 * not seen before their P_Key tables before it makes them ACTIVE, and
 * undoes first what a crash left half-written on that plane (intent.c).
 *
 * A sweep plans its own plane only: the committed partition set is the
 * group's, the tables and the intent rows are each plane's.  One change
 * or sweep is on the fabric at a time (pt_state.busy), whatever its
 * plane; a sweep that comes meanwhile waits for it (pt_sweep_resume).
 * Only the first plane's sweep may move the index map: the other planes
 * take the indices the changes gave (a change checks they agree).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "partitions/internal.h"
#include "partitions/replica.h"
#include "sm/sm.h"

struct sweep {
	size_t			 plane;
	bool			 quarantine;	/* the default partition only, unknown ports */
	struct pt_plan		 plan;
	struct fabric_node	**nodes;
	void			(*done)(void *token);
	void			*token;
	bool			 applied_ok;
	char			*outcome;	/* the history's message; NULL: nothing to say */
};

static void
sweep_free(struct sweep *s)
{
	pt_plan_free(&s->plan);
	free(s->nodes);
	free(s->outcome);
	free(s);
}

/* "sweep", or "sweep of plane2" where there are planes. */
static void
sweep_name(size_t plane, char *buf, size_t len)
{
	if (pt_state.nplanes < 2)
		snprintf(buf, len, "sweep");
	else
		snprintf(buf, len, "sweep of %s", pt_plane_name(plane));
}

/* The sweep's commit, on its own turn after its tables are stored. */
static void
sweep_commit_turn(void *arg)
{
	struct sweep *s = arg;
	const struct pt_plan *plan = &s->plan;
	char name[64];

	if (pt_stopped()) {
		sweep_free(s);
		return;
	}
	pt_state.busy = false;
	store_begin(pt_state.store);
	pt_intent_clear(pt_state.store, s->plane);
	if (s->applied_ok && !s->quarantine && s->plane == 0 && (plan->nindex != pt_state.nindex ||
	    (plan->nindex && memcmp(plan->index, pt_state.index,
	    plan->nindex * sizeof(*plan->index)) != 0))) {
		pt_set_index(plan->index, plan->nindex);
		pt_store_save_model(pt_state.store, pt_state.model, plan->index, plan->nindex);
	}
	sweep_name(s->plane, name, sizeof(name));
	if (s->outcome != NULL) {
		pt_history_add(0, false, name, NULL, s->applied_ok ? "ok" : "failed", s->outcome);
		event_post(s->applied_ok ? EV_INFO : EV_ERROR, "partitions", NULL, "%s: %s", name,
		    s->outcome);
	}
	store_commit(pt_state.store);
	s->done(s->token);
	sweep_free(s);
	pt_sweep_resume();	/* another plane's sweep may wait for this one */
}

static void
on_swept(struct pt_plan *plan, const struct pt_apply_report *rep, void *arg)
{
	struct sweep *s = arg;
	struct pt_table *rows;
	size_t nrows;

	if (pt_stopped()) {
		sweep_free(s);
		return;
	}
	s->applied_ok = rep->ok;
	if (!rep->ok)
		s->outcome = pt_apply_failure_text(rep);
	else if (rep->sets > 0)
		xasprintf(&s->outcome, "%zu port%s given %s", rep->ports_written,
		    rep->ports_written == 1 ? "" : "s", s->quarantine ?
		    "the default partition only (quarantine)" : "their P_Key tables");
	rows = pt_tables_take(plan, &nrows);
	pt_tables_save_turns(rows, nrows, sweep_commit_turn, s);
}

static int
record_sweep(const struct pt_plan *plan, void *arg)
{
	return pt_intent_record(pt_state.store, plan, "sweep");
}

static int
quarantine_plan(size_t plane, struct fabric_node **nodes, size_t n, struct pt_plan *plan)
{
	struct pt_plan_input in;
	struct pt_err e;

	pt_plan_input(&in, pt_state.model, nodes, n, false, plane);
	return pt_plan_quarantine(&in, plan, &e);
}

/* A sweep that arrives while a change is on the fabric waits for it: one
 * waiting sweep per plane. */
static struct {
	bool			 pending;
	struct fabric		*f;
	bool			 topology_changed;
	void			(*done)(void *token);
	void			*token;
} deferred[PT_MAX_PLANES];

static void *
plane_arg(size_t plane)
{
	return (void *)(uintptr_t)plane;
}

void
pt_sweep_resume(void)
{
	for (size_t pl = 0; pl < PT_MAX_PLANES && !pt_state.busy; pl++) {
		if (!deferred[pl].pending)
			continue;
		deferred[pl].pending = false;
		pt_sweep_hook(deferred[pl].f, deferred[pl].topology_changed, deferred[pl].done,
		    deferred[pl].token, plane_arg(pl));
	}
}

/*
 * A change a crash interrupted (intent.c): this plane's ports of it are
 * read back and put back to what they held before it, the committed
 * state, before this sweep plans anything.  A failure keeps the intent
 * for the next sweep.
 */
struct recovery {
	size_t			 plane;
	struct pt_plan		 plan;
	struct fabric_node	**nodes;
	size_t			 nnodes;
	char			 action[64];
	size_t			 missing;
	struct fabric		*f;
	bool			 topology_changed;
	void			(*done)(void *token);
	void			*token;
};

static void
recovery_free(struct recovery *rc)
{
	pt_plan_free(&rc->plan);
	free(rc->nodes);
	free(rc);
}

static void
on_recovered(struct pt_plan *plan, const struct pt_apply_report *rep, void *arg)
{
	struct recovery *rc = arg;
	char *msg;

	if (pt_stopped()) {
		recovery_free(rc);
		return;
	}
	pt_state.busy = false;
	store_begin(pt_state.store);
	pt_tables_update(plan);
	if (rep->ok) {
		/* ports not in the fabric now: their tables are unknown, read
		 * (and written) when they come back */
		pt_intent_forget_missing(pt_state.store, rc->plane, rc->nodes, rc->nnodes);
		pt_intent_clear(pt_state.store, rc->plane);
	}
	if (rep->ok)
		xasprintf(&msg, "an interrupted '%s' was undone%s%s: %zu port%s read back, %zu put "
		    "back to the committed table%s%s", rc->action, pt_state.nplanes > 1 ? " on " : "",
		    pt_state.nplanes > 1 ? pt_plane_name(rc->plane) : "", plan->nports,
		    plan->nports == 1 ? "" : "s", rep->ports_written,
		    rep->ports_written == 1 ? "" : "s",
		    rc->missing ? "; ports not in the fabric now are read when they return" : "");
	else
		msg = pt_apply_failure_text(rep);
	pt_history_add(0, false, "recover", NULL, rep->ok ? "ok" : "failed", msg);
	store_commit(pt_state.store);
	event_post(rep->ok ? EV_WARNING : EV_ERROR, "partitions", NULL, "recovery: %s", msg);
	free(msg);
	/* now the sweep's own tables, from the committed state; nothing new
	 * is written while an interrupted change is not undone */
	if (rep->ok)
		pt_sweep_hook(rc->f, rc->topology_changed, rc->done, rc->token, plane_arg(rc->plane));
	else
		rc->done(rc->token);
	recovery_free(rc);
	/* another plane's sweep deferred behind this recovery: its SM waits
	 * in its before-activate step until it runs (the sweep above may
	 * have had nothing to write, and then resumes nobody) */
	pt_sweep_resume();
}

static bool
start_recovery(size_t plane, struct fabric *f, bool topology_changed,
    void (*done)(void *token), void *token)
{
	struct mad_io ios[PT_MAX_PLANES];
	const char *names[PT_MAX_PLANES];
	struct recovery *rc;
	char action[64];
	size_t n, nios;

	if (!pt_intent_pending(pt_state.store, plane, action, sizeof(action)))
		return false;
	rc = xcalloc(1, sizeof(*rc));
	rc->plane = plane;
	snprintf(rc->action, sizeof(rc->action), "%s", action);
	rc->f = f;
	rc->topology_changed = topology_changed;
	rc->done = done;
	rc->token = token;
	rc->nodes = pt_nodes_of(f, &n);
	rc->nnodes = n;
	pt_intent_plan(pt_state.store, plane, rc->nodes, n, &rc->plan, &rc->missing);
	nios = pt_plane_ios(ios, names);
	pt_state.busy = true;
	if (pt_apply_start_planes(&rc->plan, ios, names, nios, NULL, on_recovered, rc) != 0) {
		pt_state.busy = false;
		recovery_free(rc);
		return false;
	}
	return true;
}

/* This sweep's plan: the committed set on this plane's fabric, or, when
 * it cannot be planned, the quarantine (fail closed). */
static int
plan_sweep(struct sweep *s, struct fabric *f)
{
	struct pt_plan_input in;
	struct pt_err e;
	size_t n;
	char name[64];

	s->nodes = pt_nodes_of(f, &n);
	pt_plan_input(&in, pt_state.model, s->nodes, n, false, s->plane);
	if (pt_plan_build(&in, &s->plan, &e) == 0)
		return 0;
	/* the partition set is not written, unknown ports are quarantined,
	 * and the operator hears of it */
	sweep_name(s->plane, name, sizeof(name));
	event_post(EV_CRITICAL, "partitions", NULL, "%s: P_Key tables not planned: %s; "
	    "ports not known before get the default partition only", name, e.msg);
	pt_history_add(0, false, name, NULL, "rejected", e.msg);
	s->quarantine = true;
	return quarantine_plan(s->plane, s->nodes, n, &s->plan);
}

void
pt_sweep_hook(struct fabric *f, bool topology_changed, void (*done)(void *token),
    void *token, void *arg)
{
	size_t plane = (uintptr_t)arg;
	struct mad_io ios[PT_MAX_PLANES];
	const char *names[PT_MAX_PLANES];
	struct sweep *s;
	size_t nios;

	if (!pt_state.running || fabricd_mad() == NULL || plane >= pt_state.nplanes ||
	    !sm_is_master(pt_plane_sm(plane)) || deferred[plane].pending || !pt_replica_ready()) {
		/* with ha, nothing is programmed before the latest intent is read */
		done(token);
		return;
	}
	if (pt_state.busy) {
		deferred[plane].pending = true;
		deferred[plane].f = f;
		deferred[plane].topology_changed = topology_changed;
		deferred[plane].done = done;
		deferred[plane].token = token;
		return;
	}
	if (start_recovery(plane, f, topology_changed, done, token))
		return;
	s = xcalloc(1, sizeof(*s));
	s->plane = plane;
	s->done = done;
	s->token = token;
	if (plan_sweep(s, f) != 0 || pt_plan_dirty_blocks(&s->plan) == 0) {
		/* nothing plannable, or an unchanged fabric: no MADs */
		sweep_free(s);
		done(token);
		return;
	}
	nios = pt_plane_ios(ios, names);
	pt_state.busy = true;
	if (pt_apply_start_planes(&s->plan, ios, names, nios, record_sweep, on_swept, s) != 0) {
		pt_state.busy = false;
		sweep_free(s);
		done(token);
		pt_sweep_resume();
	}
}
