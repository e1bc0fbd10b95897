/* Slurm hostlist expressions (common/hostlist.c): ranges, lists in a
 * bracket, zero padding, several brackets, spaces, and what is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/hostlist.h"

static char *
joined(const char *expr, size_t max)
{
	static char out[65536];
	char **v, err[160];
	size_t n;

	if (hostlist_expand(expr, &v, &n, max, err, sizeof(err)) != 0) {
		snprintf(out, sizeof(out), "error: %s", err);
		return out;
	}
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, v[i]);
		free(v[i]);
	}
	assert_null(v[n]);
	free(v);
	return out;
}

static void
expands(void **state)
{
	assert_string_equal(joined("gpu[001-003,070]", 100), "gpu001 gpu002 gpu003 gpu070");
	assert_string_equal(joined("a1, a2,b[3-4]", 100), "a1 a2 b3 b4");
	assert_string_equal(joined("r[1-2]-n[1-2]", 100), "r1-n1 r1-n2 r2-n1 r2-n2");
	assert_string_equal(joined("host[9-11]x", 100), "host9x host10x host11x");
	assert_string_equal(joined(" solo ", 100), "solo");
	assert_string_equal(joined("", 100), "");
}

static void
refuses(void **state)
{
	assert_true(strncmp(joined("host[1-x]", 100), "error: invalid range", 20) == 0);
	assert_true(strncmp(joined("host[4-1]", 100), "error: invalid range", 20) == 0);
	assert_true(strncmp(joined("host[1-4", 100), "error: unbalanced", 17) == 0);
	assert_true(strncmp(joined("host1]", 100), "error: unbalanced", 17) == 0);
	assert_true(strncmp(joined("gpu[1-40],cpu[1-40]", 64), "error: too many hosts", 21) == 0);
}

/* A range past the limit is well-formed: the error says its size and the
 * limit, not "invalid range" (issue 42). */
static void
refuses_size(void **state)
{
	assert_string_equal(joined("host[1-9999]", 4096),
	    "error: range \"1-9999\" expands to 9999 hosts; at most 4096");
	assert_string_equal(joined("gpu[1-65]", 64), "error: range \"1-65\" expands to 65 hosts; at most 64");
	assert_string_equal(joined("gpu[1-99999999999]", 64),
	    "error: range \"1-99999999999\" expands to 99999999999 hosts; at most 64");
	assert_string_equal(joined("gpu[1-99999999999999999999]", 64),
	    "error: range \"1-99999999999999999999\" expands to more than 64 hosts");
	/* the limit itself is accepted */
	assert_true(strncmp(joined("gpu[1-64]", 64), "gpu1 gpu2 ", 10) == 0);
	assert_true(strncmp(joined("gpu[0001-4096]", 4096), "gpu0001 gpu0002 ", 16) == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expands),
		cmocka_unit_test(refuses),
		cmocka_unit_test(refuses_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
