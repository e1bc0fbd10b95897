/*
 * The SM's control commands (common/commands.def, sm section) and its
 * status block.  All read the published model; `sweep` answers when the
 * sweep it caused has finished.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/control.h"
#include "sm/sa.h"
#include "sm/sm_internal.h"

static json_t *
guid_json(uint64_t g)
{
	char buf[24];

	guid_format(g, buf, sizeof(buf));
	return json_string(buf);
}

struct fabric *
sm_ctl_fabric(struct ctl_req *req)
{
	if (sm_current() == NULL || sm_current()->fabric == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager has not swept yet");
		return NULL;
	}
	return sm_current()->fabric;
}

void
ctl_sm_nodes(struct ctl_req *req, json_t *args)
{
	struct fabric *f = sm_ctl_fabric(req);
	struct fabric_node *n;
	json_t *rows;
	size_t i;

	if (f == NULL)
		return;
	rows = json_array();
	FABRIC_FOREACH_NODE(f, i, n)
		json_array_append_new(rows, json_pack("{s:o, s:s, s:i, s:i, s:i, s:s}",
		    "guid", guid_json(n->guid), "type", fabric_node_type_name(n->type),
		    "lid", n->lid, "ports", n->nports, "hops", n->hops, "description", n->desc));
	ctl_reply_ok(req, json_pack("{s:o}", "nodes", rows));
}

static json_t *
port_json(const struct fabric_port *p)
{
	const struct fabric_node *n = p->node;
	json_t *o = json_pack("{s:s, s:i, s:o, s:i, s:s, s:b, s:s, s:s, s:b}",
	    "node", n->desc, "port", p->num, "guid", guid_json(p->guid),
	    "lid", n->type == FABRIC_SWITCH ? n->lid : p->lid,
	    "state", fabric_port_state_key(p->state), "linkup", p->linkup,
	    "width", fabric_width_name(p->width_active), "speed", fabric_speed_name(p),
	    "degraded", p->degraded);
	char peer[96];

	if (p->peer) {
		snprintf(peer, sizeof(peer), "%s[%u]", p->peer->node->desc, p->peer->num);
		json_object_set_new(o, "peer", json_string(peer));
	} else
		json_object_set_new(o, "peer", json_null());
	return o;
}

void
ctl_sm_ports(struct ctl_req *req, json_t *args)
{
	struct fabric *f = sm_ctl_fabric(req);
	const char *name = ctl_arg_str(args, "node");
	struct fabric_node *n, *only = NULL;
	json_t *rows;
	size_t i;
	unsigned j;

	if (f == NULL)
		return;
	if (name && (only = fabric_node_lookup(f, name)) == NULL) {
		ctl_reply_error(req, PERR_NOT_FOUND, "no node named %s", name);
		return;
	}
	rows = json_array();
	FABRIC_FOREACH_NODE(f, i, n) {
		if (only && n != only)
			continue;
		for (j = 1; j <= n->nports; j++)
			if (n->type == FABRIC_SWITCH || n->ports[j].guid)
				json_array_append_new(rows, port_json(&n->ports[j]));
	}
	ctl_reply_ok(req, json_pack("{s:o}", "ports", rows));
}

void
ctl_sm_links(struct ctl_req *req, json_t *args)
{
	struct fabric *f = sm_ctl_fabric(req);
	struct fabric_node *n;
	json_t *rows;
	size_t i;
	unsigned j;

	if (f == NULL)
		return;
	rows = json_array();
	FABRIC_FOREACH_NODE(f, i, n) {
		for (j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j], *q = p->peer;

			if (q == NULL || q->node->guid < n->guid || (q->node == n && q->num < j))
				continue;
			json_array_append_new(rows, json_pack("{s:s, s:i, s:s, s:i, s:s, s:s, s:s, s:b}",
			    "from", n->desc, "from_port", j, "to", q->node->desc, "to_port", q->num,
			    "state", fabric_port_state_key(p->state), "width", fabric_width_name(p->width_active),
			    "speed", fabric_speed_name(p), "degraded", p->degraded || q->degraded));
		}
	}
	ctl_reply_ok(req, json_pack("{s:o}", "links", rows));
}

json_t *
sm_sweep_json(const struct sweep_record *r)
{
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:s, s:b}",
	    "kind", r->kind == SWEEP_HEAVY ? "heavy" : "light",
	    "start_ms", (json_int_t)r->start_ms, "duration_ms", (json_int_t)r->duration_ms,
	    "mads", (json_int_t)r->mads, "retries", (json_int_t)r->retries,
	    "timeouts", (json_int_t)r->timeouts, "changes", r->changes,
	    "lft_blocks", r->lft_blocks, "port_sets", r->port_sets,
	    "unreachable", r->unreachable, "unreachable_what", r->unreachable_text, "ok", r->ok);
}

void
ctl_sm_sweep(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_current();

	if (sm == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is not running");
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
	sm_sweep_request(sm, ctl_arg_bool(args, "heavy"));
}

void
sm_ctl_sweep_finished(struct sm *sm)
{
	size_t i, kept = 0;

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

json_t *
sm_status_json(struct sm *sm)
{
	const struct mad_counters *c = mad_engine_counters(sm->me);
	size_t i, sw = 0, ca = 0, ports = 0, active = 0, degraded = 0;
	struct fabric_node *n;
	unsigned j;
	const char *subnet;
	json_t *o;

	if (sm->fabric) {
		FABRIC_FOREACH_NODE(sm->fabric, i, n) {
			if (n->type == FABRIC_SWITCH)
				sw++;
			else
				ca++;
			for (j = 1; j <= n->nports; j++) {
				const struct fabric_port *p = &n->ports[j];
				if (n->type != FABRIC_SWITCH && p->guid == 0)
					continue;
				ports++;
				if (p->peer && p->state == FABRIC_PORT_ACTIVE)
					active++;
				if (p->peer && p->degraded)
					degraded++;
			}
		}
	}
	subnet = sm->subnet_up ? "up" : sm->state == SM_STATE_STANDBY ? "another master's" :
	    sm->sweeps ? "down" : "discovering";
	o = json_pack("{s:s, s:I, s:o, s:i, s:{s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:b, s:s},"
	    " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i}}",
	    "state", sm_state_name(sm->state), "priority", (json_int_t)sm->cfg.priority,
	    "port_guid", guid_json(sm->own_guid), "lid", sm->own_lid,
	    "subnet", "state", subnet, "switches", (int)sw, "cas", (int)ca, "ports", (int)ports,
	    "active_links", (int)(active / 2), "degraded_ports", (int)degraded,
	    "sweeps", (json_int_t)sm->sweeps, "last_sweep_ms", (json_int_t)sm->last.duration_ms,
	    "last_sweep_ok", sm->last.ok,
	    "routing", routing_engine_name(sm->cfg.routing),
	    "mads", "sent", (json_int_t)c->sent, "received", (json_int_t)c->received,
	    "timeouts", (json_int_t)c->timeouts, "retries", (json_int_t)c->retries,
	    "errors", (json_int_t)c->errors, "unsolicited", (json_int_t)c->unsolicited,
	    "outstanding", (int)mad_engine_outstanding(sm->me), "queued", (int)mad_engine_queued(sm->me));
	if (o) {
		json_t *sub = json_object_get(o, "subnet");

		/* the engine that ran (auto picks one) and why */
		json_object_set_new(sub, "routing_engine", json_string(sm->rt ?
		    routing_engine_name(sm->rt->engine) : "none"));
		json_object_set_new(sub, "routing_reason",
		    json_string(sm->rt ? sm->rt->reason : ""));
	}
	if (o) {
		const struct sa_counters *sa = sa_counters();
		json_object_set_new(o, "sa", json_pack("{s:I, s:I, s:I, s:I, s:I}",
		    "requests", (json_int_t)sa->requests, "records", (json_int_t)sa->records,
		    "errors", (json_int_t)sa->errors, "malformed", (json_int_t)sa->malformed,
		    "truncated", (json_int_t)sa->truncated));
	}
	if (o && sm->polling)	/* the SM we follow (standby) or wait for */
		json_object_set_new(o, "master", json_pack("{s:o, s:i, s:s, s:i, s:i}",
		    "guid", guid_json(sm->polled.info.guid), "priority", sm->polled.info.priority,
		    "state", sm_state_name(sm->polled.info.state), "lid", sm->polled.info.lid,
		    "missed_polls", sm->poll_misses));
	return o;
}
