/*
 * The change pipeline: plan -> check -> apply -> verify -> commit, for
 * operator changes, and the sweep hook that gives new ports their tables
 * before the SM makes them ACTIVE.
 *
 * Nothing reaches the database before the fabric has confirmed it: the
 * partition set and the index map are written only after every written
 * block read back right; the port tables are written with what the ports
 * were last seen to hold (the new tables, or the old ones after a
 * rollback).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "partitions/internal.h"
#include "partitions/replica.h"
#include "partitions/turns.h"
#include "sm/sm.h"

/* NULL while the SM is disabled or not master (another SM owns the
 * P_Key tables): changes are then stored and applied at the first sweep
 * as master. */
struct fabric *
pt_fabric_now(void)
{
	return fabricd_mad() != NULL && sm_is_master(pt_state.sm) ? sm_fabric(pt_state.sm) : NULL;
}

struct fabric_node **
pt_nodes_of(struct fabric *f, size_t *n)
{
	struct fabric_node **nodes, *node;
	size_t i;

	*n = fabric_node_count(f);
	nodes = xcalloc(*n ? *n : 1, sizeof(*nodes));
	FABRIC_FOREACH_NODE(f, i, node)
		nodes[i] = node;
	return nodes;
}

static void
plan_input(struct pt_plan_input *in, const struct pt_config *c, struct fabric_node **nodes,
    size_t n, bool strict)
{
	memset(in, 0, sizeof(*in));
	in->config = c;
	in->nodes = nodes;
	in->nnodes = n;
	in->sm_port_guid = sm_own_port_guid(pt_state.sm);
	in->prev_index = pt_state.index;
	in->nprev_index = pt_state.nindex;
	in->strict_members = strict;
	in->committed = pt_state.model;
	in->have = pt_have_committed;
}

static void
set_index(const struct pt_index *idx, size_t n)
{
	free(pt_state.index);
	pt_state.index = n ? xcalloc(n, sizeof(*idx)) : NULL;
	if (n)
		memcpy(pt_state.index, idx, n * sizeof(*idx));
	pt_state.nindex = n;
}

/* ---- diff for --dry-run ---- */

static json_t *
block_changes(const struct pt_port_plan *pp, uint16_t b)
{
	json_t *changes = json_array();
	char from[8], to[8];

	for (size_t i = (size_t)b * PT_BLOCK; i < (size_t)(b + 1) * PT_BLOCK && i < pp->cap; i++) {
		if (pp->have != NULL && pp->have[i] == pp->want[i])
			continue;
		if (pp->have == NULL && pp->want[i] == 0)
			continue;
		snprintf(from, sizeof(from), "0x%04x", pp->have ? pp->have[i] : 0);
		snprintf(to, sizeof(to), "0x%04x", pp->want[i]);
		json_array_append_new(changes, json_pack("{s:I, s:s, s:s}", "index", (json_int_t)i,
		    "from", pp->have ? from : "unknown", "to", to));
	}
	return changes;
}

/*
 * What a dry run matched, said in a line: how many hosts (CA ports) and
 * which, as one hostlist, and how many switch ports their keys need.
 * "gpu*" matching 111 hosts then says so before anything is written.
 */
static json_t *
matched_json(json_t *ports)
{
	const char **names = xcalloc(json_array_size(ports) + 1, sizeof(*names));
	char (*buf)[FABRIC_NODE_DESC_LEN + 8] = xcalloc(json_array_size(ports) + 1, sizeof(*buf));
	size_t n = 0, sw = 0, i;
	json_t *port, *res;
	char *list;

	json_array_foreach(ports, i, port) {
		const char *label = json_string_value(json_object_get(port, "port"));
		if (json_is_true(json_object_get(port, "switch_port"))) {
			sw++;
			continue;
		}
		snprintf(buf[n], sizeof(buf[n]), "%s", label ? label : "?");
		buf[n][strcspn(buf[n], ": \t")] = '\0';	/* the host: its name up to ":PORT" */
		names[n] = buf[n];
		n++;
	}
	list = hostlist_compress(names, n);
	res = json_pack("{s:I, s:s, s:I}", "hosts", (json_int_t)n, "host_names", list ? list : "",
	    "switch_ports", (json_int_t)sw);
	free(list);
	free(buf);
	free(names);
	return res;
}

json_t *
pt_plan_diff_json(const struct pt_plan *p)
{
	json_t *ports = json_array(), *index = json_object();
	char guid[24], key[8];

	for (size_t i = 0; i < p->nports; i++) {
		const struct pt_port_plan *pp = &p->ports[i];
		json_t *blocks = json_array();

		for (uint16_t b = 0; b < pp->nblocks; b++)
			if (pt_block_dirty(pp, b))
				json_array_append_new(blocks, json_pack("{s:i, s:o}", "block", b,
				    "changes", block_changes(pp, b)));
		if (json_array_size(blocks) == 0) {
			json_decref(blocks);
			continue;
		}
		guid_format(pp->port_guid, guid, sizeof(guid));
		json_array_append_new(ports, json_pack("{s:s, s:s, s:i, s:b, s:o}", "port", pp->label,
		    "guid", guid, "port_num", pp->port, "switch_port", pp->switch_ext,
		    "blocks", blocks));
	}
	for (size_t i = 0; i < p->nindex; i++) {
		snprintf(key, sizeof(key), "0x%04x", p->index[i].pkey);
		json_object_set_new(index, key, json_integer(p->index[i].index));
	}
	return json_pack("{s:b, s:o, s:o, s:I, s:o}", "dry_run", 1, "ports", ports, "index", index,
	    "blocks", (json_int_t)pt_plan_dirty_blocks(p), "matched", matched_json(ports));
}

/* ---- operator changes ---- */

/* Over TLS there is no uid: the history names the certificate instead
 * (its "by"), and keeps no uid rather than (uid_t)-1. */
void
pt_note_caller(struct ctl_req *req, json_t *args)
{
	if (ctl_req_uid(req) == (uid_t)-1)
		json_object_set_new(args, "by", json_string(ctl_req_who(req)));
}

struct run {
	struct pt_change	 ch;
	bool			 ok;		/* committed (or stored) */
	char			*detail;
	struct pt_plan		 plan;
	struct fabric_node	**nodes;
	/* what the apply reported, kept for the commit's turn */
	bool			 applied_ok;
	size_t			 ports_written, sets, gets;
	char			*outcome;	/* the history's message */
	json_t			*failed_ports;
};

static bool stopped(void);

static void
run_free(struct run *r)
{
	if (r->ch.done != NULL && !stopped())
		r->ch.done(r->ch.done_arg, r->ok);
	pt_plan_free(&r->plan);
	pt_config_free(r->ch.proposed);
	free(r->nodes);
	free(r->detail);
	free(r->outcome);
	json_decref(r->failed_ports);
	free(r);
}

static void
reject(struct run *r, const struct pt_err *e)
{
	pt_state.changes_rejected++;
	pt_history_add(r->ch.uid, r->ch.has_uid, r->ch.action, r->detail,
	    "rejected", e->msg);
	if (r->ch.req)
		ctl_reply_error(r->ch.req, e->code, "%s", e->msg);
	run_free(r);
}

static void
commit_model(struct run *r, const struct pt_index *idx, size_t nidx)
{
	pt_store_save_model(pt_state.store, r->ch.proposed, idx, nidx);
	pt_config_free(pt_state.model);
	pt_state.model = r->ch.proposed;
	r->ch.proposed = NULL;
	set_index(idx, nidx);
}

/* Failure text: which ports failed, why, and what could not be put back. */
static char *
failure_text(const struct pt_apply_report *rep)
{
	char *s = xstrdup("not applied: "), *t;

	for (size_t i = 0; i < rep->nfailed; i++) {
		xasprintf(&t, "%s%s%s", s, i ? "; " : "", rep->failed[i]);
		free(s);
		s = t;
	}
	xasprintf(&t, "%s; %s", s, !rep->rolled_back ? "nothing was written" :
	    rep->nunrestored == 0 ? "every written port was restored to its previous table" :
	    "every reachable written port was restored to its previous table");
	free(s);
	s = t;
	for (size_t i = 0; i < rep->nunrestored; i++) {
		xasprintf(&t, "%s%s%s", s, i ? "; " : "; unreachable, to be read again at the "
		    "next sweep: ", rep->unrestored[i]);
		free(s);
		s = t;
	}
	return s;
}

static json_t *
failed_ports_json(const struct pt_apply_report *rep)
{
	json_t *a = json_array();

	for (size_t i = 0; i < rep->nfailed; i++)
		json_array_append_new(a, json_string(rep->failed[i]));
	return a;
}

/* Before the first Set: the ports about to change, durably (intent.c). */
static int
record_change(const struct pt_plan *plan, void *arg)
{
	struct run *r = arg;

	return pt_intent_record(pt_state.store, plan, r->ch.action);
}

/*
 * The daemon stopping: the MAD engine closes after every module has
 * stopped and answers what was still in flight with errors.  Partitions'
 * state, the SM that waits for a sweep hook and the control socket are
 * gone by then: nothing is stored, no one is answered or told; the next
 * start reads the intent (intent.c) and undoes what was half-written.
 */
static bool
stopped(void)
{
	return !pt_state.running || pt_turns_stopping();
}

/*
 * The change's commit, on its own turn after its tables are stored
 * (on_applied): the partition set and the end of the intent in one
 * transaction, so a crash sees the change whole or not.
 */
static void
commit_turn(void *arg)
{
	struct run *r = arg;

	if (stopped()) {
		run_free(r);
		return;
	}
	pt_state.busy = false;
	store_begin(pt_state.store);
	pt_intent_clear(pt_state.store);
	if (r->applied_ok) {
		r->ok = true;
		commit_model(r, r->plan.index, r->plan.nindex);
		pt_replica_applied(true, pt_state.model, pt_state.index, pt_state.nindex);
		pt_state.changes_ok++;
		pt_history_add(r->ch.uid, r->ch.has_uid, r->ch.action, r->detail,
		    "ok", r->outcome);
		store_commit(pt_state.store);
		event_post(EV_INFO, "partitions", NULL, "%s: %s", r->ch.action, r->outcome);
		if (r->ch.req) {
			json_t *res = json_pack("{s:s, s:I, s:I, s:I}", "result", "ok",
			    "ports_written", (json_int_t)r->ports_written,
			    "sets", (json_int_t)r->sets, "gets", (json_int_t)r->gets);

			if (r->ch.decorate)
				r->ch.decorate(r->ch.done_arg, res);
			ctl_reply_ok(r->ch.req, res);
		}
	} else {
		pt_replica_applied(false, pt_state.model, pt_state.index, pt_state.nindex);
		pt_state.changes_failed++;
		pt_history_add(r->ch.uid, r->ch.has_uid, r->ch.action, r->detail,
		    "failed", r->outcome);
		store_commit(pt_state.store);
		event_post(EV_ERROR, "partitions", NULL, "%s: %s", r->ch.action, r->outcome);
		if (r->ch.req) {
			char *list = json_dumps(r->failed_ports, JSON_COMPACT);

			ctl_reply_error(r->ch.req, PERR_FABRIC, "%s (failed ports: %s)", r->outcome,
			    list);
			free(list);
		}
	}
	run_free(r);
	pt_sweep_resume();
}

/* The apply is over: what the ports hold now is taken in memory, stored a
 * slice a turn, and the change committed after (commit_turn).  The
 * change stays busy until then: nothing else plans meanwhile. */
static void
on_applied(struct pt_plan *plan, const struct pt_apply_report *rep, void *arg)
{
	struct run *r = arg;
	struct pt_table *rows;
	size_t nrows;

	if (stopped()) {
		run_free(r);
		return;
	}
	r->applied_ok = rep->ok;
	r->ports_written = rep->ports_written;
	r->sets = rep->sets;
	r->gets = rep->gets;
	if (rep->ok)
		xasprintf(&r->outcome, "applied: %zu port%s written with %zu PartitionTable Set%s, "
		    "every block read back", rep->ports_written, rep->ports_written == 1 ? "" : "s",
		    rep->sets, rep->sets == 1 ? "" : "s");
	else {
		r->outcome = failure_text(rep);
		r->failed_ports = failed_ports_json(rep);
	}
	rows = pt_tables_take(plan, &nrows);
	pt_tables_save_turns(rows, nrows, commit_turn, r);
}

/* No SM: the change is checked on its own and stored for the first sweep. */
static void
store_only(struct run *r)
{
	const char *msg = "stored; no fabric is managed now, the tables are written at the "
	    "next sweep";

	if (r->ch.dry_run) {
		if (r->ch.req)
			ctl_reply_ok(r->ch.req, json_pack("{s:b, s:[], s:s}", "dry_run", 1, "ports",
			    "note", "no fabric is managed now: nothing would be written"));
		run_free(r);
		return;
	}
	r->ok = true;
	commit_model(r, pt_state.index, pt_state.nindex);
	pt_state.changes_ok++;
	pt_history_add(r->ch.uid, r->ch.has_uid, r->ch.action, r->detail,
	    "stored", msg);
	if (r->ch.req) {
		json_t *res = json_pack("{s:s, s:s}", "result", "stored", "message", msg);

		if (r->ch.decorate)
			r->ch.decorate(r->ch.done_arg, res);
		ctl_reply_ok(r->ch.req, res);
	}
	run_free(r);
}

static void
start_apply(struct run *r)
{
	struct mad_io io = mad_io_engine(fabricd_mad());
	struct pt_err e;

	pt_state.busy = true;
	if (pt_apply_start_intent(&r->plan, &io, record_change, on_applied, r) != 0) {
		pt_state.busy = false;
		pt_err_set(&e, PERR_INTERNAL, "could not start applying");
		reject(r, &e);
	}
}

static void
apply_turn(void *arg)
{
	struct run *r = arg;

	pt_state.busy = false;
	if (stopped()) {
		run_free(r);
		return;
	}
	start_apply(r);
	if (!pt_state.busy)	/* it could not start: a sweep may wait */
		pt_sweep_resume();
}

/* The change is in etcd (or not): apply it, or say why nothing was. */
static void
published(enum proto_error code, const char *msg, void *arg)
{
	struct run *r = arg;
	struct pt_err e;

	pt_state.busy = false;
	if (code == PERR_NONE && pt_fabric_now() != NULL) {
		start_apply(r);
		return;
	}
	pt_err_set(&e, code == PERR_NONE ? PERR_UNAVAILABLE : code, "%s", code == PERR_NONE ?
	    "committed to etcd, but this node stopped being master: the next master applies it" :
	    msg);
	reject(r, &e);
	pt_sweep_resume();
}

void
pt_change_run(struct pt_change *ch)
{
	struct run *r = xcalloc(1, sizeof(*r));
	char action[64], why[256];
	struct pt_plan_input in;
	struct fabric *f;
	struct pt_err e;
	size_t n;

	r->ch = *ch;
	r->detail = ch->detail ? json_dumps(ch->detail, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (pt_state.busy) {
		if (r->ch.req)
			ctl_reply_error(r->ch.req, PERR_BUSY, "another partition change or a sweep "
			    "is being applied; try again");
		run_free(r);
		return;
	}
	if (!r->ch.dry_run && pt_fabric_now() != NULL &&
	    pt_intent_pending(pt_state.store, action, sizeof(action))) {
		if (r->ch.req)
			ctl_reply_error(r->ch.req, PERR_BUSY, "an interrupted '%s' is not undone yet "
			    "(a port did not answer); it is tried again at the next sweep", action);
		run_free(r);
		return;
	}
	if (pt_config_check(r->ch.proposed, &e) != 0) {
		reject(r, &e);
		return;
	}
	if ((f = pt_fabric_now()) == NULL) {
		/* another SM owns the tables and nothing here ever will */
		if (sm_observer_refusal(pt_state.sm, why, sizeof(why)) != NULL) {
			pt_err_set(&e, PERR_UNAVAILABLE, "not written: %s", why);
			reject(r, &e);
			return;
		}
		if (pt_replica_refusal(why, sizeof(why)) != NULL) {
			pt_err_set(&e, PERR_UNAVAILABLE, "not written: %s", why);
			reject(r, &e);
			return;
		}
		store_only(r);
		return;
	}
	r->nodes = pt_nodes_of(f, &n);
	plan_input(&in, r->ch.proposed, r->nodes, n, true);
	if (pt_plan_build(&in, &r->plan, &e) != 0) {
		reject(r, &e);
		return;
	}
	if (r->ch.dry_run) {
		if (r->ch.req)
			ctl_reply_ok(r->ch.req, pt_plan_diff_json(&r->plan));
		run_free(r);
		return;
	}
	if (!pt_replica_on()) {
		/* the plan was this turn's work; the intent and the first
		 * writes are the next ones' (turns.h) */
		pt_state.busy = true;
		pt_next_turn(apply_turn, r);
		return;
	}
	/* with ha: committed to etcd first, then applied (replica.c) */
	if (pt_replica_refusal(why, sizeof(why)) != NULL) {
		pt_err_set(&e, PERR_UNAVAILABLE, "not written: %s", why);
		reject(r, &e);
		return;
	}
	pt_state.busy = true;
	if (pt_replica_publish(r->ch.proposed, r->plan.index, r->plan.nindex, r->ch.action,
	    published, r) != 0) {
		pt_state.busy = false;
		pt_err_set(&e, PERR_UNAVAILABLE, "not written: etcd could not be asked");
		reject(r, &e);
	}
}

/* ---- the sweep hook ---- */

struct sweep {
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

/* The sweep's commit, on its own turn after its tables are stored. */
static void
sweep_commit_turn(void *arg)
{
	struct sweep *s = arg;
	const struct pt_plan *plan = &s->plan;

	if (stopped()) {
		sweep_free(s);
		return;
	}
	pt_state.busy = false;
	store_begin(pt_state.store);
	pt_intent_clear(pt_state.store);
	if (s->applied_ok && !s->quarantine && (plan->nindex != pt_state.nindex ||
	    (plan->nindex && memcmp(plan->index, pt_state.index,
	    plan->nindex * sizeof(*plan->index)) != 0))) {
		set_index(plan->index, plan->nindex);
		pt_store_save_model(pt_state.store, pt_state.model, plan->index, plan->nindex);
	}
	if (s->outcome != NULL) {
		pt_history_add(0, false, "sweep", NULL, s->applied_ok ? "ok" : "failed", s->outcome);
		event_post(s->applied_ok ? EV_INFO : EV_ERROR, "partitions", NULL, "sweep: %s",
		    s->outcome);
	}
	store_commit(pt_state.store);
	s->done(s->token);
	sweep_free(s);
}

static void
on_swept(struct pt_plan *plan, const struct pt_apply_report *rep, void *arg)
{
	struct sweep *s = arg;
	struct pt_table *rows;
	size_t nrows;

	if (stopped()) {
		sweep_free(s);
		return;
	}
	s->applied_ok = rep->ok;
	if (!rep->ok)
		s->outcome = failure_text(rep);
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
quarantine_plan(struct fabric_node **nodes, size_t n, struct pt_plan *plan)
{
	struct pt_plan_input in;
	struct pt_err e;

	plan_input(&in, pt_state.model, nodes, n, false);
	return pt_plan_quarantine(&in, plan, &e);
}

/* A sweep that arrives while a change is on the fabric waits for it. */
static struct {
	bool			 pending;
	struct fabric		*f;
	bool			 topology_changed;
	void			(*done)(void *token);
	void			*token;
} deferred;

void
pt_sweep_resume(void)
{
	if (!deferred.pending)
		return;
	deferred.pending = false;
	pt_sweep_hook(deferred.f, deferred.topology_changed, deferred.done, deferred.token, NULL);
}

/*
 * A change a crash interrupted (intent.c): its ports are read back and
 * put back to what they held before it, the committed state, before this
 * sweep plans anything.  A failure keeps the intent for the next sweep.
 */
struct recovery {
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
on_recovered(struct pt_plan *plan, const struct pt_apply_report *rep, void *arg)
{
	struct recovery *rc = arg;
	char *msg;

	if (stopped()) {
		pt_plan_free(&rc->plan);
		free(rc->nodes);
		free(rc);
		return;
	}
	pt_state.busy = false;
	store_begin(pt_state.store);
	pt_tables_update(plan);
	if (rep->ok) {
		/* ports not in the fabric now: their tables are unknown, read
		 * (and written) when they come back */
		pt_intent_forget_missing(pt_state.store, rc->nodes, rc->nnodes);
		pt_intent_clear(pt_state.store);
	}
	if (rep->ok)
		xasprintf(&msg, "an interrupted '%s' was undone: %zu port%s read back, %zu put back to "
		    "the committed table%s%s", rc->action, plan->nports, plan->nports == 1 ? "" : "s",
		    rep->ports_written, rep->ports_written == 1 ? "" : "s",
		    rc->missing ? "; ports not in the fabric now are read when they return" : "");
	else
		msg = failure_text(rep);
	pt_history_add(0, false, "recover", NULL, rep->ok ? "ok" : "failed", msg);
	store_commit(pt_state.store);
	event_post(rep->ok ? EV_WARNING : EV_ERROR, "partitions", NULL, "recovery: %s", msg);
	free(msg);
	pt_plan_free(&rc->plan);
	free(rc->nodes);
	/* now the sweep's own tables, from the committed state; nothing new
	 * is written while an interrupted change is not undone */
	if (rep->ok)
		pt_sweep_hook(rc->f, rc->topology_changed, rc->done, rc->token, NULL);
	else
		rc->done(rc->token);
	free(rc);
}

static bool
start_recovery(struct fabric *f, bool topology_changed, void (*done)(void *token), void *token)
{
	struct recovery *rc;
	char action[64];
	struct mad_io io;
	size_t n;

	if (!pt_intent_pending(pt_state.store, action, sizeof(action)))
		return false;
	rc = xcalloc(1, sizeof(*rc));
	snprintf(rc->action, sizeof(rc->action), "%s", action);
	rc->f = f;
	rc->topology_changed = topology_changed;
	rc->done = done;
	rc->token = token;
	rc->nodes = pt_nodes_of(f, &n);
	rc->nnodes = n;
	pt_intent_plan(pt_state.store, rc->nodes, n, &rc->plan, &rc->missing);
	io = mad_io_engine(fabricd_mad());
	pt_state.busy = true;
	if (pt_apply_start(&rc->plan, &io, on_recovered, rc) != 0) {
		pt_state.busy = false;
		pt_plan_free(&rc->plan);
		free(rc->nodes);
		free(rc);
		return false;
	}
	return true;
}

void
pt_sweep_hook(struct fabric *f, bool topology_changed, void (*done)(void *token),
    void *token, void *arg)
{
	struct sweep *s;
	struct pt_plan_input in;
	struct mad_io io;
	struct pt_err e;
	size_t n;

	if (!pt_state.running || fabricd_mad() == NULL || !sm_is_master(pt_state.sm) ||
	    deferred.pending || !pt_replica_ready()) {
		/* with ha, nothing is programmed before the latest intent is read */
		done(token);
		return;
	}
	if (pt_state.busy) {
		deferred.pending = true;
		deferred.f = f;
		deferred.topology_changed = topology_changed;
		deferred.done = done;
		deferred.token = token;
		return;
	}
	if (start_recovery(f, topology_changed, done, token))
		return;
	s = xcalloc(1, sizeof(*s));
	s->done = done;
	s->token = token;
	s->nodes = pt_nodes_of(f, &n);
	plan_input(&in, pt_state.model, s->nodes, n, false);
	if (pt_plan_build(&in, &s->plan, &e) != 0) {
		/* fail closed: the partition set is not written, unknown ports
		 * are quarantined, and the operator hears of it */
		event_post(EV_CRITICAL, "partitions", NULL, "sweep: P_Key tables not planned: %s; "
		    "ports not known before get the default partition only", e.msg);
		pt_history_add(0, false, "sweep", NULL, "rejected", e.msg);
		s->quarantine = true;
		if (quarantine_plan(s->nodes, n, &s->plan) != 0) {
			free(s->nodes);
			free(s);
			done(token);
			return;
		}
	}
	if (pt_plan_dirty_blocks(&s->plan) == 0) {	/* unchanged fabric: no MADs */
		pt_plan_free(&s->plan);
		free(s->nodes);
		free(s);
		done(token);
		return;
	}
	io = mad_io_engine(fabricd_mad());
	pt_state.busy = true;
	if (pt_apply_start_intent(&s->plan, &io, record_sweep, on_swept, s) != 0) {
		pt_state.busy = false;
		pt_plan_free(&s->plan);
		free(s->nodes);
		free(s);
		done(token);
	}
}
