/*
 * MCMemberRecord (IBA 15.2.5.17): Set joins (creating the group when it
 * does not exist and the request may create it), Delete leaves, Get and
 * GetTable list (group, member) pairs matching the component mask.
 *
 * The rules, as IBA says and OpenSM (osm_sa_mcmember_record.c) applies them:
 *   - a join names MGID (or, to create, may leave it to the SA), PortGID
 *     and JoinState; PortGID is the requester's own port unless ProxyJoin;
 *   - the port must hold the group's P_Key (full or limited member), or
 *     the join is refused; only a full member of the partition creates;
 *   - creating needs FullMember (or SendOnlyFullMember) JoinState and the
 *     fields a group is made of: Q_Key, TClass, P_Key, FlowLabel, SL;
 *   - a join of an existing group must agree with it on every field its
 *     mask names (MTU and rate through their selectors);
 *   - an MGID with the IPoIB signature carries the partition's P_Key and
 *     must agree with the record's.
 * Every requester is treated as trusted (records show every member); the
 * SA shows a requester only the groups of partitions its port is in.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/mcast/mcast.h"
#include "sm/sa/sa.h"

#define ST(x)	be16toh(x)	/* SA statuses are given in network order */

#define CREATE_MASK (IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_TCLASS | IB_MCR_COMPMASK_PKEY | \
	IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_SL)
#define JOIN_MASK (IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE)

#define MC_DEFAULT_MTU	IB_MTU_LEN_2048
#define MC_DEFAULT_RATE	IB_PATH_RECORD_RATE_10_GBS

static uint8_t val6(uint8_t x) { return x & 0x3F; }
static uint8_t sel2(uint8_t x) { return x >> 6; }

/* ProxyJoin is the top bit of the byte after ScopeState (IBA's layout);
 * OpenSM's ib_types.h declares it a 1-bit bitfield, which on x86 is the
 * lowest bit, and osmtest sends it so: either counts. */
static bool
rec_proxy(const ib_member_rec_t *r)
{
	return (((const uint8_t *)r)[offsetof(ib_member_rec_t, scope_state) + 1] & 0x81) != 0;
}

static uint64_t
gid_guid(const ib_gid_t *g)
{
	return be64toh(g->unicast.interface_id);
}

/* A value against what a selector asks of it (0 greater, 1 less, 2 exactly, 3 largest). */
static bool
selected(uint8_t have, uint8_t want, uint8_t sel)
{
	switch (sel) {
	case 0:	return have > want;
	case 1:	return have < want;
	case 2:	return have == want;
	}
	return true;
}

/* Does the port see the group's partition?  Unknown requester: yes. */
static bool
sees(const struct sa_ctx *ctx, const struct fabric_port *p, const struct mc_group *g)
{
	return p == NULL || sa_port_pkey_entry(ctx, p, g->p.pkey & 0x7FFF) != 0;
}

/* Gb/s x 10 of an IB rate code (IBA 15.2.5.16 table), to order them: the
 * codes are not in speed order.  0 for a code not defined. */
static unsigned
rate_dgbps(uint8_t code)
{
	static const unsigned t[] = {
		[2] = 25, [3] = 100, [4] = 300, [5] = 50, [6] = 200, [7] = 400, [8] = 600,
		[9] = 800, [10] = 1200, [11] = 140, [12] = 560, [13] = 1120, [14] = 1680,
		[15] = 250, [16] = 1000, [17] = 2000, [18] = 3000, [19] = 280, [20] = 500,
		[21] = 4000, [22] = 6000,
	};

	return code < sizeof(t) / sizeof(t[0]) ? t[code] : 0;
}

/*
 * Can the port's link carry the group (IBA o15-0.1.8, OpenSM's
 * validate_port_caps)?  Its MTU must be no smaller and its rate no slower.
 * A port whose PortInfo was never read (all zero) is not judged.
 */
static bool
port_carries(const struct fabric_port *p, const struct mc_params *g)
{
	const ib_port_info_t *pi = (const ib_port_info_t *)p->pi;
	bool ext = (pi->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS) != 0;

	if (ib_port_info_get_mtu_cap(pi) == 0)
		return true;
	return ib_port_info_get_mtu_cap(pi) >= g->mtu &&
	    rate_dgbps(ib_port_info_compute_rate(pi, ext)) >= rate_dgbps(g->rate);
}

static void
params_of(const ib_member_rec_t *t, struct mc_params *p)
{
	p->qkey = be32toh(t->qkey);
	p->pkey = be16toh(t->pkey);
	p->mtu = val6(t->mtu);
	p->rate = val6(t->rate);
	p->pkt_life = val6(t->pkt_life);
	ib_member_get_sl_flow_hop(t->sl_flow_hop, &p->sl, &p->flow_label, &p->hop_limit);
	p->tclass = t->tclass;
	p->scope = t->scope_state >> 4;
}

/* The record of a group as one member sees it (m NULL: the group alone). */
static void
fill_record(const struct mc_group *g, const struct mc_member *m, ib_member_rec_t *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(&r->mgid, g->mgid, 16);
	if (m)
		memcpy(&r->port_gid, m->port_gid, 16);
	r->qkey = htobe32(g->p.qkey);
	r->mlid = htobe16(g->mlid);
	r->mtu = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | g->p.mtu);
	r->tclass = g->p.tclass;
	r->pkey = htobe16(g->p.pkey);
	r->rate = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | g->p.rate);
	r->pkt_life = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | g->p.pkt_life);
	r->sl_flow_hop = ib_member_set_sl_flow_hop(g->p.sl, g->p.flow_label, g->p.hop_limit);
	r->scope_state = (uint8_t)(g->p.scope << 4 | (m ? m->join_state : 0));
	if (m && m->proxy)
		((uint8_t *)r)[offsetof(ib_member_rec_t, scope_state) + 1] |= 0x80;
}

/* Does the existing group agree with every field the join's mask names? */
static bool
group_agrees(const struct mc_group *g, const ib_member_rec_t *t, uint64_t mask)
{
	struct mc_params w;

	params_of(t, &w);
	if ((mask & IB_MCR_COMPMASK_QKEY) && w.qkey != g->p.qkey)
		return false;
	if ((mask & IB_MCR_COMPMASK_MLID) && t->mlid && be16toh(t->mlid) != g->mlid)
		return false;
	if ((mask & IB_MCR_COMPMASK_MTU) && !selected(g->p.mtu, w.mtu,
	    (mask & IB_MCR_COMPMASK_MTU_SEL) ? sel2(t->mtu) : 2))
		return false;
	if ((mask & IB_MCR_COMPMASK_RATE) && !selected(g->p.rate, w.rate,
	    (mask & IB_MCR_COMPMASK_RATE_SEL) ? sel2(t->rate) : 2))
		return false;
	if ((mask & IB_MCR_COMPMASK_LIFE) && !selected(g->p.pkt_life, w.pkt_life,
	    (mask & IB_MCR_COMPMASK_LIFE_SEL) ? sel2(t->pkt_life) : 2))
		return false;
	if ((mask & IB_MCR_COMPMASK_TCLASS) && w.tclass != g->p.tclass)
		return false;
	if ((mask & IB_MCR_COMPMASK_PKEY) && (w.pkey & 0x7FFF) != (g->p.pkey & 0x7FFF))
		return false;
	if ((mask & IB_MCR_COMPMASK_SL) && w.sl != g->p.sl)
		return false;
	if ((mask & IB_MCR_COMPMASK_FLOW) && w.flow_label != g->p.flow_label)
		return false;
	if ((mask & IB_MCR_COMPMASK_HOP) && w.hop_limit != g->p.hop_limit)
		return false;
	if ((mask & IB_MCR_COMPMASK_SCOPE) && w.scope != g->p.scope)
		return false;
	return true;
}

/* MTU or rate for a new group: what the selector asks, false if nothing can. */
static bool
choose(uint8_t want, uint8_t sel, bool given, uint8_t dflt, uint8_t lo, uint8_t hi, uint8_t *out)
{
	if (!given) {
		*out = dflt;
		return true;
	}
	switch (sel) {
	case 0:	*out = (uint8_t)(want + 1); break;
	case 1:	*out = (uint8_t)(want - 1); break;
	case 3:	*out = dflt; return true;
	default: *out = want; break;
	}
	return *out >= lo && *out <= hi;
}

/* An SA-assigned MGID: signature 0xA01B (IBA 4.1.1), the P_Key, the MLID. */
static void
assign_mgid(uint8_t scope, uint16_t pkey, uint16_t serial, uint8_t mgid[16])
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = (uint8_t)(0x10 | (scope & 0x0F));
	mgid[2] = 0xa0;
	mgid[3] = 0x1b;
	mgid[4] = (uint8_t)(pkey >> 8);
	mgid[5] = (uint8_t)pkey;
	mgid[14] = (uint8_t)(serial >> 8);
	mgid[15] = (uint8_t)serial;
}

static uint16_t
create_group(const struct sa_ctx *ctx, const ib_member_rec_t *t, uint64_t mask,
    const struct fabric_port *port, struct mc_group **out)
{
	struct mc_params p;
	uint8_t mgid[16], zero[16] = { 0 };
	uint8_t state = t->scope_state & 0x0F;
	uint16_t mgid_pkey;

	if ((mask & CREATE_MASK) != CREATE_MASK)
		return ST(IB_SA_MAD_STATUS_INSUF_COMPS);
	if (!(state & (MC_JOIN_FULL | MC_JOIN_SENDONLY_FULL)))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);	/* only a full member creates */
	params_of(t, &p);
	if (!(sa_port_pkey_entry(ctx, port, p.pkey & 0x7FFF) & 0x8000))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);	/* limited or not a member */
	if (!(mask & IB_MCR_COMPMASK_SCOPE) || p.scope == 0)
		p.scope = 2;	/* link-local, as every IPoIB MGID */
	if (!choose(val6(t->mtu), sel2(t->mtu), mask & IB_MCR_COMPMASK_MTU, MC_DEFAULT_MTU,
	    IB_MTU_LEN_256, IB_MTU_LEN_4096, &p.mtu) ||
	    !choose(val6(t->rate), sel2(t->rate), mask & IB_MCR_COMPMASK_RATE, MC_DEFAULT_RATE,
	    IB_PATH_RECORD_RATE_2_5_GBS, IB_MAX_RATE, &p.rate))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	if (!choose(val6(t->pkt_life), sel2(t->pkt_life), (mask & IB_MCR_COMPMASK_LIFE) &&
	    (mask & IB_MCR_COMPMASK_LIFE_SEL), 18, 0, 63, &p.pkt_life))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	memcpy(mgid, &t->mgid, 16);
	if (!(mask & IB_MCR_COMPMASK_MGID) || memcmp(mgid, zero, 16) == 0) {
		for (uint16_t serial = 1; serial; serial++) {
			assign_mgid(p.scope, p.pkey | 0x8000, serial, mgid);
			if (mc_find(ctx->mc, mgid) == NULL)
				break;
		}
	} else if (mgid[0] != 0xff)	/* not multicast: OpenSM (and osmtest) say invalid request */
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	else if (mgid[2] == 0xa0 && mgid[3] == 0x1b)	/* signature reserved to SA-made MGIDs */
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	else if ((mgid[1] >> 4) & 0x0E)		/* flags: only T (transient) is defined */
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	else if (mc_mgid_ipoib_pkey(mgid, &mgid_pkey) && (mgid_pkey & 0x7FFF) != (p.pkey & 0x7FFF))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	if ((*out = mc_create(ctx->mc, mgid, &p, false)) == NULL)
		return ST(IB_SA_MAD_STATUS_NO_RESOURCES);
	return 0;
}

/* The port a join or leave is for: PortGID's, which must be the
 * requester's own unless it joins by proxy. */
static uint16_t
member_port(const struct sa_ctx *ctx, const struct sa_query *q, const struct fabric_port **out)
{
	const ib_member_rec_t *t = (const ib_member_rec_t *)q->tmpl;
	uint64_t mask = q->mask;
	const struct fabric_port *req = sa_requester(ctx), *p;

	if ((mask & JOIN_MASK) != JOIN_MASK || (t->scope_state & 0x0F) == 0)
		return ST(IB_SA_MAD_STATUS_INSUF_COMPS);
	p = fabric_port_by_guid(ctx->f, gid_guid(&t->port_gid));
	if (p && p->node->type == FABRIC_SWITCH)
		p = &p->node->ports[0];
	if (p == NULL)
		return ST(IB_SA_MAD_STATUS_INVALID_GID);
	/* another port's join is a proxy join (as OpenSM infers it, whatever
	 * the ProxyJoin bit says): a trusted requester (the SA key), or one
	 * that shares a partition with the port */
	if (req && req != p && !q->trusted && !sa_ports_share_partition(ctx, req, p))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	*out = p;
	return 0;
}

uint16_t
sa_mcast_join(const struct sa_ctx *ctx, const struct sa_query *q, ib_member_rec_t *resp)
{
	const ib_member_rec_t *t = (const ib_member_rec_t *)q->tmpl;
	const struct fabric_port *port;
	struct mc_group *g = NULL;
	struct mc_member *m;
	uint16_t st;

	if (ctx->mc == NULL)
		return ST(IB_SA_MAD_STATUS_NO_RESOURCES);
	if ((st = member_port(ctx, q, &port)) != 0)
		return st;
	if (q->mask & IB_MCR_COMPMASK_MGID)
		g = mc_find(ctx->mc, (const uint8_t *)&t->mgid);
	if (g == NULL) {
		struct mc_params want;

		/* a group the joining port could not even carry is not made */
		params_of(t, &want);
		if (q->mask & IB_MCR_COMPMASK_RATE) {
			struct mc_params probe = { .mtu = 0, .rate = want.rate };

			if (!port_carries(port, &probe) && sel2(t->rate) != 1 && sel2(t->rate) != 3)
				return ST(IB_SA_MAD_STATUS_REQ_INVALID);
		}
		if ((st = create_group(ctx, t, q->mask, port, &g)) != 0)
			return st;
	} else if (!group_agrees(g, t, q->mask) || !port_carries(port, &g->p))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	if (sa_port_pkey_entry(ctx, port, g->p.pkey & 0x7FFF) == 0)
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);	/* not in the group's partition */
	m = mc_member_join(ctx->mc, g, port->guid, (const uint8_t *)&t->port_gid,
	    t->scope_state & 0x0F, rec_proxy(t) || (sa_requester(ctx) && sa_requester(ctx) != port));
	fill_record(g, m, resp);
	return 0;
}

uint16_t
sa_mcast_leave(const struct sa_ctx *ctx, const struct sa_query *q, ib_member_rec_t *resp)
{
	const ib_member_rec_t *t = (const ib_member_rec_t *)q->tmpl;
	const struct fabric_port *port;
	struct mc_group *g;
	struct mc_member gone;
	uint8_t want = t->scope_state & 0x0F, before;
	uint16_t st;

	if (ctx->mc == NULL)
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	if (!(q->mask & IB_MCR_COMPMASK_MGID))
		return ST(IB_SA_MAD_STATUS_INSUF_COMPS);
	if ((st = member_port(ctx, q, &port)) != 0)
		return st;
	if ((g = mc_find(ctx->mc, (const uint8_t *)&t->mgid)) == NULL ||
	    mc_member_find(g, port->guid) == NULL)
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	gone = *mc_member_find(g, port->guid);
	if (want & ~gone.join_state)	/* o15-0.1.14: only bits it holds can go */
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	before = mc_member_leave(ctx->mc, g, port->guid, want);
	gone.join_state = before & (uint8_t)~want;	/* the answer shows what remains */
	fill_record(g, &gone, resp);
	if (g->nmembers == 0 && !g->sm_owned)
		mc_delete(ctx->mc, g);
	return 0;
}

/* Get/GetTable: does the (group, member) record match the template? */
static bool
record_matches(const ib_member_rec_t *r, const ib_member_rec_t *t, uint64_t mask)
{
	struct mc_group g;

	if ((mask & IB_MCR_COMPMASK_MGID) && memcmp(&r->mgid, &t->mgid, 16) != 0)
		return false;
	if ((mask & IB_MCR_COMPMASK_PORT_GID) && memcmp(&r->port_gid, &t->port_gid, 16) != 0)
		return false;
	if ((mask & IB_MCR_COMPMASK_MLID) && r->mlid != t->mlid)
		return false;
	if ((mask & IB_MCR_COMPMASK_JOIN_STATE) && !(r->scope_state & t->scope_state & 0x0F))
		return false;
	if ((mask & IB_MCR_COMPMASK_PROXY) && rec_proxy(r) != rec_proxy(t))
		return false;
	/* The group's own fields, judged as a join would judge them. */
	memset(&g, 0, sizeof(g));
	params_of(r, &g.p);
	g.mlid = be16toh(r->mlid);
	return group_agrees(&g, t, mask & ~IB_MCR_COMPMASK_MLID);
}

uint16_t
sa_mcast_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_member_rec_t *t = (const ib_member_rec_t *)q->tmpl;
	const struct fabric_port *req = sa_requester(ctx);
	ib_member_rec_t r;

	if (ctx->mc == NULL)
		return 0;
	for (size_t i = 0; i < ctx->mc->ngroups; i++) {
		const struct mc_group *g = ctx->mc->groups[i];

		if (!sees(ctx, req, g))
			continue;
		if (g->nmembers == 0) {	/* an SM-created group nobody joined yet */
			fill_record(g, NULL, &r);
			if (!(q->mask & (IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE)) &&
			    record_matches(&r, t, q->mask) && !sa_sink_put(out, &r))
				return 0;
			continue;
		}
		for (size_t j = 0; j < g->nmembers; j++) {
			fill_record(g, &g->members[j], &r);
			if (record_matches(&r, t, q->mask) && !sa_sink_put(out, &r))
				return 0;
		}
	}
	return 0;
}

uint16_t
sa_mcast_change(const struct sa_ctx *ctx, const struct sa_query *q, bool set, void *rec)
{
	return set ? sa_mcast_join(ctx, q, rec) : sa_mcast_leave(ctx, q, rec);
}
