/*
 * PathRecords (sm/sa/sa_path.c) over the hand-built model of
 * tests/unit/fabric_route_fixture.h: a PathRecord follows the tables (the
 * degraded 1x uplink and a small-MTU port show in its rate and MTU) and
 * exists only when the tables and the link states let packets through.
 * In partitions a path needs both ends to hold the key and one of them as
 * a full member (a fake membership source stands for the partitions
 * module), and a requester sees only what it shares a partition with.
 */
#include "tests/unit/sa_sfix.h"

/* ---- PathRecord ---- */

static const ib_path_rec_t *
path(struct sfix *s, uint16_t slid, uint16_t dlid, size_t want)
{
	ib_path_rec_t *t = (ib_path_rec_t *)s->tmpl;

	memset(t, 0, sizeof(*t));
	t->slid = htobe16(slid);
	t->dlid = htobe16(dlid);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID), want);
	return want ? rec(s, 0) : NULL;
}

static void
test_path_follows_tables(void **state)
{
	struct sfix *s = *state;
	const ib_path_rec_t *r;

	r = path(s, 1, 2, 1);		/* h1 -> sw1 [7] 4x -> sw2 -> h2 */
	assert_int_equal(be16toh(r->slid), 1);
	assert_int_equal(be16toh(r->dlid), 2);
	assert_int_equal(be64toh(r->sgid.unicast.interface_id), 0x101);
	assert_int_equal(be64toh(r->dgid.unicast.interface_id), 0x111);
	assert_true(r->sgid.unicast.prefix == IB_DEFAULT_SUBNET_PREFIX);
	assert_int_equal(ib_path_rec_rate(r), IB_PATH_RECORD_RATE_40_GBS);	/* 4x QDR */
	assert_int_equal(ib_path_rec_mtu(r), IB_MTU_LEN_2048);
	assert_int_equal(be16toh(r->pkey), 0xFFFF);
	assert_int_equal(ib_path_rec_sl(r), 0);
	assert_int_equal(ib_path_rec_hop_limit(r), 0);
	assert_int_equal(r->num_path, 0x81);		/* reversible, one path */
	/* sw1 sends LID 3 over the 1x uplink: the path is as slow as it */
	r = path(s, 1, 3, 1);
	assert_int_equal(ib_path_rec_rate(r), IB_PATH_RECORD_RATE_10_GBS);
	/* h3's port with a 1024 MTU caps the path's MTU */
	((ib_port_info_t *)s->x.h3->ports[2].pi)->mtu_cap = IB_MTU_LEN_1024;
	r = path(s, 1, 3, 1);
	assert_int_equal(ib_path_rec_mtu(r), IB_MTU_LEN_1024);
	/* switch ends: port 0, the switch's LID */
	r = path(s, 2, 10, 1);
	assert_int_equal(be64toh(r->dgid.unicast.interface_id), 0x200);
	r = path(s, 1, 1, 1);		/* loopback */
	assert_int_equal(ib_path_rec_pkt_life(r), 0);
}

static void
test_path_needs_route(void **state)
{
	struct sfix *s = *state;

	path(s, 1, 99, 0);		/* no such LID */
	path(s, 99, 1, 0);
	s->x.sw1->lft[2] = ROUTING_NO_PORT;
	path(s, 1, 2, 0);		/* the table drops it */
	s->x.sw1->lft[2] = 2;		/* uncabled port */
	path(s, 1, 2, 0);
	s->x.sw1->lft[2] = 7;
	path(s, 1, 2, 1);
	s->x.sw2->ports[7].state = IB_LINK_INIT;	/* a link not ACTIVE on the way */
	path(s, 1, 2, 0);
	s->x.sw2->ports[7].state = IB_LINK_ACTIVE;
	s->x.sw1->lft_known = false;	/* tables the model does not mirror */
	path(s, 1, 2, 0);
}

static void
test_path_by_gid_and_filters(void **state)
{
	struct sfix *s = *state;
	ib_path_rec_t *t = (ib_path_rec_t *)s->tmpl;
	const ib_path_rec_t *r;

	memset(t, 0, sizeof(*t));
	t->sgid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	t->sgid.unicast.interface_id = htobe64(0x111);
	t->dgid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	t->dgid.unicast.interface_id = htobe64(0x122);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_DGID), 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->slid), 2);
	assert_int_equal(be16toh(r->dlid), 3);
	/* SGID and SLID that name different ports */
	t->slid = htobe16(1);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_SLID |
	    IB_PR_COMPMASK_DGID), 0);
	/* a GUID nobody has */
	t->dgid.unicast.interface_id = htobe64(0x999);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_DGID), 0);
	/* one end open: every addressed port (5) from h2 */
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SGID), 5);
	/* both open: every pair */
	assert_int_equal(query(s, 0x35, 0), 25);

	/* P_Key: only the default partition */
	memset(t, 0, sizeof(*t));
	t->slid = htobe16(1);
	t->dlid = htobe16(2);
	t->pkey = htobe16(0x7FFF);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_PKEY), 1);
	assert_int_equal(be16toh(((const ib_path_rec_t *)rec(s, 0))->pkey), 0x7FFF);
	t->pkey = htobe16(0x8001);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_PKEY), 0);
	/* NumbPath 0 asks for nothing */
	t->num_path = 0;
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_NUMBPATH), 0);
	/* MTU exactly 4096 cannot be had; exactly 1024 can */
	t->mtu = (IB_PATH_SELECTOR_EXACTLY << 6) | IB_MTU_LEN_4096;
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_MTU | IB_PR_COMPMASK_MTUSELEC), 0);
	t->mtu = (IB_PATH_SELECTOR_EXACTLY << 6) | IB_MTU_LEN_1024;
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_MTU | IB_PR_COMPMASK_MTUSELEC), 1);
	assert_int_equal(ib_path_rec_mtu((const ib_path_rec_t *)rec(s, 0)), IB_MTU_LEN_1024);
	/* SL other than 0 */
	t->qos_class_sl = htobe16(3);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_SL), 0);
}

/* ---- PathRecord in partitions ---- */

/*
 * What the partitions module would register: h1 a full member of 0x0a01
 * and of the default partition (the SM's port), h2 and h3 limited members
 * of both; the switches' tables are not known (factory 0xFFFF).
 */
static int
fake_tables(const struct fabric_port *p, uint16_t *keys, size_t max, void *arg)
{
	static const struct { uint64_t guid; uint16_t keys[2]; } t[] = {
		{ 0x101, { 0xFFFF, 0x8A01 } },
		{ 0x111, { 0x7FFF, 0x0A01 } },
		{ 0x122, { 0x0A01, 0x7FFF } },
	};

	(*(int *)arg)++;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].guid == p->guid) {
			assert_true(max >= 2);
			memcpy(keys, t[i].keys, sizeof(t[i].keys));
			return 2;
		}
	return -1;
}

/* The P_Key of the one record from slid to dlid, or 0 when there is none. */
static uint16_t
path_pkey(struct sfix *s, uint16_t slid, uint16_t dlid, int pkey)
{
	ib_path_rec_t *t = (ib_path_rec_t *)s->tmpl;
	uint64_t mask = IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->slid = htobe16(slid);
	t->dlid = htobe16(dlid);
	if (pkey >= 0) {
		t->pkey = htobe16((uint16_t)pkey);
		mask |= IB_PR_COMPMASK_PKEY;
	}
	n = query(s, 0x35, mask);
	assert_true(n <= 1);
	return n ? be16toh(((const ib_path_rec_t *)rec(s, 0))->pkey) : 0;
}

static void
test_path_partitions(void **state)
{
	struct sfix *s = *state;
	int calls = 0;

	s->ctx.pkey_table = fake_tables;
	s->ctx.pkey_arg = &calls;
	/* full with limited, either way: the P_Key as asked, bit or not */
	assert_int_equal(path_pkey(s, 1, 2, 0x8A01), 0x8A01);
	assert_int_equal(path_pkey(s, 2, 1, 0x8A01), 0x8A01);
	assert_int_equal(path_pkey(s, 1, 3, 0x0A01), 0x0A01);
	/* two limited members cannot talk, in a tenant's or the default partition */
	assert_int_equal(path_pkey(s, 2, 3, 0x8A01), 0);
	assert_int_equal(path_pkey(s, 2, 3, 0xFFFF), 0);
	assert_int_equal(path_pkey(s, 2, 3, -1), 0);
	/* a non-member (sw1, factory table) and a key nobody holds */
	assert_int_equal(path_pkey(s, 1, 10, 0x8A01), 0);
	assert_int_equal(path_pkey(s, 1, 2, 0x8B01), 0);
	assert_int_equal(path_pkey(s, 1, 2, 0x8000), 0);	/* the invalid key */
	/* the switch (0xFFFF, full) reaches limited h2 in the default partition */
	assert_int_equal(path_pkey(s, 2, 10, 0x7FFF), 0x7FFF);
	/* no P_Key asked: the lowest shared key, as the source holds it */
	assert_int_equal(path_pkey(s, 1, 2, -1), 0x8A01);
	assert_int_equal(path_pkey(s, 2, 1, -1), 0x0A01);
	assert_int_equal(path_pkey(s, 2, 10, -1), 0x7FFF);
	assert_int_equal(path_pkey(s, 10, 2, -1), 0xFFFF);
	assert_true(calls > 0);
	/* every pair that shares a key with a full member: of the 25, h2<->h3
	 * both ways and the loopbacks of h2 and h3 (a limited member with
	 * itself, which OpenSM does not give either) are left out */
	((ib_path_rec_t *)s->tmpl)->slid = 0;
	assert_int_equal(query(s, 0x35, 0), 21);
	assert_int_equal(path_pkey(s, 2, 2, -1), 0);
	assert_int_equal(path_pkey(s, 1, 1, -1), 0x8A01);
	/* nothing registered: 0xFFFF everywhere, as without partitions */
	s->ctx.pkey_table = NULL;
	assert_int_equal(path_pkey(s, 2, 3, -1), 0xFFFF);
	assert_int_equal(path_pkey(s, 2, 3, 0x8A01), 0);
}

/* A requester sees NodeRecords and PathRecords only of the ports it shares
 * a partition with; PathRecord takes rdma_cm's ServiceID, QoSClass, TClass. */
static void
test_partition_aware(void **state)
{
	struct sfix *s = *state;
	ib_path_rec_t *t = (ib_path_rec_t *)s->tmpl;
	const ib_path_rec_t *r;
	int calls = 0;
	size_t all;

	all = query(s, 0x11, 0);
	s->ctx.pkey_table = fake_tables;
	s->ctx.pkey_arg = &calls;
	s->ctx.requester_lid = 2;	/* h2 shares nothing with h3 (both limited) */
	assert_int_equal(query(s, 0x11, 0), all - 1);
	s->ctx.requester_lid = 1;
	assert_int_equal(query(s, 0x11, 0), all);
	s->ctx.requester_lid = 2;
	assert_int_equal(path_pkey(s, 1, 3, 0x0A01), 0);	/* h3 hidden from h2 */
	s->ctx.requester_lid = 1;
	assert_int_equal(path_pkey(s, 1, 3, 0x0A01), 0x0A01);
	s->ctx.pkey_table = NULL;
	s->ctx.requester_lid = 0;
	memset(t, 0, sizeof(*t));
	t->slid = htobe16(1);
	t->dlid = htobe16(2);
	t->service_id = htobe64(0x0106000000000001ULL);	/* rdma_cm's RDMA_PS_TCP port 1 */
	t->tclass = 0x20;
	t->num_path = 0x81;
	ib_path_rec_set_qos_class(t, 5);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_SERVICEID | IB_PR_COMPMASK_TCLASS | IB_PR_COMPMASK_QOS_CLASS |
	    IB_PR_COMPMASK_REVERSIBLE | IB_PR_COMPMASK_NUMBPATH), 1);
	r = rec(s, 0);
	assert_int_equal(be64toh(r->service_id), 0x0106000000000001ULL);
	assert_int_equal(r->tclass, 0x20);
	assert_int_equal(ib_path_rec_qos_class(r), 5);
	assert_int_equal(ib_path_rec_sl(r), 0);
	/* an SL the path cannot have (sa_path_sl gives SL 0) */
	t->qos_class_sl = htobe16(3);
	assert_int_equal(query(s, 0x35, IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID |
	    IB_PR_COMPMASK_SL), 0);
}

/* SwitchInfoRecord, LFTRecord, GUIDInfoRecord from the model. */

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path_follows_tables, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_path_needs_route, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_path_by_gid_and_filters, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_path_partitions, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_partition_aware, sfix_setup, sfix_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
