/*
 * Localisation planning against an oracle that fails any probe in which
 * a planted host takes part (what the stand-in launcher does for real in
 * tests/integration/validation_jobs.sh).  Invariants checked: the named
 * culprits are exactly the planted hosts; one bad host costs at most
 * 1 + 2 ceil(log2 n) probes; the pair schedule meets every pair once in
 * n-1 rounds of disjoint pairs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "validation/localise.h"

static char names[64][32];
static const char *hostv[64];

static void
make_hosts(size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "gpu%02u", (unsigned)i);
		hostv[i] = names[i];
	}
}

static size_t
ceil_log2(size_t n)
{
	size_t l = 0;

	while (((size_t)1 << l) < n)
		l++;
	return l;
}

/* Run bisection to the end; the oracle fails a probe holding any planted host. */
static struct bisect *
run(size_t n, const bool *bad, size_t *max_parallel)
{
	struct bisect *b = bisect_new(hostv, n, NULL, 0);
	int ids[128];
	size_t nids, i, j;

	*max_parallel = 0;
	while (!bisect_finished(b)) {
		const char *const *h;
		size_t k;
		int id;
		enum verdict vs[128];

		/* start everything that is ready, as the daemon does */
		nids = 0;
		while ((id = bisect_next(b, &h, &k)) > 0) {
			enum verdict v = VERDICT_PASS;
			for (i = 0; i < k; i++)
				for (j = 0; j < n; j++)
					if (bad[j] && strcmp(h[i], hostv[j]) == 0)
						v = VERDICT_FAIL;
			assert_true(nids < 128);
			vs[nids] = v;
			ids[nids++] = id;
		}
		assert_true(nids > 0);
		if (nids > *max_parallel)
			*max_parallel = nids;
		for (i = 0; i < nids; i++)
			bisect_done(b, ids[i], vs[i]);
	}
	return b;
}

static void
test_one_planted_host(void **state)
{
	size_t n, planted, par;
	bool bad[64];

	for (n = 1; n <= 64; n++) {
		make_hosts(n);
		for (planted = 0; planted < n; planted++) {
			const char *const *c;
			struct bisect *b;

			memset(bad, 0, sizeof(bad));
			bad[planted] = true;
			b = run(n, bad, &par);
			assert_int_equal(bisect_culprits(b, &c), 1);
			assert_string_equal(c[0], hostv[planted]);
			assert_true(bisect_probes(b) <= 1 + 2 * ceil_log2(n));
			assert_true(par <= 2);		/* halves in parallel */
			bisect_free(b);
		}
	}
}

static void
test_two_planted_hosts(void **state)
{
	size_t par, i, j;
	bool bad[64];
	const char *const *c;

	make_hosts(16);
	for (i = 0; i < 16; i++)
		for (j = i + 1; j < 16; j++) {
			struct bisect *b;
			memset(bad, 0, sizeof(bad));
			bad[i] = bad[j] = true;
			b = run(16, bad, &par);
			assert_int_equal(bisect_culprits(b, &c), 2);
			assert_true((strcmp(c[0], hostv[i]) == 0 && strcmp(c[1], hostv[j]) == 0) ||
			    (strcmp(c[0], hostv[j]) == 0 && strcmp(c[1], hostv[i]) == 0));
			assert_true(bisect_probes(b) <= 1 + 4 * ceil_log2(16));
			bisect_free(b);
		}
}

static void
test_healthy_and_scale_only(void **state)
{
	bool bad[64] = { false };
	size_t par;
	const char *const *c, *const *u;
	struct bisect *b;
	int id;
	const char *const *h;
	size_t k;

	make_hosts(8);
	b = run(8, bad, &par);
	assert_int_equal(bisect_probes(b), 1);
	assert_int_equal(bisect_culprits(b, &c), 0);
	bisect_free(b);

	/* fails with all 8, passes with any half: unresolved, nobody blamed */
	b = bisect_new(hostv, 8, NULL, 0);
	id = bisect_next(b, &h, &k);
	assert_int_equal(k, 8);
	bisect_done(b, id, VERDICT_FAIL);
	while ((id = bisect_next(b, &h, &k)) > 0)
		bisect_done(b, id, VERDICT_PASS);
	assert_true(bisect_finished(b));
	assert_int_equal(bisect_culprits(b, &c), 0);
	assert_int_equal(bisect_unresolved(b, &u), 1);
	assert_non_null(strstr(u[0], "gpu00,gpu01"));
	bisect_free(b);
}

static void
test_padding_with_known_good(void **state)
{
	const char *good[] = { "spare1" };
	const char *const *h;
	size_t k;
	struct bisect *b;
	int id;

	make_hosts(2);
	b = bisect_new(hostv, 2, good, 1);
	id = bisect_next(b, &h, &k);
	bisect_done(b, id, VERDICT_FAIL);
	id = bisect_next(b, &h, &k);
	/* a single suspect is probed with a proven host, not alone */
	assert_int_equal(k, 2);
	assert_string_equal(h[1], "spare1");
	bisect_free(b);
}

static void
test_pairwise_schedule(void **state)
{
	size_t n, r, i;
	struct host_pair p[64];

	for (n = 2; n <= 33; n++) {
		unsigned char met[40][40];
		size_t rounds = pairwise_round_count(n), total = 0;

		memset(met, 0, sizeof(met));
		assert_int_equal(rounds, n % 2 ? n : n - 1);
		for (r = 0; r < rounds; r++) {
			unsigned char busy[40] = { 0 };
			size_t k = pairwise_round(n, r, p);
			assert_int_equal(k, n / 2);
			for (i = 0; i < k; i++) {
				assert_true(p[i].a < p[i].b && p[i].b < n);
				assert_false(busy[p[i].a] || busy[p[i].b]);	/* disjoint */
				busy[p[i].a] = busy[p[i].b] = 1;
				assert_int_equal(met[p[i].a][p[i].b], 0);	/* once */
				met[p[i].a][p[i].b] = 1;
				total++;
			}
		}
		assert_int_equal(total, n * (n - 1) / 2);			/* all pairs */
	}
	assert_int_equal(pairwise_round_count(1), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_planted_host),
		cmocka_unit_test(test_two_planted_hosts),
		cmocka_unit_test(test_healthy_and_scale_only),
		cmocka_unit_test(test_padding_with_known_good),
		cmocka_unit_test(test_pairwise_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
