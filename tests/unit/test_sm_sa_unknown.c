/*
 * SL2VL and VLArb record queries tell the tables the QoS mirror does not
 * hold (sm/sa/sa_qos_records.c, ctx->qos_unknown), so that the SA reads them
 * before answering (sm/core/sa_qos_lazy.c): a switch pair asked for and not
 * held is told once, as (node, out port, in port), a VLArb block as
 * (node, port, block); a known one is not; a node with no mirror (QoS
 * off) tells nothing.  Once the mirror holds the table, as the read
 * leaves it, the same query answers it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/sa/sa.h"
#include "tests/unit/sa_fixture.h"

#define BIG 128
#define MAX_TOLD 256

struct told {
	uint64_t	node_guid;
	unsigned	port, in, block;
	bool		sl2vl;
};

struct unknowns {
	struct told	t[MAX_TOLD];
	size_t		n;
};

struct ufix {
	struct rfix		 x;
	struct sa_ctx		 ctx;
	struct unknowns		 u;
	uint8_t			 tmpl[IB_SA_DATA_SIZE];
	uint8_t			 buf[BIG * 72];
	struct sa_sink		 sink;
};

static const uint8_t SL2VL[QOS_SL2VL_BYTES] = { 0x00, 0x11, 0x22, 0x33, 0x00, 0x00, 0x00, 0x00 };

static void
tell(void *arg, const struct fabric_port *p, bool sl2vl, unsigned in, unsigned block)
{
	struct unknowns *u = arg;

	assert_true(u->n < MAX_TOLD);
	u->t[u->n++] = (struct told){ p->node->guid, p->num, in, block, sl2vl };
}

static int
setup(void **state)
{
	struct ufix *s = calloc(1, sizeof(*s));
	struct fabric_node *n;
	size_t i;

	rfix_build(&s->x);
	FABRIC_FOREACH_NODE(s->x.f, i, n)
		for (unsigned j = 0; j <= n->nports; j++)
			sa_fixture_qos_caps(&n->ports[j]);
	/* sw1 (LID 10) holds only the (in 1, out 7) pair and port 7's blocks */
	s->x.sw1->qos = qos_held_set_sl2vl(qos_held_new(8, true), 1, 7, SL2VL);
	for (unsigned b = 0; b < QOS_VLARB_BLOCKS; b++)
		s->x.sw1->qos = qos_held_set_vlarb(s->x.sw1->qos, 7, b,
		    (const uint8_t[QOS_VLARB_BLOCK_BYTES]){ 0 });
	s->ctx.f = s->x.f;
	s->ctx.qos_unknown = tell;
	s->ctx.qos_unknown_arg = &s->u;
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct ufix *s = *state;

	fabric_free(s->x.f);
	free(s);
	return 0;
}

static size_t
query(struct ufix *s, uint16_t attr, uint64_t mask_net)
{
	s->u.n = 0;
	return sa_fixture_query(&s->ctx, s->tmpl, s->buf, BIG, &s->sink, attr, mask_net);
}

static void
test_pair_noted_then_answered(void **state)
{
	struct ufix *s = *state;
	ib_slvl_table_record_t *t = (ib_slvl_table_record_t *)s->tmpl;
	const uint64_t m = IB_SLVL_COMPMASK_LID | IB_SLVL_COMPMASK_IN_PORT | IB_SLVL_COMPMASK_OUT_PORT;

	t->lid = htobe16(10);
	t->in_port_num = 1;
	t->out_port_num = 7;
	assert_int_equal(query(s, 0x13, m), 1);		/* held: nothing to read */
	assert_int_equal(s->u.n, 0);
	t->in_port_num = 3;				/* not held: noted, left out */
	assert_int_equal(query(s, 0x13, m), 0);
	assert_int_equal(s->u.n, 1);
	assert_true(s->u.t[0].node_guid == s->x.sw1->guid);
	assert_int_equal(s->u.t[0].port, 7);
	assert_int_equal(s->u.t[0].in, 3);
	/* what the read leaves in the mirror: now answered, nothing noted */
	s->x.sw1->qos = qos_held_set_sl2vl(s->x.sw1->qos, 3, 7, SL2VL);
	assert_int_equal(query(s, 0x13, m), 1);
	assert_int_equal(s->u.n, 0);
}

static void
test_vlarb_port_noted_once(void **state)
{
	struct ufix *s = *state;
	ib_vl_arb_table_record_t *t = (ib_vl_arb_table_record_t *)s->tmpl;

	t->lid = htobe16(10);
	t->port_num = 7;
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_OUT_PORT), 4);
	assert_int_equal(s->u.n, 0);
	/* port 0: blocks 1 and 3 unknown, told; 2 and 4 are beyond its
	 * 8 entries and answered as zeros */
	t->port_num = 0;
	assert_int_equal(query(s, 0x36, IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_OUT_PORT), 2);
	assert_int_equal(s->u.n, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_false(s->u.t[i].sl2vl);
		assert_int_equal(s->u.t[i].port, 0);
		assert_int_equal(s->u.t[i].block, 2 * i);	/* 0-based: blocks 1 and 3 */
	}
}

static void
test_every_pair_once_and_no_mirror(void **state)
{
	struct ufix *s = *state;
	ib_slvl_table_record_t *t = (ib_slvl_table_record_t *)s->tmpl;

	t->lid = htobe16(10);				/* all 9 x 9 pairs of sw1 */
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID), 1);
	assert_int_equal(s->u.n, 9 * 9 - 1);		/* every pair but (1, 7) */
	for (size_t i = 0; i < s->u.n; i++)
		for (size_t j = i + 1; j < s->u.n; j++)
			assert_false(s->u.t[i].port == s->u.t[j].port && s->u.t[i].in == s->u.t[j].in);
	t->lid = htobe16(2);				/* h2: no mirror (QoS off) */
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID), 0);
	assert_int_equal(s->u.n, 0);
	s->ctx.qos_unknown = NULL;			/* not asked to tell: no crash */
	t->lid = htobe16(10);
	assert_int_equal(query(s, 0x13, IB_SLVL_COMPMASK_LID), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pair_noted_then_answered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vlarb_port_noted_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_pair_once_and_no_mirror, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
