/*
 * InformInfo Set and InformInfoRecord (sm/sa/sa_inform.c) through
 * sa_answer(): a generic subscription of the requester's port, listed and
 * matched to its traps, removed by Subscribe 0; a vendor one kept (as
 * OpenSM keeps it) but never forwarded; subscriptions told apart as
 * OpenSM's osm_inform.c tells them (the QPN kept is the Set's, QP1), as
 * osmtest -f a subscribes and unsubscribes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/sa/sa.h"
#include "tests/unit/sa_fixture.h"

#define BIG 16

struct sfix {
	struct rfix	 x;
	struct sa_ctx	 ctx;
	uint8_t		 tmpl[IB_SA_DATA_SIZE] __attribute__((aligned(8)));
	uint8_t		 buf[BIG * sizeof(ib_inform_info_record_t)];
	struct sa_sink	 sink;
};

static int
setup(void **state)
{
	struct sfix *s = calloc(1, sizeof(*s));

	sa_fixture_fabric(&s->x);
	s->ctx.f = s->x.f;
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

/* InformInfo: subscribe, list, refuse an unknown unsubscribe, match. */
static void
test_inform(void **state)
{
	struct sfix *s = *state;
	struct sa_subs subs = { 0 };
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	ib_sa_mad_t *q = (ib_sa_mad_t *)req;
	ib_inform_info_t *ii = (ib_inform_info_t *)q->data;
	size_t rlen;

	s->ctx.subs = &subs;
	s->ctx.requester_lid = 2;
	memset(req, 0, sizeof(req));
	q->base_ver = 1;
	q->mgmt_class = IB_MCLASS_SUBN_ADM;
	q->class_ver = 2;
	q->method = IB_MAD_METHOD_SET;
	q->attr_id = IB_MAD_ATTR_INFORM_INFO;
	ii->is_generic = 1;
	ii->subscribe = 1;
	ii->lid_range_begin = htobe16(0xFFFF);
	ii->g_or_v.generic.trap_num = htobe16(65);
	ii->g_or_v.generic.qpn_resp_time_val = htobe32(1u << 8);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &rlen));
	assert_int_equal(((ib_sa_mad_t *)resp)->status, 0);
	assert_int_equal(((ib_sa_mad_t *)resp)->method, IB_MAD_METHOD_GET_RESP);
	assert_int_equal(subs.n, 1);
	assert_int_equal(subs.v[0].lid, 2);
	assert_int_equal(subs.v[0].qpn, 1);
	assert_true(sa_sub_wants(&subs.v[0], 65, 7));
	assert_false(sa_sub_wants(&subs.v[0], 64, 7));
	assert_int_equal(query(s, 0xF3, 0), 1);		/* InformInfoRecord */
	assert_int_equal(be64toh(((const ib_inform_info_record_t *)rec(s, 0))->
	    subscriber_gid.unicast.interface_id), 0x111);
	ii->subscribe = 0;
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &rlen));
	assert_int_equal(subs.n, 0);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &rlen));	/* nothing to remove */
	assert_int_equal(be16toh(((ib_sa_mad_t *)resp)->status), 0x0200);
	ii->is_generic = 0;	/* a vendor trap: kept, as OpenSM, never forwarded */
	ii->subscribe = 1;
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &rlen));
	assert_int_equal(be16toh(((ib_sa_mad_t *)resp)->status), 0);
	assert_int_equal(subs.n, 1);
	assert_false(sa_sub_wants(&subs.v[0], 65, 7));
	/* osmtest -f a: a subscription without a QPN is kept under the QPN
	 * the Set came from (1), so the unsubscribe naming QPN 1 finds it,
	 * one naming another DeviceID does not */
	ii->g_or_v.generic.qpn_resp_time_val = 0;
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &rlen));	/* replaces it */
	assert_int_equal(subs.n, 1);
	ii->subscribe = 0;
	ii->g_or_v.vend.dev_id = htobe16(0x1234);
	ii->g_or_v.generic.qpn_resp_time_val = htobe32(1u << 8);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &rlen));
	assert_int_equal(be16toh(((ib_sa_mad_t *)resp)->status), 0x0200);
	ii->g_or_v.vend.dev_id = htobe16(65);
	assert_true(sa_answer(&s->ctx, req, sizeof(req), resp, &rlen));
	assert_int_equal(be16toh(((ib_sa_mad_t *)resp)->status), 0);
	assert_int_equal(subs.n, 0);
	sa_subs_free(&subs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inform, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
