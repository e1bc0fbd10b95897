/*
 * InformInfo (IBA 13.4.8.3, 15.2.5.12): Set subscribes a port to a trap
 * (or, with Subscribe 0, unsubscribes it); InformInfoRecord lists the
 * subscriptions.  The subscriber is the requester's port (its SLID), the
 * Reports go to the QPN its InformInfo names (1 for every SA client seen).
 * Only generic traps are forwarded: 64/65 (a port in/out of service) are
 * the SM's own Reports (sm/core/sa_report.c); a vendor subscription is kept
 * (as OpenSM keeps it) but gets nothing.
 *
 * Nothing is stored: after a restart, ClientReregister makes the clients
 * subscribe again.
 */
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/xmalloc.h"
#include "sm/sa/sa.h"

#define ST(x)	be16toh(x)

static uint32_t
inform_qpn(const ib_inform_info_t *ii)
{
	return be32toh(ii->g_or_v.generic.qpn_resp_time_val) >> 8;
}

/*
 * Two InformInfos name the same subscription when they agree on what
 * OpenSM compares (osm_inform.c): the GID (else the LID range), the trap
 * type, generic or vendor, and the trap number (a vendor's DeviceID),
 * QPN, response time and producer type (VendorID); not Subscribe, nor
 * the reserved fields.
 */
static void
inform_key(const ib_inform_info_t *ii, ib_inform_info_t *k)
{
	static const ib_gid_t zero;

	*k = *ii;
	k->subscribe = 0;
	k->reserved1 = 0;
	k->g_or_v.generic.reserved2 = 0;
	if (memcmp(&k->gid, &zero, sizeof(zero)) != 0)
		k->lid_range_begin = k->lid_range_end = 0;
}

static struct sa_sub *
find_sub(struct sa_subs *s, uint16_t lid, const ib_inform_info_t *ii)
{
	ib_inform_info_t want, have;

	inform_key(ii, &want);
	for (size_t i = 0; i < s->n; i++) {
		inform_key((const ib_inform_info_t *)s->v[i].inform, &have);
		if (s->v[i].lid == lid && memcmp(&want, &have, sizeof(want)) == 0)
			return &s->v[i];
	}
	return NULL;
}

/* A new subscription, or the one it replaces.  As OpenSM, the InformInfo
 * kept names the QPN the Set came from (QP1: every SA client here), so an
 * unsubscribe names it too. */
static void
subscribe(const struct sa_ctx *ctx, const struct fabric_port *req, const ib_inform_info_t *ii)
{
	struct sa_subs *s = ctx->subs;
	ib_inform_info_t kept = *ii;
	struct sa_sub *sub;

	kept.g_or_v.generic.qpn_resp_time_val = htobe32(1u << 8 |
	    (be32toh(ii->g_or_v.generic.qpn_resp_time_val) & 0x1F));
	if ((sub = find_sub(s, ctx->requester_lid, &kept)) == NULL) {
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 8;
			s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
		}
		sub = &s->v[s->n++];
	}
	memset(sub, 0, sizeof(*sub));
	sub->lid = ctx->requester_lid;
	sub->port_guid = req->guid;
	sub->generic = ii->is_generic != 0;
	sub->trap = be16toh(ii->g_or_v.generic.trap_num);
	sub->qpn = inform_qpn(ii) ? inform_qpn(ii) : 1;
	sub->lid_begin = be16toh(ii->lid_range_begin);
	sub->lid_end = be16toh(ii->lid_range_end);
	memcpy(sub->inform, &kept, sizeof(sub->inform));
}

/*
 * Subscribe 1 adds (or replaces) a subscription, generic or vendor, as
 * OpenSM takes both (a vendor one is kept and listed, but no vendor trap
 * is forwarded); Subscribe 0 removes the one the InformInfo names, and
 * is refused when there is none.
 */
uint16_t
sa_inform_set(const struct sa_ctx *ctx, const struct sa_query *q, uint8_t *resp, size_t len)
{
	const ib_inform_info_t *ii = (const ib_inform_info_t *)q->tmpl;
	const struct fabric_port *req = sa_requester(ctx);
	struct sa_subs *s = ctx->subs;
	struct sa_sub *sub;

	if (s == NULL || req == NULL || ii->subscribe > 1)
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	if (ii->subscribe)
		subscribe(ctx, req, ii);
	else if ((sub = find_sub(s, ctx->requester_lid, ii)) == NULL)
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	else
		*sub = s->v[--s->n];
	memset(resp, 0, len);
	memcpy(resp, ii, sizeof(*ii) < len ? sizeof(*ii) : len);
	return 0;
}

uint16_t
sa_inform_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_inform_info_record_t *t = (const ib_inform_info_record_t *)q->tmpl;

	if (ctx->subs == NULL)
		return 0;
	for (size_t i = 0; i < ctx->subs->n; i++) {
		const struct sa_sub *sub = &ctx->subs->v[i];
		const struct fabric_port *p = fabric_port_by_guid(ctx->f, sub->port_guid);
		ib_inform_info_record_t r;

		memset(&r, 0, sizeof(r));
		r.subscriber_gid.unicast.prefix = htobe64(0xfe80000000000000ULL);
		if (p)
			r.subscriber_gid.unicast.prefix = ((const ib_port_info_t *)p->pi)->subnet_prefix ?
			    ((const ib_port_info_t *)p->pi)->subnet_prefix : r.subscriber_gid.unicast.prefix;
		r.subscriber_gid.unicast.interface_id = htobe64(sub->port_guid);
		r.subscriber_enum = htobe16((uint16_t)i);
		memcpy(&r.inform_info, sub->inform, sizeof(r.inform_info));
		if ((q->mask & IB_IIR_COMPMASK_SUBSCRIBERGID) &&
		    memcmp(&r.subscriber_gid, &t->subscriber_gid, sizeof(r.subscriber_gid)) != 0)
			continue;
		if (!sa_sink_put(out, &r))
			return 0;
	}
	return 0;
}

uint16_t
sa_inform_change(const struct sa_ctx *ctx, const struct sa_query *q, bool set, void *rec)
{
	(void)set;		/* Set only: the table takes no Delete */
	return sa_inform_set(ctx, q, rec, 40);
}

bool
sa_sub_wants(const struct sa_sub *sub, uint16_t trap, uint16_t lid)
{
	if (!sub->generic)
		return false;
	if (sub->trap != trap && sub->trap != 0xFFFF)
		return false;
	if (sub->lid_begin == 0xFFFF || sub->lid_begin == 0)
		return true;
	return lid >= sub->lid_begin && lid <= (sub->lid_end ? sub->lid_end : sub->lid_begin);
}

void
sa_subs_free(struct sa_subs *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
