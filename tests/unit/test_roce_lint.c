/*
 * Profile lint: the built-in profiles are clean, and each rule has a
 * failing example that names the rule and the position it was given.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "roce_qos/profile.h"

static const struct roce_pos here = { "fabricd.yaml", 12, 7, NULL };

static void
expect_only(const struct roce_profile *p, const char *rule, const char *needle)
{
	struct roce_lint l[8];
	size_t n = roce_lint_profile(p, l, 8);

	assert_int_equal(n, 1);
	assert_string_equal(l[0].rule, rule);
	assert_int_equal(l[0].pos.line, 12);
	assert_int_equal(l[0].pos.col, 7);
	assert_non_null(strstr(l[0].msg, needle));
}

static void
test_builtins_are_clean(void **state)
{
	struct roce_profile p;
	struct roce_lint l[8];

	for (int i = 0; roce_profile_builtins[i]; i++) {
		assert_int_equal(roce_profile_builtin(roce_profile_builtins[i], &p), 0);
		assert_int_equal(roce_lint_profile(&p, l, 8), 0);
	}
	assert_int_equal(roce_profile_builtin("no-such", &p), -1);
}

static void
test_builtin_values(void **state)
{
	struct roce_profile p;

	assert_int_equal(roce_profile_builtin("nvidia-lossless", &p), 0);
	/* published: ToS 106 = DSCP 26 -> prio 3 lossless; CNP 48 -> 6 strict */
	assert_int_equal(p.roce_tos >> 2, 26);
	assert_int_equal(p.dscp_prio[26], 3);
	assert_int_equal(p.pfc_en, 1 << 3);
	assert_int_equal(p.tc_tsa[p.prio_tc[p.cc.cnp_prio]], IEEE_8021QAZ_TSA_STRICT);
	assert_int_equal(roce_profile_nccl_tc(&p), 106);
	assert_int_equal(roce_profile_builtin("sonic-default", &p), 0);
	assert_int_equal(p.pfc_en, (1 << 3) | (1 << 4));
	assert_int_equal(roce_profile_nccl_tc(&p) >> 2, 3);
}

static void
test_ets_sum(void **state)
{
	struct roce_profile p;

	roce_profile_builtin("nvidia-lossless", &p);
	p.tc_bw[0] = 60;
	p.bw_pos = here;
	expect_only(&p, "ets-sum", "sum to 110");
}

static void
test_tos_on_lossy_priority(void **state)
{
	struct roce_profile p;

	roce_profile_builtin("nvidia-lossless", &p);
	p.roce_tos = 0x60;	/* DSCP 24: unmapped */
	p.nccl_tc = ROCE_UNSET;
	p.tos_pos = here;
	expect_only(&p, "tos-lossless", "no DSCP to priority mapping");
	p.dscp_prio[24] = 2;
	expect_only(&p, "tos-lossless", "priority 2, which is not PFC-enabled");
}

static void
test_cnp_lossless(void **state)
{
	struct roce_profile p;

	roce_profile_builtin("nvidia-lossless", &p);
	p.pfc_en |= 1 << 6;
	p.cc.cnp_pos = here;
	expect_only(&p, "cnp-lossy", "CNP priority 6");
}

static void
test_lossless_buffer(void **state)
{
	struct roce_profile p;

	roce_profile_builtin("nvidia-lossless", &p);
	p.buffer = ROCE_BUF_MANUAL;
	p.prio2buffer[3] = 1;
	p.buffer_size[0] = 262144;
	p.buffer_pos = here;
	expect_only(&p, "lossless-buffer", "priority 3 maps to buffer 1");
	p.buffer_size[1] = 262144;
	assert_int_equal(roce_lint_profile(&p, NULL, 0), 0);
}

static void
test_trust_map(void **state)
{
	struct roce_profile p;

	roce_profile_builtin("nvidia-lossless", &p);
	p.trust = ROCE_TRUST_PCP;
	p.trust_pos = here;
	expect_only(&p, "trust-map", "trust is pcp");
	roce_profile_empty(&p);
	p.trust = ROCE_TRUST_DSCP;
	p.trust_pos = here;
	expect_only(&p, "trust-map", "map is empty");
}

static void
test_nccl_tc(void **state)
{
	struct roce_profile p;

	roce_profile_builtin("nvidia-lossless", &p);
	p.nccl_tc = 104;
	p.nccl_pos = here;
	expect_only(&p, "nccl-tc", "NCCL_IB_TC 104 differs from the RoCE ToS 106");
}

static void
test_storm_range(void **state)
{
	static const int ok[] = { 0, 80, 500, 8000, ROCE_STORM_AUTO, ROCE_UNSET };
	struct roce_profile p;

	roce_profile_builtin("nvidia-lossless", &p);
	p.storm_pos = here;
	p.storm_ms = 50;
	expect_only(&p, "storm-range", "50 ms is out of range");
	p.storm_ms = 8001;
	expect_only(&p, "storm-range", "expected auto, disable, or 80-8000 ms");
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		p.storm_ms = ok[i];
		assert_int_equal(roce_lint_profile(&p, NULL, 0), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtins_are_clean),
		cmocka_unit_test(test_builtin_values),
		cmocka_unit_test(test_ets_sum),
		cmocka_unit_test(test_tos_on_lossy_priority),
		cmocka_unit_test(test_cnp_lossless),
		cmocka_unit_test(test_lossless_buffer),
		cmocka_unit_test(test_trust_map),
		cmocka_unit_test(test_nccl_tc),
		cmocka_unit_test(test_storm_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
