/*
 * nccl-tests and perftest parsers over the project's fixtures (one per
 * documented format generation, passing and failing runs).  Expected
 * values are those the fixtures were written with (tests/fixtures/nccl/
 * README.md), not what the parser printed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <cmocka.h>

#include "validation/parse.h"
#include "test_validation_fixture.h"

static void
load_text(const char *name, struct nccl_parsed *p)
{
	size_t len;
	char *buf = fixture_load(name, &len);

	assert_non_null(buf);
	assert_int_equal(nccl_parse_text(buf, len, p), 0);
	free(buf);
}

static void
test_v219_single_node(void **state)
{
	struct nccl_parsed p;

	load_text("v2.19_1node_pass.txt", &p);
	assert_string_equal(p.tests_version, "2.19.6");
	assert_string_equal(p.test_name, "all_reduce_perf");
	assert_int_equal(p.ndevices, 8);
	assert_string_equal(p.devices[7].host, "node-a01");
	assert_string_equal(p.devices[7].pci, "0000:dc:00");
	assert_int_equal(p.nrows, 5);			/* 512M .. 8G */
	assert_true(p.rows[0].size == 536870912ULL);
	assert_true(p.rows[4].size == 8589934592ULL);
	assert_int_equal(p.rows[4].root, -1);
	assert_int_equal(p.rows[4].oop.nwrong, 0);
	assert_true(p.rows[4].oop.busbw > 400 && p.rows[4].oop.busbw < 462);
	assert_true(p.rows[4].ip.busbw > p.rows[4].oop.busbw);
	assert_true(p.oob_seen && p.oob_count == 0);
	assert_true(p.avg_seen);
	assert_int_equal(p.avg_gate, 1);
	assert_true(p.concluded);
	assert_int_equal(p.unknown_lines, 0);
	assert_int_equal(p.nfailures, 0);
	nccl_parsed_free(&p);
}

static void
test_v219_json_twin(void **state)
{
	struct nccl_parsed t, j;
	size_t len, i;
	char *buf = fixture_load("v2.19_1node_pass.json", &len);

	assert_non_null(buf);
	assert_int_equal(nccl_parse_json(buf, len, &j), 0);
	free(buf);
	load_text("v2.19_1node_pass.txt", &t);
	/* the two renderings of one run agree row by row (text has 2 decimals) */
	assert_int_equal(j.nrows, t.nrows);
	for (i = 0; i < t.nrows; i++) {
		assert_true(j.rows[i].size == t.rows[i].size);
		assert_true(fabs(j.rows[i].oop.busbw - t.rows[i].oop.busbw) < 0.006);
		assert_true(fabs(j.rows[i].ip.busbw - t.rows[i].ip.busbw) < 0.006);
		assert_int_equal(j.rows[i].root, -1);
		assert_int_equal(j.rows[i].oop.nwrong, 0);
	}
	assert_int_equal(j.ndevices, 8);
	assert_string_equal(j.devices[3].host, "node-a01");
	assert_string_equal(j.nccl_version, "2.28.3");
	assert_int_equal(j.avg_gate, 1);
	assert_true(fabs(j.avg_busbw - t.avg_busbw) < 0.01);
	assert_int_equal(j.nfailures, 0);		/* errors: [""] */
	nccl_parsed_free(&t);
	nccl_parsed_free(&j);
}

static void
test_json_closed_early(void **state)
{
	struct nccl_parsed j;
	size_t len;
	char *buf = fixture_load("v2.19_closed_early_fail.json", &len);

	assert_non_null(buf);
	assert_int_equal(nccl_parse_json(buf, len, &j), 0);
	free(buf);
	assert_int_equal(j.nrows, 2);
	assert_int_equal(j.rows[1].ip.nwrong, NCCL_NWRONG_NA);	/* null */
	assert_true(j.rows[1].ip.busbw == 0);			/* "nan" */
	assert_false(j.avg_seen);
	assert_false(nccl_footer_seen(&j));
	assert_int_equal(j.nfailures, 1);
	nccl_parsed_free(&j);

	assert_int_equal(nccl_parse_json("{\"results\":", 11, &j), -1);
	assert_int_equal(nccl_parse_json("[1,2]", 5, &j), -1);
}

static void
test_v217_ring_trailing_blanks(void **state)
{
	struct nccl_parsed p;

	load_text("v2.17_2node_ring_pass.txt", &p);
	assert_string_equal(p.tests_version, "2.17.6");
	assert_string_equal(p.nccl_version, "2.28.3+cuda12.9");
	assert_int_equal(p.ndevices, 16);
	assert_string_equal(nccl_rank_host(&p, 8), "node-b02");
	assert_string_equal(nccl_rank_host(&p, 7), "node-a01");
	assert_int_equal(p.nrows, 28);			/* 8 B .. 1 GiB */
	assert_true(p.rows[0].size == 8);
	assert_int_equal(p.avg_gate, -1);		/* no NCCL_TESTS_MIN_BW */
	assert_int_equal(p.unknown_lines, 0);
	nccl_parsed_free(&p);
}

static void
test_v217_ib_failure(void **state)
{
	struct nccl_parsed p;
	size_t i, ib = 0, nccl = 0;

	load_text("v2.17_2node_ibfail.txt", &p);
	assert_int_equal(p.nrows, 1);
	assert_int_equal(p.partial_rows, 0);		/* the cut row carries the WARN */
	assert_false(nccl_footer_seen(&p));
	for (i = 0; i < p.nfailures; i++) {
		if (p.failures[i].kind == NCCL_FAIL_IB) {
			ib++;
			assert_string_equal(p.failures[i].hca, "mlx5_2");
		}
		if (p.failures[i].kind == NCCL_FAIL_NCCL)
			nccl++;
	}
	assert_int_equal(ib, 2);
	assert_int_equal(nccl, 2);
	assert_string_equal(p.failures[0].host, "node-b02");	/* glued to the row */
	assert_string_equal(p.failures[0].peer, "10.0.3.1");
	assert_int_equal(p.failures[0].status, 12);
	assert_string_equal(p.failures[1].host, "node-a01");
	assert_int_equal(p.failures[1].status, 5);
	assert_int_equal(p.mpi_failed_rank, 10);
	assert_int_equal(p.mpi_exit_code, 3);
	assert_string_equal(nccl_rank_host(&p, p.mpi_failed_rank), "node-b02");
	nccl_parsed_free(&p);
}

static void
test_v213_corruption(void **state)
{
	struct nccl_parsed p;
	size_t i, bad = 0;

	load_text("v2.13_corruption_fail.txt", &p);
	assert_int_equal(p.tests_version[0], '\0');	/* no version line before 2.17.4 */
	assert_string_equal(p.devices[0].pci, "0x19");	/* bus-only PCI id */
	assert_int_equal(p.nrows, 24);			/* 8 B .. 64 MiB */
	for (i = 0; i < p.nrows; i++)
		if (p.rows[i].ip.nwrong > 0) {
			bad++;
			assert_true(p.rows[i].size == 16777216);
			assert_int_equal(p.rows[i].ip.nwrong, 2048);
		}
	assert_int_equal(bad, 1);
	assert_int_equal(p.oob_count, 1);
	nccl_parsed_free(&p);
}

static void
test_v212_legacy(void **state)
{
	struct nccl_parsed p;

	load_text("v2.12_legacy_pass.txt", &p);
	assert_true(p.legacy_format);
	assert_int_equal(p.ndevices, 8);		/* device lines without Group */
	assert_string_equal(p.devices[2].host, "node-d04");
	assert_int_equal(p.nrows, 9);			/* 1 MiB .. 256 MiB */
	assert_int_equal(p.rows[0].root, NCCL_ROOT_NONE);
	assert_int_equal(p.rows[0].oop.nwrong, NCCL_NWRONG_NA);
	assert_true(p.rows[8].oop.busbw > 180);
	nccl_parsed_free(&p);
}

static void
test_variants(void **state)
{
	struct nccl_parsed p;

	load_text("v2.19_nocheck_na.txt", &p);
	assert_int_equal(p.nrows, 3);
	assert_int_equal(p.rows[2].oop.nwrong, NCCL_NWRONG_NA);
	nccl_parsed_free(&p);

	load_text("v2.19_timestamps_crlf.txt", &p);
	assert_int_equal(p.nrows, 3);			/* -S: 15 tokens, CRLF */
	assert_int_equal(p.unknown_lines, 0);
	assert_true(p.concluded);
	nccl_parsed_free(&p);

	load_text("v2.19_periter_I.txt", &p);
	assert_int_equal(p.nrows, 7);			/* -I: 21 tokens */
	assert_true(p.rows[6].size == 17179869184ULL);
	assert_true(fabs(p.avg_busbw - 120) < 1e-9);	/* exponent form */
	nccl_parsed_free(&p);

	load_text("v2.19_minbw_failed.txt", &p);
	assert_int_equal(p.avg_gate, 0);
	nccl_parsed_free(&p);

	load_text("usage.txt", &p);
	assert_true(p.usage_seen);
	assert_int_equal(p.nrows, 0);
	nccl_parsed_free(&p);

	load_text("mpirun_noslots.txt", &p);
	assert_int_equal(p.ndevices, 0);
	assert_true(p.unknown_lines > 0);		/* kept so drift is visible */
	assert_non_null(p.unknown[0]);
	nccl_parsed_free(&p);
}

static void
test_completion_generations(void **state)
{
	struct nccl_parsed p;

	load_text("v2.19_completion_generations_timeout.txt", &p);
	assert_int_equal(p.nfailures, 3);
	/* 2.18: "with error 12", no timestamp prefix */
	assert_int_equal(p.failures[0].kind, NCCL_FAIL_IB);
	assert_string_equal(p.failures[0].host, "node-g07");
	assert_int_equal(p.failures[0].status, 12);
	assert_string_equal(p.failures[0].hca, "mlx5_1");
	/* 2.28.7+: "status=IBV_WC_RETRY_EXC_ERR(12)" */
	assert_int_equal(p.failures[1].kind, NCCL_FAIL_IB);
	assert_string_equal(p.failures[1].host, "node-f06");
	assert_int_equal(p.failures[1].status, 12);
	assert_string_equal(p.failures[1].peer, "10.0.7.7");
	assert_int_equal(p.failures[2].kind, NCCL_FAIL_TIMEOUT);
	assert_string_equal(p.failures[2].host, "node-f06");
	nccl_parsed_free(&p);

	load_text("v2.19_cuda_failure.txt", &p);
	assert_int_equal(p.nfailures, 1);
	assert_int_equal(p.failures[0].kind, NCCL_FAIL_CUDA);
	assert_string_equal(p.failures[0].host, "node-h08");
	nccl_parsed_free(&p);
}

static void
load_perftest(const char *name, struct perftest_parsed *p)
{
	size_t len;
	char *buf = fixture_load(name, &len);

	assert_non_null(buf);
	assert_int_equal(perftest_parse(buf, len, p), 0);
	free(buf);
}

static void
test_perftest(void **state)
{
	struct perftest_parsed p;

	load_perftest("perftest_write_bw_pass.txt", &p);
	assert_string_equal(p.test, "RDMA_Write BW Test");
	assert_string_equal(p.device, "mlx5_2");
	assert_string_equal(p.link_type, "IB");
	assert_string_equal(p.unit, "Gb/sec");
	assert_false(p.latency);
	assert_int_equal(p.nrows, 1);
	assert_true(p.rows[0].bytes == 8388608);
	assert_true(p.rows[0].iterations == 5000);
	assert_true(fabs(p.rows[0].bw_peak - 389.91) < 1e-9);
	assert_true(fabs(p.rows[0].bw_avg - 389.02) < 1e-9);
	assert_true(fabs(p.rows[0].msg_rate - 0.005797) < 1e-9);
	assert_int_equal(p.error, PERFTEST_OK);
	assert_int_equal(p.unknown_lines, 0);
	perftest_parsed_free(&p);

	load_perftest("perftest_write_bw_sweep_mib_roce.txt", &p);
	assert_string_equal(p.link_type, "Ethernet");
	assert_string_equal(p.unit, "MiB/sec");
	assert_int_equal(p.nrows, 3);
	/* 1 MiB/s = 8 * 2^20 / 1e9 Gb/s */
	assert_true(fabs(perftest_gbits(&p, 1000.0) - 8.388608) < 1e-9);
	perftest_parsed_free(&p);

	load_perftest("perftest_read_lat_pass.txt", &p);
	assert_true(p.latency);
	assert_int_equal(p.nrows, 1);
	assert_true(fabs(p.rows[0].t_typical - 1.97) < 1e-9);
	assert_true(fabs(p.rows[0].t_p999 - 5.02) < 1e-9);
	perftest_parsed_free(&p);

	load_perftest("perftest_connect_fail.txt", &p);
	assert_int_equal(p.error, PERFTEST_ERR_SOCKET);
	assert_int_equal(p.nrows, 0);
	perftest_parsed_free(&p);

	load_perftest("perftest_link_fail.txt", &p);
	assert_int_equal(p.error, PERFTEST_ERR_LINK);
	assert_string_equal(p.device, "mlx5_2");
	perftest_parsed_free(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v219_single_node),
		cmocka_unit_test(test_v219_json_twin),
		cmocka_unit_test(test_json_closed_early),
		cmocka_unit_test(test_v217_ring_trailing_blanks),
		cmocka_unit_test(test_v217_ib_failure),
		cmocka_unit_test(test_v213_corruption),
		cmocka_unit_test(test_v212_legacy),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_completion_generations),
		cmocka_unit_test(test_perftest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
