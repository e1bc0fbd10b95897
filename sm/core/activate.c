/*
 * Activation: give every port its LID, the SM's LID and the subnet prefix,
 * then walk each link
 * INIT -> ARMED (both ends) -> ACTIVE (both ends).  ACTIVE is accepted only
 * once the far end is ARMED, hence two phases.  A port already right gets
 * no MAD at all, which is what makes a restart or a quiet re-sweep cheap.
 *
 * Sets start from the PortInfo last read (so OperationalVLs and the rest
 * survive) with every "no change" encoding where we mean no change: link
 * width/speed enables 0 (ibsim would otherwise re-train the link at the
 * enabled maximum), PortPhysicalState 0, and switch port 0 always NOP.
 */
#include <errno.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

void sm_port_update(struct fabric_port *p, const uint8_t *data);

/* Ports with a GID of their own: CA ports and a switch's port 0 (its
 * external ports have no GIDPrefix to speak of). */
static bool
holds_gid(const struct fabric_port *p)
{
	return p->node->type != FABRIC_SWITCH || p->num == 0;
}

static void
on_port_set(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_port *p = arg;

	if (mad_reply_ok(res)) {
		sm_port_update(p, ((const ib_smp_t *)res->mad)->data);
		if (sm->mkey.enabled && holds_gid(p) &&
		    sm_mkey_accepted(&sm->mkey, p->guid, sm_mkey_of(&sm->mkey, p->guid))) {
			sm_mkey_save(sm->fd->store, sm->subnet, p->guid, sm_mkey_of(&sm->mkey, p->guid));
			ha_mirror_changed(sm->mirror);
		}
		return;
	}
	sm_unreachable(sm, "PortInfo Set on %s:%u (%s)",
	    sm_node_label(p->node, name, sizeof(name)), p->num,
	    res->status ? "no answer" : "rejected");
	if (res->status == -ETIMEDOUT)
		sm->cur.port_sets_unanswered++;	/* sweep.c reads the port again */
	/* A port protecting another key drops our Set without a word:
	 * wait for its lease to run out (mkey.c). */
	if (sm->mkey.enabled && holds_gid(p) && res->status == -ETIMEDOUT)
		sm_mkey_rejected(&sm->mkey, p->guid, event_now_ms());
}

/* M_Key, protection and lease for a port that holds a key of its own;
 * false when the port must not be written now (lease recovery). */
static bool
mkey_fields(struct sm *sm, const struct fabric_port *p, ib_port_info_t *pi)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm_mkey_port *st;

	if (!sm->mkey.enabled || !holds_gid(p))
		return true;
	st = guid_map_get(&sm->mkey.ports, p->guid);
	switch (sm_mkey_recovery(st, sm->mkey.lease_s, event_now_ms())) {
	case SM_MKEY_WAIT:
		return false;
	case SM_MKEY_STUCK:
		if (!st->told) {
			sm_node_label(p->node, name, sizeof(name));
			snprintf(name + strlen(name), sizeof(name) - strlen(name), ":%u", p->num);
			event_post(EV_ERROR, sm_source(sm), name, "holds an M_Key fabricd does not know "
			    "and its lease never lapses: reset the port or give fabricd its secret");
		}
		st->told = true;
		return false;
	case SM_MKEY_SEND:
		break;
	}
	if (st && st->unknown && !st->told) {
		sm_node_label(p->node, name, sizeof(name));
		snprintf(name + strlen(name), sizeof(name) - strlen(name), ":%u", p->num);
		event_post(EV_WARNING, sm_source(sm), name, "refused fabricd's M_Key; its lease has run "
		    "out: writing it again");
		st->told = true;
	}
	pi->m_key = htobe64(sm_mkey_of(&sm->mkey, p->guid));
	ib_port_info_set_mpb(pi, sm->mkey.protect);
	pi->m_key_lease_period = htobe16(sm->mkey.lease_s);
	return true;
}

bool
sm_port_key_fields(struct sm *sm, const struct fabric_port *p, void *pi)
{
	return mkey_fields(sm, p, pi);
}

uint8_t
sm_qos_op_vls(const struct fabric_port *p)
{
	const ib_port_info_t *pi = (const ib_port_info_t *)p->pi;
	uint8_t cap = ib_port_info_get_vl_cap(pi);

	if (p->num == 0 || p->peer == NULL || !p->linkup)
		return ib_port_info_get_op_vls(pi);
	if (ib_port_info_get_vl_cap((const ib_port_info_t *)p->peer->pi) < cap)
		cap = ib_port_info_get_vl_cap((const ib_port_info_t *)p->peer->pi);
	return cap;
}

/* OperationalVLs (changed only in INIT, where the IBA allows it) and
 * VLHighLimit as the QoS policy wants them. */
static void
qos_fields(const struct sm *sm, const struct fabric_port *p, ib_port_info_t *pi)
{
	if (!sm->cfg.qos.enabled || !qos_port_programmed(p))
		return;
	if (p->state == IB_LINK_INIT)
		ib_port_info_set_op_vls(pi, sm_qos_op_vls(p));
	pi->vl_high_limit = (uint8_t)sm->cfg.qos.high_limit;
}

static bool
qos_wrong(const struct sm *sm, const struct fabric_port *p)
{
	ib_port_info_t want;

	memcpy(&want, p->pi, sizeof(want));
	qos_fields(sm, p, &want);
	return ib_port_info_get_op_vls(&want) != ib_port_info_get_op_vls((const ib_port_info_t *)p->pi) ||
	    want.vl_high_limit != ((const ib_port_info_t *)p->pi)->vl_high_limit;
}

static void
port_set_rereg(struct sm *sm, struct fabric_port *p, uint16_t lid, uint16_t smlid,
    uint8_t state, bool rereg)
{
	ib_port_info_t pi;
	struct mad_addr a = { .directed = true };

	if (!fabric_port_path(p, a.path, &a.hops))
		return;
	memcpy(&pi, p->pi, sizeof(pi));
	pi.base_lid = htobe16(lid);
	if (holds_gid(p))
		pi.subnet_prefix = htobe64(sm->cfg.subnet_prefix);
	pi.master_sm_base_lid = htobe16(smlid);
	ib_port_info_set_lmc(&pi, 0);
	ib_port_info_set_port_state(&pi, state);
	ib_port_info_set_port_phys_state(0, &pi);
	pi.link_width_enabled = 0;
	ib_port_info_set_link_speed_enabled(&pi, 0);
	ib_port_info_set_link_speed_ext_enabled(&pi, 0);
	qos_fields(sm, p, &pi);
	if (!mkey_fields(sm, p, &pi))
		return;
	/* never echo a ClientReregister a port reported back */
	ib_port_info_set_client_rereg(&pi, rereg ? 1 : 0);
	sm_send(sm, &a, IB_MAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO, p->num, &pi, on_port_set, p);
	/* A Set that only reregisters changes nothing of the port: it is
	 * counted apart, so that "a restart sets no port" stays measurable. */
	if (rereg)
		sm->cur.rereg_sets++;
	if (!rereg || state != IB_LINK_NO_CHANGE)
		sm->cur.port_sets++;
}

static void
port_set(struct sm *sm, struct fabric_port *p, uint16_t lid, uint16_t smlid, uint8_t state)
{
	port_set_rereg(sm, p, lid, smlid, state, false);
}

/* A link worth activating: both ends known and physically up, and
 * neither end disabled by an operator (a link that came back up behind
 * fabricd's back stays short of ACTIVE until the audit disables it). */
static bool
link_port(const struct sm *sm, const struct fabric_port *p)
{
	return p->num > 0 && p->linkup && p->peer && p->peer->linkup &&
	    (p->node->type == FABRIC_SWITCH || p->guid) &&
	    !sm_port_disabled(sm, p) && !sm_port_disabled(sm, p->peer);
}

static uint16_t
pi_lid(const struct fabric_port *p)
{
	return be16toh(((const ib_port_info_t *)p->pi)->base_lid);
}

/* The port differs from what the SM gives it: LID, SM LID, LMC, and (where
 * it has a GID) the subnet prefix. */
static bool
port_wrong(const struct sm *sm, const struct fabric_port *p, uint16_t lid)
{
	bool sw = p->node->type == FABRIC_SWITCH;

	if (pi_lid(p) != lid || qos_wrong(sm, p))
		return true;
	if (sw && p->num > 0)
		return false;		/* no SM LID, LMC or GID of its own */
	return p->sm_lid != sm->own_lid || p->lmc ||
	    be64toh(((const ib_port_info_t *)p->pi)->subnet_prefix) != sm->cfg.subnet_prefix;
}

static void
arm_node(struct sm *sm, struct fabric_node *n)
{
	if (n->type == FABRIC_SWITCH) {
		struct fabric_port *p0 = &n->ports[0];
		if (port_wrong(sm, p0, p0->lid))
			port_set(sm, p0, p0->lid, sm->own_lid, IB_LINK_NO_CHANGE);
	}
	for (unsigned j = 1; j <= n->nports; j++) {
		struct fabric_port *p = &n->ports[j];
		uint16_t lid = n->type == FABRIC_SWITCH ? 0 : p->lid;
		bool wrong = port_wrong(sm, p, lid);

		if (n->type != FABRIC_SWITCH && p->guid == 0)
			continue;
		if (link_port(sm, p) && p->state == IB_LINK_INIT)
			port_set(sm, p, lid, sm->own_lid, IB_LINK_ARMED);
		else if (wrong && (p->linkup || n->type != FABRIC_SWITCH))
			port_set(sm, p, lid, sm->own_lid, IB_LINK_NO_CHANGE);
	}
}

/*
 * ARMED -> ACTIVE.  On the first sweep as master (start, restart,
 * takeover) every CA port also gets ClientReregister, in the Set that
 * makes it ACTIVE or in one of its own if it is ACTIVE already: hosts
 * then join their multicast groups and register their services again,
 * which rebuilds the SA's state (it keeps none across a restart).
 */
static void
activate_node(struct sm *sm, struct fabric_node *n)
{
	bool ca = n->type != FABRIC_SWITCH;

	for (unsigned j = 1; j <= n->nports; j++) {
		struct fabric_port *p = &n->ports[j];
		bool rereg = sm->client_rereg && ca && p->guid && link_port(sm, p);

		if (link_port(sm, p) && p->state == IB_LINK_ARMED)
			port_set_rereg(sm, p, ca ? p->lid : 0, sm->own_lid, IB_LINK_ACTIVE, rereg);
		else if (rereg && p->state == IB_LINK_ACTIVE)
			port_set_rereg(sm, p, p->lid, sm->own_lid, IB_LINK_NO_CHANGE, true);
	}
}

/*
 * Both phases send their Sets a node at a time as the window frees
 * (mad_batch_feed), not all at once: queueing 9,000 PortInfo Sets in one
 * callback held the loop for 10 ms at 1,296 hosts.  The phase's wait
 * (sm_phase_wait) waits for the producer to be done.
 */
static bool
feed_nodes(struct sm *sm, void (*one)(struct sm *, struct fabric_node *))
{
	if (sm->next == NULL || sm->activate_node >= fabric_node_count(sm->next))
		return false;
	one(sm, fabric_node_at(sm->next, sm->activate_node++));
	return sm->activate_node < fabric_node_count(sm->next);
}

static bool
arm_feed(void *owner, void *arg)
{
	(void)arg;
	return feed_nodes(owner, arm_node);
}

static bool
active_feed(void *owner, void *arg)
{
	struct sm *sm = owner;

	(void)arg;
	if (feed_nodes(sm, activate_node))
		return true;
	sm->client_rereg = false;	/* every port had its chance */
	return false;
}

void
sm_activate_arm(struct sm *sm)
{
	sm->activate_node = 0;
	mad_batch_feed(&sm->batch, sm_feed_cap(sm), arm_feed, NULL);
}

void
sm_activate_active(struct sm *sm)
{
	sm->activate_node = 0;
	mad_batch_feed(&sm->batch, sm_feed_cap(sm), active_feed, NULL);
}

/* Widths ranked by lanes (the mask bits are not in lane order: 2x is 16). */
static int
width_rank(uint8_t w)
{
	if (w & 8) return 5;	/* 12x */
	if (w & 4) return 4;	/* 8x */
	if (w & 2) return 3;	/* 4x */
	if (w & 16) return 2;	/* 2x */
	if (w & 1) return 1;	/* 1x */
	return 0;
}

static uint8_t
top_bit(uint8_t mask)
{
	return mask ? (uint8_t)(1u << (31 - __builtin_clz(mask))) : 0;
}

/* Degraded: active width or speed below the best both ends support
 * (what iblinkinfo calls "Could be"). */
void
sm_mark_degraded(struct fabric *f)
{
	struct fabric_node *n;
	size_t i;
	unsigned j;

	FABRIC_FOREACH_NODE(f, i, n) {
		for (j = 1; j <= n->nports; j++) {
			struct fabric_port *p = &n->ports[j], *q = p->peer;
			uint8_t w, s, e;

			p->degraded = false;
			if (q == NULL || !p->linkup)
				continue;
			w = p->width_supported & q->width_supported;
			s = p->speed_supported & q->speed_supported;
			e = p->ext_speed_supported & q->ext_speed_supported;
			if (w && width_rank(w) > width_rank(p->width_active))
				p->degraded = true;
			if (e) {
				if (top_bit(e) > p->ext_speed_active)
					p->degraded = true;
			} else if (s && top_bit(s) > p->speed_active)
				p->degraded = true;
		}
	}
}
