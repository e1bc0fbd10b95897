/*
 * The SM's control commands (common/commands.def, sm section).  All read
 * the published model; `sweep` answers when the sweep it caused has
 * finished (status.c answers it).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "daemon/control.h"
#include "sm/sa.h"
#include "sm/sm_internal.h"

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
		json_array_append_new(rows, json_pack("{s:o, s:s, s:i, s:i, s:i, s:s, s:b}",
		    "guid", sm_guid_json(n->guid), "type", fabric_node_type_name(n->type),
		    "lid", n->lid, "ports", n->nports, "hops", n->hops, "description", n->desc,
		    "unreachable", n->unreachable));
	ctl_reply_ok(req, json_pack("{s:o}", "nodes", rows));
}

/* The states --state accepts: those the protocol writes (fabric.h). */
static bool
port_state_known(const char *s)
{
	for (uint8_t st = 1; st <= 4; st++)
		if (strcasecmp(s, fabric_port_state_key(st)) == 0)
			return true;
	return false;
}

static json_t *
port_json(const struct fabric_port *p)
{
	const struct fabric_node *n = p->node;
	json_t *o = json_pack("{s:s, s:i, s:o, s:i, s:s, s:b, s:s, s:s, s:b}",
	    "node", n->desc, "port", p->num, "guid", sm_guid_json(p->guid),
	    "lid", n->type == FABRIC_SWITCH ? n->lid : p->lid,
	    "state", fabric_port_state_key(p->state), "linkup", p->linkup,
	    "width", fabric_width_name(p->width_active), "speed", fabric_speed_name(p),
	    "degraded", p->degraded);
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

void
ctl_sm_ports(struct ctl_req *req, json_t *args)
{
	struct fabric *f = sm_ctl_fabric(req);
	const char *name = ctl_arg_str(args, "node"), *state = ctl_arg_str(args, "state");
	bool degraded = ctl_arg_bool(args, "degraded");
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
	if (state && !port_state_known(state)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT,
		    "state: expected down, init, armed or active, not \"%.32s\"", state);
		return;
	}
	rows = json_array();
	FABRIC_FOREACH_NODE(f, i, n) {
		if (only && n != only)
			continue;
		for (j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j];
			if (n->type != FABRIC_SWITCH && !p->guid)
				continue;
			if ((state && strcasecmp(state, fabric_port_state_key(p->state)) != 0) ||
			    (degraded && !p->degraded))
				continue;
			json_array_append_new(rows, port_json(p));
		}
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
	/* An operator's heavy sweep also reads every QoS table again: what
	 * another tool changed behind our back is written back. */
	if (ctl_arg_bool(args, "heavy"))
		sm->qos_reread_all = true;
	sm_sweep_request(sm, ctl_arg_bool(args, "heavy"));
}


void
ctl_sm_audit(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_current();

	if (sm == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is not running");
		return;
	}
	ctl_reply_ok(req, sm_audit_json(sm));
}
