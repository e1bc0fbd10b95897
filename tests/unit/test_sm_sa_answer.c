/*
 * The SA's answer (sm/sa/sa_answer.c): the MAD framing gives the statuses
 * and the single-segment RMPP header IBA asks for, a kernel-RMPP answer
 * holds the whole table, and random MADs never crash it.
 */
#include "tests/unit/sa_sfix.h"

/* ---- MAD framing ---- */

static size_t
answer(struct sfix *s, uint8_t method, uint16_t attr, uint64_t mask_net, size_t len,
    uint8_t *resp)
{
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	ib_sa_mad_t *q = (ib_sa_mad_t *)req;
	size_t rlen = 0;

	memset(req, 0, sizeof(req));
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = method;
	q->trans_id = htobe64(0x1234567890ULL);
	q->attr_id = htobe16(attr);
	q->comp_mask = mask_net;
	memcpy(q->data, s->tmpl, sizeof(s->tmpl));
	assert_true(sa_answer(&s->ctx, req, len, resp, &rlen));
	assert_int_equal(((ib_sa_mad_t *)resp)->trans_id, q->trans_id);
	assert_int_equal(((ib_sa_mad_t *)resp)->attr_id, q->attr_id);
	assert_true(rlen >= IB_SA_MAD_HDR_SIZE && rlen <= MAD_BLOCK_SIZE);
	return rlen;
}

static uint16_t
status_of(const uint8_t *resp)
{
	return be16toh(((const ib_sa_mad_t *)resp)->status);
}

static void
test_mad_get(void **state)
{
	struct sfix *s = *state;
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	const ib_sa_mad_t *r = (const ib_sa_mad_t *)resp;
	ib_node_record_t *t = (ib_node_record_t *)s->tmpl;

	t->lid = htobe16(2);
	assert_int_equal(answer(s, 0x01, 0x11, IB_NR_COMPMASK_LID, 256, resp), 56 + 112);
	assert_int_equal(r->method, IB_MAD_METHOD_GET_RESP);
	assert_int_equal(status_of(resp), 0);
	assert_int_equal(be16toh(r->attr_offset), 112 / 8);
	assert_int_equal(be64toh(((const ib_node_record_t *)r->data)->node_info.port_guid), 0x111);
	assert_int_equal(r->rmpp_flags, 0);

	t->lid = htobe16(99);
	answer(s, 0x01, 0x11, IB_NR_COMPMASK_LID, 256, resp);
	assert_int_equal(status_of(resp), 0x0300);	/* ERR_NO_RECORDS */
	answer(s, 0x01, 0x11, 0, 256, resp);
	assert_int_equal(status_of(resp), 0x0400);	/* ERR_TOO_MANY_RECORDS */

	/* PathRecord Get by GIDs, as the kernel's path resolution asks */
	{
		ib_path_rec_t *p = (ib_path_rec_t *)s->tmpl;
		memset(p, 0, sizeof(*p));
		p->sgid.unicast.prefix = p->dgid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
		p->sgid.unicast.interface_id = htobe64(0x101);
		p->dgid.unicast.interface_id = htobe64(0x111);
		p->num_path = 0x81;
		p->pkey = htobe16(0xFFFF);
		assert_int_equal(answer(s, 0x01, 0x35, IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_DGID |
		    IB_PR_COMPMASK_NUMBPATH | IB_PR_COMPMASK_REVERSIBLE | IB_PR_COMPMASK_PKEY,
		    256, resp), 56 + 64);
		assert_int_equal(status_of(resp), 0);
		assert_int_equal(be16toh(((const ib_path_rec_t *)r->data)->dlid), 2);
		memset(s->tmpl, 0, sizeof(s->tmpl));
	}
	assert_int_equal(answer(s, 0x01, 0x01, 0, 256, resp), 56 + 72);	/* ClassPortInfo */
	assert_int_equal(status_of(resp), 0);
	assert_int_equal(((const ib_class_port_info_t *)r->data)->class_ver, 2);
	/* notices, multicast, MultiPathRecord and "any of" CapabilityMask matching
	 * (OpenSM's 0x2602); QP1's Q_Key for traps */
	assert_int_equal(be16toh(((const ib_class_port_info_t *)r->data)->cap_mask), 0x2602);
	assert_int_equal(be32toh(((const ib_class_port_info_t *)r->data)->trap_qkey), 0x80010000);
}

static void
test_mad_gettable(void **state)
{
	struct sfix *s = *state;
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	const ib_sa_mad_t *r = (const ib_sa_mad_t *)resp;
	uint64_t cut = s->cnt.truncated;

	/* 5 NodeRecords, one fits */
	assert_int_equal(answer(s, 0x12, 0x11, 0, 256, resp), 56 + 112);
	assert_int_equal(r->method, IB_MAD_METHOD_GETTABLE_RESP);
	assert_int_equal(status_of(resp), 0);
	assert_int_equal(r->rmpp_version, 1);
	assert_int_equal(r->rmpp_type, IB_RMPP_TYPE_DATA);
	assert_int_equal(r->rmpp_flags & 0x07,
	    IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST);
	assert_int_equal(be32toh(r->seg_num), 1);
	assert_int_equal(be32toh(r->paylen_newwin), 20 + 112);
	assert_int_equal(be16toh(r->attr_offset), 14);
	assert_int_equal(s->cnt.truncated, cut + 1);
	/* 10 LinkRecords of 8 bytes all fit */
	assert_int_equal(answer(s, 0x12, 0x20, 0, 256, resp), 56 + 80);
	assert_int_equal(s->cnt.truncated, cut + 1);
	/* 25 PathRecords: two whole ones */
	assert_int_equal(answer(s, 0x12, 0x35, 0, 256, resp), 56 + 128);
	/* nothing matches: an empty table, not an error */
	((ib_node_record_t *)s->tmpl)->lid = htobe16(99);
	assert_int_equal(answer(s, 0x12, 0x11, IB_NR_COMPMASK_LID, 256, resp), 56);
	assert_int_equal(status_of(resp), 0);
	assert_int_equal(be32toh(r->paylen_newwin), 20);
}

static void
test_mad_errors(void **state)
{
	struct sfix *s = *state;
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint64_t bad = s->cnt.malformed;
	size_t rlen;

	answer(s, 0x12, 0x99, 0, 256, resp);		/* unknown attribute */
	assert_int_equal(status_of(resp), 0x000C);
	answer(s, 0x02, 0x11, 0, 256, resp);		/* Set NodeRecord */
	assert_int_equal(status_of(resp), 0x000C);
	assert_int_equal(((ib_sa_mad_t *)resp)->method, 0x81);	/* a Set is answered by GetResp (IBA 13.4.5) */
	answer(s, 0x12, 0x01, 0, 256, resp);		/* GetTable ClassPortInfo */
	assert_int_equal(status_of(resp), 0x000C);
	answer(s, 0x7E, 0x11, 0, 256, resp);		/* no such method */
	assert_int_equal(status_of(resp), 0x0008);
	answer(s, 0x12, 0x11, 0, 40, resp);		/* shorter than the SA header */
	assert_int_equal(status_of(resp), 0x001C);
	assert_int_equal(s->cnt.malformed, bad + 1);

	memset(req, 0, sizeof(req));
	req[0] = 1; req[1] = 3; req[2] = 1; req[3] = 0x12;	/* class version 1 */
	assert_true(sa_answer(&s->ctx, req, 256, resp, &rlen));
	assert_int_equal(status_of(resp), 0x0004);
	req[2] = 2;
	((ib_sa_mad_t *)req)->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST;
	((ib_sa_mad_t *)req)->rmpp_version = 1;
	((ib_sa_mad_t *)req)->rmpp_type = IB_RMPP_TYPE_DATA;
	assert_true(sa_answer(&s->ctx, req, 256, resp, &rlen));	/* half a transfer */
	assert_int_equal(status_of(resp), 0x001C);
	req[3] = 0x92;					/* a response: not answered */
	assert_false(sa_answer(&s->ctx, req, 256, resp, &rlen));
	req[3] = IB_MAD_METHOD_REPORT;
	assert_false(sa_answer(&s->ctx, req, 256, resp, &rlen));
	assert_false(sa_answer(&s->ctx, req, 10, resp, &rlen));	/* no whole header */

	s->ctx.f = NULL;				/* no model yet */
	answer(s, 0x12, 0x11, 0, 256, resp);
	assert_int_equal(status_of(resp), 0x0001);
}

/* Random requests (random length, random bytes after a plausible or
 * random header) never crash and are answered within one MAD. */
static void
test_mad_fuzz(void **state)
{
	struct sfix *s = *state;
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint32_t seed = 12345;

	for (int i = 0; i < 20000; i++) {
		size_t len, rlen = 0;

		for (size_t j = 0; j < sizeof(req); j++) {
			seed = seed * 1103515245u + 12345u;
			req[j] = (uint8_t)(seed >> 16);
		}
		len = req[255] + 1;
		if (i % 2) {		/* mostly well-formed headers */
			req[0] = 1; req[1] = 3; req[2] = 2;
			req[3] = (const uint8_t[]){ 0x01, 0x12, 0x02, 0x14 }[i % 4];
			req[16] = 0;
			req[17] = (const uint8_t[]){ 0x01, 0x11, 0x12, 0x18, 0x20, 0x35 }[i % 6];
		}
		if (sa_answer(&s->ctx, req, len, resp, &rlen))
			assert_true(rlen >= IB_SA_MAD_HDR_SIZE && rlen <= MAD_BLOCK_SIZE);
	}
}

static void
test_mad_rmpp_whole(void **state)
{
	struct sfix *s = *state;
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	ib_sa_mad_t *q = (ib_sa_mad_t *)req;
	const ib_sa_mad_t *r;
	uint8_t *resp;
	size_t rlen;

	memset(req, 0, sizeof(req));
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = IB_MAD_METHOD_GETTABLE;
	q->attr_id = IB_MAD_ATTR_LINK_RECORD;
	q->rmpp_version = 1;
	q->rmpp_type = IB_RMPP_TYPE_DATA;
	q->rmpp_flags = IB_RMPP_FLAG_ACTIVE;	/* as osmtest's requests come */
	assert_true(sa_answer_rmpp(&s->ctx, req, sizeof(req), &resp, &rlen));
	r = (const ib_sa_mad_t *)resp;
	assert_int_equal(r->status, 0);
	assert_int_equal(r->rmpp_flags, IB_RMPP_FLAG_ACTIVE);
	assert_int_equal(r->rmpp_type, IB_RMPP_TYPE_DATA);
	assert_int_equal(r->rmpp_version, 1);
	/* every LinkRecord, not the 21 one MAD would hold: 2 per cabled link */
	assert_int_equal(rlen, IB_SA_MAD_HDR_SIZE + query(s, 0x20, 0) * sizeof(ib_link_record_t));
	assert_true(rlen > MAD_BLOCK_SIZE || query(s, 0x20, 0) <= 10);
	free(resp);
	/* a later segment alone is half a request */
	q->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_LAST;
	q->seg_num = htobe32(2);
	assert_true(sa_answer_rmpp(&s->ctx, req, sizeof(req), &resp, &rlen));
	assert_int_equal(be16toh(((ib_sa_mad_t *)resp)->status), 0x001C);
	free(resp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mad_get, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_mad_gettable, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_mad_errors, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_mad_fuzz, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_mad_rmpp_whole, sfix_setup, sfix_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
