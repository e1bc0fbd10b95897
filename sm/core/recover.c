/*
 * Recovery from MAD loss.  A lost reply must not make a healthy node
 * vanish: discovery tries a failed probe again (SM_PROBE_TRIES rounds of
 * the engine's own retries), and a node that still does not answer behind
 * a switch port whose link is up is not declared gone: it is carried over
 * from the last model, marked unreachable, with its LIDs, tables and so
 * its routes; a switch with the CAs it was cabled to (nothing else would
 * find them) and linked to its neighbours already found.  Only a link down
 * (a neighbour's PortInfo) makes a node gone: the SM acts on evidence, not
 * on silence.  Light sweeps probe unreachable nodes again with a backoff (1, 2,
 * 4 sweeps); the first answer, or their link going down, makes the next
 * sweep heavy, which rediscovers them.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

#define BACKOFF_MAX	4	/* light sweeps between probes, at most */

static void
copy_port(struct fabric_port *to, const struct fabric_port *from)
{
	to->guid = from->guid;
	to->lid = from->lid;
	to->state = from->state;
	to->phys_state = from->phys_state;
	to->width_active = from->width_active;
	to->width_supported = from->width_supported;
	to->width_enabled = from->width_enabled;
	to->speed_active = from->speed_active;
	to->speed_supported = from->speed_supported;
	to->speed_enabled = from->speed_enabled;
	to->ext_speed_active = from->ext_speed_active;
	to->ext_speed_supported = from->ext_speed_supported;
	to->ext_speed_enabled = from->ext_speed_enabled;
	to->sm_lid = from->sm_lid;
	to->lmc = from->lmc;
	to->linkup = from->linkup;
	memcpy(to->pi, from->pi, sizeof(to->pi));
}

/* The same port in the last published model, or NULL. */
static const struct fabric_port *
old_port(const struct sm *sm, const struct fabric_port *p)
{
	const struct fabric_node *o;

	if (sm->fabric == NULL || (o = fabric_node_by_guid(sm->fabric, p->node->guid)) == NULL ||
	    o->type != p->node->type || o->nports != p->node->nports)
		return NULL;
	return &o->ports[p->num];
}

bool
sm_recover_port(struct sm *sm, struct fabric_port *p)
{
	const struct fabric_port *o = old_port(sm, p);

	if (o == NULL || o->state == 0)
		return false;
	copy_port(p, o);
	return true;
}

bool
sm_recover_node(struct sm *sm, struct fabric_node *n)
{
	const struct fabric_node *o = sm->fabric ? fabric_node_by_guid(sm->fabric, n->guid) : NULL;

	if (o == NULL || o->type != n->type)
		return false;
	if (n->desc[0] == 0)
		memcpy(n->desc, o->desc, sizeof(n->desc));
	if (n->type == FABRIC_SWITCH && n->lft_top == 0) {
		memcpy(n->si, o->si, sizeof(n->si));
		n->lft_cap = o->lft_cap;
		n->lft_top = o->lft_top;
		n->partition_enforcement_cap = o->partition_enforcement_cap;
	}
	return true;
}

static void
recover_ca(struct sm *sm, struct fabric_port *from)
{
	char name[FABRIC_NODE_DESC_LEN + 24], at[FABRIC_NODE_DESC_LEN + 24];
	const struct fabric_port *o = old_port(sm, from), *oq;
	const struct fabric_node *old;
	struct fabric_node *n;
	unsigned j;

	if (o == NULL || (oq = o->peer) == NULL || oq->node->type == FABRIC_SWITCH ||
	    fabric_node_by_guid(sm->next, oq->node->guid) != NULL ||
	    from->node->hops + 1 >= FABRIC_MAX_HOPS)
		return;
	old = oq->node;
	n = fabric_add_node(sm->next, old->guid, old->type, old->nports);
	memcpy(n->desc, old->desc, sizeof(n->desc));
	n->lid = old->lid;
	n->port_guid = old->port_guid;
	n->partition_cap = old->partition_cap;
	n->vendor_id = old->vendor_id;
	n->device_id = old->device_id;
	n->sys_guid = old->sys_guid;
	n->revision = old->revision;
	n->path_port = oq->num;
	memcpy(n->path, from->node->path, sizeof(n->path));
	n->hops = from->node->hops + 1;
	n->path[n->hops] = from->num;
	n->seen = true;
	n->unreachable = true;
	for (j = 1; j <= n->nports; j++) {
		copy_port(&n->ports[j], &old->ports[j]);
		if (n->ports[j].guid && fabric_index_port_guid(sm->next, &n->ports[j]) < 0)
			n->ports[j].guid = 0;	/* another port answers with it now */
	}
	fabric_link(from, &n->ports[oq->num]);
	event_post(EV_WARNING, sm_source(sm), sm_node_label(n, name, sizeof(name)),
	    "%s does not answer behind %s:%u, whose link is up: unreachable, kept with its "
	    "routes; probed again at light sweeps", name,
	    sm_node_label(from->node, at, sizeof(at)), from->num);
}

/* A switch carried over behind `from`: its ports as last seen, linked to
 * the neighbours the model has, and the CAs behind it carried too. */
static void
recover_switch(struct sm *sm, struct fabric_port *from, const struct fabric_port *oq)
{
	char name[FABRIC_NODE_DESC_LEN + 24], at[FABRIC_NODE_DESC_LEN + 24];
	const struct fabric_node *old = oq->node;
	struct fabric_node *n = fabric_add_node(sm->next, old->guid, old->type, old->nports);
	unsigned j;

	memcpy(n->desc, old->desc, sizeof(n->desc));
	n->lid = old->lid;
	n->port_guid = old->port_guid;
	n->partition_cap = old->partition_cap;
	n->vendor_id = old->vendor_id;
	n->device_id = old->device_id;
	n->sys_guid = old->sys_guid;
	n->revision = old->revision;
	memcpy(n->si, old->si, sizeof(n->si));
	n->lft_cap = old->lft_cap;
	n->lft_top = old->lft_top;
	n->partition_enforcement_cap = old->partition_enforcement_cap;
	n->path_port = oq->num;
	memcpy(n->path, from->node->path, sizeof(n->path));
	n->hops = from->node->hops + 1;
	n->path[n->hops] = from->num;
	n->seen = true;
	n->unreachable = true;
	for (j = 0; j <= n->nports; j++) {
		copy_port(&n->ports[j], &old->ports[j]);
		n->ports[j].guid = n->port_guid;
	}
	if (fabric_index_port_guid(sm->next, &n->ports[0]) < 0)
		n->ports[0].guid = 0;
	fabric_link(from, &n->ports[oq->num]);
	for (j = 1; j <= n->nports; j++) {
		const struct fabric_port *op = old->ports[j].peer;
		struct fabric_node *pn;

		if (op == NULL || n->ports[j].peer)
			continue;
		pn = fabric_node_by_guid(sm->next, op->node->guid);
		if (pn && pn->type == op->node->type && pn->nports == op->node->nports &&
		    pn->ports[op->num].peer == NULL)
			fabric_link(&n->ports[j], &pn->ports[op->num]);
		else if (pn == NULL && op->node->type != FABRIC_SWITCH)
			recover_ca(sm, &n->ports[j]);
	}
	event_post(EV_WARNING, sm_source(sm), sm_node_label(n, name, sizeof(name)),
	    "%s does not answer behind %s:%u, whose link is up: unreachable, kept with its "
	    "links and routes; probed again at light sweeps", name,
	    sm_node_label(from->node, at, sizeof(at)), from->num);
}

void
sm_recover_peer(struct sm *sm, struct fabric_port *from)
{
	const struct fabric_port *o = old_port(sm, from), *oq;
	struct fabric_node *n;

	if (o == NULL || (oq = o->peer) == NULL || from->peer != NULL)
		return;
	if (oq->node->type != FABRIC_SWITCH) {
		recover_ca(sm, from);
		return;
	}
	/* found already (by another way, or carried): the link as it was */
	if ((n = fabric_node_by_guid(sm->next, oq->node->guid)) != NULL) {
		if (n->type == FABRIC_SWITCH && n->nports == oq->node->nports &&
		    n->ports[oq->num].peer == NULL)
			fabric_link(from, &n->ports[oq->num]);
		return;
	}
	if (from->node->hops + 1 < FABRIC_MAX_HOPS)
		recover_switch(sm, from, oq);
}

/* ---- light sweeps: probe the unreachable again ---- */

static void
on_probe(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;

	log_debug("sm: probe of an unreachable node: %s", mad_reply_ok(res) ? "answered" :
	    "no answer");
	if (mad_reply_ok(res)) {
		sm->lost_answered = true;
		sm->light_found_change = true;	/* rediscover it */
	}
}

static void
on_link(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	const ib_port_info_t *pi;

	if (!mad_reply_ok(res))
		return;
	pi = (const ib_port_info_t *)((const ib_smp_t *)res->mad)->data;
	if (ib_port_info_get_port_phys_state(pi) != 5)	/* not LinkUp: gone now */
		sm->light_found_change = true;
}

void
sm_recover_light_probe(struct sm *sm)
{
	struct fabric_node *n;
	struct mad_addr a;
	size_t i, lost = 0;

	if (sm->fabric == NULL)
		return;
	if (sm->lost_wait > 0) {
		sm->lost_wait--;
		log_debug("sm: unreachable nodes probed again in %u light sweeps", sm->lost_wait + 1);
		return;
	}
	FABRIC_FOREACH_NODE(sm->fabric, i, n) {
		const struct fabric_port *via;

		if (!n->unreachable || (via = n->ports[n->path_port].peer) == NULL)
			continue;
		lost++;
		sm_path_of(n, &a);
		sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, NULL, on_probe, n);
		sm_path_of(via->node, &a);
		sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, via->num, NULL, on_link, n);
	}
	if (lost == 0) {
		sm->lost_backoff = 0;
		return;
	}
	log_debug("sm: %zu unreachable nodes probed", lost);
	/* 1, 2, 4 light sweeps between tries while they stay silent; the
	 * answer resets it (sm_recover_sweep_done) */
	sm->lost_wait = sm->lost_backoff;
	sm->lost_backoff = sm->lost_backoff ? sm->lost_backoff * 2 : 1;
	if (sm->lost_backoff > BACKOFF_MAX)
		sm->lost_backoff = BACKOFF_MAX;
}

void
sm_recover_sweep_done(struct sm *sm)
{
	if (sm->cur.kind == SWEEP_HEAVY && sm->lost_answered) {
		sm->lost_answered = false;
		sm->lost_backoff = sm->lost_wait = 0;
	}
}
