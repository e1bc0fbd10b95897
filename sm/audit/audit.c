/*
 * The audit (sm/audit/audit.h): every audit_interval, read back up to
 * audit_mad_budget MADs' worth of what fabricd programmed, walking the
 * published model node by node and checker by checker; a pass ends when
 * the walk has covered the whole fabric, and the next one starts at the
 * next interval.  Whatever differs is told as an event naming the node,
 * port, table, block and difference, and put back with one Set; the Set's
 * reply is checked as a read-back, so a port that does not keep what was
 * written is told once and not written again every pass.
 *
 * Only the master audits, and not during a heavy sweep: a heavy sweep
 * starting forgets the audit's MADs in flight (their callbacks point into
 * the model it replaces, and a repair from the old routes must not land
 * after the new ones), and the cursor goes back to the start of the slice
 * those MADs were, so the slice is read again afterwards.  A light sweep
 * replaces nothing: the audit runs beside it (light sweeps come every 10 s
 * by default, and an audit that gave way to them never finished a slice).
 * An interval that falls inside a heavy sweep runs when it ends.  A trap
 * about a node (128, 256) checks that node at once, outside the budget.
 *
 * Every read that comes back tells the checker what the switch holds
 * (held()): the SM's copy follows the switch, so a later sweep diffs
 * against what is there, not against what it believes it wrote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/audit/audit.h"

/* An event's object: the port, NODE:PORT (its message then names only the
 * table and block: docs/cli.md, an object named once). */
static const char *
port_object(const struct fabric_node *n, uint8_t port, char *buf, size_t len)
{
	char name[FABRIC_NODE_DESC_LEN + 24];

	snprintf(buf, len, "%s:%u", sm_node_label(n, name, sizeof(name)), port);
	return buf;
}

static const struct audit_checker *const checkers[] = {
	&audit_lft_checker,
	&audit_pkey_checker,
	&audit_portinfo_checker,
	&audit_qos_checker,	/* SL2VL and VLArb (audit_qos.c) */
	&audit_mft_checker,	/* multicast forwarding (audit_mft.c) */
};
#define NCHECKERS (sizeof(checkers) / sizeof(checkers[0]))

/*
 * What a MAD was for travels in its callback argument: the node's index
 * in the published model, the checker, the item, which of its Gets, and
 * whether it is the repairing Set.  The model does not change under an
 * audit MAD (a sweep cancels them first), so the index finds the node.
 */
#define OP_SET		1ull
static void *
op_of(size_t node, size_t chk, size_t item, size_t j, bool set)
{
	return (void *)(uintptr_t)((uint64_t)node << 40 | (uint64_t)chk << 36 |
	    (uint64_t)(item & 0xFFFF) << 20 | (uint64_t)(j & 0xFFF) << 8 | (set ? OP_SET : 0));
}
static size_t op_node(void *op) { return (size_t)((uintptr_t)op >> 40); }
static size_t op_chk(void *op) { return (size_t)((uintptr_t)op >> 36) & 0xF; }
static size_t op_item(void *op) { return (size_t)((uintptr_t)op >> 20) & 0xFFFF; }
static size_t op_get(void *op) { return (size_t)((uintptr_t)op >> 8) & 0xFFF; }
static bool op_set(void *op) { return ((uintptr_t)op & OP_SET) != 0; }

/* A heavy sweep is building the next model (or about to publish it). */
static bool
heavy_sweeping(const struct sm *sm)
{
	return sm->sweeping && sm->cur.kind == SWEEP_HEAVY;
}

static bool
audit_may_run(const struct sm *sm)
{
	return sm->cfg.audit && sm->state == SM_STATE_MASTER && sm->subnet_up &&
	    !heavy_sweeping(sm) && sm->fabric != NULL && sm->rt != NULL;
}

/* One difference, one key: told once until it is mended. */
static uint64_t
diff_key(const struct fabric_node *n, size_t chk, const struct audit_get *g)
{
	uint64_t k = n->guid * 0x9E3779B97F4A7C15ull;

	k ^= (uint64_t)chk << 60 ^ (uint64_t)g->port << 44 ^ (uint64_t)g->block << 28 ^ g->attr;
	return k ? k : 1;
}

static struct sm_audit_finding *
record_finding(struct sm *sm, const struct fabric_node *n, const struct audit_checker *c,
    const struct audit_get *g, const char *diff)
{
	struct sm_audit_finding *f = &sm->audit->found[sm->audit->nfound++ % SM_AUDIT_FINDINGS];
	char name[FABRIC_NODE_DESC_LEN + 24];

	memset(f, 0, sizeof(*f));
	f->time_ms = event_now_ms();
	f->table = c->table;
	snprintf(f->where, sizeof(f->where), "%s:%u", sm_node_label(n, name, sizeof(name)),
	    g->port);
	f->port = g->port;
	f->block = g->block;
	snprintf(f->diff, sizeof(f->diff), "%s", diff);
	sm->audit->findings++;
	sm->audit->cur.findings++;
	return f;
}

/* The finding a repair's reply is about: the newest one of that place. */
static struct sm_audit_finding *
finding_of(struct sm *sm, const struct audit_checker *c, const struct fabric_node *n,
    const struct audit_get *g)
{
	char name[FABRIC_NODE_DESC_LEN + 24], where[sizeof(sm->audit->found[0].where)];
	size_t i, total = sm->audit->nfound;

	snprintf(where, sizeof(where), "%s:%u", sm_node_label(n, name, sizeof(name)), g->port);
	for (i = 0; i < SM_AUDIT_FINDINGS && i < total; i++) {
		struct sm_audit_finding *f = &sm->audit->found[(total - 1 - i) % SM_AUDIT_FINDINGS];
		if (f->table == c->table && f->block == g->block && strcmp(f->where, where) == 0)
			return f;
	}
	return NULL;
}

static void on_audit_reply(const struct mad_result *res, void *owner, void *op);

static bool
node_get(struct sm *sm, void *op, struct fabric_node **n, struct audit_get *g)
{
	struct audit_get gets[AUDIT_MAX_GETS];
	size_t ng;

	if (op_node(op) >= fabric_node_count(sm->fabric) || op_chk(op) >= NCHECKERS)
		return false;
	*n = fabric_node_at(sm->fabric, op_node(op));
	ng = checkers[op_chk(op)]->gets(sm, *n, op_item(op), gets);
	if (op_get(op) >= ng)
		return false;		/* what is expected changed meanwhile */
	*g = gets[op_get(op)];
	return true;
}

static void
repair(struct sm *sm, void *op, const struct fabric_node *n, const struct audit_checker *c,
    const struct audit_get *g, const uint8_t *set)
{
	sm->audit->sets++;
	sm->audit->repairs_pending++;
	mad_batch_smp(&sm->audit->batch, &g->addr, IB_MAD_METHOD_SET, g->attr, g->mod, set,
	    on_audit_reply, op_of(op_node(op), op_chk(op), op_item(op), op_get(op), true));
}

/* A repair's reply is a read-back: did the port keep it? */
static void
on_repair_reply(struct sm *sm, void *op, struct fabric_node *n, const struct audit_get *g,
    const uint8_t *data)
{
	const struct audit_checker *c = checkers[op_chk(op)];
	struct sm_audit_finding *f = finding_of(sm, c, n, g);
	uint8_t set[IB_SMP_DATA_SIZE] MAD_ALIGNED;
	char diff[AUDIT_DIFF_LEN] = "", name[FABRIC_NODE_DESC_LEN + 24];

	if (sm->audit->repairs_pending)
		sm->audit->repairs_pending--;
	if (data && c->held)
		c->held(sm, n, g, data);	/* what the port holds now, kept or not */
	if (data && c->check(sm, n, g, data, set, diff, sizeof(diff)) == AUDIT_SAME) {
		sm->audit->repairs++;
		sm->audit->cur.repairs++;
		if (f)
			f->repaired = true;
		guid_map_put(&sm->audit->told, diff_key(n, op_chk(op), g), NULL);
		event_post(EV_INFO, sm_source(sm), port_object(n, g->port, name, sizeof(name)),
		    "audit: %s block %u put back", c->table, g->block);
		return;
	}
	sm->audit->repair_failed++;
	sm->audit->cur.failures++;
	if (data == NULL) {
		/* No answer says nothing of what the port holds: the Set may
		 * or may not have landed.  Not "told": the next pass reads it
		 * again and decides from what it finds. */
		guid_map_put(&sm->audit->told, diff_key(n, op_chk(op), g), NULL);
		event_post(EV_WARNING, sm_source(sm), port_object(n, g->port, name, sizeof(name)),
		    "audit: %s block %u: the repair got no answer; read again at the next "
		    "pass", c->table, g->block);
		return;
	}
	if (f)
		f->repair_failed = true;
	event_post(EV_ERROR, sm_source(sm), port_object(n, g->port, name, sizeof(name)),
	    "audit: %s block %u not put back (the port did not keep it); not written again "
	    "until it changes", c->table, g->block);
}

static void
on_audit_reply(const struct mad_result *res, void *owner, void *op)
{
	struct sm *sm = owner;
	const struct audit_checker *c;
	uint8_t set[IB_SMP_DATA_SIZE] MAD_ALIGNED;
	char diff[AUDIT_DIFF_LEN] = "", name[FABRIC_NODE_DESC_LEN + 24];
	const uint8_t *data = mad_reply_ok(res) ? res->mad + MAD_DATA_OFFSET : NULL;
	struct fabric_node *n;
	struct audit_get g;
	enum audit_verdict v;
	uint64_t key;

	if (!node_get(sm, op, &n, &g))
		return;
	c = checkers[op_chk(op)];
	if (op_set(op)) {
		on_repair_reply(sm, op, n, &g, data);
		return;
	}
	if (data == NULL) {
		sm->audit->read_failures++;
		return;
	}
	memcpy(set, data, sizeof(set));
	v = c->check(sm, n, &g, data, set, diff, sizeof(diff));
	if (v != AUDIT_SKIP && c->held)
		c->held(sm, n, &g, data);	/* the copy follows the switch, same or not */
	key = diff_key(n, op_chk(op), &g);
	if (v == AUDIT_SAME) {
		guid_map_put(&sm->audit->told, key, NULL);
		return;
	}
	if (v == AUDIT_SKIP || guid_map_get(&sm->audit->told, key) != NULL)
		return;		/* told already; a repair it did not keep is not retried */
	guid_map_put(&sm->audit->told, key, (void *)1);
	record_finding(sm, n, c, &g, diff);
	event_post(EV_WARNING, sm_source(sm), port_object(n, g.port, name, sizeof(name)),
	    "audit: %s block %u differs from what fabricd programmed: %s%s", c->table,
	    g.block, diff, v == AUDIT_DIFF ? "; putting it back" : "");
	if (v == AUDIT_DIFF)
		repair(sm, op, n, c, &g, set);
}

/* Send the Gets of one item; returns how many. */
static size_t
send_item(struct sm *sm, size_t node, size_t chk, size_t item)
{
	struct audit_get gets[AUDIT_MAX_GETS];
	struct fabric_node *n = fabric_node_at(sm->fabric, node);
	size_t ng = checkers[chk]->gets(sm, n, item, gets), j;

	for (j = 0; j < ng; j++)
		mad_batch_smp(&sm->audit->batch, &gets[j].addr, IB_MAD_METHOD_GET, gets[j].attr,
		    gets[j].mod, NULL, on_audit_reply, op_of(node, chk, item, j, false));
	sm->audit->reads += ng;
	sm->audit->cur.reads += ng;
	sm->audit->slice_reads += ng;
	return ng;
}

/* Gets of item `item` without sending them (for the budget). */
static size_t
item_cost(struct sm *sm, size_t node, size_t chk, size_t item)
{
	struct audit_get gets[AUDIT_MAX_GETS];

	return checkers[chk]->gets(sm, fabric_node_at(sm->fabric, node), item, gets);
}

static void
pass_end(struct sm *sm)
{
	struct sm_audit *a = sm->audit;

	a->cur.end_ms = event_now_ms();
	a->cur.complete = true;
	a->last = a->cur;
	a->passes++;
	a->in_pass = false;
	log_debug("sm: audit pass %llu: %llu reads, %llu findings, %llu repairs in %lld ms",
	    (unsigned long long)a->passes, (unsigned long long)a->last.reads,
	    (unsigned long long)a->last.findings, (unsigned long long)a->last.repairs,
	    (long long)(a->last.end_ms - a->last.start_ms));
}

/* The interval's MADs have all answered: the pass may be over. */
static void
on_drained(void *owner)
{
	struct sm *sm = owner;

	if (sm->audit->in_pass && sm->audit->node >= fabric_node_count(sm->fabric))
		pass_end(sm);
}

/* Walk on from the cursor until the budget is spent or the fabric covered. */
static void
audit_step(struct sm *sm)
{
	struct sm_audit *a = sm->audit;
	size_t used = 0, budget = (size_t)sm->cfg.audit_mad_budget, count;

	if (!a->in_pass) {
		memset(&a->cur, 0, sizeof(a->cur));
		a->cur.start_ms = event_now_ms();
		a->node = a->chk = a->item = 0;
		a->in_pass = true;
	}
	a->due = false;
	a->slice_node = a->node;
	a->slice_chk = a->chk;
	a->slice_item = a->item;
	a->slice_reads = 0;
	count = fabric_node_count(sm->fabric);
	while (a->node < count) {
		const struct fabric_node *n = fabric_node_at(sm->fabric, a->node);
		size_t cost;

		if (a->chk >= NCHECKERS || n->unreachable) {
			a->node++;
			a->chk = a->item = 0;
			continue;
		}
		if (a->item >= checkers[a->chk]->items(sm, n)) {
			a->chk++;
			a->item = 0;
			continue;
		}
		cost = item_cost(sm, a->node, a->chk, a->item);
		if (used > 0 && used + cost > budget)
			break;		/* the next interval goes on from here */
		used += send_item(sm, a->node, a->chk, a->item);
		a->item++;
		if (used >= budget)
			break;
	}
	mad_batch_wait(&a->batch, on_drained);
}

/* A targeted check: every table of one node, outside the budget. */
static void
check_node(struct sm *sm, size_t node)
{
	const struct fabric_node *n = fabric_node_at(sm->fabric, node);
	size_t chk, item;

	if (n->unreachable)
		return;		/* not answering: the light sweeps probe it */
	for (chk = 0; chk < NCHECKERS; chk++)
		for (item = 0; item < checkers[chk]->items(sm, n); item++)
			send_item(sm, node, chk, item);
	sm->audit->targeted++;
}

static void
run_targets(struct sm *sm)
{
	struct sm_audit *a = sm->audit;
	size_t t, i;
	struct fabric_node *n;

	if (!audit_may_run(sm) || a->ntargets == 0)
		return;
	for (t = 0; t < a->ntargets; t++)
		FABRIC_FOREACH_NODE(sm->fabric, i, n)
			if (n->guid == a->targets[t])
				check_node(sm, i);
	a->ntargets = 0;
	mad_batch_wait(&a->batch, on_drained);
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	if (audit_may_run(sm))
		audit_step(sm);
	else if (heavy_sweeping(sm))
		sm->audit->due = true;	/* run at its end (audit_on_sweep_ended) */
}

static void
kick_cb(evutil_socket_t fd, short what, void *arg)
{
	run_targets(arg);
}

static void
audit_on_target_lid(struct sm *sm, uint16_t lid)
{
	struct sm_audit *a = sm->audit;
	struct fabric_port *p;
	struct timeval now = { 0, 0 };
	size_t i;

	if (!sm->cfg.audit || sm->fabric == NULL || (p = fabric_port_by_lid(sm->fabric, lid)) == NULL)
		return;
	for (i = 0; i < a->ntargets && a->targets[i] != p->node->guid; i++)
		;
	if (i == a->ntargets && a->ntargets < SM_AUDIT_TARGETS)
		a->targets[a->ntargets++] = p->node->guid;
	if (!sm->sweeping && a->kick)
		evtimer_add(a->kick, &now);
}

static void
audit_on_heavy_started(struct sm *sm)
{
	struct sm_audit *a = sm->audit;

	if (a->batch.pending == 0)
		return;			/* the slice is over: nothing to read again */
	mad_batch_cancel(&a->batch);
	if (a->repairs_pending) {
		/* Repairs whose answers will never come: what they found is
		 * no longer "told", so the next pass decides again. */
		guid_map_free(&a->told);
		a->repairs_pending = 0;
	}
	if (!a->in_pass)
		return;
	/* Its replies will never come: the slice is read again, whole. */
	a->node = a->slice_node;
	a->chk = a->slice_chk;
	a->item = a->slice_item;
	a->cur.reads -= a->slice_reads < a->cur.reads ? a->slice_reads : a->cur.reads;
	a->slice_reads = 0;
	a->due = true;
}

static void
audit_on_sweep_ended(struct sm *sm)
{
	struct timeval now = { 0, 0 };

	if (sm->audit->due && audit_may_run(sm))
		audit_step(sm);
	if (sm->audit->ntargets && sm->audit->kick)
		evtimer_add(sm->audit->kick, &now);
}

static void
arm_timer(struct sm *sm)
{
	struct timeval tv = clock_tv_ms(sm->cfg.audit_interval_ms);

	if (sm->audit->timer)
		event_free(sm->audit->timer);
	sm->audit->timer = event_new(sm->fd->base, -1, EV_PERSIST, timer_cb, sm);
	event_add(sm->audit->timer, &tv);
}

/* What the audit hears from the core (hooks.c): it never calls the audit. */
static const struct sm_listener audit_listener = {
	.heavy_started = audit_on_heavy_started,
	.sweeps_idle = audit_on_sweep_ended,
	.trap_about = audit_on_target_lid,
};

void
sm_audit_start(struct sm *sm)
{
	sm->audit = xcalloc(1, sizeof(*sm->audit));
	mad_batch_init(&sm->audit->batch, &sm->batch.io, sm);
	sm->audit->kick = evtimer_new(sm->fd->base, kick_cb, sm);
	if (!sm_listen(sm, &audit_listener))
		log_warnx("sm: audit: no room to hear the sweeps (SM_MAX_LISTENERS)");
	arm_timer(sm);
}

void
sm_audit_reload(struct sm *sm)
{
	if (sm->audit)
		arm_timer(sm);
}

void
sm_audit_stop(struct sm *sm)
{
	if (sm->audit == NULL)
		return;
	mad_batch_free(&sm->audit->batch);
	if (sm->audit->timer)
		event_free(sm->audit->timer);
	if (sm->audit->kick)
		event_free(sm->audit->kick);
	guid_map_free(&sm->audit->told);
	guid_map_free(&sm->audit->enforce_seen);
	free(sm->audit);
	sm->audit = NULL;
}

/* ---- `fabricctl audit` ---- */

/* A pass under way has no end yet: end_ms and duration_ms are null, and
 * elapsed_ms says how long it has run so far. */
static json_t *
pass_json(const struct sm_audit_pass *p)
{
	json_t *o;

	if (p->start_ms == 0)
		return json_null();
	o = json_pack("{s:I, s:I, s:I, s:I, s:b}", "start_ms", (json_int_t)p->start_ms,
	    "reads", (json_int_t)p->reads, "findings", (json_int_t)p->findings,
	    "repairs", (json_int_t)p->repairs, "complete", p->complete);
	if (p->complete) {
		json_object_set_new(o, "end_ms", json_integer(p->end_ms));
		json_object_set_new(o, "duration_ms", json_integer(p->end_ms - p->start_ms));
	} else {
		json_object_set_new(o, "end_ms", json_null());
		json_object_set_new(o, "duration_ms", json_null());
		json_object_set_new(o, "elapsed_ms", json_integer(event_now_ms() - p->start_ms));
	}
	return o;
}

json_t *
sm_audit_json(struct sm *sm)
{
	struct sm_audit *a = sm->audit;
	json_t *found;
	size_t i, total, first;

	if (a == NULL)		/* not started (the SM failed to start) */
		return json_pack("{s:b}", "enabled", false);
	total = a->nfound;
	first = total > SM_AUDIT_FINDINGS ? total - SM_AUDIT_FINDINGS : 0;
	found = json_array();
	for (i = first; i < total; i++) {
		const struct sm_audit_finding *f = &a->found[i % SM_AUDIT_FINDINGS];
		json_array_append_new(found, json_pack("{s:I, s:s, s:s, s:i, s:i, s:s, s:s}",
		    "time_ms", (json_int_t)f->time_ms, "table", f->table, "where", f->where,
		    "port", f->port, "block", f->block, "difference", f->diff,
		    "result", f->repaired ? "repaired" : f->repair_failed ? "not repaired" :
		    "reported"));
	}
	return json_pack("{s:b, s:I, s:I, s:I, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:o}",
	    "enabled", sm->cfg.audit, "interval_ms", (json_int_t)sm->cfg.audit_interval_ms,
	    "mad_budget", (json_int_t)sm->cfg.audit_mad_budget, "passes", (json_int_t)a->passes,
	    "last_pass", pass_json(&a->last), "current_pass", a->in_pass ? pass_json(&a->cur) : json_null(),
	    "totals", "reads", (json_int_t)a->reads, "read_failures", (json_int_t)a->read_failures,
	    "findings", (json_int_t)a->findings, "repairs", (json_int_t)a->repairs,
	    "repair_failed", (json_int_t)a->repair_failed, "sets", (json_int_t)a->sets,
	    "targeted", (json_int_t)a->targeted, "findings", found);
}
