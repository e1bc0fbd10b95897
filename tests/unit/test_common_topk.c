/*
 * topk_select: the k best of n, in order, equal to the first k of a full
 * qsort (the comparators below are total orders, so "equal" is exact).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/topk.h"

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

struct wide {	/* bigger than topk's swap buffer, ranked by key then id */
	int	key;
	int	id;
	char	pad[300];
};

static int
wide_cmp(const void *a, const void *b)
{
	const struct wide *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;	/* highest first */
	return x->id < y->id ? -1 : x->id > y->id;
}

static void
check_ints(size_t n, size_t k, int range, unsigned seed)
{
	int *v = malloc((n ? n : 1) * sizeof(int)), *ref = malloc((n ? n : 1) * sizeof(int));
	size_t got, want = k < n ? k : n;

	srand(seed);
	for (size_t i = 0; i < n; i++)
		v[i] = ref[i] = rand() % range;
	qsort(ref, n, sizeof(int), int_cmp);
	got = topk_select(v, n, sizeof(int), k, int_cmp);
	assert_int_equal(got, want);
	assert_memory_equal(v, ref, want * sizeof(int));
	/* nothing lost: the rest is a permutation of what was left */
	qsort(v, n, sizeof(int), int_cmp);
	assert_memory_equal(v, ref, n * sizeof(int));
	free(v);
	free(ref);
}

static void
test_matches_qsort(void **state)
{
	static const size_t ns[] = { 1, 2, 3, 7, 100, 7776 };
	static const size_t ks[] = { 1, 2, 5, 20, 100, 7776, 9000 };

	(void)state;
	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++) {
			check_ints(ns[a], ks[b], 1000000, (unsigned)(a * 31 + b));
			check_ints(ns[a], ks[b], 3, (unsigned)(a * 17 + b));	/* many ties */
		}
}

static void
test_empty_and_zero(void **state)
{
	int v[3] = { 3, 1, 2 };

	(void)state;
	assert_int_equal(topk_select(v, 0, sizeof(int), 5, int_cmp), 0);
	assert_int_equal(topk_select(v, 3, sizeof(int), 0, int_cmp), 0);
	assert_int_equal(v[0], 3);	/* k = 0 leaves the array alone */
}

static void
test_wide_elements(void **state)
{
	enum { N = 500, K = 37 };
	struct wide *v = calloc(N, sizeof(*v)), *ref = calloc(N, sizeof(*v));

	(void)state;
	for (int i = 0; i < N; i++) {
		v[i].key = (i * 7919) % 11;
		v[i].id = i;
		memset(v[i].pad, i & 0xff, sizeof(v[i].pad));
	}
	memcpy(ref, v, N * sizeof(*v));
	qsort(ref, N, sizeof(*ref), wide_cmp);
	assert_int_equal(topk_select(v, N, sizeof(*v), K, wide_cmp), K);
	assert_memory_equal(v, ref, K * sizeof(*v));
	free(v);
	free(ref);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_qsort),
		cmocka_unit_test(test_empty_and_zero),
		cmocka_unit_test(test_wide_elements),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
