/*
 * libFuzzer target: SA requests as any port of the fabric may send them to
 * the SM (sm/sa: sa_answer, and sa_answer_rmpp where the kernel does RMPP),
 * against the unit tests' small fabric (tests/unit/sa_fixture.h: two
 * switches, three hosts, P_Keys, QoS capabilities).  The first byte picks
 * the way: bit 0 RMPP, bit 1 a trusted SM_Key, bits 2-3 the requester's
 * LID (unknown, 1, 2, 3).  The rest is up to four MADs of 256 bytes (the
 * last one may be short) answered in turn against one SA state, so that a
 * subscription, a service or a join meets its delete, listing or leave.
 * An answer is always within one MAD (or the RMPP table's size) and at
 * least the SA header.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/mcast/mcast.h"
#include "sm/sa/sa.h"
#include "tests/unit/sa_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MADS_MAX	4
#define SA_KEY		0x5a5a5a5a5a5a5a5aULL

static struct rfix fixture;

static void
fixture_once(void)
{
	if (fixture.f == NULL)
		sa_fixture_fabric(&fixture);
}

static void
answer_one(struct sa_ctx *ctx, bool rmpp, const uint8_t *mad, size_t len)
{
	uint8_t req[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t resp[MAD_BLOCK_SIZE] __attribute__((aligned(8)));
	uint8_t *big = NULL;
	size_t rlen = 0;

	memset(req, 0, sizeof(req));	/* as the engine hands it: zero padded */
	memcpy(req, mad, len);
	if (!rmpp) {
		if (sa_answer(ctx, req, len, resp, &rlen) &&
		    (rlen < IB_SA_MAD_HDR_SIZE || rlen > MAD_BLOCK_SIZE))
			abort();
		return;
	}
	if (sa_answer_rmpp(ctx, req, len, &big, &rlen) &&
	    (rlen < IB_SA_MAD_HDR_SIZE ||
	    rlen > IB_SA_MAD_HDR_SIZE + (size_t)SA_RMPP_MAX_RECORDS * MAD_BLOCK_SIZE))
		abort();
	free(big);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t lids[] = { 0, 1, 2, 3 };
	struct sa_state *st;
	struct mc_db *mc;
	struct sa_counters cnt;
	struct sa_ctx ctx;
	bool rmpp;

	if (size < 1)
		return 0;
	fixture_once();
	st = sa_state_new();
	mc = mc_db_new();
	memset(&cnt, 0, sizeof(cnt));
	ctx = (struct sa_ctx){
		.f = fixture.f, .sm_guid = 0x101, .sm_lid = 1, .sm_priority = 11,
		.sm_state = IB_SMINFO_STATE_MASTER, .sm_act_count = 7, .counters = &cnt,
		.mc = mc, .requester_lid = lids[(data[0] >> 2) & 3],
		.sa_key = (data[0] & 2) ? SA_KEY : 0, .subs = &st->subs,
		.services = &st->services, .now_ms = 1000,
	};
	rmpp = data[0] & 1;
	data++;
	size--;
	for (int i = 0; i < MADS_MAX && size > 0; i++) {
		size_t len = size < MAD_BLOCK_SIZE ? size : MAD_BLOCK_SIZE;

		answer_one(&ctx, rmpp, data, len);
		ctx.now_ms += 500;
		data += len;
		size -= len;
	}
	mc_db_delete(mc);
	sa_state_free(st);
	return 0;
}
