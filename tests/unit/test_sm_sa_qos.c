/*
 * The SA's SLtoVLMappingTableRecord and VLArbitrationTableRecord
 * (sm/sa/sa_qos_records.c) over the hand-built model of
 * tests/unit/fabric_route_fixture.h with QoS mirrors filled by hand: a record
 * carries the bytes the mirror says the port holds, keyed as IBA and
 * OpenSM key it (a CA by its port's LID with port numbers 0, a switch by
 * its LID and the (in, out) pair), the component mask selects exactly the
 * records predicted, a table the mirror does not know is left out, a VLArb
 * block beyond the port's capacity is zeros, and a requester sees only
 * ports it shares a partition with.  The encoding is checked through the
 * MAD too (sa_answer): sizes, AttributeOffset.  P_KeyTableRecord: the
 * committed table's blocks at their indices, the factory table without
 * partitions, and P_KeyTableRecords only with the SA key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/sa/sa.h"
#include "tests/unit/sa_fixture.h"

#define BIG 64

struct qfix {
	struct rfix	 x;
	struct sa_ctx	 ctx;
	uint8_t		 tmpl[IB_SA_DATA_SIZE];
	uint8_t		 buf[BIG * 72];
	struct sa_sink	 sink;
};

static const uint8_t H1_SL2VL[QOS_SL2VL_BYTES] = { 0x01, 0x23, 0x45, 0x67, 0x01, 0x23, 0x45, 0x67 };
static const uint8_t SW_SL2VL[QOS_SL2VL_BYTES] = { 0x00, 0x11, 0x22, 0x33, 0x00, 0x00, 0x00, 0x00 };

static int
setup(void **state)
{
	struct qfix *s = calloc(1, sizeof(*s));
	struct fabric_node *n;
	uint8_t b[QOS_VLARB_BLOCK_BYTES];
	size_t i;

	rfix_build(&s->x);
	FABRIC_FOREACH_NODE(s->x.f, i, n)
		for (unsigned j = 0; j <= n->nports; j++)
			sa_fixture_qos_caps(&n->ports[j]);
	/* h1 holds a known SL2VL and low block; high blocks unknown */
	s->x.h1->qos = qos_held_set_sl2vl(qos_held_new(1, false), 0, 1, H1_SL2VL);
	memset(b, 0, sizeof(b));
	b[0] = 1;
	b[1] = 50;
	s->x.h1->qos = qos_held_set_vlarb(s->x.h1->qos, 1, 0, b);
	/* sw1 knows only (in 1, out 7) and port 7's low block */
	s->x.sw1->qos = qos_held_set_sl2vl(qos_held_new(8, true), 1, 7, SW_SL2VL);
	memset(b, 0, sizeof(b));
	s->x.sw1->qos = qos_held_set_vlarb(s->x.sw1->qos, 7, 0, b);
	/* h2 and sw2: no mirror (QoS off) */
	s->ctx.f = s->x.f;
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct qfix *s = *state;

	fabric_free(s->x.f);
	free(s);
	return 0;
}

static size_t
query(struct qfix *s, uint16_t attr, uint64_t mask_net)
{
	return sa_fixture_query(&s->ctx, s->tmpl, s->buf, BIG, &s->sink, attr, mask_net);
}

static const void *
rec(struct qfix *s, size_t i)
{
	return s->buf + i * s->sink.rec_size;
}

static void
test_sizes(void **state)
{
	(void)state;
	assert_int_equal(sa_record_size(0x13), 16);
	assert_int_equal(sa_record_size(0x36), 72);
}

static void
test_sl2vl(void **state)
{
	struct qfix *s = *state;
	ib_slvl_table_record_t *t = (ib_slvl_table_record_t *)s->tmpl;
	const ib_slvl_table_record_t *r;

	/* everything known: h1's table, sw1's (1, 7) pair */
	assert_int_equal(query(s, 0x13, 0), 2);
	t->lid = htobe16(1);
	t->out_port_num = 9;	/* a CA: the LID names the port, numbers ignored */
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID | IB_SLVL_COMPMASK_OUT_PORT), 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->lid), 1);
	assert_int_equal(r->in_port_num, 0);
	assert_int_equal(r->out_port_num, 0);
	assert_memory_equal(r->slvl_tbl.raw_vl_by_sl, H1_SL2VL, QOS_SL2VL_BYTES);
	assert_int_equal(ib_slvl_table_get(&r->slvl_tbl, 3), 3);
	t->lid = htobe16(2);		/* h2: no mirror */
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID), 0);
	t->lid = htobe16(99);		/* no such LID */
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID), 0);
	t->lid = htobe16(10);
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID), 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->lid), 10);
	assert_int_equal(r->in_port_num, 1);
	assert_int_equal(r->out_port_num, 7);
	assert_memory_equal(r->slvl_tbl.raw_vl_by_sl, SW_SL2VL, QOS_SL2VL_BYTES);
	t->in_port_num = 1;
	t->out_port_num = 7;
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID | IB_SLVL_COMPMASK_IN_PORT |
	    IB_SLVL_COMPMASK_OUT_PORT), 1);
	t->in_port_num = 2;		/* unknown pair */
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID | IB_SLVL_COMPMASK_IN_PORT), 0);
	t->out_port_num = 200;		/* beyond the switch: nothing, no crash */
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID | IB_SLVL_COMPMASK_OUT_PORT), 0);
}

static void
test_vlarb(void **state)
{
	struct qfix *s = *state;
	ib_vl_arb_table_record_t *t = (ib_vl_arb_table_record_t *)s->tmpl;
	const ib_vl_arb_table_record_t *r;

	/* h1: block 1 (known), 2 and 4 (beyond 8 entries: zeros); 3 unknown */
	t->lid = htobe16(1);
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID), 3);
	assert_int_equal(((const ib_vl_arb_table_record_t *)rec(s, 0))->block_num, 1);
	assert_int_equal(((const ib_vl_arb_table_record_t *)rec(s, 1))->block_num, 2);
	assert_int_equal(((const ib_vl_arb_table_record_t *)rec(s, 2))->block_num, 4);
	t->block_num = 1;
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_BLOCK), 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->lid), 1);
	assert_int_equal(r->port_num, 1);
	assert_int_equal(r->vl_arb_tbl.vl_entry[0].vl, 1);
	assert_int_equal(r->vl_arb_tbl.vl_entry[0].weight, 50);
	t->block_num = 3;
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_BLOCK), 0);
	/* sw1 port 7 */
	t->lid = htobe16(10);
	t->port_num = 7;
	t->block_num = 1;
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_OUT_PORT |
	    IB_VLA_COMPMASK_BLOCK), 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->lid), 10);
	assert_int_equal(r->port_num, 7);
	t->port_num = 200;
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_OUT_PORT), 0);
}

/* h1 and h2 in partition 0x0a01 alone, h3 only in 0x0b01. */
static int
pkeys(const struct fabric_port *p, uint16_t *keys, size_t max, void *arg)
{
	(void)arg;
	(void)max;
	keys[0] = p->node->guid == 0x120 ? 0x8b01 : 0x8a01;
	return 1;
}

static void
test_partitions(void **state)
{
	struct qfix *s = *state;
	ib_vl_arb_table_record_t *t = (ib_vl_arb_table_record_t *)s->tmpl;

	s->ctx.pkey_table = pkeys;
	s->ctx.requester_lid = 3;	/* h3 shares nothing with h1 */
	assert_int_equal(query(s, 0x13, 0), 0);
	t->lid = htobe16(1);
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID), 0);
	s->ctx.requester_lid = 2;	/* h2 does */
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID), 3);
}

/* 40 entries: index i holds 0x8000 | i + 1. */
static int
committed(uint64_t node_guid, uint8_t port, uint16_t *e, size_t max, bool *ext, void *arg)
{
	(void)node_guid;
	(void)arg;
	(void)port;
	(void)ext;
	for (size_t i = 0; i < 40 && i < max; i++)
		e[i] = (uint16_t)(0x8000 | (i + 1));
	return 40;
}

static void
test_pkey_records(void **state)
{
	struct qfix *s = *state;
	ib_pkey_table_record_t *t = (ib_pkey_table_record_t *)s->tmpl;
	const ib_pkey_table_record_t *r;
	struct sa_query q = { .tmpl = s->tmpl, .mask = IB_PKEY_COMPMASK_LID, .trusted = true };

	assert_int_equal(sa_record_size(0x33), 72);
	t->lid = htobe16(3);
	memset(&s->sink, 0, sizeof(s->sink));
	s->sink.buf = s->buf;
	s->sink.rec_size = 72;
	s->sink.max = BIG;
	assert_int_equal(sa_build_records(&s->ctx, 0x33, &q, &s->sink), 0);
	assert_int_equal(s->sink.n, 1);		/* factory table */
	r = rec(s, 0);
	assert_int_equal(be16toh(r->lid), 3);
	assert_int_equal(be16toh(r->pkey_tbl.pkey_entry[0]), 0xFFFF);
	assert_int_equal(r->pkey_tbl.pkey_entry[1], 0);
	s->ctx.pkey_entries = committed;
	t->block_num = htobe16(1);
	q.mask |= IB_PKEY_COMPMASK_BLOCK;
	s->sink.n = s->sink.total = 0;
	sa_build_records(&s->ctx, 0x33, &q, &s->sink);
	assert_int_equal(s->sink.n, 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->block_num), 1);
	assert_int_equal(be16toh(r->pkey_tbl.pkey_entry[0]), 0x8021);	/* index 32 */
	assert_int_equal(be16toh(r->pkey_tbl.pkey_entry[7]), 0x8028);
	assert_int_equal(r->pkey_tbl.pkey_entry[8], 0);
	/* switch sw1 port 7 */
	t->lid = htobe16(10);
	t->port_num = 7;
	q.mask = IB_PKEY_COMPMASK_LID | IB_PKEY_COMPMASK_PORT;
	s->sink.n = s->sink.total = 0;
	sa_build_records(&s->ctx, 0x33, &q, &s->sink);
	assert_int_equal(s->sink.n, 2);
	assert_int_equal(((const ib_pkey_table_record_t *)rec(s, 1))->port_num, 7);
	/* no SA key: refused, even for the requester's own port (IBA:
	 * trusted requests only, as OpenSM) */
	q.trusted = false;
	q.mask = 0;
	s->ctx.requester_lid = 3;
	s->sink.n = s->sink.total = 0;
	assert_int_equal(sa_build_records(&s->ctx, 0x33, &q, &s->sink),
	    be16toh(IB_SA_MAD_STATUS_REQ_INVALID));
	assert_int_equal(s->sink.n, 0);
}

/* Through the MAD: a Get of h1's SL2VL answers one 16-byte record. */
static void
test_mad(void **state)
{
	struct qfix *s = *state;
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	ib_sa_mad_t *q = (ib_sa_mad_t *)req, *a = (ib_sa_mad_t *)resp;
	size_t len;

	memset(req, 0, sizeof(req));
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = IB_MAD_METHOD_GET;
	q->attr_id = IB_MAD_ATTR_SLVL_RECORD;
	q->trans_id = htobe64(5);
	q->comp_mask = IB_SLVL_COMPMASK_LID;
	((ib_slvl_table_record_t *)q->data)->lid = htobe16(1);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(a->status, 0);
	assert_int_equal(len, IB_SA_MAD_HDR_SIZE + 16);
	assert_memory_equal(((const ib_slvl_table_record_t *)a->data)->slvl_tbl.raw_vl_by_sl,
	    H1_SL2VL, QOS_SL2VL_BYTES);
	q->method = IB_MAD_METHOD_GETTABLE;
	q->attr_id = IB_MAD_ATTR_VLARB_RECORD;
	q->comp_mask = 0;
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(a->status, 0);
	assert_int_equal(be16toh(a->attr_offset), 72 / 8);
	assert_int_equal(len, IB_SA_MAD_HDR_SIZE + 2 * 72);	/* 4 records, 2 fit in 168 bytes */
	/* P_KeyTableRecord Get: only with the SA key in the MAD's SM_Key */
	s->ctx.sa_key = 1;
	q->method = IB_MAD_METHOD_GET;
	q->attr_id = IB_MAD_ATTR_PKEY_TBL_RECORD;
	q->comp_mask = IB_PKEY_COMPMASK_LID;
	memset(q->data, 0, sizeof(ib_pkey_table_record_t));
	((ib_pkey_table_record_t *)q->data)->lid = htobe16(1);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(a->status, IB_SA_MAD_STATUS_REQ_INVALID);
	q->sm_key = htobe64(1);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(a->status, 0);
	assert_int_equal(len, IB_SA_MAD_HDR_SIZE + 72);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test_setup_teardown(test_sl2vl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vlarb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pkey_records, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
