/*
 * ServiceRecord (IBA 15.2.5.14): Set registers a service for its lease,
 * Delete removes it, Get/GetTable list.  A service is named by ServiceID,
 * ServiceGID and ServiceP_Key; registering it again replaces it.  A lease
 * of 0xFFFFFFFF never ends; the others end that many seconds after the
 * Set, and an ended service is dropped at the next look.  The GID must be
 * the requester's own port unless the request carries the SA key.  Only
 * the ServiceID, GID, P_Key and Name fields are matched by the component
 * mask (what osmtest and rdma_cm's service lookups use).  Nothing is
 * stored: ClientReregister makes the hosts register again.
 */
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/xmalloc.h"
#include "sm/sa/sa.h"

#define ST(x)	be16toh(x)
#define LEASE_FOREVER	0xFFFFFFFFu

static void
expire(struct sa_services *sv, int64_t now)
{
	for (size_t i = 0; i < sv->n;)
		if (sv->v[i].expires_ms && sv->v[i].expires_ms <= now)
			sv->v[i] = sv->v[--sv->n];
		else
			i++;
}

static bool
same_key(const ib_service_record_t *a, const ib_service_record_t *b)
{
	return a->service_id == b->service_id && a->service_pkey == b->service_pkey &&
	    memcmp(&a->service_gid, &b->service_gid, sizeof(a->service_gid)) == 0;
}

static bool
matches(const ib_service_record_t *r, const ib_service_record_t *t, uint64_t mask)
{
	if ((mask & IB_SR_COMPMASK_SID) && r->service_id != t->service_id)
		return false;
	if ((mask & IB_SR_COMPMASK_SGID) && memcmp(&r->service_gid, &t->service_gid, 16) != 0)
		return false;
	if ((mask & IB_SR_COMPMASK_SPKEY) &&
	    (be16toh(r->service_pkey) & 0x7FFF) != (be16toh(t->service_pkey) & 0x7FFF))
		return false;
	if ((mask & IB_SR_COMPMASK_SNAME) &&
	    memcmp(r->service_name, t->service_name, sizeof(r->service_name)) != 0)
		return false;
	return true;
}

/* The port the service's GID names must be the requester's (or trusted). */
static bool
may_register(const struct sa_ctx *ctx, const struct sa_query *q, const ib_service_record_t *t)
{
	const struct fabric_port *req = sa_requester(ctx);

	if (q->trusted || req == NULL)
		return true;
	return be64toh(t->service_gid.unicast.interface_id) == req->guid;
}

uint16_t
sa_service_set(const struct sa_ctx *ctx, const struct sa_query *q, int64_t now,
    ib_service_record_t *resp)
{
	const ib_service_record_t *t = (const ib_service_record_t *)q->tmpl;
	struct sa_services *sv = ctx->services;
	struct sa_service *s = NULL;
	uint32_t lease = be32toh(t->service_lease);

	if (sv == NULL)
		return ST(IB_SA_MAD_STATUS_NO_RESOURCES);
	if ((q->mask & (IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID)) !=
	    (IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID))
		return ST(IB_SA_MAD_STATUS_INSUF_COMPS);
	if (!may_register(ctx, q, t))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	expire(sv, now);
	for (size_t i = 0; i < sv->n && s == NULL; i++)
		if (same_key(&sv->v[i].rec, t))
			s = &sv->v[i];
	if (s == NULL) {
		if (sv->n == sv->cap) {
			sv->cap = sv->cap ? sv->cap * 2 : 8;
			sv->v = xreallocarray(sv->v, sv->cap, sizeof(*sv->v));
		}
		s = &sv->v[sv->n++];
	}
	memcpy(&s->rec, t, sizeof(s->rec));
	s->expires_ms = lease == LEASE_FOREVER ? 0 : now + (int64_t)lease * 1000 + 1;
	*resp = s->rec;
	return 0;
}

uint16_t
sa_service_delete(const struct sa_ctx *ctx, const struct sa_query *q, int64_t now,
    ib_service_record_t *resp)
{
	const ib_service_record_t *t = (const ib_service_record_t *)q->tmpl;
	struct sa_services *sv = ctx->services;

	if (sv == NULL)
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	if (!may_register(ctx, q, t))
		return ST(IB_SA_MAD_STATUS_REQ_INVALID);
	expire(sv, now);
	for (size_t i = 0; i < sv->n; i++)
		if (matches(&sv->v[i].rec, t, q->mask)) {
			*resp = sv->v[i].rec;
			sv->v[i] = sv->v[--sv->n];
			return 0;
		}
	return ST(IB_SA_MAD_STATUS_NO_RECORDS);
}

uint16_t
sa_service_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	int64_t now = ctx->now_ms;
	const ib_service_record_t *t = (const ib_service_record_t *)q->tmpl;
	const struct fabric_port *req = sa_requester(ctx);
	struct sa_services *sv = ctx->services;

	if (sv == NULL)
		return 0;
	expire(sv, now);
	for (size_t i = 0; i < sv->n; i++) {
		const ib_service_record_t *r = &sv->v[i].rec;

		if (req && sa_port_pkey_entry(ctx, req, be16toh(r->service_pkey) & 0x7FFF) == 0 &&
		    r->service_pkey != 0)
			continue;	/* a partition the requester is not in */
		if (matches(r, t, q->mask) && !sa_sink_put(out, r))
			return 0;
	}
	return 0;
}

uint16_t
sa_service_change(const struct sa_ctx *ctx, const struct sa_query *q, bool set, void *rec)
{
	return set ? sa_service_set(ctx, q, ctx->now_ms, rec) :
	    sa_service_delete(ctx, q, ctx->now_ms, rec);
}

void
sa_services_free(struct sa_services *sv)
{
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}
