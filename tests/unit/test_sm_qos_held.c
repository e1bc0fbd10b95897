/*
 * The SM's mirror of the QoS tables ports hold (sm/qos/qos_held.c): whatever
 * is set reads back as a plain table per slot would (the reference here),
 * and it stays small where slots hold the same tables.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sm/qos/qos.h"

/* The reference: every slot's bytes, as the mirror held them before. */
struct ref {
	unsigned	np;
	bool		sw;
	uint8_t		sl2vl[256 * 256][QOS_SL2VL_BYTES];
	uint8_t		vlarb[256 * QOS_VLARB_BLOCKS][QOS_VLARB_BLOCK_BYTES];
};

static uint32_t seed = 12345;

static uint32_t
rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

static struct ref *
ref_new(uint8_t nports, bool sw)
{
	struct ref *r = malloc(sizeof(*r));

	assert_non_null(r);
	memset(r, 0xFF, sizeof(*r));
	r->np = nports + 1u;
	r->sw = sw;
	return r;
}

static void
ref_sl2vl(struct ref *r, unsigned in, unsigned out, const uint8_t *t)
{
	for (unsigned i = 0; i < r->np; i++)
		for (unsigned o = 0; o < r->np; o++)
			if ((in == QOS_HELD_ALL || in == i || !r->sw) && (out == QOS_HELD_ALL || out == o) &&
			    (r->sw || i == 0))
				memcpy(r->sl2vl[i * r->np + o], t, QOS_SL2VL_BYTES);
}

static void
same(const struct ref *r, const struct qos_held *h)
{
	for (unsigned i = 0; i < (r->sw ? r->np : 1); i++)
		for (unsigned o = 0; o < r->np; o++)
			assert_memory_equal(qos_held_sl2vl_c(h, (uint8_t)i, (uint8_t)o),
			    r->sl2vl[i * r->np + o], QOS_SL2VL_BYTES);
	for (unsigned p = 0; p < r->np; p++)
		for (unsigned b = 0; b < QOS_VLARB_BLOCKS; b++)
			assert_memory_equal(qos_held_vlarb_c(h, (uint8_t)p, b),
			    r->vlarb[p * QOS_VLARB_BLOCKS + b], QOS_VLARB_BLOCK_BYTES);
}

/* One of a few tables (as fabrics hold), unknown, or now and then any. */
static void
pick(uint8_t *t, size_t len, unsigned few)
{
	unsigned k = rnd() % (few + 2);

	memset(t, 0, len);
	if (k == few)
		memset(t, 0xFF, len);
	else if (k == few + 1)
		for (size_t i = 0; i < len; i++)
			t[i] = (uint8_t)rnd();
	else
		t[0] = (uint8_t)k, t[len - 1] = (uint8_t)(k * 7);
}

static void
random_ops(uint8_t nports, bool sw, unsigned ops, unsigned few)
{
	struct ref *r = ref_new(nports, sw);
	struct qos_held *h = qos_held_new(nports, sw);
	uint8_t t[QOS_VLARB_BLOCK_BYTES];

	same(r, h);
	for (unsigned n = 0; n < ops; n++) {
		unsigned in = rnd() % (nports + 2u), out = rnd() % (nports + 2u), kind = rnd() % 8;

		if (kind == 0)
			in = QOS_HELD_ALL;
		else if (kind == 1)
			out = QOS_HELD_ALL;
		else if (kind == 2)
			in = out = QOS_HELD_ALL;
		if (kind < 6) {
			pick(t, QOS_SL2VL_BYTES, few);
			h = qos_held_set_sl2vl(h, in, out, t);
			/* a CA has one table a port: in is not looked at */
			if (sw ? (in <= nports || in == QOS_HELD_ALL) &&
			    (out <= nports || out == QOS_HELD_ALL) : out <= nports)
				ref_sl2vl(r, sw ? in : 0, out, t);
		} else {
			unsigned b = rnd() % (QOS_VLARB_BLOCKS + 1);

			pick(t, QOS_VLARB_BLOCK_BYTES, few);
			h = qos_held_set_vlarb(h, in % (nports + 2u), b, t);
			if (in % (nports + 2u) <= nports && b < QOS_VLARB_BLOCKS)
				memcpy(r->vlarb[(in % (nports + 2u)) * QOS_VLARB_BLOCKS + b], t,
				    QOS_VLARB_BLOCK_BYTES);
		}
		same(r, h);
	}
	free(h);
	free(r);
}

/* Whatever is set reads back, on switches and CAs, few tables or many. */
static void
test_reads_back_what_was_set(void **state)
{
	(void)state;
	random_ops(3, true, 3000, 3);
	random_ops(1, false, 1000, 2);
	random_ops(2, false, 1000, 4);
	random_ops(36, true, 600, 3);
	random_ops(36, true, 300, 40);
}

/* Past 255 distinct tables the index widens; all still read back. */
static void
test_many_distinct_tables(void **state)
{
	struct ref *r = ref_new(36, true);
	struct qos_held *h = qos_held_new(36, true);
	uint8_t t[QOS_SL2VL_BYTES] = { 0 };

	(void)state;
	for (unsigned i = 0; i <= 36; i++)
		for (unsigned o = 0; o <= 36; o++) {
			t[0] = (uint8_t)i;
			t[1] = (uint8_t)o;
			h = qos_held_set_sl2vl(h, i, o, t);
			ref_sl2vl(r, i, o, t);
		}
	same(r, h);
	assert_true(h->s[0].wide);
	/* one Set for every pair: one table again, no index */
	h = qos_held_set_sl2vl(h, QOS_HELD_ALL, QOS_HELD_ALL, t);
	ref_sl2vl(r, QOS_HELD_ALL, QOS_HELD_ALL, t);
	same(r, h);
	assert_true(qos_held_bytes(h) <= 128);
	free(h);
	free(r);
}

/* What it takes: a 36-port switch held 20,424 bytes of tables before. */
static void
test_small_where_tables_repeat(void **state)
{
	static const uint8_t policy[QOS_SL2VL_BYTES] = { 0x01, 0x23, 0x00, 0x00, 0, 0, 0, 0 };
	static const uint8_t vl0_1[QOS_SL2VL_BYTES] = { 0x01, 0x01, 0x00, 0x00, 0, 0, 0, 0 };
	uint8_t blk[QOS_VLARB_BLOCK_BYTES] = { 1, 50, 2, 30 };
	struct qos_held *h = qos_held_new(36, true), *ca = qos_held_new(1, false);

	(void)state;
	assert_true(qos_held_bytes(h) <= 64);		/* nothing known: nothing held */
	/* the optimized form: every pair, then two out ports on other VLs */
	h = qos_held_set_sl2vl(h, QOS_HELD_ALL, QOS_HELD_ALL, policy);
	assert_true(qos_held_bytes(h) <= 64 + 8);
	h = qos_held_set_sl2vl(h, QOS_HELD_ALL, 5, vl0_1);
	h = qos_held_set_sl2vl(h, QOS_HELD_ALL, 9, vl0_1);
	for (unsigned p = 0; p <= 36; p++)
		for (unsigned b = 0; b < 2; b++)
			h = qos_held_set_vlarb(h, p, b, blk);
	assert_memory_equal(qos_held_sl2vl_c(h, 7, 9), vl0_1, QOS_SL2VL_BYTES);
	assert_memory_equal(qos_held_sl2vl_c(h, 7, 8), policy, QOS_SL2VL_BYTES);
	assert_true(qos_held_bytes(h) <= 64 + 37 * 37 + 3 * 8 + 37 * 4 + 2 * 64 + 16);
	/* a CA whose one table was read */
	ca = qos_held_set_sl2vl(ca, 0, 1, policy);
	assert_true(qos_held_bytes(ca) <= 64 + 8 + 8);
	/* tables replaced over and over: the pool does not grow with them */
	for (unsigned n = 0; n < 5000; n++) {
		uint8_t t[QOS_SL2VL_BYTES] = { (uint8_t)n, (uint8_t)(n >> 8) };

		h = qos_held_set_sl2vl(h, n % 37, 3, t);
	}
	assert_true(qos_held_bytes(h) <= 64 + 37 * 37 + 3 * 8 * 40 + 37 * 4 + 2 * 64 + 16);
	free(h);
	free(ca);
}

/* Out of range: nothing set, unknown read. */
static void
test_out_of_range(void **state)
{
	static const uint8_t t[QOS_VLARB_BLOCK_BYTES] = { 0 };
	struct qos_held *h = qos_held_new(2, true);

	(void)state;
	h = qos_held_set_sl2vl(h, 3, 1, t);
	h = qos_held_set_sl2vl(h, 1, 3, t);
	h = qos_held_set_sl2vl(h, QOS_HELD_ALL, 7, t);
	h = qos_held_set_vlarb(h, 3, 0, t);
	h = qos_held_set_vlarb(h, 1, 4, t);
	assert_true(qos_unknown(qos_held_sl2vl_c(h, 9, 1), QOS_SL2VL_BYTES));
	assert_true(qos_unknown(qos_held_vlarb_c(h, 9, 0), QOS_VLARB_BLOCK_BYTES));
	for (unsigned i = 0; i <= 2; i++)
		for (unsigned o = 0; o <= 2; o++)
			assert_true(qos_unknown(qos_held_sl2vl_c(h, (uint8_t)i, (uint8_t)o),
			    QOS_SL2VL_BYTES));
	assert_true(qos_held_bytes(h) <= 64);
	free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_back_what_was_set),
		cmocka_unit_test(test_many_distinct_tables),
		cmocka_unit_test(test_small_where_tables_repeat),
		cmocka_unit_test(test_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
