/*
 * A LIST argument's elements are checked one by one (common/spec.c): an
 * element is one item as fabricctl splits a comma-separated value, so a
 * hand-made ["a,b"] is refused while ["a", "b"] and a Slurm hostlist with
 * its commas inside brackets pass.  Every LIST of commands.def is tried.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/spec.h"

static int
check(const char *spec, const char *args_json, char *why, size_t len)
{
	struct spec sp;
	json_t *args = json_loads(args_json, 0, NULL);
	int rc;

	assert_non_null(args);
	assert_int_equal(spec_parse(spec, &sp), 0);
	rc = spec_check(&sp, args, why, len);
	json_decref(args);
	return rc;
}

static void
test_one_name_per_element(void **state)
{
	static const char *const good[] = {
		"{\"hosts\":[\"a\",\"b\"]}",
		"{\"hosts\":[\"gpu[001-064,070]\"]}",
		"{\"hosts\":[\"rack[1-2]-n[1-4]\",\"login1\"]}",
	};
	static const char *const bad[] = {
		"{\"hosts\":[\"a,b\"]}",
		"{\"hosts\":[\"a\",\"b,c\"]}",
		"{\"hosts\":[\"gpu[1-2],x\"]}",
		"{\"hosts\":[\"\"]}",
		"{\"hosts\":[\" a\"]}",
		"{\"hosts\":[\"a\\nb\"]}",
	};
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (check("--hosts=LIST", good[i], why, sizeof(why)) != 0)
			fail_msg("%s refused: %s", good[i], why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (check("--hosts=LIST", bad[i], why, sizeof(why)) != -1)
			fail_msg("%s accepted", bad[i]);
		assert_non_null(strstr(why, "argument \"hosts\""));
	}
	assert_int_equal(check("--hosts=LIST", bad[0], why, sizeof(why)), -1);
	assert_non_null(strstr(why, "comma"));
}

/* Every command of commands.def with a LIST refuses ["a,b"] for it. */
static void
test_every_list_of_commands_def(void **state)
{
	static const char *const specs[] = {
#define CMD(ident, wire, access, words, spec, help, ...) spec,
#include "common/commands.def"
#undef CMD
	};
	size_t lists = 0;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct spec sp;

		assert_int_equal(spec_parse(specs[i], &sp), 0);
		for (size_t k = 0; k < sp.n; k++) {
			char args[128];

			if (sp.arg[k].type != SPEC_LIST && sp.arg[k].type != SPEC_REST)
				continue;
			snprintf(args, sizeof(args), "{\"%s\":[\"a,b\"]}", sp.arg[k].key);
			if (check(specs[i], args, why, sizeof(why)) != -1 ||
			    strstr(why, "comma") == NULL)
				fail_msg("\"%s\": %s accepted (%s)", specs[i], args, why);
			lists++;
		}
	}
	assert_true(lists >= 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_name_per_element),
		cmocka_unit_test(test_every_list_of_commands_def),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
