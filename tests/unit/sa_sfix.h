/*
 * What the SA's unit tests share (test_sm_sa_records.c, _path.c,
 * _answer.c): the hand-built fabric of sa_fixture.h with an SA context
 * on it, a sink big enough for every record, and the query that fills it.
 */
#ifndef FABRICD_TESTS_SA_SFIX_H
#define FABRICD_TESTS_SA_SFIX_H

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

static inline int
sfix_setup(void **state)
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

static inline int
sfix_teardown(void **state)
{
	struct sfix *s = *state;

	fabric_free(s->x.f);
	free(s);
	return 0;
}

/* Every record of attr matching the template and mask (no cut). */
static inline size_t
query(struct sfix *s, uint16_t attr, uint64_t mask_net)
{
	return sa_fixture_query(&s->ctx, s->tmpl, s->buf, BIG, &s->sink, attr, mask_net);
}

static inline const void *
rec(struct sfix *s, size_t i)
{
	return s->buf + i * s->sink.rec_size;
}

#endif
