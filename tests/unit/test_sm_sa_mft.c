/*
 * MulticastForwardingTableRecord (sm/sa/sa_tables.c) as OpenSM's
 * osm_sa_mft_record.c selects it: every switch with a LID whose trees
 * give it an entry, blocks 0 up to its last such block, every port mask
 * position (16 ports each); LID, Position and BlockNum narrow it, a block
 * or position beyond the switch's answers nothing; a block whose content
 * the SM does not know (a write in flight) is left out.  And the SA's
 * SM_Key rule: a request with a key neither 0 nor the SA's is dropped.
 *
 * The MFTs come through the context's callbacks, as the SM hands them:
 * here sw1 (LID 10, 8 ports: one position) holds 2 blocks, sw2 (LID 11)
 * none, sw3 (LID 12, 20 ports: two positions) 1 block.
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

struct mfix {
	struct rfix		 x;
	struct fabric_node	*sw3;
	struct sa_ctx		 ctx;
	bool			 unknown_b1;	/* sw1's block 1 not known */
	uint8_t			 tmpl[IB_SA_DATA_SIZE] __attribute__((aligned(8)));
	uint8_t			 buf[BIG * sizeof(ib_mft_record_t)];
	struct sa_sink		 sink;
};

static unsigned
blocks(void *arg, const struct fabric_node *n)
{
	struct mfix *s = arg;

	return n == s->x.sw1 ? 2 : n == s->sw3 ? 1 : 0;
}

/* Entry i of block b at position pos: a pattern that names all three. */
static uint16_t
pattern(const struct fabric_node *n, unsigned b, unsigned pos, unsigned i)
{
	return (uint16_t)((n->lid & 0xF) << 12 | b << 8 | pos << 4 | (i & 0xF));
}

static bool
block(void *arg, const struct fabric_node *n, unsigned b, unsigned pos, uint16_t ports[32])
{
	struct mfix *s = arg;

	if (n == s->x.sw1 && b == 1 && s->unknown_b1)
		return false;
	for (unsigned i = 0; i < 32; i++)
		ports[i] = pattern(n, b, pos, i);
	return true;
}

static int
setup(void **state)
{
	struct mfix *s = calloc(1, sizeof(*s));

	sa_fixture_fabric(&s->x);
	s->sw3 = fabric_add_node(s->x.f, 0x300, FABRIC_SWITCH, 20);
	s->sw3->port_guid = 0x300;
	for (unsigned i = 0; i <= 20; i++)
		s->sw3->ports[i].guid = 0x300;
	fabric_index_port_guid(s->x.f, &s->sw3->ports[0]);
	fabric_set_lid(s->x.f, &s->sw3->ports[0], 12);
	s->ctx.f = s->x.f;
	s->ctx.mft_blocks = blocks;
	s->ctx.mft_block = block;
	s->ctx.mft_arg = s;
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct mfix *s = *state;

	fabric_free(s->x.f);
	free(s);
	return 0;
}

static size_t
query(struct mfix *s, uint64_t mask_net)
{
	return sa_fixture_query(&s->ctx, s->tmpl, s->buf, BIG, &s->sink,
	    be16toh(IB_MAD_ATTR_MFT_RECORD), mask_net);
}

static const ib_mft_record_t *
rec(const struct mfix *s, size_t i)
{
	return (const ib_mft_record_t *)(s->buf + i * sizeof(ib_mft_record_t));
}

static void
ask(struct mfix *s, uint16_t lid, unsigned pos, unsigned b)
{
	ib_mft_record_t *t = (ib_mft_record_t *)s->tmpl;

	t->lid = htobe16(lid);
	t->position_block_num = htobe16((uint16_t)(pos << 12 | b));
}

/* The whole table: sw1's 2 blocks at its one position, sw3's block 0 at
 * both of its positions; sw2 (no entry) and the CAs nothing. */
static void
test_whole_table(void **state)
{
	struct mfix *s = *state;
	const ib_mft_record_t *r;

	assert_int_equal(sizeof(ib_mft_record_t), 72);
	assert_int_equal(query(s, 0), 4);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->lid), 10);
	assert_int_equal(be16toh(r->position_block_num), 0x0000);
	assert_int_equal(be16toh(r->mft[5]), pattern(s->x.sw1, 0, 0, 5));
	assert_int_equal(be16toh(rec(s, 1)->position_block_num), 0x0001);
	assert_int_equal(be16toh(rec(s, 1)->mft[31]), pattern(s->x.sw1, 1, 0, 31));
	assert_int_equal(be16toh(rec(s, 2)->lid), 12);
	assert_int_equal(be16toh(rec(s, 2)->position_block_num), 0x0000);
	assert_int_equal(be16toh(rec(s, 3)->position_block_num), 0x1000);
	assert_int_equal(be16toh(rec(s, 3)->mft[0]), pattern(s->sw3, 0, 1, 0));
	s->ctx.mft_blocks = NULL;		/* no multicast known: nothing */
	assert_int_equal(query(s, 0), 0);
}

/* LID: a switch's own, nothing for a CA's, a switch in no tree, or none. */
static void
test_by_lid(void **state)
{
	struct mfix *s = *state;

	ask(s, 10, 0, 0);
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID), 2);
	ask(s, 12, 0, 0);
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID), 2);
	ask(s, 11, 0, 0);
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID), 0);
	ask(s, 1, 0, 0);			/* h1, a CA (osmtest -f a asks its own) */
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID), 0);
	ask(s, 99, 0, 0);
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID), 0);
}

/* BlockNum and Position narrow, alone and together; beyond: nothing. */
static void
test_block_and_position(void **state)
{
	struct mfix *s = *state;
	const uint64_t all = IB_MFTR_COMPMASK_LID | IB_MFTR_COMPMASK_POSITION | IB_MFTR_COMPMASK_BLOCK;

	ask(s, 10, 0, 1);
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID | IB_MFTR_COMPMASK_BLOCK), 1);
	assert_int_equal(be16toh(rec(s, 0)->position_block_num), 0x0001);
	ask(s, 10, 0, 2);			/* past sw1's last block */
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID | IB_MFTR_COMPMASK_BLOCK), 0);
	ask(s, 0, 0, 1);			/* block 1 of every switch: sw1's alone */
	assert_int_equal(query(s, IB_MFTR_COMPMASK_BLOCK), 1);
	assert_int_equal(be16toh(rec(s, 0)->lid), 10);
	ask(s, 0, 1, 0);			/* position 1: only sw3 has ports 16-20 */
	assert_int_equal(query(s, IB_MFTR_COMPMASK_POSITION), 1);
	assert_int_equal(be16toh(rec(s, 0)->lid), 12);
	assert_int_equal(be16toh(rec(s, 0)->position_block_num), 0x1000);
	ask(s, 12, 1, 0);
	assert_int_equal(query(s, all), 1);
	assert_int_equal(be16toh(rec(s, 0)->mft[7]), pattern(s->sw3, 0, 1, 7));
	ask(s, 12, 2, 0);			/* sw3 has two positions */
	assert_int_equal(query(s, all), 0);
	ask(s, 12, 15, 0x1FF);
	assert_int_equal(query(s, all), 0);
}

/* A block the SM does not know now is left out, not guessed. */
static void
test_unknown_block_left_out(void **state)
{
	struct mfix *s = *state;

	s->unknown_b1 = true;
	ask(s, 10, 0, 0);
	assert_int_equal(query(s, IB_MFTR_COMPMASK_LID), 1);
	assert_int_equal(be16toh(rec(s, 0)->position_block_num), 0x0000);
}

static void
request(uint8_t *req, uint8_t method, uint64_t sm_key, uint64_t mask_net)
{
	ib_sa_mad_t *q = (ib_sa_mad_t *)req;

	memset(req, 0, MAD_BLOCK_SIZE);
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = method;
	q->attr_id = IB_MAD_ATTR_MFT_RECORD;
	q->sm_key = htobe64(sm_key);
	q->comp_mask = mask_net;
}

/* Get and GetTable through sa_answer(): one record, or two whole ones in
 * a GetTableResp under ibsim's 168 bytes. */
static void
test_answers(void **state)
{
	struct mfix *s = *state;
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	ib_sa_mad_t *q = (ib_sa_mad_t *)req, *r = (ib_sa_mad_t *)resp;
	ib_mft_record_t *t = (ib_mft_record_t *)q->data;
	size_t len;

	request(req, IB_MAD_METHOD_GET, 0, IB_MFTR_COMPMASK_LID | IB_MFTR_COMPMASK_BLOCK);
	t->lid = htobe16(10);
	t->position_block_num = htobe16(1);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(r->status, 0);
	assert_int_equal(len, 56 + 72);
	assert_int_equal(be16toh(r->attr_offset), 72 / 8);
	assert_int_equal(be16toh(((ib_mft_record_t *)r->data)->position_block_num), 1);
	q->comp_mask = IB_MFTR_COMPMASK_LID;	/* a Get of two records */
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(be16toh(r->status), be16toh(IB_SA_MAD_STATUS_TOO_MANY_RECORDS));
	request(req, IB_MAD_METHOD_GETTABLE, 0, 0);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(r->status, 0);
	assert_int_equal(len, 56 + 2 * 72);
}

/* SM_Key: 0 or the SA's is answered, another dropped and counted. */
static void
test_wrong_sm_key_dropped(void **state)
{
	struct mfix *s = *state;
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	struct sa_counters cnt = { 0 };
	size_t len;

	s->ctx.counters = &cnt;
	s->ctx.sa_key = 1;
	request(req, IB_MAD_METHOD_GETTABLE, 0, 0);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	request(req, IB_MAD_METHOD_GETTABLE, 1, 0);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(cnt.malformed, 0);
	request(req, IB_MAD_METHOD_GETTABLE, 9999, 0);	/* osmtest's wrong key */
	assert_false(sa_answer(&s->ctx, req, sizeof(req), resp, &len));
	assert_int_equal(cnt.malformed, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by_lid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_and_position, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_block_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_sm_key_dropped, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
