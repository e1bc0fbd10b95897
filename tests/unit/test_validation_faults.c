/*
 * A code found on more than PF_SAME_FAULTS ports of one check becomes one
 * fabric-wide fault (pf_check_done in validation/preflight_checks.c).  Its
 * message points to a list only where a command lists those ports: `ports
 * --degraded` for the degraded codes, nothing for the others (issue 42: 9
 * unknown hosts were folded into "HostNotFound ... list: fabricctl ports
 * --degraded", a list in which they could never be).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "validation/preflight_checks.h"

/* n faults of code, one a host, folded: the one check's faults */
static json_t *
folded(const char *code, size_t n)
{
	struct check c;
	char host[32];	/* "host" and a size_t in full */

	pf_check_init(&c, "hosts");
	for (size_t i = 0; i < n; i++) {
		snprintf(host, sizeof(host), "host%zu", i + 1);
		pf_fault(&c, host, NULL, NULL, code, "%s: something about it", host);
	}
	pf_check_done(&c);
	return c.faults;
}

static const char *
message(json_t *faults, size_t i)
{
	return json_string_value(json_object_get(json_array_get(faults, i), "message"));
}

static void
degraded_codes_point_to_the_list(void **state)
{
	static const char *const codes[] = { "IBPortDegraded", "RouteLinkDegraded" };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		json_t *f = folded(codes[k], 9);
		assert_int_equal(json_array_size(f), 1);
		assert_true(json_is_true(json_object_get(json_array_get(f, 0), "fabric_wide")));
		assert_non_null(strstr(message(f, 0), "; list: fabricctl ports --degraded"));
		json_decref(f);
	}
}

static void
other_codes_have_no_list(void **state)
{
	static const char *const codes[] = { "HostNotFound", "IBPortDown", "PKeyMissing",
	    "HealthEvent", "RouteLinkDown" };

	(void)state;
	for (size_t k = 0; k < sizeof(codes) / sizeof(codes[0]); k++) {
		json_t *f = folded(codes[k], 9);
		char want[64];

		assert_int_equal(json_array_size(f), 1);
		snprintf(want, sizeof(want), "fabric-wide: %s on 9 ports of 9 hosts (e.g. ", codes[k]);
		assert_true(strncmp(message(f, 0), want, strlen(want)) == 0);
		if (strstr(message(f, 0), "fabricctl") != NULL)
			fail_msg("%s: a hint that cannot help: %s", codes[k], message(f, 0));
		json_decref(f);
	}
}

/* Up to PF_SAME_FAULTS a fault is its own, with its own message. */
static void
few_are_not_folded(void **state)
{
	json_t *f = folded("IBPortDegraded", 8);

	(void)state;
	assert_int_equal(json_array_size(f), 8);
	assert_string_equal(message(f, 0), "host1: something about it");
	json_decref(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(degraded_codes_point_to_the_list),
		cmocka_unit_test(other_codes_have_no_list),
		cmocka_unit_test(few_are_not_folded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
