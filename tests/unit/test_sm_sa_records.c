/*
 * The SA's record builders (sm/sa/sa_records.c, sa_tables.c, sa_service.c)
 * over the hand-built model of tests/unit/fabric_route_fixture.h, whose
 * tables were set by hand: records carry what the fixture says (GUIDs,
 * LIDs, port numbers), and the component mask selects exactly the records
 * the fixture predicts.
 */
#include "tests/unit/sa_sfix.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_node_records_all, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_node_record_mask, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_portinfo_records, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_link_records, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_sminfo_record, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_table_records, sfix_setup, sfix_teardown),
		cmocka_unit_test_setup_teardown(test_service, sfix_setup, sfix_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
