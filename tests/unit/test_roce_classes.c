/* RoCE traffic classes: a three-class profile's DCB settings (written out
 * by hand here), and each class lint rule failing at its FILE:LINE:COLUMN. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/config.h"
#include "daemon/fabricd.h"
#include "roce_qos/config.h"
#include "roce_qos/profile.h"

#define HEAD "roce_qos:\n  enabled: true\n  profile:\n    base: nvidia-lossless\n    classes:\n"

static const char THREE[] = HEAD
    "      training: { priority: 3, dscp: [26], lossless: true, ets: 50, ecn: true }\n"
    "      storage:  { priority: 4, dscp: [28], lossless: true, ets: 30, ecn: true }\n"
    "      kv:       { priority: 5, dscp: [34], ets: 15, ecn: true }\n";

static void
test_three_classes(void **state)
{
	struct fabricd_config *cfg;
	char **errs;
	size_t n;
	const struct roce_profile *p;
	const uint8_t prio_tc[8] = { 0, 0, 0, 3, 4, 5, 6, 0 };
	const uint8_t tc_bw[8] = { 5, 0, 0, 50, 30, 15, 0, 0 };

	(void)state;
	if (config_load_text("t.yaml", THREE, strlen(THREE), fabricd_modules, &cfg, &errs, &n) != 0) {
		for (size_t i = 0; i < n; i++)
			print_message("%s\n", errs[i]);
		fail();
	}
	p = &((const struct roce_qos_config *)cfg->module[MOD_ROCE_QOS])->profile;
	assert_int_equal(p->nclasses, 3);
	assert_int_equal(p->trust, ROCE_TRUST_DSCP);
	assert_int_equal(p->dscp_prio[26], 3);
	assert_int_equal(p->dscp_prio[28], 4);
	assert_int_equal(p->dscp_prio[34], 5);
	assert_int_equal(p->dscp_prio[48], 6);		/* the base's CNPs stay */
	assert_int_equal(p->pfc_en, (1 << 3) | (1 << 4));
	assert_memory_equal(p->prio_tc, prio_tc, 8);
	assert_memory_equal(p->tc_bw, tc_bw, 8);	/* TC 0 gets what is left */
	assert_int_equal(p->tc_tsa[6], IEEE_8021QAZ_TSA_STRICT);
	assert_int_equal(p->cc.prios, (1 << 3) | (1 << 4) | (1 << 5));
	assert_int_equal(p->roce_tos, 106);
	assert_string_equal(roce_profile_class(p, "kv")->name, "kv");
	config_free(cfg);
}

/* Fails unless an error starts with WHERE and holds NEEDLE; the count of errors. */
static size_t
expect_error(const char *classes, const char *where, const char *needle)
{
	char text[2048];
	struct fabricd_config *cfg = NULL;
	char **errs = NULL;
	size_t n = 0, i;

	snprintf(text, sizeof(text), "%s%s", HEAD, classes);
	assert_int_equal(config_load_text("t.yaml", text, strlen(text), fabricd_modules, &cfg, &errs, &n), -1);
	for (i = 0; i < n; i++)
		if (strncmp(errs[i], where, strlen(where)) == 0 && strstr(errs[i], needle))
			break;
	if (i == n)
		for (size_t j = 0; j < n; j++)
			print_message("error: %s\n", errs[j]);
	assert_true(i < n);
	cfg_errors_free(errs, n);
	return n;
}

static void
test_lint_shared_lossless_priority(void **state)
{
	(void)state;
	expect_error("      training: { priority: 3, dscp: [26], lossless: true, ets: 50 }\n"
	    "      storage:  { priority: 3, dscp: [28], ets: 50 }\n",
	    "t.yaml:7:29:", "[class-priority]: class storage shares priority 3 with class training "
	    "(lossless");
}

static void
test_lint_cnp_priority(void **state)
{
	(void)state;
	expect_error("      training: { priority: 3, dscp: [26], lossless: true, ets: 50 }\n"
	    "      kv:       { priority: 6, dscp: [34], ets: 50 }\n",
	    "t.yaml:7:29:", "[class-cnp]: class kv is on priority 6, the CNP priority");
}

static void
test_lint_dscp_on_its_priority(void **state)
{
	(void)state;
	expect_error("      training: { priority: 3, dscp: [26], lossless: true, ets: 50 }\n"
	    "      kv:       { priority: 5, dscp: [26], ets: 50 }\n",
	    "t.yaml:6:38:", "[class-dscp]: class training's DSCP 26 maps to priority 5");
	expect_error("      training: { priority: 3, dscp: [48], lossless: true, ets: 100 }\n",
	    "t.yaml:6:38:", "[class-dscp]: class training uses DSCP 48, the CNP DSCP");
}

static void
test_lint_shares(void **state)
{
	(void)state;
	expect_error("      training: { priority: 3, dscp: [26], lossless: true, ets: 70 }\n"
	    "      kv:       { priority: 5, dscp: [34], ets: 40 }\n",
	    "t.yaml:6:65:", "[class-ets-sum]: the classes' ETS shares sum to 110, not 100");
}

/* A class without a priority (null, empty, or a mapping lacking one) is an
 * error at its name; it once kept priority -1, which indexed the ETS arrays
 * (found by fuzzing: tests/fuzz/corpus/roce_profile/). */
static void
test_class_without_priority(void **state)
{
	(void)state;
	/* the one error: the class is left out, so no lint rule trips on it */
	assert_int_equal(expect_error("      training: ~\n", "t.yaml:6:7:",
	    "class training has no priority"), 1);
	assert_int_equal(expect_error("      training:\n", "t.yaml:6:7:",
	    "class training has no priority"), 1);
	expect_error("      training: {}\n", "t.yaml:6:7:", "class training has no priority");
	expect_error("      training: { dscp: [26], lossless: true, ets: 100 }\n", "t.yaml:6:7:",
	    "class training has no priority");
	expect_error("      training: { priority: 3, dscp: [26], lossless: true, ets: 100 }\n"
	    "      kv: null\n", "t.yaml:7:7:", "class kv has no priority");
	expect_error("      training: 3\n", "t.yaml:6:17:", "expected a mapping for the class's");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_classes),
		cmocka_unit_test(test_lint_shared_lossless_priority),
		cmocka_unit_test(test_lint_cnp_priority),
		cmocka_unit_test(test_lint_dscp_on_its_priority),
		cmocka_unit_test(test_lint_shares),
		cmocka_unit_test(test_class_without_priority),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
