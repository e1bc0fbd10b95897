/*
 * The SA (sm/sa/sa_answer.c, sm/sa/sa_records.c, sm/sa/sa_path.c) over the hand-built
 * model of tests/unit/fabric_route_fixture.h, whose tables were set by hand:
 * records carry what the fixture says (GUIDs, LIDs, port numbers), the
 * component mask selects exactly the records the fixture predicts, a
 * PathRecord follows the tables (the degraded 1x uplink and a small-MTU
 * port show in its rate and MTU), exists only when the tables and the link
 * states let packets through, and the MAD framing gives the statuses and
 * the single-segment RMPP header IBA asks for.  In partitions a path needs
 * both ends to hold the key and one of them as a full member (a fake
 * membership source stands for the partitions module).  Random MADs never
 * crash it.
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

struct sfix {
	struct rfix	 x;
	struct sa_ctx	 ctx;
	struct sa_counters cnt;
	uint8_t		 tmpl[IB_SA_DATA_SIZE];
	uint8_t		 buf[BIG * 112];
	struct sa_sink	 sink;
};

static int
setup(void **state)
{
	struct sfix *s = calloc(1, sizeof(*s));
	sa_fixture_fabric(&s->x);
	s->ctx.f = s->x.f;
	s->ctx.sm_guid = 0x101;
	s->ctx.sm_lid = 1;
	s->ctx.sm_priority = 11;
	s->ctx.sm_state = IB_SMINFO_STATE_MASTER;
	s->ctx.sm_act_count = 7;
	s->ctx.counters = &s->cnt;
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct sfix *s = *state;

	fabric_free(s->x.f);
	free(s);
	return 0;
}

/* Every record of attr matching the template and mask (no cut). */
static size_t
query(struct sfix *s, uint16_t attr, uint64_t mask_net)
{
	return sa_fixture_query(&s->ctx, s->tmpl, s->buf, BIG, &s->sink, attr, mask_net);
}

static const void *
rec(struct sfix *s, size_t i)
{
	return s->buf + i * s->sink.rec_size;
}

/* ---- NodeRecord ---- */

static void
test_node_records_all(void **state)
{
	struct sfix *s = *state;
	const ib_node_record_t *r;

	/* h1, h2, h3's cabled port 2, sw1, sw2 (h3 port 1 has no LID). */
	assert_int_equal(query(s, 0x11, 0), 5);
	r = rec(s, 2);
	assert_int_equal(be16toh(r->lid), 3);
	assert_int_equal(be64toh(r->node_info.node_guid), 0x120);
	assert_int_equal(be64toh(r->node_info.port_guid), 0x122);
	assert_int_equal(ib_node_info_get_local_port_num(&r->node_info), 2);
	assert_int_equal(r->node_info.node_type, IB_NODE_TYPE_CA);
	assert_int_equal(r->node_info.num_ports, 2);
	assert_int_equal(be32toh(r->node_info.port_num_vendor_id) & 0xFFFFFF, 0x2c9);
	assert_string_equal((const char *)r->node_desc.description, "h3");
	r = rec(s, 3);
	assert_int_equal(be16toh(r->lid), 10);
	assert_int_equal(r->node_info.node_type, IB_NODE_TYPE_SWITCH);
	assert_int_equal(ib_node_info_get_local_port_num(&r->node_info), 0);
	assert_int_equal(be64toh(r->node_info.port_guid), 0x200);
}

static void
test_node_record_mask(void **state)
{
	struct sfix *s = *state;
	ib_node_record_t *t = (ib_node_record_t *)s->tmpl;

	t->lid = htobe16(3);
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_LID), 1);
	assert_int_equal(be64toh(((const ib_node_record_t *)rec(s, 0))->node_info.port_guid), 0x122);
	t->lid = htobe16(99);
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_LID), 0);
	/* a field outside the mask does not filter */
	assert_int_equal(query(s, 0x11, 0), 5);

	memset(t, 0, sizeof(*t));
	t->node_info.node_guid = htobe64(0x300);
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_NODEGUID), 1);
	assert_int_equal(be16toh(((const ib_node_record_t *)rec(s, 0))->lid), 11);
	t->node_info.port_guid = htobe64(0x111);
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_PORTGUID), 1);
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_PORTGUID | IB_NR_COMPMASK_NODEGUID), 0);

	memset(t, 0, sizeof(*t));
	t->node_info.node_type = IB_NODE_TYPE_SWITCH;
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_NODETYPE), 2);
	t->node_info.port_num_vendor_id = htobe32(2u << 24);
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_PORTNUM), 1);
	assert_int_equal(be16toh(((const ib_node_record_t *)rec(s, 0))->lid), 3);

	memset(t, 0, sizeof(*t));
	strcpy((char *)t->node_desc.description, "h2");
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_NODEDESC), 1);
	assert_int_equal(be16toh(((const ib_node_record_t *)rec(s, 0))->lid), 2);
	strcpy((char *)t->node_desc.description, "h");
	assert_int_equal(query(s, 0x11, IB_NR_COMPMASK_NODEDESC), 0);
}

/* ---- PortInfoRecord, LinkRecord, SMInfoRecord ---- */

static void
test_portinfo_records(void **state)
{
	struct sfix *s = *state;
	ib_portinfo_record_t *t = (ib_portinfo_record_t *)s->tmpl;
	const ib_portinfo_record_t *r;

	t->lid = htobe16(10);		/* sw1: ports 0..8 under its LID */
	assert_int_equal(query(s, 0x12, IB_PIR_COMPMASK_LID), 9);
	t->port_num = 8;
	assert_int_equal(query(s, 0x12, IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM), 1);
	r = rec(s, 0);
	assert_int_equal(r->port_num, 8);
	assert_int_equal(r->port_info.link_width_active, 1);	/* the degraded uplink */
	t->lid = htobe16(3);
	t->port_num = 2;
	assert_int_equal(query(s, 0x12, IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM), 1);
	t->port_num = 1;		/* h3 port 1 has no LID: no record */
	assert_int_equal(query(s, 0x12, IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM), 0);
	/* CapabilityMask "any of" (attribute modifier bit 31), as saquery -s sends */
	((ib_port_info_t *)s->x.h2->ports[1].pi)->capability_mask = IB_PORT_CAP_IS_SM;
	memset(t, 0, sizeof(*t));
	t->port_info.capability_mask = IB_PORT_CAP_IS_SM | IB_PORT_CAP_SM_DISAB;
	{
		struct sa_query q = { .tmpl = s->tmpl, .mask = IB_PIR_COMPMASK_CAPMASK,
		    .attr_mod = 1u << 31 };
		memset(&s->sink, 0, sizeof(s->sink));
		s->sink.buf = s->buf;
		s->sink.rec_size = sa_record_size(0x12);
		s->sink.max = BIG;
		assert_int_equal(sa_build_records(&s->ctx, 0x12, &q, &s->sink), 0);
		assert_int_equal(s->sink.n, 1);
		assert_int_equal(be16toh(((const ib_portinfo_record_t *)rec(s, 0))->lid), 2);
	}
	assert_int_equal(query(s, 0x12, IB_PIR_COMPMASK_CAPMASK), 0);	/* exact */
}

static void
test_link_records(void **state)
{
	struct sfix *s = *state;
	ib_link_record_t *t = (ib_link_record_t *)s->tmpl;
	const ib_link_record_t *r;

	/* 5 cables, each seen from both ends */
	assert_int_equal(query(s, 0x20, 0), 10);
	t->from_lid = htobe16(10);
	assert_int_equal(query(s, 0x20, IB_LR_COMPMASK_FROM_LID), 3);
	t->from_port_num = 8;
	assert_int_equal(query(s, 0x20, IB_LR_COMPMASK_FROM_LID | IB_LR_COMPMASK_FROM_PORT), 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->to_lid), 11);
	assert_int_equal(r->to_port_num, 8);
	t->to_lid = htobe16(3);
	assert_int_equal(query(s, 0x20, IB_LR_COMPMASK_TO_LID), 1);
	assert_int_equal(be16toh(((const ib_link_record_t *)rec(s, 0))->from_lid), 11);
	assert_int_equal(((const ib_link_record_t *)rec(s, 0))->from_port_num, 3);
}

static void
test_sminfo_record(void **state)
{
	struct sfix *s = *state;
	ib_sminfo_record_t *t = (ib_sminfo_record_t *)s->tmpl;
	const ib_sminfo_record_t *r;

	assert_int_equal(query(s, 0x18, 0), 1);
	r = rec(s, 0);
	assert_int_equal(be16toh(r->lid), 1);
	assert_int_equal(be64toh(r->sm_info.guid), 0x101);
	assert_int_equal(r->sm_info.pri_state, (11 << 4) | IB_SMINFO_STATE_MASTER);
	t->lid = htobe16(2);
	assert_int_equal(query(s, 0x18, IB_SMIR_COMPMASK_LID), 0);
	t->sm_info.pri_state = 11 << 4;
	assert_int_equal(query(s, 0x18, IB_SMIR_COMPMASK_PRIORITY), 1);
}

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
static void
test_table_records(void **state)
{
	struct sfix *s = *state;
	const ib_lft_record_t *l;

	s->x.sw1->lft_known = s->x.sw2->lft_known = true;
	assert_int_equal(query(s, 0x14, 0), 2);			/* both switches */
	((ib_switch_info_record_t *)s->tmpl)->lid = htobe16(11);
	assert_int_equal(query(s, 0x14, IB_SWIR_COMPMASK_LID), 1);
	assert_int_equal(be16toh(((const ib_switch_info_record_t *)rec(s, 0))->switch_info.lin_top), 11);
	memset(s->tmpl, 0, sizeof(s->tmpl));
	((ib_lft_record_t *)s->tmpl)->lid = htobe16(10);
	assert_int_equal(query(s, 0x15, IB_LFTR_COMPMASK_LID | IB_LFTR_COMPMASK_BLOCK), 1);
	l = rec(s, 0);
	assert_int_equal(l->lft[2], 7);		/* sw1 sends LID 2 out of 7 */
	assert_int_equal(l->lft[3], 8);
	memset(s->tmpl, 0, sizeof(s->tmpl));
	((ib_guidinfo_record_t *)s->tmpl)->lid = htobe16(1);
	assert_int_equal(query(s, 0x30, IB_GIR_COMPMASK_LID), 1);
	assert_int_equal(be64toh(((const ib_guidinfo_record_t *)rec(s, 0))->guid_info.guid[0]), 0x101);
}

/* ServiceRecord: register with a lease, list, replace, expire, delete. */
static void
test_service(void **state)
{
	struct sfix *s = *state;
	struct sa_services sv = { 0 };
	ib_service_record_t *t = (ib_service_record_t *)s->tmpl, r;
	struct sa_query q = { .tmpl = s->tmpl,
	    .mask = IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID | IB_SR_COMPMASK_SPKEY };

	s->ctx.services = &sv;
	s->ctx.requester_lid = 1;
	memset(t, 0, sizeof(*t));
	t->service_id = htobe64(0x1234);
	t->service_gid.unicast.interface_id = htobe64(0x101);
	t->service_pkey = htobe16(0xFFFF);
	t->service_lease = htobe32(10);
	strcpy((char *)t->service_name, "svc");
	assert_int_equal(sa_service_set(&s->ctx, &q, 1000, &r), 0);
	assert_int_equal(sa_service_set(&s->ctx, &q, 2000, &r), 0);	/* replaced, not added */
	assert_int_equal(sv.n, 1);
	s->ctx.now_ms = 5000;
	assert_int_equal(query(s, 0x31, 0), 1);
	s->ctx.now_ms = 13000;					/* the lease ended */
	assert_int_equal(query(s, 0x31, 0), 0);
	/* another port's GID is not the requester's to register */
	t->service_gid.unicast.interface_id = htobe64(0x111);
	assert_int_equal(sa_service_set(&s->ctx, &q, 13000, &r), 0x0200);
	t->service_gid.unicast.interface_id = htobe64(0x101);
	t->service_lease = htobe32(0xFFFFFFFF);
	assert_int_equal(sa_service_set(&s->ctx, &q, 13000, &r), 0);
	s->ctx.now_ms = 1000000000;
	assert_int_equal(query(s, 0x31, 0), 1);			/* forever */
	assert_int_equal(sa_service_delete(&s->ctx, &q, 1000000000, &r), 0);
	assert_int_equal(sa_service_delete(&s->ctx, &q, 1000000000, &r), 0x0300);
	sa_services_free(&sv);
}

/* Kernel RMPP: the whole table, Active alone; and such a request is taken. */
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
		cmocka_unit_test_setup_teardown(test_node_records_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_record_mask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_portinfo_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sminfo_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_follows_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_needs_route, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_by_gid_and_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_partitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad_gettable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad_fuzz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad_rmpp_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partition_aware, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
