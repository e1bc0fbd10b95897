/*
 * MultiPathRecord (IBA 15.2.5.20, attribute 0x003A, GetMulti only): the
 * paths between a set of source GIDs and a set of destination GIDs, in one
 * GetMultiResp of PathRecords (attribute ID left MultiPathRecord, as
 * OpenSM answers it).
 *
 * The request is turned into a PathRecord query (same selectors, P_Key,
 * SL, QoSClass, TClass, ServiceID, Reversible) and every (SGID, DGID) pair
 * is built by sa_path_pair() in sa_path.c, so a MultiPathRecord path is
 * the PathRecord of the same pair: the same SL (sa_path_sl()), the same
 * partition rules and the same filtering by what the requester may see.
 * With LMC 0 each pair has exactly one path, so NumbPath only caps the
 * total; pairs are taken SGID by SGID, in the order given.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/sa/sa.h"

/* One MultiPathRecord mask bit and the PathRecord bit it becomes. */
static const struct { uint64_t mpr, pr; } mask_map[] = {
	{ IB_MPR_COMPMASK_TCLASS,	IB_PR_COMPMASK_TCLASS },
	{ IB_MPR_COMPMASK_REVERSIBLE,	IB_PR_COMPMASK_REVERSIBLE },
	{ IB_MPR_COMPMASK_PKEY,		IB_PR_COMPMASK_PKEY },
	{ IB_MPR_COMPMASK_QOS_CLASS,	IB_PR_COMPMASK_QOS_CLASS },
	{ IB_MPR_COMPMASK_SL,		IB_PR_COMPMASK_SL },
	{ IB_MPR_COMPMASK_MTUSELEC,	IB_PR_COMPMASK_MTUSELEC },
	{ IB_MPR_COMPMASK_MTU,		IB_PR_COMPMASK_MTU },
	{ IB_MPR_COMPMASK_RATESELEC,	IB_PR_COMPMASK_RATESELEC },
	{ IB_MPR_COMPMASK_RATE,		IB_PR_COMPMASK_RATE },
	{ IB_MPR_COMPMASK_SERVICEID_MSB, IB_PR_COMPMASK_SERVICEID_MSB },
	{ IB_MPR_COMPMASK_SERVICEID_LSB, IB_PR_COMPMASK_SERVICEID_LSB },
};

/* The PathRecord template and mask a MultiPathRecord request stands for
 * (without the ends, which are set per pair). */
static void
as_path_query(const ib_multipath_rec_t *m, uint64_t mask, ib_path_rec_t *t, uint64_t *pr_mask)
{
	uint64_t sid = m->service_id_8msb;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < 7; i++)
		sid = sid << 8 | m->service_id_56lsb[i];
	t->service_id = htobe64(sid);
	t->tclass = m->tclass;
	t->num_path = m->num_path & 0x80;	/* Reversible; NumbPath is judged here */
	t->pkey = m->pkey;
	t->qos_class_sl = m->qos_class_sl;
	t->mtu = m->mtu;
	t->rate = m->rate;
	*pr_mask = 0;
	for (size_t i = 0; i < sizeof(mask_map) / sizeof(mask_map[0]); i++)
		if (mask & mask_map[i].mpr)
			*pr_mask |= mask_map[i].pr;
}

/* PacketLifeTime selector (0 greater, 1 less, 2 exactly, 3 smallest). */
static bool
pkt_life_fits(const ib_multipath_rec_t *m, uint64_t mask, const ib_path_rec_t *r)
{
	uint8_t want = m->pkt_life & 0x3F, got = ib_path_rec_pkt_life(r);
	uint8_t sel = (mask & IB_MPR_COMPMASK_PKTLIFETIMESELEC) ? m->pkt_life >> 6 : 2;

	if (!(mask & IB_MPR_COMPMASK_PKTLIFETIME))
		return true;
	switch (sel) {
	case 0:	return got > want;
	case 1:	return got < want;
	case 2:	return got == want;
	}
	return true;
}

/* Resolve n GIDs to ports; false (INVALID_GID) when one names none. */
static bool
gid_ports(const struct fabric *f, const ib_gid_t *gids, size_t n,
    const struct fabric_port **out)
{
	for (size_t i = 0; i < n; i++)
		if ((out[i] = sa_path_end_by_gid(f, &gids[i])) == NULL)
			return false;
	return true;
}

uint16_t
sa_multipath_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_multipath_rec_t *m = (const ib_multipath_rec_t *)q->tmpl;
	const struct fabric_port *ends[IB_MULTIPATH_MAX_GIDS];
	size_t ns = (q->mask & IB_MPR_COMPMASK_SGIDCOUNT) ? m->sgid_count : 0;
	size_t nd = (q->mask & IB_MPR_COMPMASK_DGIDCOUNT) ? m->dgid_count : 0;
	size_t want = (q->mask & IB_MPR_COMPMASK_NUMBPATH) ? ib_multipath_rec_num_path(m) : ~(size_t)0;
	struct sa_query pq = { .trusted = q->trusted };
	ib_path_rec_t t, r;
	size_t got = 0;

	if (ns == 0 || nd == 0)
		return be16toh(IB_SA_MAD_STATUS_INSUF_COMPS);
	if (ns + nd > IB_MULTIPATH_MAX_GIDS)
		return be16toh(IB_SA_MAD_STATUS_REQ_INVALID);
	if (!gid_ports(ctx->f, m->gids, ns + nd, ends))
		return be16toh(IB_SA_MAD_STATUS_INVALID_GID);
	as_path_query(m, q->mask, &t, &pq.mask);
	pq.tmpl = (const uint8_t *)&t;
	for (size_t s = 0; s < ns; s++)
		for (size_t d = ns; d < ns + nd; d++) {
			if (got == want)
				return 0;
			if (!sa_path_pair(ctx, &pq, ends[s], ends[d], &r) ||
			    !pkt_life_fits(m, q->mask, &r))
				continue;
			got++;
			if (!sa_sink_put(out, &r))
				return 0;
		}
	return 0;
}
