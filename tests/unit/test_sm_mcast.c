/*
 * Multicast groups (sm/mcast/mcast.c), MCMemberRecord Set/Delete/GetTable
 * (sm/sa/sa_mcast.c through sa_answer) and forwarding trees
 * (sm/mcast/mcast_tree.c) over the hand-built model of fabric_route_fixture.h:
 * an IPoIB broadcast join with the kernel's component mask gets the
 * SM's group, the partition rules refuse a non-member and a limited
 * member's create, a join must agree with the group, a leave frees the
 * MLID of a host's group but not the SM's, GetTable shows a requester
 * only its partitions' groups, and a tree over the two parallel sw1-sw2
 * links takes one of them.
 *
 * Partitions (fake tables): h1 (LID 1) 0xFFFF and 0x8A01 full; h2 (LID 2)
 * 0xFFFF and 0x0A01 limited; h3 (LID 3) 0xFFFF alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/mcast/mcast.h"
#include "sm/sa/sa.h"
#include "tests/unit/fabric_route_fixture.h"

#define IPOIB_MASK (IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_PKEY | \
	IB_MCR_COMPMASK_JOIN_STATE)
#define CREATE_MASK (IPOIB_MASK | IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_TCLASS | \
	IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_SL | IB_MCR_COMPMASK_MTU | IB_MCR_COMPMASK_MTU_SEL)

struct mfix {
	struct rfix	x;
	struct mc_db	db;
	struct sa_ctx	ctx;
	uint8_t		resp[MAD_SIZE];
	size_t		len;
};

static int
fake_tables(const struct fabric_port *p, uint16_t *keys, size_t max, void *arg)
{
	static const struct { uint64_t guid; uint16_t keys[2]; } t[] = {
		{ 0x101, { 0xFFFF, 0x8A01 } },
		{ 0x111, { 0xFFFF, 0x0A01 } },
		{ 0x122, { 0xFFFF, 0 } },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].guid == p->guid) {
			memcpy(keys, t[i].keys, sizeof(t[i].keys));
			return 2;
		}
	return -1;
}

static int
setup(void **state)
{
	struct mfix *s = calloc(1, sizeof(*s));
	struct mc_params bc = { .qkey = 0x0B1B, .pkey = 0xFFFF, .mtu = 4, .rate = 3, .scope = 2 };
	uint8_t mgid[16];

	rfix_build(&s->x);
	mc_db_init(&s->db);
	s->ctx.f = s->x.f;
	s->ctx.mc = &s->db;
	s->ctx.pkey_table = fake_tables;
	mc_ipoib_broadcast_mgid(0xFFFF, 2, mgid);
	assert_non_null(mc_create(&s->db, mgid, &bc, true));
	bc.pkey = 0x8A01;
	mc_ipoib_broadcast_mgid(0x8A01, 2, mgid);
	assert_non_null(mc_create(&s->db, mgid, &bc, true));
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct mfix *s = *state;

	mc_db_free(&s->db);
	fabric_free(s->x.f);
	free(s);
	return 0;
}

static uint64_t
guid_of_lid(uint16_t lid)
{
	return lid == 1 ? 0x101 : lid == 2 ? 0x111 : 0x122;
}

/* One MCMemberRecord request from LID `from` for port `who`; the status. */
static uint16_t
ask(struct mfix *s, uint8_t method, uint16_t from, uint16_t who, uint64_t mask,
    const uint8_t *mgid, uint16_t pkey, uint8_t state, uint32_t qkey)
{
	uint8_t req[MAD_SIZE] MAD_ALIGNED;
	ib_sa_mad_t *q = (ib_sa_mad_t *)req;
	ib_member_rec_t *r = (ib_member_rec_t *)q->data;

	memset(req, 0, sizeof(req));
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = method;
	q->attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
	q->comp_mask = mask;
	if (mgid)
		memcpy(&r->mgid, mgid, 16);
	r->port_gid.unicast.prefix = htobe64(0xfe80000000000000ULL);
	r->port_gid.unicast.interface_id = htobe64(guid_of_lid(who));
	r->pkey = htobe16(pkey);
	r->qkey = htobe32(qkey);
	r->mtu = (uint8_t)(2 << 6 | 4);
	r->scope_state = (uint8_t)(0x20 | state);
	s->ctx.requester_lid = from;
	assert_true(sa_answer(&s->ctx, req, IB_SA_MAD_HDR_SIZE + sizeof(*r), s->resp, &s->len));
	return be16toh(((ib_sa_mad_t *)s->resp)->status);
}

static const ib_member_rec_t *
answer(struct mfix *s)
{
	return (const ib_member_rec_t *)((ib_sa_mad_t *)s->resp)->data;
}

static void
test_broadcast_join(void **state)
{
	struct mfix *s = *state;
	uint8_t mgid[16];

	mc_ipoib_broadcast_mgid(0xFFFF, 2, mgid);
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, IPOIB_MASK, mgid, 0xFFFF, 1, 0), 0);
	assert_int_equal(s->len, IB_SA_MAD_HDR_SIZE + sizeof(ib_member_rec_t));
	assert_int_equal(((ib_sa_mad_t *)s->resp)->method, IB_MAD_METHOD_GET_RESP);
	assert_int_equal(be16toh(answer(s)->mlid), 0xC000);
	assert_int_equal(be32toh(answer(s)->qkey), 0x0B1B);
	assert_int_equal(answer(s)->mtu & 0x3F, 4);
	assert_int_equal(answer(s)->scope_state, 0x21);
	/* joining again as a send-only member adds the bit */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, IPOIB_MASK, mgid, 0xFFFF, 8, 0), 0);
	assert_int_equal(answer(s)->scope_state & 0x0F, 9);
	assert_int_equal(mc_find(&s->db, mgid)->nmembers, 1);
	/* the Q_Key must agree where the mask names it */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 2, 2, IPOIB_MASK | IB_MCR_COMPMASK_QKEY, mgid,
	    0xFFFF, 1, 0x1234), be16toh(IB_SA_MAD_STATUS_REQ_INVALID));
	/* someone else's port in a shared partition: a proxy join (OpenSM's rule) */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 2, 3, IPOIB_MASK, mgid, 0xFFFF, 1, 0), 0);
	assert_true(mc_member_find(mc_find(&s->db, mgid), 0x122)->proxy);
	/* no JoinState in the mask */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 2, 2, IPOIB_MASK & ~IB_MCR_COMPMASK_JOIN_STATE,
	    mgid, 0xFFFF, 1, 0), be16toh(IB_SA_MAD_STATUS_INSUF_COMPS));
}

static void
test_partition_rules(void **state)
{
	struct mfix *s = *state;
	uint8_t bc[16], own[16] = { 0xff, 0x12, 0x60, 0x1b, 0x8a, 0x01, [15] = 1 };
	uint8_t wrong[16] = { 0xff, 0x12, 0x40, 0x1b, 0x8b, 0x01, [15] = 1 };

	mc_ipoib_broadcast_mgid(0x8A01, 2, bc);
	/* h3 is not in 0x8A01; h2 (limited) may join */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 3, 3, IPOIB_MASK, bc, 0x8A01, 1, 0),
	    be16toh(IB_SA_MAD_STATUS_REQ_INVALID));
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 2, 2, IPOIB_MASK, bc, 0x8A01, 1, 0), 0);
	assert_int_equal(be16toh(answer(s)->mlid), 0xC001);
	/* a limited member cannot create, a full one can */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 2, 2, CREATE_MASK, own, 0x8A01, 1, 0x0B1B),
	    be16toh(IB_SA_MAD_STATUS_REQ_INVALID));
	assert_null(mc_find(&s->db, own));
	/* creating needs Q_Key, TClass, P_Key, FlowLabel and SL */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, CREATE_MASK & ~IB_MCR_COMPMASK_QKEY, own,
	    0x8A01, 1, 0x0B1B), be16toh(IB_SA_MAD_STATUS_INSUF_COMPS));
	/* an IPoIB MGID naming another partition */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, CREATE_MASK, wrong, 0x8A01, 1, 0x0B1B),
	    be16toh(IB_SA_MAD_STATUS_REQ_INVALID));
	/* only a full member creates: a non-member JoinState does not */
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, CREATE_MASK, own, 0x8A01, 2, 0x0B1B),
	    be16toh(IB_SA_MAD_STATUS_REQ_INVALID));
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, CREATE_MASK, own, 0x8A01, 1, 0x0B1B), 0);
	assert_int_equal(be16toh(answer(s)->mlid), 0xC002);
	assert_int_equal(answer(s)->mtu & 0x3F, 4);
}

static void
test_leave(void **state)
{
	struct mfix *s = *state;
	uint8_t bc[16], own[16] = { 0xff, 0x12, 0x60, 0x1b, 0x8a, 0x01, [15] = 2 };

	mc_ipoib_broadcast_mgid(0xFFFF, 2, bc);
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, CREATE_MASK, own, 0x8A01, 1, 0x0B1B), 0);
	assert_int_equal(be16toh(answer(s)->mlid), 0xC002);
	assert_int_equal(ask(s, IB_MAD_METHOD_DELETE, 1, 1, IPOIB_MASK, own, 0x8A01, 1, 0), 0);
	assert_int_equal(((ib_sa_mad_t *)s->resp)->method, IB_MAD_METHOD_DELETE | 0x80);
	assert_null(mc_find(&s->db, own));	/* a host's group goes with its last member */
	/* leaving a group one is not in */
	assert_int_equal(ask(s, IB_MAD_METHOD_DELETE, 1, 1, IPOIB_MASK, bc, 0xFFFF, 1, 0),
	    be16toh(IB_SA_MAD_STATUS_REQ_INVALID));
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, IPOIB_MASK, bc, 0xFFFF, 1, 0), 0);
	assert_int_equal(ask(s, IB_MAD_METHOD_DELETE, 1, 1, IPOIB_MASK, bc, 0xFFFF, 1, 0), 0);
	assert_non_null(mc_find(&s->db, bc));	/* the SM's stays */
	/* the freed MLID is the next one given */
	own[15] = 3;
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, CREATE_MASK, own, 0x8A01, 1, 0x0B1B), 0);
	assert_int_equal(be16toh(answer(s)->mlid), 0xC002);
}

static size_t
table(struct mfix *s, uint16_t from, uint64_t mask, uint16_t mlid)
{
	uint8_t req[MAD_SIZE] MAD_ALIGNED;
	ib_sa_mad_t *q = (ib_sa_mad_t *)req;

	memset(req, 0, sizeof(req));
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = IB_MAD_METHOD_GETTABLE;
	q->attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
	q->comp_mask = mask;
	((ib_member_rec_t *)q->data)->mlid = htobe16(mlid);
	s->ctx.requester_lid = from;
	assert_true(sa_answer(&s->ctx, req, MAD_SIZE, s->resp, &s->len));
	assert_int_equal(((ib_sa_mad_t *)s->resp)->status, 0);
	return (s->len - IB_SA_MAD_HDR_SIZE) / sizeof(ib_member_rec_t);
}

static void
test_get_table(void **state)
{
	struct mfix *s = *state;
	uint8_t bc[16], bc2[16];

	mc_ipoib_broadcast_mgid(0xFFFF, 2, bc);
	mc_ipoib_broadcast_mgid(0x8A01, 2, bc2);
	/* groups nobody joined show once each, to those in their partition */
	assert_int_equal(table(s, 1, 0, 0), 2);
	assert_int_equal(table(s, 3, 0, 0), 1);
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 1, 1, IPOIB_MASK, bc, 0xFFFF, 1, 0), 0);
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 2, 2, IPOIB_MASK, bc, 0xFFFF, 1, 0), 0);
	assert_int_equal(ask(s, IB_MAD_METHOD_SET, 2, 2, IPOIB_MASK, bc2, 0x8A01, 1, 0), 0);
	/* one record per member; by MLID; h3 sees no 0x8A01 member */
	assert_int_equal(table(s, 1, 0, 0), 3);
	assert_int_equal(table(s, 1, IB_MCR_COMPMASK_MLID, 0xC000), 2);
	assert_int_equal(table(s, 3, IB_MCR_COMPMASK_MLID, 0xC001), 0);
	assert_int_equal(table(s, 3, 0, 0), 2);
}

static void
test_tree(void **state)
{
	struct mfix *s = *state;
	struct mc_group *g = s->db.groups[0];
	struct mc_tree t;
	size_t i1 = 0, i2 = 0, i;
	struct fabric_node *n;
	uint8_t gid[16] = { 0 };

	FABRIC_FOREACH_NODE(s->x.f, i, n) {
		if (n == s->x.sw1) i1 = i;
		if (n == s->x.sw2) i2 = i;
	}
	/* nobody: no tree */
	assert_false(mc_tree_compute(s->x.f, g, &t));
	mc_tree_free(&t);
	mc_member_join(&s->db, g, 0x101, gid, MC_JOIN_FULL, false);
	mc_member_join(&s->db, g, 0x111, gid, MC_JOIN_FULL, false);
	mc_member_join(&s->db, g, 0x122, gid, MC_JOIN_SENDONLY_FULL, false);
	assert_true(mc_tree_compute(s->x.f, g, &t));
	assert_int_equal(t.nswitches, 2);
	assert_true(mc_tree_has(&t, i1, 1));		/* h1 */
	assert_true(mc_tree_has(&t, i2, 1));		/* h2 */
	assert_false(mc_tree_has(&t, i2, 3));		/* h3 only sends */
	/* exactly one of the two parallel links, the same one at both ends */
	assert_true(mc_tree_has(&t, i1, 7) != mc_tree_has(&t, i1, 8));
	assert_int_equal(mc_tree_has(&t, i1, 7), mc_tree_has(&t, i2, 7));
	assert_int_equal(mc_tree_has(&t, i1, 8), mc_tree_has(&t, i2, 8));
	mc_tree_free(&t);
	/* h2 leaves: sw2 is still in the tree for the sender h3, without h2's port */
	mc_member_leave(&s->db, g, 0x111, MC_JOIN_FULL);
	assert_true(mc_tree_compute(s->x.f, g, &t));
	assert_false(mc_tree_has(&t, i2, 1));
	assert_true(mc_tree_has(&t, i1, 1));
	mc_tree_free(&t);
	/* a link not ACTIVE is not used: the other one is */
	s->x.sw1->ports[7].state = 2;
	s->x.sw1->ports[8].state = 2;
	assert_true(mc_tree_compute(s->x.f, g, &t));
	assert_int_equal(t.nswitches, 1);	/* sw2 cut off: only sw1 with h1 */
	mc_tree_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_broadcast_join, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partition_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leave, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
