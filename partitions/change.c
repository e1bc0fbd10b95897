/*
 * The change pipeline: plan -> check -> apply -> verify -> commit, for
 * operator changes, over every plane of the group at once (sweep.c gives
 * new ports their tables before the SM makes them ACTIVE).
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
	struct pt_plan		 plan;		/* every plane's ports */
	struct fabric_node	**nodes[PT_MAX_PLANES];
	/* what the apply reported, kept for the commit's turn */
	bool			 applied_ok;
	size_t			 ports_written, sets, gets;
	char			*outcome;	/* the history's message */
	json_t			*failed_ports;
};


static void
run_free(struct run *r)
{
	if (r->ch.done != NULL && !pt_stopped())
		r->ch.done(r->ch.done_arg, r->ok);
	pt_plan_free(&r->plan);
	pt_config_free(r->ch.proposed);
	for (size_t i = 0; i < PT_MAX_PLANES; i++)
		free(r->nodes[i]);
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
	pt_set_index(idx, nidx);
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
 * The change's commit, on its own turn after its tables are stored
 * (on_applied): the partition set and the end of the intent in one
 * transaction, so a crash sees the change whole or not.
 */
static void
commit_turn(void *arg)
{
	struct run *r = arg;

	if (pt_stopped()) {
		run_free(r);
		return;
	}
	pt_state.busy = false;
	store_begin(pt_state.store);
	pt_intent_clear(pt_state.store, PT_ALL_PLANES);
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

	if (pt_stopped()) {
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
		r->outcome = pt_apply_failure_text(rep);
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
	struct mad_io ios[PT_MAX_PLANES];
	const char *names[PT_MAX_PLANES];
	size_t nios = pt_plane_ios(ios, names);
	struct pt_err e;

	pt_state.busy = true;
	if (pt_apply_start_planes(&r->plan, ios, names, nios, record_change, on_applied, r) != 0) {
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
	if (pt_stopped()) {
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

/*
 * A plane's ports joined to the plan of the planes before it.  Each key
 * has one index on every plane, or no NCCL_IB_PKEY fits the job's ports
 * on all of them: the change is refused then.
 */
static int
merge_plane(struct pt_plan *all, struct pt_plan *one, size_t plane, struct pt_err *e)
{
	for (size_t i = 0; i < all->nindex || i < one->nindex; i++) {
		const struct pt_index *a = i < all->nindex ? &all->index[i] : NULL;
		const struct pt_index *b = i < one->nindex ? &one->index[i] : NULL;

		if (a != NULL && b != NULL && a->pkey == b->pkey && a->index == b->index)
			continue;
		if (a != NULL && b != NULL && a->pkey == b->pkey)
			pt_err_set(e, PERR_CHECK_FAILED, "P_Key 0x%04x would sit at index %u on %s "
			    "and %u on %s: no NCCL_IB_PKEY is valid on every plane; nothing was "
			    "written", a->pkey, a->index, pt_plane_name(0), b->index,
			    pt_plane_name(plane));
		else
			pt_err_set(e, PERR_CHECK_FAILED, "P_Key 0x%04x has holders on %s only: a "
			    "partition spans every plane of the group; nothing was written",
			    (a != NULL && (b == NULL || a->pkey < b->pkey)) ? a->pkey : b->pkey,
			    (a != NULL && (b == NULL || a->pkey < b->pkey)) ? pt_plane_name(0) :
			    pt_plane_name(plane));
		pt_plan_free(one);
		return -1;
	}
	all->ports = xreallocarray(all->ports, all->nports + one->nports, sizeof(*all->ports));
	memcpy(all->ports + all->nports, one->ports, one->nports * sizeof(*one->ports));
	all->nports += one->nports;
	free(one->ports);
	free(one->index);
	memset(one, 0, sizeof(*one));
	return 0;
}

/*
 * The change planned on every plane of the group, as one plan: all of it
 * is applied, or none (apply.c rolls back every plane it wrote).  A
 * plane this SM does not manage now refuses the change.
 */
static int
plan_planes(struct run *r, struct pt_err *e)
{
	struct pt_plan_input in;
	struct pt_plan one;
	struct fabric *f;
	size_t n;

	for (size_t pl = 0; pl < pt_state.nplanes; pl++) {
		if ((f = pt_plane_fabric(pl)) == NULL) {
			pt_err_set(e, PERR_UNAVAILABLE, "not written: subnet %s is not managed by "
			    "this SM now (not master, or not swept yet); a change lands on every "
			    "plane of the group or on none", pt_plane_name(pl));
			return -1;
		}
		r->nodes[pl] = pt_nodes_of(f, &n);
		pt_plan_input(&in, r->ch.proposed, r->nodes[pl], n, true, pl);
		memset(&one, 0, sizeof(one));
		if (pt_plan_build(&in, pl == 0 ? &r->plan : &one, e) != 0) {
			if (pt_state.nplanes > 1) {
				char msg[sizeof(e->msg)];

				if (snprintf(msg, sizeof(msg), "%s: %s", pt_plane_name(pl), e->msg) >= 0)
					memcpy(e->msg, msg, sizeof(msg));
			}
			return -1;
		}
		if (pl > 0 && merge_plane(&r->plan, &one, pl, e) != 0)
			return -1;
	}
	return 0;
}

void
pt_change_run(struct pt_change *ch)
{
	struct run *r = xcalloc(1, sizeof(*r));
	char action[64], why[256];
	struct pt_err e;

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
	    pt_intent_pending(pt_state.store, PT_ALL_PLANES, action, sizeof(action))) {
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
	if (pt_fabric_now() == NULL) {
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
	if (plan_planes(r, &e) != 0) {
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
