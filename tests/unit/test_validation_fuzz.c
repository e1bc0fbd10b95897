/*
 * Fuzz-style robustness: thousands of random mutations of every fixture
 * (byte flips, truncation, insertion of NULs/CR/digits, splices of two
 * fixtures, duplicated spans) through every parser and the verdict.  The
 * property is that nothing crashes or reads out of bounds (the suite runs
 * this under ASan+UBSan too) and that the results keep their invariants.
 * Seeded, so a failure reproduces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "validation/verdict.h"
#include "test_validation_fixture.h"

#define ITERATIONS	4000

static const char *const fixtures[] = {
	"v2.19_1node_pass.txt", "v2.19_1node_pass.json", "v2.19_closed_early_fail.json",
	"v2.17_2node_ring_pass.txt", "v2.17_2node_ibfail.txt", "v2.13_corruption_fail.txt",
	"v2.12_legacy_pass.txt", "v2.19_periter_I.txt", "v2.19_timestamps_crlf.txt",
	"v2.19_completion_generations_timeout.txt", "perftest_write_bw_pass.txt",
	"perftest_read_lat_pass.txt", "perftest_link_fail.txt", "usage.txt",
};
#define NFIX (sizeof(fixtures) / sizeof(fixtures[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	/* xorshift64*: deterministic across platforms */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static size_t
mutate(const char *a, size_t alen, const char *b, size_t blen, char *out, size_t cap)
{
	size_t n = alen < cap ? alen : cap, i, k;
	static const char noise[] = "\0\r\n\t #:[]-0123456789.e+N/A{}\",";

	memcpy(out, a, n);
	for (k = 1 + rnd() % 8; k > 0 && n > 0; k--) {
		size_t at = rnd() % n;
		switch (rnd() % 6) {
		case 0:		/* flip bits */
			out[at] ^= (char)(1u << (rnd() % 8));
			break;
		case 1:		/* truncate */
			n = at;
			break;
		case 2:		/* overwrite with format noise */
			out[at] = noise[rnd() % (sizeof(noise) - 1)];
			break;
		case 3: {	/* splice a piece of another fixture */
			size_t from = blen ? rnd() % blen : 0, len = blen ? rnd() % (blen - from + 1) : 0;
			if (at + len > cap)
				len = cap - at;
			memcpy(out + at, b + from, len);
			if (at + len > n)
				n = at + len;
			break;
		}
		case 4: {	/* duplicate a span in place (shifted) */
			size_t len = rnd() % 200;
			if (at + len > n)
				len = n - at;
			if (n + len <= cap) {
				memmove(out + at + len, out + at, n - at);
				n += len;
			}
			break;
		}
		default:	/* long run of one byte: huge tokens and lines */
			for (i = 0; i < 300 && at + i < cap; i++)
				out[at + i] = (rnd() & 1) ? '9' : 'x';
			if (at + i > n)
				n = at + i;
			break;
		}
	}
	return n;
}

static void
check_invariants(const struct nccl_parsed *p)
{
	size_t i;

	assert_true(p->nrows <= NCCL_MAX_ROWS);
	assert_true(p->ndevices <= NCCL_MAX_DEVICES);
	assert_true(p->nfailures <= NCCL_MAX_FAILURES);
	for (i = 0; i < p->nfailures; i++) {
		assert_true(strlen(p->failures[i].host) < PARSE_HOST_LEN);
		assert_true(strlen(p->failures[i].message) < PARSE_MSG_LEN);
	}
	for (i = 0; i < p->nrows; i++)
		assert_true(p->rows[i].oop.nwrong >= NCCL_NWRONG_NA);
}

static void
test_fuzz_all_parsers(void **state)
{
	char *buf[NFIX];
	size_t len[NFIX], i, cap = 65536;
	char *out = malloc(cap);
	struct run_outcome outcomes[] = {
		{ .started = true, .exited = true, .exit_status = 0 },
		{ .started = true, .exited = true, .exit_status = 3 },
		{ .started = true, .exited = false, .term_signal = 9, .timed_out = true },
	};
	struct threshold t = { 100, 200 };

	assert_non_null(out);
	for (i = 0; i < NFIX; i++) {
		buf[i] = fixture_load(fixtures[i], &len[i]);
		assert_non_null(buf[i]);
	}
	for (i = 0; i < ITERATIONS; i++) {
		size_t a = rnd() % NFIX, b = rnd() % NFIX;
		size_t n = mutate(buf[a], len[a], buf[b], len[b], out, cap);
		struct nccl_parsed p;
		struct perftest_parsed q;
		struct verdict_result r;
		const struct run_outcome *o = &outcomes[i % 3];

		assert_int_equal(nccl_parse_text(out, n, &p), 0);
		check_invariants(&p);
		verdict_nccl(&p, o, &t, &r);
		assert_true(r.verdict <= VERDICT_INCONCLUSIVE);
		nccl_parsed_free(&p);
		if (nccl_parse_json(out, n, &p) == 0) {
			check_invariants(&p);
			verdict_nccl(&p, o, &t, &r);
		}
		nccl_parsed_free(&p);
		assert_int_equal(perftest_parse(out, n, &q), 0);
		assert_true(q.nrows <= PERFTEST_MAX_ROWS);
		verdict_perftest(&q, o, &t, &r);
		perftest_parsed_free(&q);
	}
	for (i = 0; i < NFIX; i++)
		free(buf[i]);
	free(out);
}

/* Every prefix of a failing run: a parser must cope with output cut at any byte. */
static void
test_every_truncation(void **state)
{
	size_t len, n;
	char *buf = fixture_load("v2.17_2node_ibfail.txt", &len);

	assert_non_null(buf);
	for (n = 0; n <= len; n++) {
		struct nccl_parsed p;
		char *copy = malloc(n ? n : 1);
		memcpy(copy, buf, n);
		assert_int_equal(nccl_parse_text(copy, n, &p), 0);
		assert_true(p.nrows <= 1);
		nccl_parsed_free(&p);
		free(copy);
	}
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_all_parsers),
		cmocka_unit_test(test_every_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
