/*
 * The SA's answer (sm/sa/sa.h), pure: check a request against the attribute
 * table (sa_attrs.def), build its records, frame the response.  Nothing a requester sends can make it fail: a request too
 * short, of the wrong version, or with an RMPP header we cannot take is
 * counted as malformed and answered with an error status; one with a
 * wrong SM_Key is counted so and dropped.
 *
 * A GetTableResp is one RMPP DATA segment (Active, First, Last, segment
 * 1, PayloadLength = the 20-byte SA header + the records) carrying the
 * records that fit in SA_TABLE_BYTES (sm/sa/sa.h says why not all 200 bytes);
 * a longer table is cut there (counted as truncated) because multi-segment
 * RMPP is not implemented.  That is also all a client under ibsim can
 * receive: umad2sim does no RMPP.  On real hardware the kernel's RMPP layer
 * takes the single segment as it is.  saquery (infiniband-diags) counts
 * the records of a GetTableResp as (received length - 56) / (8 *
 * AttributeOffset), so the response is sent with its exact length.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sa.h>

#include "common/xmalloc.h"
#include "mad/mad.h"
#include "sm/sa/sa.h"

#define SA_RMPP_VERSION		1
#define SA_PAYLOAD_HDR		20	/* SM_Key, AttributeOffset, ComponentMask */

/* The common MAD header of the answer: the request's, as a response. */
static void
resp_header(const ib_sa_mad_t *q, uint8_t *resp, uint16_t status)
{
	ib_sa_mad_t *r = (ib_sa_mad_t *)resp;
	ib_mad_t req;

	memcpy(&req, q, sizeof(req));	/* q is packed: ib_mad_t is not */
	memset(resp, 0, MAD_SIZE);
	/* IBA 15.4: the answer to a Set is a GetResp, to the rest their Resp */
	ib_mad_init_response(&req, (ib_mad_t *)(void *)resp, htobe16(status));
	r->resv = 0;
	r->resv1 = 0;
	r->comp_mask = q->comp_mask;
}

static void
answer_error(struct sa_counters *cnt, const ib_sa_mad_t *q, uint8_t *resp, size_t *resp_len,
    uint16_t status)
{
	cnt->errors++;
	cnt->attr[sa_attr_index(be16toh(q->attr_id))].errors++;
	resp_header(q, resp, status);
	*resp_len = IB_SA_MAD_HDR_SIZE;
}

/* Requests that want an answer (Trap, Report, Send and responses do not). */
static bool
wants_answer(uint8_t method)
{
	if (method & IB_MAD_METHOD_RESP_MASK)
		return false;
	return method != IB_MAD_METHOD_TRAP && method != IB_MAD_METHOD_REPORT &&
	    method != IB_MAD_METHOD_SEND && method != IB_MAD_METHOD_TRAP_REPRESS;
}

/*
 * A request carries no RMPP, one whole DATA segment, or a DATA header with
 * only Active set: what a kernel-RMPP requester hands umad_send() and what
 * reaches us coalesced (osmtest's GetMulti comes so).  A First without
 * Last, or a later segment, would be half a request.
 */
static bool
rmpp_acceptable(const ib_sa_mad_t *q)
{
	uint8_t fl = q->rmpp_flags & (IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST);

	if (!(q->rmpp_flags & IB_RMPP_FLAG_ACTIVE))
		return true;
	/* osmtest's GetMulti (OpenSM's vendor layer) sets Active alone, with
	 * RMPPVersion and RMPPType left 0; OpenSM takes it, so do we */
	if (fl == 0 && q->rmpp_version == 0 && q->rmpp_type == 0)
		return be32toh(q->seg_num) <= 1;
	if (q->rmpp_version != SA_RMPP_VERSION || q->rmpp_type != IB_RMPP_TYPE_DATA)
		return false;
	if (fl == 0)
		return be32toh(q->seg_num) <= 1;
	return fl == (IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST) && be32toh(q->seg_num) == 1;
}

/* MAD status for a request that cannot be served, 0 when it can. */
static uint16_t
check_request(struct sa_counters *cnt, const ib_sa_mad_t *q, size_t len)
{
	uint16_t attr = be16toh(q->attr_id);
	const struct sa_attr *a;

	if (q->base_ver != 1 || q->class_ver != UMAD_SA_CLASS_VERSION) {
		cnt->malformed++;
		return be16toh(IB_MAD_STATUS_UNSUP_CLASS_VER);
	}
	if (len < IB_SA_MAD_HDR_SIZE || !rmpp_acceptable(q)) {
		cnt->malformed++;
		return be16toh(IB_MAD_STATUS_INVALID_FIELD);
	}
	if (sa_method_bit(q->method) == 0)
		return be16toh(IB_MAD_STATUS_UNSUP_METHOD);
	if ((a = sa_attr_of(attr)) == NULL || !(a->methods & sa_method_bit(q->method)))
		return be16toh(IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	return 0;
}

static void
frame_get(const struct sa_sink *s, uint8_t *resp, size_t *resp_len)
{
	ib_sa_mad_t *r = (ib_sa_mad_t *)resp;

	r->attr_offset = htobe16((uint16_t)(s->rec_size / 8));
	*resp_len = IB_SA_MAD_HDR_SIZE + s->rec_size;
}

static void
frame_table(const struct sa_sink *s, uint8_t *resp, size_t *resp_len)
{
	ib_sa_mad_t *r = (ib_sa_mad_t *)resp;
	size_t data = s->n * s->rec_size;

	r->rmpp_version = SA_RMPP_VERSION;
	r->rmpp_type = IB_RMPP_TYPE_DATA;
	r->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
	r->rmpp_status = IB_RMPP_STATUS_SUCCESS;
	r->seg_num = htobe32(1);
	r->paylen_newwin = htobe32((uint32_t)(SA_PAYLOAD_HDR + data));
	r->attr_offset = htobe16((uint16_t)(s->rec_size / 8));
	*resp_len = IB_SA_MAD_HDR_SIZE + data;
}

/* Kernel RMPP: the whole table in one buffer with only Active set; the
 * kernel's RMPP layer numbers the segments and writes First, Last and
 * PayloadLength into each (ib_mad_rmpp.c), as OpenSM leaves it to. */
static uint8_t *
frame_table_rmpp(const struct sa_sink *s, const uint8_t *hdr, size_t *resp_len)
{
	size_t data = s->n * s->rec_size;
	uint8_t *resp = xmalloc(IB_SA_MAD_HDR_SIZE + (data ? data : 1));
	ib_sa_mad_t *r = (ib_sa_mad_t *)resp;

	memcpy(resp, hdr, IB_SA_MAD_HDR_SIZE);
	if (data)
		memcpy(resp + IB_SA_MAD_HDR_SIZE, s->buf, data);
	r->rmpp_version = SA_RMPP_VERSION;
	r->rmpp_type = IB_RMPP_TYPE_DATA;
	r->rmpp_flags = IB_RMPP_FLAG_ACTIVE;
	r->rmpp_status = IB_RMPP_STATUS_SUCCESS;
	r->seg_num = 0;
	r->paylen_newwin = 0;
	r->attr_offset = htobe16((uint16_t)(s->rec_size / 8));
	*resp_len = IB_SA_MAD_HDR_SIZE + data;
	return resp;
}

/* Set and Delete (a join, a subscription, a service): the attribute's
 * change, one record back. */
static void
answer_change(const struct sa_ctx *ctx, struct sa_counters *cnt, const ib_sa_mad_t *q,
    uint8_t *resp, size_t *resp_len)
{
	ib_sa_mad_t *r = (ib_sa_mad_t *)resp;
	const struct sa_attr *a = sa_attr_of(be16toh(q->attr_id));
	struct sa_query query = { .tmpl = q->data, .mask = q->comp_mask,
	    .attr_mod = be32toh(q->attr_mod),
	    .trusted = ctx->sa_key != 0 && be64toh(q->sm_key) == ctx->sa_key };
	uint8_t rec[IB_SA_DATA_SIZE];
	uint16_t status;

	memset(rec, 0, sizeof(rec));
	status = a->change(ctx, &query, q->method == IB_MAD_METHOD_SET, rec);
	if (status != 0) {
		answer_error(cnt, q, resp, resp_len, status);
		return;
	}
	resp_header(q, resp, 0);
	memcpy(r->data, rec, a->rec_size);
	r->attr_offset = htobe16(a->rec_size / 8);
	*resp_len = IB_SA_MAD_HDR_SIZE + a->rec_size;
	cnt->records++;
}

/* Both answers: big NULL, one MAD in resp; else a GetTableResp whole in
 * *big (other answers still in resp). */
static bool
answer(const struct sa_ctx *ctx, const uint8_t *req, size_t len, uint8_t *resp,
    size_t *resp_len, uint8_t **big)
{
	const ib_sa_mad_t *q = (const ib_sa_mad_t *)req;
	ib_sa_mad_t *r = (ib_sa_mad_t *)resp;
	struct sa_query query;
	struct sa_sink sink;
	struct sa_counters discard = { 0 }, *cnt = ctx->counters ? ctx->counters : &discard;
	uint16_t status;
	bool get;

	if (len < sizeof(ib_mad_t)) {
		cnt->malformed++;
		return false;
	}
	if (!wants_answer(q->method))
		return false;
	cnt->requests++;
	cnt->attr[sa_attr_index(be16toh(q->attr_id))].requests++;
	if ((status = check_request(cnt, q, len)) != 0) {
		answer_error(cnt, q, resp, resp_len, status);
		return true;
	}
	/* IBA 14.4.7, as OpenSM: a request with an SM_Key that is not 0 and
	 * not ours is dropped, unanswered (osmtest -f a checks that it times
	 * out); counted as malformed. */
	if (q->sm_key != 0 && be64toh(q->sm_key) != ctx->sa_key) {
		cnt->malformed++;
		return false;
	}
	if (ctx->f == NULL) {		/* no model yet: ask again later */
		answer_error(cnt, q, resp, resp_len, be16toh(IB_MAD_STATUS_BUSY));
		return true;
	}
	if (q->method == IB_MAD_METHOD_SET || q->method == IB_MAD_METHOD_DELETE) {
		answer_change(ctx, cnt, q, resp, resp_len);
		return true;
	}
	get = q->method == IB_MAD_METHOD_GET;
	resp_header(q, resp, 0);
	memset(&sink, 0, sizeof(sink));
	sink.buf = r->data;
	sink.rec_size = sa_record_size(be16toh(q->attr_id));
	sink.max = get ? 1 : SA_TABLE_BYTES / sink.rec_size;
	if (big && !get) {
		sink.buf = NULL;
		sink.max = 0;
		sink.grow_to = SA_RMPP_MAX_RECORDS;
	}
	sink.stop = (sink.grow_to ? sink.grow_to : sink.max) + 1;	/* enough to know whether it all fit */
	query.tmpl = q->data;
	query.mask = q->comp_mask;
	query.attr_mod = be32toh(q->attr_mod);
	query.trusted = ctx->sa_key != 0 && be64toh(q->sm_key) == ctx->sa_key;
	status = sa_build_records(ctx, be16toh(q->attr_id), &query, &sink);
	if (status == 0 && sink.grow_to) {
		*big = frame_table_rmpp(&sink, resp, resp_len);
		if (sink.total > sink.n)
			cnt->truncated++;
		cnt->records += sink.n;
	}
	if (sink.grow_to)
		free(sink.buf);
	if (status != 0) {
		answer_error(cnt, q, resp, resp_len, status);
		return true;
	}
	if (sink.grow_to)
		return true;
	if (get && sink.total != 1) {
		answer_error(cnt, q, resp, resp_len, be16toh(sink.total == 0 ?
		    IB_SA_MAD_STATUS_NO_RECORDS : IB_SA_MAD_STATUS_TOO_MANY_RECORDS));
		return true;
	}
	if (get)
		frame_get(&sink, resp, resp_len);
	else
		frame_table(&sink, resp, resp_len);
	if (sink.total > sink.n)
		cnt->truncated++;
	cnt->records += sink.n;
	return true;
}

bool
sa_answer(const struct sa_ctx *ctx, const uint8_t *req, size_t len, uint8_t *resp,
    size_t *resp_len)
{
	return answer(ctx, req, len, resp, resp_len, NULL);
}

bool
sa_answer_rmpp(const struct sa_ctx *ctx, const uint8_t *req, size_t len, uint8_t **resp,
    size_t *resp_len)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	uint8_t *big = NULL;

	*resp = NULL;
	if (!answer(ctx, req, len, mad, resp_len, &big))
		return false;
	if (big == NULL) {
		big = xmalloc(*resp_len);
		memcpy(big, mad, *resp_len);
	}
	*resp = big;
	return true;
}
