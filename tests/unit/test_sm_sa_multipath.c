/*
 * MultiPathRecord (sm/sa/sa_multipath.c) over the hand-built model of
 * tests/unit/fabric_route_fixture.h, through sa_answer() as a GetMulti comes
 * (RMPP header with only Active set): the path it returns for a pair is
 * byte for byte the PathRecord a PathRecord query returns for the same
 * pair (same SL from a QoS class, same P_Key, MTU, rate), NumbPath caps
 * the paths, Reversible and the selectors filter, a requester sees only
 * its partitions, and bad requests get IBA's statuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/sa/sa.h"
#include "tests/unit/sa_fixture.h"

struct mfix {
	struct rfix		x;
	struct sa_ctx		ctx;
	struct sa_counters	cnt;
	struct qos_policy	qos;
	bool			rmpp_v0;	/* GetMulti as osmtest sends it */
	uint8_t			resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
};

#define SID	0x0000000001060000ULL	/* rdma_cm TCP port space, port 0 */

/* A QoS class on SL 5 for the rdma_cm TCP ServiceIDs: the SL both
 * PathRecord and MultiPathRecord must give a path asked with one. */
static int
setup(void **state)
{
	struct mfix *s = calloc(1, sizeof(*s));
	sa_fixture_fabric(&s->x);
	qos_policy_init(&s->qos);
	s->qos.enabled = true;
	strcpy(s->qos.classes[0].name, "storage");
	s->qos.classes[0].sl = 5;
	s->qos.classes[0].sids[0] = (struct qos_sid_range){ SID, SID | 0xFFFF };
	s->qos.classes[0].nsids = 1;
	s->qos.nclasses = 1;
	s->ctx.f = s->x.f;
	s->ctx.sm_guid = 0x101;
	s->ctx.sm_lid = 1;
	s->ctx.sm_state = IB_SMINFO_STATE_MASTER;
	s->ctx.counters = &s->cnt;
	s->ctx.qos = &s->qos;
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

static void
set_gid(ib_gid_t *g, uint64_t guid)
{
	g->unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	g->unicast.interface_id = htobe64(guid);
}

/* Send one SA request (data: the record template), return the number of
 * records in the answer (or -1 for an error status, left in the resp). */
static int
ask(struct mfix *s, uint8_t method, uint16_t attr, uint64_t mask, const void *data, size_t len)
{
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	ib_sa_mad_t *q = (ib_sa_mad_t *)req;
	const ib_sa_mad_t *r = (const ib_sa_mad_t *)s->resp;
	size_t rlen = 0;

	memset(req, 0, sizeof(req));
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = method;
	q->trans_id = htobe64(0x77);
	q->attr_id = htobe16(attr);
	q->comp_mask = mask;
	if (method == IB_MAD_METHOD_GETMULTI) {	/* as a kernel-RMPP requester sends it */
		q->rmpp_version = s->rmpp_v0 ? 0 : 1;	/* osmtest: Active alone, the rest 0 */
		q->rmpp_type = s->rmpp_v0 ? 0 : IB_RMPP_TYPE_DATA;
		q->rmpp_flags = IB_RMPP_FLAG_ACTIVE;
	}
	memcpy(q->data, data, len);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), s->resp, &rlen));
	assert_int_equal(r->attr_id, q->attr_id);
	if (r->status != 0)
		return -1;
	assert_int_equal(be16toh(r->attr_offset), sizeof(ib_path_rec_t) / 8);
	return (int)((rlen - IB_SA_MAD_HDR_SIZE) / sizeof(ib_path_rec_t));
}

static const ib_path_rec_t *
rec(struct mfix *s, size_t i)
{
	return (const ib_path_rec_t *)(((const ib_sa_mad_t *)s->resp)->data) + i;
}

static uint16_t
status(struct mfix *s)
{
	return be16toh(((const ib_sa_mad_t *)s->resp)->status);
}

/* A MultiPathRecord template from SGIDs and DGIDs (GUIDs of the fixture). */
static uint64_t
mpr(ib_multipath_rec_t *m, const uint64_t *sg, size_t ns, const uint64_t *dg, size_t nd)
{
	memset(m, 0, sizeof(*m));
	m->sgid_count = (uint8_t)ns;
	m->dgid_count = (uint8_t)nd;
	for (size_t i = 0; i < ns + nd; i++)
		set_gid(&m->gids[i], i < ns ? sg[i] : dg[i - ns]);
	return IB_MPR_COMPMASK_SGIDCOUNT | IB_MPR_COMPMASK_DGIDCOUNT;
}

static void
set_sid(ib_multipath_rec_t *m, uint64_t sid)
{
	m->service_id_8msb = (uint8_t)(sid >> 56);
	for (int i = 0; i < 7; i++)
		m->service_id_56lsb[i] = (uint8_t)(sid >> (48 - 8 * i));
}

/* h1 -> h2: the MultiPathRecord path is the PathRecord of the pair. */
static void
test_same_as_pathrecord(void **state)
{
	struct mfix *s = *state;
	const uint64_t h1 = 0x101, h2 = 0x111;
	ib_multipath_rec_t m;
	ib_path_rec_t p, want;
	uint64_t mask = mpr(&m, &h1, 1, &h2, 1);

	m.num_path = 0x80 | 1;
	set_sid(&m, SID | 4791);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_NUMBPATH |
	    IB_MPR_COMPMASK_REVERSIBLE | IB_MPR_COMPMASK_SERVICEID, &m, sizeof(m)), 1);
	assert_int_equal(((const ib_sa_mad_t *)s->resp)->method, IB_MAD_METHOD_GETMULTI_RESP);
	assert_int_equal(((const ib_sa_mad_t *)s->resp)->rmpp_flags & 7,
	    IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST);
	memcpy(&want, rec(s, 0), sizeof(want));
	assert_int_equal(ib_path_rec_sl(&want), 5);	/* the class of the ServiceID */
	assert_int_equal(be16toh(want.slid), 1);
	assert_int_equal(be16toh(want.dlid), 2);
	assert_int_equal(be64toh(want.service_id), SID | 4791);

	memset(&p, 0, sizeof(p));
	set_gid(&p.sgid, h1);
	set_gid(&p.dgid, h2);
	p.service_id = htobe64(SID | 4791);
	assert_int_equal(ask(s, IB_MAD_METHOD_GET, 0x35, IB_PR_COMPMASK_SGID |
	    IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SERVICEID, &p, sizeof(p)), 1);
	assert_memory_equal(rec(s, 0), &want, sizeof(want));
	/* the same GetMulti as osmtest's vendor layer frames it */
	s->rmpp_v0 = true;
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_NUMBPATH |
	    IB_MPR_COMPMASK_REVERSIBLE | IB_MPR_COMPMASK_SERVICEID, &m, sizeof(m)), 1);
	assert_memory_equal(rec(s, 0), &want, sizeof(want));
	s->rmpp_v0 = false;

	/* without a ServiceID both give the default SL 0 (no class on SL 0) */
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask, &m, sizeof(m)), 1);
	assert_int_equal(ib_path_rec_sl(rec(s, 0)), 0);
	/* an SL asked that the class does not give: no path, as PathRecord */
	ib_multipath_rec_set_sl(&m, 2);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_SL |
	    IB_MPR_COMPMASK_SERVICEID, &m, sizeof(m)), 0);
}

/* Several DGIDs: one path each, NumbPath caps the total; selectors filter. */
static void
test_numbpath_and_selectors(void **state)
{
	struct mfix *s = *state;
	const uint64_t src[] = { 0x101 }, dst[] = { 0x111, 0x122 };
	ib_multipath_rec_t m;
	uint64_t mask = mpr(&m, src, 1, dst, 2);

	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask, &m, sizeof(m)), 2);
	assert_int_equal(be16toh(rec(s, 0)->dlid), 2);
	assert_int_equal(be16toh(rec(s, 1)->dlid), 3);
	assert_int_equal(ib_path_rec_rate(rec(s, 1)), IB_PATH_RECORD_RATE_10_GBS);	/* 1x uplink */
	m.num_path = 1;
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_NUMBPATH,
	    &m, sizeof(m)), 1);
	m.num_path = 0;
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_NUMBPATH,
	    &m, sizeof(m)), 0);
	/* rate exactly 40 Gb/s: only the 4x path to h2 */
	m.rate = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | IB_PATH_RECORD_RATE_40_GBS);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_RATE |
	    IB_MPR_COMPMASK_RATESELEC, &m, sizeof(m)), 1);
	assert_int_equal(be16toh(rec(s, 0)->dlid), 2);
	/* MTU greater than 2048: none; packet life exactly the subnet's 18 */
	m.rate = 0;
	m.mtu = (uint8_t)(0 << 6 | IB_MTU_LEN_2048);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_MTU |
	    IB_MPR_COMPMASK_MTUSELEC, &m, sizeof(m)), 0);
	m.pkt_life = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | 18);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_PKTLIFETIME |
	    IB_MPR_COMPMASK_PKTLIFETIMESELEC, &m, sizeof(m)), 2);
	m.pkt_life = (uint8_t)(IB_PATH_SELECTOR_EXACTLY << 6 | 17);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_PKTLIFETIME |
	    IB_MPR_COMPMASK_PKTLIFETIMESELEC, &m, sizeof(m)), 0);
	/* Reversible asked: the table back from h2 broken (sw2 drops LID 1),
	 * the one back from sw1 whole: only the path to sw1 */
	mask = mpr(&m, src, 1, (const uint64_t[]){ 0x111, 0x200 }, 2);
	m.num_path = 0x80;
	s->x.sw2->lft[1] = ROUTING_NO_PORT;
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask, &m, sizeof(m)), 2);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask | IB_MPR_COMPMASK_REVERSIBLE,
	    &m, sizeof(m)), 1);
	assert_int_equal(be16toh(rec(s, 0)->dlid), 10);
	assert_int_equal(rec(s, 0)->num_path, 0x81);
}

/* h1 full member of 0x0a01, h2 and h3 limited: they cannot talk, and a
 * requester on h2 does not see h3. */
static int
fake_tables(const struct fabric_port *p, uint16_t *keys, size_t max, void *arg)
{
	(void)arg;
	assert_true(max >= 1);
	if (p->guid == 0x101)
		keys[0] = 0x8A01;
	else if (p->guid == 0x111 || p->guid == 0x122)
		keys[0] = 0x0A01;
	else
		return -1;
	return 1;
}

static void
test_partitions(void **state)
{
	struct mfix *s = *state;
	const uint64_t src[] = { 0x101, 0x111 }, dst[] = { 0x122 };
	ib_multipath_rec_t m;
	uint64_t mask = mpr(&m, src, 2, dst, 1);

	s->ctx.pkey_table = fake_tables;
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask, &m, sizeof(m)), 1);
	assert_int_equal(be16toh(rec(s, 0)->slid), 1);
	assert_int_equal(be16toh(rec(s, 0)->pkey), 0x8A01);
	s->ctx.requester_lid = 2;	/* h2 does not see limited h3 */
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask, &m, sizeof(m)), 0);
}

static void
test_bad_requests(void **state)
{
	struct mfix *s = *state;
	const uint64_t h1 = 0x101, h2 = 0x111, nobody = 0x999;
	ib_multipath_rec_t m;
	uint64_t mask = mpr(&m, &h1, 1, &h2, 1);

	assert_int_equal(ask(s, IB_MAD_METHOD_GET, 0x3A, mask, &m, sizeof(m)), -1);
	assert_int_equal(status(s), 0x000C);	/* GetMulti only */
	assert_int_equal(ask(s, IB_MAD_METHOD_GETTABLE, 0x3A, mask, &m, sizeof(m)), -1);
	assert_int_equal(status(s), 0x000C);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, IB_MPR_COMPMASK_SGIDCOUNT,
	    &m, sizeof(m)), -1);
	assert_int_equal(status(s), 0x0600);	/* ERR_INSUFFICIENT_COMPONENTS */
	m.dgid_count = 11;
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask, &m, sizeof(m)), -1);
	assert_int_equal(status(s), 0x0200);	/* more GIDs than the record holds */
	mpr(&m, &h1, 1, &nobody, 1);
	assert_int_equal(ask(s, IB_MAD_METHOD_GETMULTI, 0x3A, mask, &m, sizeof(m)), -1);
	assert_int_equal(status(s), 0x0500);	/* ERR_INVALID_GID */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_as_pathrecord, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numbpath_and_selectors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
