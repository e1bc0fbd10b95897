/*
 * The SM's control commands (common/commands.def, sm section).  All read
 * the published model; `sweep` answers when the sweep it caused has
 * finished (status.c answers it).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "daemon/control.h"
#include "fabric/port_page.h"
#include "sm/sa/sa.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

struct fabric *
sm_ctl_fabric(struct ctl_req *req)
{
	struct sm *sm = sm_of_req(req);

	if (sm && sm->observer && sm->fabric == NULL) {
		int64_t due = sm_observer_next_read_in_ms(sm);

		if (due > 0)
			ctl_reply_error(req, PERR_UNAVAILABLE, "observer mode: the first read of the "
			    "fabric from the master SM's SA is pending, due in %lld s (see status)",
			    (long long)(due + 999) / 1000);
		else
			ctl_reply_error(req, PERR_UNAVAILABLE, "observer mode: the first read of the "
			    "fabric from the master SM's SA is under way (see status)");
		return NULL;
	}
	if (sm == NULL || sm->fabric == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager has not swept yet");
		return NULL;
	}
	return sm->fabric;
}

/* Rows of one paged reply (`nodes`, `ports`, `links`): 256 rows cost
 * about 2 ms of the loop at 9 us a row (a page's JSON built and written),
 * and a filter that keeps few ports looks at no more than 65,536 ports (a
 * fraction of a ms) before it answers with what it has and a cursor. */
#define PAGE_ROWS	256
#define PAGE_SCAN	65536

/* args.after, the `next` of the page before, as parse() reads it: 1 with
 * *key set, 0 when there is none, -1 when it is not a cursor (answered). */
static int
page_after(struct ctl_req *req, json_t *args, int (*parse)(const char *, void *), void *key,
    const char *form)
{
	const char *cursor = ctl_arg_str(args, "after");

	if (cursor == NULL)
		return 0;
	if (parse(cursor, key) == 0)
		return 1;
	ctl_reply_error(req, PERR_INVALID_ARGUMENT, "after: expected the \"next\" "
	    "of an earlier page (%s), not \"%.40s\"", form, cursor);
	return -1;
}

static int
parse_port_cursor(const char *s, void *k)
{
	return port_cursor_parse(s, k);
}

static int
parse_guid_cursor(const char *s, void *g)
{
	return guid_cursor_parse(s, g);
}

/* One page after the cursor args.after: "nodes" and, while more may
 * follow, "next".  fabricctl follows next itself; a raw client that sends
 * no cursor gets the first page. */
void
ctl_sm_nodes(struct ctl_req *req, json_t *args)
{
	struct fabric *f = sm_ctl_fabric(req);
	const struct fabric_node *rows[PAGE_ROWS];
	struct node_page pg = { .rows = rows, .max = PAGE_ROWS };
	char next[PORT_CURSOR_LEN];
	uint64_t after;
	json_t *res, *arr;
	int has;

	if (f == NULL || (has = page_after(req, args, parse_guid_cursor, &after, "0xGUID")) < 0)
		return;
	node_page_fill(f, has ? &after : NULL, &pg);
	res = json_pack("{s:[]}", "nodes");
	arr = json_object_get(res, "nodes");
	for (size_t i = 0; i < pg.n; i++) {
		const struct fabric_node *n = rows[i];

		json_array_append_new(arr, json_pack("{s:o, s:s, s:i, s:i, s:i, s:s, s:b}",
		    "guid", sm_guid_json(n->guid), "type", fabric_node_type_name(n->type),
		    "lid", n->lid, "ports", n->nports, "hops", n->hops, "description", n->desc,
		    "unreachable", n->unreachable));
	}
	if (pg.more) {
		guid_cursor_format(pg.next, next, sizeof(next));
		json_object_set_new(res, "next", json_string(next));
	}
	ctl_reply_ok(req, res);
}

/* The states --state accepts: those the protocol writes (fabric.h), and
 * "disabled". */
static bool
port_state_known(const char *s)
{
	for (uint8_t st = 1; st <= 4; st++)
		if (strcasecmp(s, fabric_port_state_key(st)) == 0)
			return true;
	return strcasecmp(s, "disabled") == 0;
}

/* Disabled: in the set `port disable` keeps, or PortPhysicalState
 * Disabled as last read (an ibportstate disable).  A disabled port's
 * PortState says little: ibsim leaves it Active, hardware Down. */
static bool
port_disabled(const struct sm *sm, const struct fabric_port *p)
{
	return (sm && sm_port_disabled(sm, p)) || p->phys_state == PORT_PHYS_DISABLED;
}

static json_t *
port_json(const struct sm *sm, const struct fabric_port *p)
{
	const struct fabric_node *n = p->node;
	json_t *o = json_pack("{s:s, s:i, s:o, s:i, s:s, s:b, s:s, s:s, s:b, s:b}",
	    "node", n->desc, "port", p->num, "guid", sm_guid_json(p->guid),
	    "lid", n->type == FABRIC_SWITCH ? n->lid : p->lid,
	    "state", fabric_port_state_key(p->state), "linkup", p->linkup,
	    "width", fabric_width_name(p->width_active), "speed", fabric_speed_name(p),
	    "degraded", p->degraded, "disabled", port_disabled(sm, p));
	char peer[96];

	snprintf(peer, sizeof(peer), "%s:%u", n->desc, p->num);
	json_object_set_new(o, "object", json_string(peer));
	if (p->peer) {
		snprintf(peer, sizeof(peer), "%s:%u", p->peer->node->desc, p->peer->num);
		json_object_set_new(o, "peer", json_string(peer));
	} else
		json_object_set_new(o, "peer", json_null());
	return o;
}

struct ports_filter {
	const struct sm		*sm;
	const struct fabric_node *only;
	const char		*state;
	bool			 degraded;
};

/* --state: "disabled" the disabled ports; "down" the cabled ports whose
 * link is down (a port that never had a peer since the start is no
 * cable pulled: left out) and the disabled ones; else PortState. */
static bool
state_matches(const struct ports_filter *w, const struct fabric_port *p)
{
	if (w->state == NULL)
		return true;
	if (strcasecmp(w->state, "disabled") == 0)
		return port_disabled(w->sm, p);
	if (strcasecmp(w->state, "down") == 0)
		return port_disabled(w->sm, p) || (p->state == FABRIC_PORT_DOWN &&
		    (w->sm == NULL || p->node->type != FABRIC_SWITCH ||
		    sm_port_was_linked(w->sm, p)));
	return strcasecmp(w->state, fabric_port_state_key(p->state)) == 0;
}

/* Every switch port and every CA port with a GUID, as the filters allow. */
static bool
port_listed(const struct fabric_port *p, void *arg)
{
	const struct ports_filter *w = arg;

	if ((w->only && p->node != w->only) || (p->node->type != FABRIC_SWITCH && !p->guid))
		return false;
	return state_matches(w, p) && !(w->degraded && !p->degraded);
}

/* One page, after the cursor args.after (the `next` of the page before):
 * "ports" and, while more may follow, "next".  fabricctl follows next
 * itself; a raw client that sends no cursor gets the first page. */
void
ctl_sm_ports(struct ctl_req *req, json_t *args)
{
	struct fabric *f = sm_ctl_fabric(req);
	const char *name = ctl_arg_str(args, "node");
	struct ports_filter w = { .sm = sm_of_req(req), .state = ctl_arg_str(args, "state"),
	    .degraded = ctl_arg_bool(args, "degraded") };
	const struct fabric_port *rows[PAGE_ROWS];
	struct port_page pg = { .rows = rows, .max = PAGE_ROWS, .scan_max = PAGE_SCAN };
	struct port_key after, *from = NULL;
	char next[PORT_CURSOR_LEN];
	json_t *res;
	int has;

	if (f == NULL)
		return;
	if (name && (w.only = fabric_node_lookup(f, name)) == NULL) {
		ctl_reply_error(req, PERR_NOT_FOUND, "no node named %s", name);
		return;
	}
	if (w.state && !port_state_known(w.state)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT,
		    "state: expected down, init, armed, active or disabled, not \"%.32s\"",
		    w.state);
		return;
	}
	if ((has = page_after(req, args, parse_port_cursor, &after, "0xGUID:PORT")) < 0)
		return;
	if (has)
		from = &after;
	/* One node's ports: start at its first, not at the model's. */
	if (w.only && (!from || after.node_guid < w.only->guid)) {
		after = (struct port_key){ w.only->guid, 0 };
		from = &after;
	}
	port_page_fill(f, from, port_listed, &w, &pg);
	res = json_pack("{s:[]}", "ports");
	for (size_t i = 0; i < pg.n; i++)
		json_array_append_new(json_object_get(res, "ports"), port_json(w.sm, rows[i]));
	/* past the one node's ports (the walk looked further): nothing follows */
	if (pg.more && !(w.only && pg.next.node_guid > w.only->guid)) {
		port_cursor_format(&pg.next, next, sizeof(next));
		json_object_set_new(res, "next", json_string(next));
	}
	ctl_reply_ok(req, res);
}

/* One page of the cabled links, each once under its lower end (see
 * port_is_link_end), after the cursor args.after: "links" and, while more
 * may follow, "next" (that end's 0xGUID:PORT), as `ports` pages. */
void
ctl_sm_links(struct ctl_req *req, json_t *args)
{
	struct fabric *f = sm_ctl_fabric(req);
	const struct fabric_port *rows[PAGE_ROWS];
	struct port_page pg = { .rows = rows, .max = PAGE_ROWS, .scan_max = PAGE_SCAN };
	struct port_key after;
	char next[PORT_CURSOR_LEN];
	json_t *res, *arr;
	int has;

	if (f == NULL || (has = page_after(req, args, parse_port_cursor, &after, "0xGUID:PORT")) < 0)
		return;
	port_page_fill(f, has ? &after : NULL, port_is_link_end, NULL, &pg);
	res = json_pack("{s:[]}", "links");
	arr = json_object_get(res, "links");
	for (size_t i = 0; i < pg.n; i++) {
		const struct fabric_port *p = rows[i], *q = p->peer;

		json_array_append_new(arr, json_pack("{s:s, s:i, s:s, s:i, s:s, s:s, s:s, s:b}",
		    "from", p->node->desc, "from_port", p->num, "to", q->node->desc, "to_port", q->num,
		    "state", fabric_port_state_key(p->state), "width", fabric_width_name(p->width_active),
		    "speed", fabric_speed_name(p), "degraded", p->degraded || q->degraded));
	}
	if (pg.more) {
		port_cursor_format(&pg.next, next, sizeof(next));
		json_object_set_new(res, "next", json_string(next));
	}
	ctl_reply_ok(req, res);
}

void
ctl_sm_sweep(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_of_req(req);

	char why[160];

	if (sm == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is not running");
		return;
	}
	if (sm_observer_refusal(sm, why, sizeof(why))) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s: it sweeps the subnet", why);
		return;
	}
	if (sm->state == SM_STATE_STANDBY || sm->state == SM_STATE_NOTACTIVE) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is %s: %s",
		    sm_state_name(sm->state), sm->state == SM_STATE_STANDBY ?
		    "the master SM sweeps the subnet" : "disabled by the master SM");
		return;
	}
	if (sm->nwaiters >= SM_MAX_WAITERS) {
		ctl_reply_error(req, PERR_BUSY, "too many sweeps waiting");
		return;
	}
	/* A sweep already running may have missed what the caller wants
	 * seen: answer after the one that starts next. */
	sm->waiter_sweep[sm->nwaiters] = sm->sweeps + (sm->sweeping ? 2 : 1);
	sm->waiters[sm->nwaiters++] = req;
	/* An operator's heavy sweep also reads every QoS table again: what
	 * another tool changed behind our back is written back. */
	if (ctl_arg_bool(args, "heavy"))
		sm->qos_reread_all = true;
	sm_sweep_request(sm, ctl_arg_bool(args, "heavy"));
}


void
ctl_sm_audit(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_of_req(req);
	char why[160];

	if (sm == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is not running");
		return;
	}
	if (sm_observer_refusal(sm, why, sizeof(why))) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s: the audit runs there", why);
		return;
	}
	ctl_reply_ok(req, sm_audit_json(sm));
}

/*
 * `routing rebalance`: the next heavy sweep routes afresh (or, dry, counts
 * what routing afresh would move against the tables it writes), and the
 * command answers once that sweep is over, from its record.
 */
void
ctl_sm_routing_rebalance(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_of_req(req);
	bool dry = ctl_arg_bool(args, "dry_run");
	char why[160];

	if (sm == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is not running");
		return;
	}
	if (sm_observer_refusal(sm, why, sizeof(why))) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s: the master SM routes the subnet", why);
		return;
	}
	if (sm->state != SM_STATE_MASTER) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is %s: the master SM "
		    "routes the subnet", sm_state_name(sm->state));
		return;
	}
	if (sm->nrebal_waiters >= SM_MAX_WAITERS) {
		ctl_reply_error(req, PERR_BUSY, "too many rebalances waiting");
		return;
	}
	sm->rebal_seq[sm->nrebal_waiters] = sm_rebalance_ask(sm, dry);
	sm->rebal_dry[sm->nrebal_waiters] = dry;
	sm->rebal_waiters[sm->nrebal_waiters++] = req;
}

static json_t *
rebalance_json(const struct sweep_record *r, bool dry)
{
	const struct routing_repair_stats *s = &r->route;
	bool counted = r->rebalance == ROUTING_REBALANCE_DRY;

	if (dry && counted)
		return json_pack("{s:b, s:I, s:I, s:I, s:I, s:o}", "dry_run", 1,
		    "blocks", (json_int_t)s->dry_blocks, "pairs", (json_int_t)s->dry_pairs,
		    "hottest_link_routes", (json_int_t)s->hottest,
		    "hottest_link_routes_after", (json_int_t)s->dry_hottest,
		    "sweep", sm_sweep_json(r));
	return json_pack("{s:b, s:I, s:I, s:o}", "dry_run", 0,
	    "blocks", (json_int_t)s->blocks_moved, "pairs", (json_int_t)s->pairs_moved,
	    "sweep", sm_sweep_json(r));
}

/* Answer the rebalances the last sweep's routing served; while this SM
 * is not master none will be: they are told so. */
static void
rebalance_waiters_answer(struct sm *sm)
{
	size_t i, kept = 0;

	for (i = 0; i < sm->nrebal_waiters; i++) {
		if (sm->last.routed && sm->last.rebalance_seq >= sm->rebal_seq[i]) {
			ctl_reply_ok(sm->rebal_waiters[i], rebalance_json(&sm->last, sm->rebal_dry[i]));
			continue;
		}
		if (sm->state != SM_STATE_MASTER) {
			ctl_reply_error(sm->rebal_waiters[i], PERR_UNAVAILABLE,
			    "the subnet manager is no longer master");
			continue;
		}
		sm->rebal_waiters[kept] = sm->rebal_waiters[i];
		sm->rebal_dry[kept] = sm->rebal_dry[i];
		sm->rebal_seq[kept++] = sm->rebal_seq[i];
	}
	sm->nrebal_waiters = kept;
}

/* Answer the `sweep` commands that waited for this sweep. */
static void
waiters_answer(struct sm *sm)
{
	size_t i, kept = 0;

	rebalance_waiters_answer(sm);

	for (i = 0; i < sm->nwaiters; i++) {
		if (sm->waiter_sweep[i] <= sm->sweeps) {
			ctl_reply_ok(sm->waiters[i], json_pack("{s:o}", "sweep", sm_sweep_json(&sm->last)));
			continue;
		}
		sm->waiters[kept] = sm->waiters[i];
		sm->waiter_sweep[kept++] = sm->waiter_sweep[i];
	}
	sm->nwaiters = kept;
}

/* What the control handlers hear from the core (module.c registers it). */
const struct sm_listener sm_ctl_listener = {
	.sweep_finished = waiters_answer,
};
