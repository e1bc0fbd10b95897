/*
 * PathRecords from the path the programmed forwarding tables really take
 * (routing_walk over routing_lookup_programmed: the tables as the switches
 * hold them, not a fresh computation).  A record exists only when the walk
 * reaches the destination and every link on it is ACTIVE; its MTU and rate
 * are the smallest of every port crossed, as OpenSM computes them.
 *
 * Ends are fixed by SGID or SLID (source) and DGID or DLID (destination);
 * an end left open means every addressed port (switch port 0, CA ports).
 *
 * Partitions (IBA 10.9, as OpenSM): a path exists in partition P when both
 * ends hold P (compared on the low 15 bits) and at least one of them as a
 * full member; two limited members cannot talk.  A query with a P_Key in
 * its mask gets the record only in that partition, carrying the P_Key as
 * asked (OpenSM returns the requested one).  A query without one gets the
 * shared partition of the lowest key, carrying the P_Key the source port
 * holds, membership bit included (OpenSM's osm_physp_find_common_pkey).
 * What each port holds comes from the partitions module
 * (sm_set_pkey_tables); without it every port holds 0xFFFF alone.
 *
 * The SL is chosen in sa_path_sl(): the path's QoS class's (sm/qos/qos_select.c); the ServiceID, QoSClass
 * and TClass rdma_cm sends are accepted and come back in the record, and
 * a requester sees paths only between ports it shares a partition with
 * (OpenSM's rule).  LMC is 0, so NumbPath never gives more than one path per
 * pair.  HopLimit is 0: IBA reserves larger values for
 * paths that leave the subnet, and a non-zero one makes the kernel add a
 * GRH to every packet.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "fabric/routing.h"
#include "sm/sa/sa.h"

#define PR_PKT_LIFE	18	/* OpenSM's subnet_timeout default */

static uint16_t
end_lid(const struct fabric_port *p)
{
	return p->node->type == FABRIC_SWITCH ? p->node->lid : p->lid;
}

/* A switch is addressed through its port 0, whichever port was named. */
static const struct fabric_port *
end_port(const struct fabric_port *p)
{
	return p && p->node->type == FABRIC_SWITCH ? &p->node->ports[0] : p;
}

static const ib_port_info_t *
pinfo(const struct fabric_port *p)
{
	return (const ib_port_info_t *)p->pi;
}

/* Switch external ports report no CapabilityMask: port 0 speaks for them. */
static bool
ext_speeds(const struct fabric_port *p)
{
	const struct fabric_port *cap = p->node->type == FABRIC_SWITCH ? &p->node->ports[0] : p;

	return (pinfo(cap)->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS) != 0;
}

static uint64_t
gid_prefix(const struct fabric_port *p)
{
	uint64_t pre = pinfo(end_port(p))->subnet_prefix;

	return pre ? pre : IB_DEFAULT_SUBNET_PREFIX;	/* network order */
}

/*
 * Bandwidth of one port in Mb/s per the active width and speed, only to
 * find the slowest port of a path; the rate code itself comes from
 * ib_port_info_compute_rate() on that port.
 */
static unsigned
lanes(uint8_t width)
{
	if (width & 8) return 12;
	if (width & 4) return 8;
	if (width & 2) return 4;
	if (width & 16) return 2;
	return 1;
}

static unsigned
lane_mbps(const struct fabric_port *p)
{
	if (ext_speeds(p) && p->ext_speed_active) {
		if (p->ext_speed_active & 8) return 106250;	/* NDR */
		if (p->ext_speed_active & 4) return 53125;	/* HDR */
		if (p->ext_speed_active & 2) return 25781;	/* EDR */
		return 14062;					/* FDR */
	}
	if (p->speed_active & 4) return 10000;	/* QDR */
	if (p->speed_active & 2) return 5000;	/* DDR */
	return 2500;				/* SDR */
}

static unsigned
port_mbps(const struct fabric_port *p)
{
	return lanes(p->width_active) * lane_mbps(p);
}

struct path_params {
	uint8_t		mtu;		/* IB_MTU_LEN_* */
	uint8_t		rate;		/* IB_PATH_RECORD_RATE_* */
	unsigned	mbps;		/* of the slowest port */
	size_t		hops;		/* nodes on the walk */
};

static void
take_port(struct path_params *pp, const struct fabric_port *p)
{
	uint8_t mtu = ib_port_info_get_mtu_cap(pinfo(p));

	if (mtu < pp->mtu)
		pp->mtu = mtu;
	if (port_mbps(p) < pp->mbps) {
		pp->mbps = port_mbps(p);
		pp->rate = ib_port_info_compute_rate(pinfo(p), ext_speeds(p));
	}
}

/*
 * Walk src -> dlid through the programmed tables.  False when there is no
 * route, or a link on it is not ACTIVE (the fabric would drop the packets).
 */
static bool
walk_path(const struct fabric_port *src, uint16_t dlid, struct path_params *pp)
{
	struct routing_hop hops[FABRIC_MAX_HOPS + 2];
	size_t nh;

	pp->mtu = IB_MTU_LEN_4096;
	pp->mbps = ~0u;
	pp->rate = 0;
	if (routing_walk(src, dlid, routing_lookup_programmed, NULL, hops,
	    sizeof(hops) / sizeof(hops[0]), &nh) != ROUTING_WALK_OK)
		return false;
	pp->hops = nh;
	if (nh == 1) {		/* loopback: the port itself */
		take_port(pp, src);
		return true;
	}
	for (size_t i = 0; i + 1 < nh; i++) {
		const struct fabric_port *out = &hops[i].node->ports[hops[i].out_port];
		const struct fabric_port *in = out->peer;

		if (in == NULL || out->state != IB_LINK_ACTIVE || in->state != IB_LINK_ACTIVE)
			return false;
		take_port(pp, out);
		take_port(pp, in);
	}
	return true;
}

/* ---- selectors (IBA 15.2.5.16: 0 greater than, 1 less than, 2 exactly, 3 largest) ---- */

/* MTU codes are ordered; false when the path cannot give what is asked. */
static bool
select_mtu(const ib_path_rec_t *t, uint64_t mask, uint8_t *mtu)
{
	uint8_t want = ib_path_rec_mtu(t);
	uint8_t sel = (mask & IB_PR_COMPMASK_MTUSELEC) ? ib_path_rec_mtu_sel(t) : 2;

	if (!(mask & IB_PR_COMPMASK_MTU))
		return true;
	switch (sel) {
	case 0:	return *mtu > want;
	case 1:
		if (want <= IB_MTU_LEN_256)
			return false;
		if (*mtu >= want)
			*mtu = want - 1;
		return true;
	case 2:
		if (*mtu < want)
			return false;
		*mtu = want;
		return true;
	}
	return true;
}

/* Rate codes are not ordered: only "exactly" is judged, by the code. */
static bool
select_rate(const ib_path_rec_t *t, uint64_t mask, uint8_t rate)
{
	uint8_t sel = (mask & IB_PR_COMPMASK_RATESELEC) ? ib_path_rec_rate_sel(t) : 2;

	if (!(mask & IB_PR_COMPMASK_RATE) || sel != 2)
		return true;
	return ib_path_rec_rate(t) == rate;
}

/* ---- partitions ---- */

#define PKEY_BASE(k)	((uint16_t)((k) & 0x7FFF))
#define PKEY_FULL	0x8000
#define PKEY_MAX_KEYS	256	/* more than any PartitionCap we have seen */

struct port_keys {
	uint16_t	keys[PKEY_MAX_KEYS];
	size_t		n;
};

/* What port p holds: the registered tables, or the factory 0xFFFF. */
static void
port_keys(const struct sa_ctx *ctx, const struct fabric_port *p, struct port_keys *pk)
{
	int n = ctx->pkey_table ? ctx->pkey_table(p, pk->keys, PKEY_MAX_KEYS, ctx->pkey_arg) : -1;

	if (n < 0) {
		pk->keys[0] = 0xFFFF;
		n = 1;
	}
	pk->n = (size_t)n < PKEY_MAX_KEYS ? (size_t)n : PKEY_MAX_KEYS;
}

/* The entry of pk for base (15 bits), or 0 when the port does not hold it. */
static uint16_t
entry_of(const struct port_keys *pk, uint16_t base)
{
	for (size_t i = 0; i < pk->n; i++)
		if (pk->keys[i] != 0 && PKEY_BASE(pk->keys[i]) == base)
			return pk->keys[i];
	return 0;
}

uint16_t
sa_port_pkey_entry(const struct sa_ctx *ctx, const struct fabric_port *p, uint16_t base)
{
	struct port_keys pk;

	port_keys(ctx, p, &pk);
	return entry_of(&pk, base);
}

/* Do both hold base, one of them as a full member?  *src_entry: src's key. */
static bool
share_pkey(const struct port_keys *src, const struct port_keys *dst, uint16_t base,
    uint16_t *src_entry)
{
	uint16_t a = entry_of(src, base), b = entry_of(dst, base);

	if (base == 0 || a == 0 || b == 0 || !((a | b) & PKEY_FULL))
		return false;
	*src_entry = a;
	return true;
}

/*
 * The P_Key of the record for (src, dst), false when the query's partition
 * (or, without one in the mask, every partition) has no path between them.
 */
static bool
path_pkey(const struct sa_ctx *ctx, const struct sa_query *q, const struct fabric_port *src,
    const struct fabric_port *dst, uint16_t *pkey)
{
	const ib_path_rec_t *t = (const ib_path_rec_t *)q->tmpl;
	struct port_keys sk, dk;
	uint16_t entry, best = 0;

	port_keys(ctx, src, &sk);
	port_keys(ctx, dst, &dk);
	if (q->mask & IB_PR_COMPMASK_PKEY) {
		*pkey = be16toh(t->pkey);
		return share_pkey(&sk, &dk, PKEY_BASE(*pkey), &entry);
	}
	for (size_t i = 0; i < sk.n; i++)
		if (share_pkey(&sk, &dk, PKEY_BASE(sk.keys[i]), &entry) &&
		    (best == 0 || PKEY_BASE(entry) < PKEY_BASE(best)))
			best = entry;
	*pkey = best;
	return best != 0;
}

const struct fabric_port *
sa_requester(const struct sa_ctx *ctx)
{
	const struct fabric_port *p;

	if (ctx->f == NULL || ctx->requester_lid == 0)
		return NULL;
	p = fabric_port_by_lid(ctx->f, ctx->requester_lid);
	return end_port(p);
}

bool
sa_ports_share_partition(const struct sa_ctx *ctx, const struct fabric_port *a,
    const struct fabric_port *b)
{
	struct port_keys ak, bk;
	uint16_t entry;

	if (a == b)
		return true;	/* a port always sees itself, limited or not */
	port_keys(ctx, a, &ak);
	port_keys(ctx, b, &bk);
	for (size_t i = 0; i < ak.n; i++)
		if (share_pkey(&ak, &bk, PKEY_BASE(ak.keys[i]), &entry))
			return true;
	return false;
}

bool
sa_path_sl(const struct sa_ctx *ctx, const struct sa_path_req *req,
    const struct fabric_port *src, const struct fabric_port *dst, uint8_t *sl)
{
	/* the class of the ServiceID asked, else of the partition */
	*sl = qos_select_sl(ctx->qos, req->has_service_id, req->service_id, req->pkey);
	return !req->has_sl || req->sl == *sl;
}

static void
path_req_of(const ib_path_rec_t *t, uint64_t mask, uint16_t pkey, struct sa_path_req *w)
{
	memset(w, 0, sizeof(*w));
	w->has_service_id = (mask & IB_PR_COMPMASK_SERVICEID) != 0;
	w->service_id = be64toh(t->service_id);
	w->has_qos_class = (mask & IB_PR_COMPMASK_QOS_CLASS) != 0;
	w->qos_class = ib_path_rec_qos_class(t);
	w->has_tclass = (mask & IB_PR_COMPMASK_TCLASS) != 0;
	w->tclass = t->tclass;
	w->has_sl = (mask & IB_PR_COMPMASK_SL) != 0;
	w->sl = ib_path_rec_sl(t);
	w->pkey = pkey;
}

bool
sa_path_pair(const struct sa_ctx *ctx, const struct sa_query *q, const struct fabric_port *src,
    const struct fabric_port *dst, ib_path_rec_t *r)
{
	const ib_path_rec_t *t = (const ib_path_rec_t *)q->tmpl;
	uint16_t slid = end_lid(src), dlid = end_lid(dst), pkey;
	const struct fabric_port *req = sa_requester(ctx);
	struct path_params fwd, back;
	struct sa_path_req want;
	bool reversible;
	ib_gid_t sgid, dgid;
	uint8_t sl;

	if (slid == 0 || dlid == 0)
		return false;
	/* a requester sees paths only between ports it shares a partition with */
	if (req && (!sa_ports_share_partition(ctx, req, src) ||
	    !sa_ports_share_partition(ctx, req, dst)))
		return false;
	if (!walk_path(src, dlid, &fwd))
		return false;
	reversible = walk_path(dst, slid, &back);
	if ((q->mask & IB_PR_COMPMASK_REVERSIBLE) && (t->num_path & 0x80) && !reversible)
		return false;
	if ((q->mask & IB_PR_COMPMASK_NUMBPATH) && (t->num_path & 0x7F) == 0)
		return false;
	if (!path_pkey(ctx, q, src, dst, &pkey) || !select_mtu(t, q->mask, &fwd.mtu) ||
	    !select_rate(t, q->mask, fwd.rate))
		return false;
	path_req_of(t, q->mask, pkey, &want);
	if (!sa_path_sl(ctx, &want, src, dst, &sl))
		return false;
	sgid.unicast.prefix = gid_prefix(src);
	sgid.unicast.interface_id = htobe64(src->guid);
	dgid.unicast.prefix = gid_prefix(dst);
	dgid.unicast.interface_id = htobe64(dst->guid);
	memset(r, 0, sizeof(*r));
	ib_path_rec_init_local(r, &dgid, &sgid, htobe16(dlid), htobe16(slid),
	    (uint8_t)((reversible ? 0x80 : 0) | 1), htobe16(pkey), sl,
	    want.has_qos_class ? want.qos_class : 0,
	    IB_PATH_SELECTOR_EXACTLY, fwd.mtu, IB_PATH_SELECTOR_EXACTLY, fwd.rate,
	    IB_PATH_SELECTOR_EXACTLY, src == dst ? 0 : PR_PKT_LIFE, 0);
	/* what rdma_cm asked for comes back as asked (OpenSM does the same):
	 * its ServiceID and TClass, the QoSClass above */
	if (want.has_service_id)
		r->service_id = htobe64(want.service_id);
	if (want.has_tclass)
		r->tclass = want.tclass;
	return true;
}

/*
 * The port one end of the query names: by GID (prefix and port GUID) or
 * LID, both when both are given (they must agree).  *open when neither is.
 * False when what is named does not exist.
 */
static bool
fixed_end(const struct fabric *f, bool by_gid, const ib_gid_t *gid, bool by_lid,
    uint16_t lid, const struct fabric_port **out, bool *open)
{
	const struct fabric_port *g = NULL, *l = NULL;

	*out = NULL;
	*open = !by_gid && !by_lid;
	if (by_gid) {
		g = end_port(fabric_port_by_guid(f, be64toh(gid->unicast.interface_id)));
		if (g == NULL || (gid->unicast.prefix != gid_prefix(g) &&
		    gid->unicast.prefix != IB_DEFAULT_SUBNET_PREFIX))
			return false;
	}
	if (by_lid) {
		l = end_port(fabric_port_by_lid(f, lid));
		if (l == NULL || end_lid(l) != lid)
			return false;
	}
	if (g && l && g != l)
		return false;
	*out = g ? g : l;
	return *open || *out != NULL;
}

const struct fabric_port *
sa_path_end_by_gid(const struct fabric *f, const ib_gid_t *gid)
{
	const struct fabric_port *p;
	bool open;

	if (!fixed_end(f, true, gid, false, 0, &p, &open))
		return NULL;
	return p != NULL && end_lid(p) != 0 ? p : NULL;
}

/* Every port a path may start or end at. */
static bool
addressed(const struct fabric_port *p)
{
	if (p->node->type == FABRIC_SWITCH)
		return p->num == 0 && p->node->lid != 0;
	return p->num != 0 && p->guid != 0 && p->lid != 0;
}

/* Call fn for a fixed end, or for every addressed port of an open one. */
struct pr_iter {
	const struct sa_ctx	*ctx;
	const struct sa_query	*q;
	struct sa_sink		*out;
	const struct fabric	*f;
	const struct fabric_port *dst;	/* fixed destination, or NULL */
	bool			 dst_open;
};

static bool
put_pair(struct pr_iter *it, const struct fabric_port *src, const struct fabric_port *dst)
{
	ib_path_rec_t r;

	if (!sa_path_pair(it->ctx, it->q, src, dst, &r))
		return true;
	return sa_sink_put(it->out, &r);
}

static bool
from_source(struct pr_iter *it, const struct fabric_port *src)
{
	struct fabric_node *n;
	size_t i;

	if (!it->dst_open)
		return put_pair(it, src, it->dst);
	FABRIC_FOREACH_NODE(it->f, i, n)
		for (unsigned j = 0; j <= n->nports; j++)
			if (addressed(&n->ports[j]) && !put_pair(it, src, &n->ports[j]))
				return false;
	return true;
}

uint16_t
sa_path_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_path_rec_t *t = (const ib_path_rec_t *)q->tmpl;
	struct pr_iter it = { .ctx = ctx, .q = q, .out = out, .f = ctx->f };
	const struct fabric_port *src;
	bool src_open;
	struct fabric_node *n;
	size_t i;

	if (!fixed_end(ctx->f, q->mask & IB_PR_COMPMASK_SGID, &t->sgid,
	    q->mask & IB_PR_COMPMASK_SLID, be16toh(t->slid), &src, &src_open) ||
	    !fixed_end(ctx->f, q->mask & IB_PR_COMPMASK_DGID, &t->dgid,
	    q->mask & IB_PR_COMPMASK_DLID, be16toh(t->dlid), &it.dst, &it.dst_open))
		return 0;	/* an end that does not exist: no records */
	if (!src_open) {
		from_source(&it, src);
		return 0;
	}
	FABRIC_FOREACH_NODE(ctx->f, i, n)
		for (unsigned j = 0; j <= n->nports; j++)
			if (addressed(&n->ports[j]) && !from_source(&it, &n->ports[j]))
				return 0;
	return 0;
}
