/*
 * Verdicts over the fixtures with the exit status the real program would
 * have returned (tests/fixtures/nccl/README.md): pass, slow, corruption,
 * NCCL/IB failure with the host and HCA it names, harness failures that
 * must never blame a node.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "validation/verdict.h"
#include "test_validation_fixture.h"

static const struct run_outcome exit0 = { .started = true, .exited = true, .exit_status = 0 };

static struct run_outcome
exited(int status)
{
	struct run_outcome o = { .started = true, .exited = true, .exit_status = status };
	return o;
}

static void
judge(const char *fixture, const struct run_outcome *o, double min_ok, double min_warn,
    struct verdict_result *r)
{
	struct nccl_parsed p;
	struct threshold t = { min_ok, min_warn };
	size_t len;
	char *buf = fixture_load(fixture, &len);

	assert_non_null(buf);
	if (strstr(fixture, ".json") != NULL)
		assert_int_equal(nccl_parse_json(buf, len, &p), 0);
	else
		assert_int_equal(nccl_parse_text(buf, len, &p), 0);
	verdict_nccl(&p, o, &t, r);
	nccl_parsed_free(&p);
	free(buf);
}

static void
test_pass_and_threshold(void **state)
{
	struct verdict_result r;

	judge("v2.19_1node_pass.txt", &exit0, 400, 0, &r);
	assert_int_equal(r.verdict, VERDICT_PASS);
	assert_true(r.judged_size == 8589934592ULL);	/* the largest size */
	assert_true(r.measured > 400);
	/* same run against a threshold above its peak */
	judge("v2.19_1node_pass.txt", &exit0, 470, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.code, "IBPerformance");
	judge("v2.19_1node_pass.txt", &exit0, 300, 470, &r);
	assert_int_equal(r.verdict, VERDICT_WARN);
	judge("v2.19_1node_pass.json", &exit0, 400, 0, &r);
	assert_int_equal(r.verdict, VERDICT_PASS);
}

static void
test_largest_size_not_average(void **state)
{
	struct verdict_result r;

	/* average over 8 B .. 1 GiB is far below 300; the 1 GiB row is not */
	judge("v2.17_2node_ring_pass.txt", &exit0, 300, 0, &r);
	assert_int_equal(r.verdict, VERDICT_PASS);
	assert_true(r.judged_size == 1073741824ULL);
	/* the slow 2-node run: footer fine, largest size ~183 GB/s */
	judge("v2.19_2node_slow.txt", &exit0, 300, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_true(r.measured > 180 && r.measured < 184);
}

static void
test_failures(void **state)
{
	struct verdict_result r;
	struct run_outcome o = exited(3);

	judge("v2.17_2node_ibfail.txt", &o, 300, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.code, "IBCompletionError");
	assert_string_equal(r.host, "node-b02");
	assert_string_equal(r.hca, "mlx5_2");

	o = exited(1);
	judge("v2.13_corruption_fail.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.code, "DataCorruption");
	assert_string_equal(r.host, "node-c03");

	o = exited(7);
	judge("v2.19_minbw_failed.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);

	o = exited(4);
	judge("v2.19_completion_generations_timeout.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.hca, "mlx5_1");

	o = exited(2);
	judge("v2.19_cuda_failure.txt", &o, 0, 0, &r);
	assert_string_equal(r.code, "CudaError");
	assert_string_equal(r.host, "node-h08");

	/* crash after the test started: a fault, not a harness problem */
	o = exit0;
	o.exited = false;
	o.term_signal = 9;
	judge("v2.19_2node_slow.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	/* killed by our timeout after rows appeared */
	o = exited(0);
	o.exited = false;
	o.timed_out = true;
	judge("v2.17_2node_ring_pass.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.code, "Hang");
}

static void
test_harness_is_inconclusive(void **state)
{
	struct verdict_result r;
	struct run_outcome o = exit0;

	judge("usage.txt", &exit0, 0, 0, &r);		/* unknown flag: usage, exit 0 */
	assert_int_equal(r.verdict, VERDICT_INCONCLUSIVE);
	o = exited(1);
	judge("mpirun_noslots.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_INCONCLUSIVE);
	assert_string_equal(r.host, "");
	o = exited(127);
	judge("mpirun_noslots.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_INCONCLUSIVE);
	o.started = false;
	judge("v2.19_1node_pass.txt", &o, 0, 0, &r);
	assert_int_equal(r.verdict, VERDICT_INCONCLUSIVE);
	o = exit0;
	o.exited = false;
	o.timed_out = true;
	judge("mpirun_noslots.txt", &o, 0, 0, &r);	/* hung before any device line */
	assert_int_equal(r.verdict, VERDICT_INCONCLUSIVE);
}

static void
judge_perftest(const char *fixture, const struct run_outcome *o, double min_ok,
    struct verdict_result *r)
{
	struct perftest_parsed p;
	struct threshold t = { min_ok, 0 };
	size_t len;
	char *buf = fixture_load(fixture, &len);

	assert_non_null(buf);
	assert_int_equal(perftest_parse(buf, len, &p), 0);
	verdict_perftest(&p, o, &t, r);
	perftest_parsed_free(&p);
	free(buf);
}

static void
test_perftest_verdicts(void **state)
{
	struct verdict_result r;
	struct run_outcome o = exited(1);

	judge_perftest("perftest_write_bw_pass.txt", &exit0, 380, &r);
	assert_int_equal(r.verdict, VERDICT_PASS);
	judge_perftest("perftest_write_bw_slow.txt", &exit0, 380, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.hca, "mlx5_2");
	judge_perftest("perftest_write_bw_sweep_mib_roce.txt", &exit0, 380, &r);
	assert_true(r.judged_size == 8388608);
	assert_true(r.measured > 380 && r.measured < 400);	/* MiB/s converted */
	judge_perftest("perftest_connect_fail.txt", &o, 380, &r);
	assert_int_equal(r.verdict, VERDICT_INCONCLUSIVE);
	judge_perftest("perftest_link_fail.txt", &o, 380, &r);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.code, "IBLinkError");
}

static void
test_gravity(void **state)
{
	enum verdict v;

	assert_int_equal(verdict_worse(VERDICT_PASS, VERDICT_WARN), VERDICT_WARN);
	assert_int_equal(verdict_worse(VERDICT_INCONCLUSIVE, VERDICT_FAIL), VERDICT_FAIL);
	assert_int_equal(verdict_worse(VERDICT_INCONCLUSIVE, VERDICT_WARN), VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_parse("inconclusive", &v), 0);
	assert_int_equal(v, VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_parse("bogus", &v), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_and_threshold),
		cmocka_unit_test(test_largest_size_not_average),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_harness_is_inconclusive),
		cmocka_unit_test(test_perftest_verdicts),
		cmocka_unit_test(test_gravity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
