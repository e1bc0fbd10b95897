/* fabricctl's table-driven parser (included to reach its statics). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/commands.c"
#include "cli/parser.c"
#include "cli/resolve.c"
#include "cli/usage.c"

static json_t *
parse(const char *line, const struct cli_command **cmd)
{
	char buf[256], *argv[32];
	int argc = 0;
	json_t *args = NULL;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok(buf, " "); t && argc < 32; t = strtok(NULL, " "))
		argv[argc++] = t;
	*cmd = cli_parse(argc, argv, &args);
	return args;
}

static void
test_exact_and_prefix(void **state)
{
	const struct cli_command *c;
	json_t *a;

	(void)state;
	a = parse("status", &c);
	assert_non_null(c);
	assert_string_equal(c->wire, "status");
	json_decref(a);
	a = parse("ev --since 10m --severity=warning --limit 5 --follow", &c);
	assert_non_null(c);
	assert_string_equal(c->wire, "events");
	assert_string_equal(json_string_value(json_object_get(a, "since")), "10m");
	assert_string_equal(json_string_value(json_object_get(a, "severity")), "warning");
	assert_int_equal(json_integer_value(json_object_get(a, "limit")), 5);
	assert_true(json_is_true(json_object_get(a, "follow")));
	json_decref(a);
}

static void
test_errors(void **state)
{
	const struct cli_command *c;

	(void)state;
	assert_null(parse("frobnicate", &c));
	assert_null(c);
	assert_null(parse("events --limit many", &c));
	assert_null(c);
	assert_null(parse("events --bogus", &c));
	assert_null(c);
	assert_null(parse("events extra", &c));
	assert_null(c);
	assert_null(parse("events --follow=yes", &c));
	assert_null(c);
}

static void
test_every_spec_is_well_formed(void **state)
{
	(void)state;
	/* Each declared command has words, help, and a spec of known kinds
	 * (common/spec.c refuses any other), required positionals in capitals. */
	for (size_t i = 0; i < cli_ncommands; i++) {
		struct spec sp;

		assert_true(strlen(cli_commands[i].words) > 0);
		assert_true(strlen(cli_commands[i].help) > 0);
		assert_int_equal(spec_parse(cli_commands[i].spec, &sp), 0);
		for (size_t k = 0; k < sp.n; k++)
			if (sp.arg[k].required)
				assert_true(sp.arg[k].word[0] >= 'A' && sp.arg[k].word[0] <= 'Z');
		/* No two commands share the same words. */
		for (size_t j = i + 1; j < cli_ncommands; j++)
			assert_string_not_equal(cli_commands[i].words, cli_commands[j].words);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_and_prefix),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_every_spec_is_well_formed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
