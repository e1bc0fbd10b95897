/*
 * Directed-route discovery.  Every reply immediately queues the MADs it
 * makes possible (a switch's NodeInfo queues its SwitchInfo, NodeDescription
 * and the PortInfo of every port; a LinkUp port's PortInfo queues the
 * NodeInfo behind it), so the MAD window stays full and the breadth-first
 * waves overlap.  Callback arguments point into the model being built (a
 * node, a port): nothing is allocated per MAD.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

#define PHYS_LINKUP 5

/* The model keeps PortState as the spec's number; readers outside sm/ use
 * fabric.h's names for it. */
_Static_assert(FABRIC_PORT_DOWN == IB_LINK_DOWN && FABRIC_PORT_INIT == IB_LINK_INIT &&
    FABRIC_PORT_ARMED == IB_LINK_ARMED && FABRIC_PORT_ACTIVE == IB_LINK_ACTIVE,
    "fabric.h port states are PortInfo's");

static void probe_port(struct sm *sm, struct fabric_port *from);

static const ib_smp_t *
smp_ok(const struct mad_result *res)
{
	if (!mad_reply_ok(res))
		return NULL;
	return (const ib_smp_t *)res->mad;
}

/* ---- per-attribute callbacks ---- */

static void on_nodedesc(const struct mad_result *res, void *owner, void *arg);
static void on_switchinfo(const struct mad_result *res, void *owner, void *arg);
static void on_portinfo(const struct mad_result *res, void *owner, void *arg);

/* A lost reply (timeout after the engine's retries): ask again, a few
 * times, before the node or port is taken as not answering. */
static bool
ask_again(struct sm *sm, const struct mad_result *res, uint8_t *tries, const struct mad_addr *a,
    uint16_t attr, uint32_t mod, mad_batch_cb cb, void *arg)
{
	if (res->status != -ETIMEDOUT || *tries >= SM_PROBE_TRIES)
		return false;
	(*tries)++;
	sm_send(sm, a, IB_MAD_METHOD_GET, attr, mod, NULL, cb, arg);
	return true;
}

static bool
ask_node_again(struct sm *sm, const struct mad_result *res, struct fabric_node *n, uint16_t attr,
    mad_batch_cb cb)
{
	struct mad_addr a;

	sm_path_of(n, &a);
	return ask_again(sm, res, &n->probe_tries, &a, attr, 0, cb, n);
}

static void
on_nodedesc(const struct mad_result *res, void *owner, void *arg)
{
	struct fabric_node *n = arg;
	const ib_smp_t *smp = smp_ok(res);
	size_t i;

	if (smp == NULL && !ask_node_again(owner, res, n, UMAD_SM_ATTR_NODE_DESC, on_nodedesc))
		sm_recover_node(owner, n);
	if (smp) {
		memcpy(n->desc, smp->data, FABRIC_NODE_DESC_LEN);
		n->desc[FABRIC_NODE_DESC_LEN] = 0;
		for (i = 0; n->desc[i]; i++)	/* it is shown and stored */
			if (!isprint((unsigned char)n->desc[i]))
				n->desc[i] = '?';
	}
}

static void
on_switchinfo_clear(const struct mad_result *res, void *owner, void *arg)
{
}

static void
on_switchinfo(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_node *n = arg;
	const ib_smp_t *smp = smp_ok(res);

	if (smp) {
		const ib_switch_info_t *si = (const ib_switch_info_t *)smp->data;
		struct mad_addr a;

		memcpy(n->si, smp->data, sizeof(n->si));
		n->lft_cap = be16toh(si->lin_cap);
		n->lft_top = be16toh(si->lin_top);
		n->partition_enforcement_cap = be16toh(si->enforce_cap);
		if (ib_switch_info_get_state_change(si) && sm->state == SM_STATE_MASTER) {
			/* Write-1-to-clear now, before its ports are read, so a
			 * change after this point is seen by the next sweep.
			 * (Not yet master: sm_clear_state_changes() does it
			 * once we are; a standby SM writes nothing.) */
			sm_path_of(n, &a);
			sm_send(sm, &a, IB_MAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0,
			    n->si, on_switchinfo_clear, n);
		}
	} else if (!ask_node_again(sm, res, n, UMAD_SM_ATTR_SWITCH_INFO, on_switchinfo)) {
		sm_unreachable(sm, "SwitchInfo of %s", sm_node_label(n, name, sizeof(name)));
		sm_recover_node(sm, n);		/* its table as last known */
	}
}

static void
port_from_portinfo(struct fabric_port *p, const ib_port_info_t *pi)
{
	memcpy(p->pi, pi, sizeof(p->pi));
	p->state = ib_port_info_get_port_state(pi);
	p->phys_state = ib_port_info_get_port_phys_state(pi);
	p->linkup = p->phys_state == PHYS_LINKUP;
	p->sm_lid = be16toh(pi->master_sm_base_lid);
	p->lmc = ib_port_info_get_lmc(pi);
	p->width_active = pi->link_width_active;
	p->width_supported = pi->link_width_supported;
	p->width_enabled = pi->link_width_enabled;
	p->speed_active = ib_port_info_get_link_speed_active(pi);
	p->speed_supported = ib_port_info_get_link_speed_sup(pi);
	p->speed_enabled = ib_port_info_get_link_speed_enabled(pi);
	p->ext_speed_active = ib_port_info_get_link_speed_ext_active(pi);
	p->ext_speed_supported = ib_port_info_get_link_speed_ext_sup(pi);
	p->ext_speed_enabled = ib_port_info_get_link_speed_ext_enabled(pi);
}

/* Refresh a port's view from the PortInfo in any reply (Get or Set). */
void sm_port_update(struct fabric_port *p, const uint8_t *data);
void
sm_port_update(struct fabric_port *p, const uint8_t *data)
{
	port_from_portinfo(p, (const ib_port_info_t *)data);
}

static void
on_portinfo(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_port *p = arg;
	struct fabric_node *n = p->node;
	const ib_smp_t *smp = smp_ok(res);

	if (smp == NULL) {
		struct mad_addr a = { .directed = true };

		if (fabric_port_path(p, a.path, &a.hops) &&
		    ask_again(sm, res, &p->probe_tries, &a, UMAD_SM_ATTR_PORT_INFO, p->num, on_portinfo, p))
			return;
		sm_unreachable(sm, "PortInfo of %s:%u", sm_node_label(n, name, sizeof(name)), p->num);
		/* as the last model saw it, so that what lies behind is
		 * probed and a lost reply does not take a link down */
		if (!sm_recover_port(sm, p))
			return;
	} else
		port_from_portinfo(p, (const ib_port_info_t *)smp->data);
	if (smp == NULL) {
		if (p->linkup && p->peer == NULL && p->num > 0 && n->type == FABRIC_SWITCH)
			probe_port(sm, p);
		return;
	}
	if ((p->num == 0 || n->type != FABRIC_SWITCH) &&
	    (((const ib_port_info_t *)smp->data)->capability_mask & IB_PORT_CAP_IS_SM))
		sm_standby_query(sm, p);	/* another SM? */
	if (p->linkup && p->peer == NULL && p->num > 0 &&
	    (n->type == FABRIC_SWITCH || (n->hops == 0 && p->num == n->path_port)))
		probe_port(sm, p);
}

/* ---- NodeInfo: where the model grows ---- */

static void
duplicate_guid(struct sm *sm, uint64_t guid, const struct fabric_port *from)
{
	char obj[64], name[FABRIC_NODE_DESC_LEN + 24];
	size_t i;

	/* Once per sweep, however many links lead to it. */
	for (i = 0; i < sm->ndup_reported; i++)
		if (sm->dup_reported[i] == guid)
			return;
	if (sm->ndup_reported < SM_DUP_REPORTED_MAX)
		sm->dup_reported[sm->ndup_reported++] = guid;
	guid_format(guid, obj, sizeof(obj));
	if (from)
		sm_node_label(from->node, name, sizeof(name));
	event_post(EV_ERROR, sm_source(sm), obj,
	    "duplicate GUID: a second node answers behind %s:%u; not merged",
	    from ? name : "the SM's port", from ? from->num : 0);
	sm->cur.changes++;
}

static void
query_node(struct sm *sm, struct fabric_node *n, uint8_t port)
{
	struct mad_addr a;
	unsigned i;

	sm_path_of(n, &a);
	sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_NODE_DESC, 0, NULL, on_nodedesc, n);
	if (n->type == FABRIC_SWITCH) {
		sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SWITCH_INFO, 0, NULL,
		    on_switchinfo, n);
		for (i = 0; i <= n->nports; i++)
			sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, i, NULL,
			    on_portinfo, &n->ports[i]);
	} else
		sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, port, NULL,
		    on_portinfo, &n->ports[port]);
}

/* A CA port first met from another switch: read it through that switch. */
static void
query_ca_port(struct sm *sm, struct fabric_port *p)
{
	struct mad_addr a = { .directed = true };

	if (!fabric_port_path(p, a.path, &a.hops))
		return;
	sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, p->num, NULL,
	    on_portinfo, p);
}

static void
known_node(struct sm *sm, struct fabric_node *n, const ib_node_info_t *ni,
    uint8_t q, struct fabric_port *from)
{
	struct fabric_port *p = &n->ports[q];

	if ((n->type == FABRIC_SWITCH) != (ni->node_type == IB_NODE_TYPE_SWITCH) ||
	    n->nports != ni->num_ports || (p->peer && p->peer != from) ||
	    (n->type != FABRIC_SWITCH && p->guid && p->guid != be64toh(ni->port_guid))) {
		duplicate_guid(sm, n->guid, from);
		return;
	}
	if (from == NULL)
		return;
	fabric_link(from, p);
	if (n->unreachable && n->type == FABRIC_SWITCH) {
		/* carried over (recover.c), and it answers by another way:
		 * that way is its path now, and its ports are read */
		memcpy(n->path, from->node->path, sizeof(n->path));
		n->hops = from->node->hops + 1;
		n->path[n->hops] = from->num;
		n->path_port = q;
		n->unreachable = false;
		query_node(sm, n, q);
		return;
	}
	if (n->type != FABRIC_SWITCH && p->guid == 0) {
		p->guid = be64toh(ni->port_guid);
		if (fabric_index_port_guid(sm->next, p) < 0)
			duplicate_guid(sm, p->guid, from);
		else
			query_ca_port(sm, p);
	}
}

static void
on_nodeinfo(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_port *from = arg;
	const ib_smp_t *smp = smp_ok(res);
	const ib_node_info_t *ni;
	struct fabric_node *n;
	uint64_t guid;
	uint8_t q;
	unsigned i;

	if (smp == NULL) {
		if (from && res->status == -ETIMEDOUT && from->probe_tries < SM_PROBE_TRIES) {
			from->probe_tries++;
			probe_port(sm, from);
			return;
		}
		if (from) {
			sm_unreachable(sm, "node behind %s:%u",
			    sm_node_label(from->node, name, sizeof(name)), from->num);
			sm_recover_peer(sm, from);	/* link up: not gone */
		} else
			sm_unreachable(sm, "own port");
		return;
	}
	ni = (const ib_node_info_t *)smp->data;
	guid = be64toh(ni->node_guid);
	q = ib_node_info_get_local_port_num(ni);
	if (guid == 0 || q > ni->num_ports || ni->num_ports == 0 ||
	    (ni->node_type == IB_NODE_TYPE_SWITCH && q == 0 && from != NULL)) {
		log_warnx("sm: bad NodeInfo behind " GUID_FMT ":%u",
		    from ? from->node->guid : 0, from ? from->num : 0);
		return;
	}
	if ((n = fabric_node_by_guid(sm->next, guid)) != NULL) {
		known_node(sm, n, ni, q, from);
		return;
	}
	n = fabric_add_node(sm->next, guid,
	    ni->node_type == IB_NODE_TYPE_SWITCH ? FABRIC_SWITCH :
	    ni->node_type == IB_NODE_TYPE_ROUTER ? FABRIC_ROUTER : FABRIC_CA, ni->num_ports);
	n->seen = true;
	n->port_guid = be64toh(ni->port_guid);
	n->partition_cap = be16toh(ni->partition_cap);
	n->vendor_id = be32toh(ni->port_num_vendor_id) & 0x00FFFFFF;	/* low 24 bits, host order */
	n->device_id = be16toh(ni->device_id);
	n->sys_guid = be64toh(ni->sys_guid);
	n->revision = be32toh(ni->revision);
	n->path_port = q;
	if (from) {
		memcpy(n->path, from->node->path, sizeof(n->path));
		n->hops = from->node->hops + 1;
		n->path[n->hops] = from->num;
		fabric_link(from, &n->ports[q]);
	}
	if (n->type == FABRIC_SWITCH) {
		for (i = 0; i <= n->nports; i++)
			n->ports[i].guid = n->port_guid;
		fabric_index_port_guid(sm->next, &n->ports[0]);
	} else {
		n->ports[q].guid = n->port_guid;
		if (fabric_index_port_guid(sm->next, &n->ports[q]) < 0)
			duplicate_guid(sm, n->port_guid, from);
	}
	query_node(sm, n, q);
}

static void
probe_port(struct sm *sm, struct fabric_port *from)
{
	struct mad_addr a;

	if (from->node->hops + 1 >= FABRIC_MAX_HOPS - 1)
		return;
	sm_path_of(from->node, &a);
	a.hops++;
	a.path[a.hops] = from->num;
	sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, NULL, on_nodeinfo, from);
}

void
sm_discover(struct sm *sm)
{
	struct mad_addr a = { .directed = true, .hops = 0 };

	fabric_free(sm->next);
	sm->next = fabric_new();
	sm->ndup_reported = 0;
	sm_standby_discovery_start(sm);
	sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, NULL, on_nodeinfo, NULL);
}

void
sm_clear_state_changes(struct sm *sm)
{
	struct fabric_node *n;
	struct mad_addr a;
	size_t i;

	FABRIC_FOREACH_NODE(sm->next, i, n) {
		if (n->type != FABRIC_SWITCH ||
		    !ib_switch_info_get_state_change((const ib_switch_info_t *)n->si))
			continue;
		sm_path_of(n, &a);
		sm_send(sm, &a, IB_MAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, n->si,
		    on_switchinfo_clear, n);
	}
}

/* ---- light sweep: has any switch seen a port change? ---- */

static void
on_light_switchinfo(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	const ib_smp_t *smp = smp_ok(res);

	/* An unreachable switch is a change too: the fabric lost it. */
	if (smp == NULL ||
	    ib_switch_info_get_state_change((const ib_switch_info_t *)smp->data))
		sm->light_found_change = true;
}

void
sm_light_probe(struct sm *sm)
{
	struct fabric_node *n;
	struct mad_addr a;
	size_t i;

	sm->light_found_change = false;
	FABRIC_FOREACH_NODE(sm->fabric, i, n) {
		if (n->type != FABRIC_SWITCH)
			continue;
		sm_path_of(n, &a);
		sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SWITCH_INFO, 0, NULL,
		    on_light_switchinfo, n);
	}
	sm_standby_light_probe(sm);	/* nothing to ask on a subnet with one SM */
	sm_recover_light_probe(sm);	/* nodes that stopped answering */
}
