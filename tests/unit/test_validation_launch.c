/*
 * Launcher command lines: what mpirun, srun and a local run are given,
 * checked against the launchers' documented option syntax (Open MPI -H
 * host:slots and -x VAR, Slurm --nodelist/--ntasks-per-node, nccl-tests
 * -b/-e/-g), and sizes with 1024-based suffixes.  The rdma pair's /bin/sh
 * script is run through sh -n (a real shell parses it) with a hostile
 * host name quoted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "validation/validation.h"

static struct validation_config cfg = {
	.nccl_tests_dir = "/opt/nt", .perftest_dir = "/usr/bin", .mpirun = "/usr/bin/mpirun",
	.srun = "/usr/bin/srun", .gpus_per_host = 8, .rdma_port = 18515, .json_report = true,
};

static size_t
argc_of(char **v)
{
	size_t n = 0;

	while (v[n] != NULL)
		n++;
	return n;
}

/* index of word in argv, or -1 */
static int
find(char **v, const char *w)
{
	int i;

	for (i = 0; v[i] != NULL; i++)
		if (strcmp(v[i], w) == 0)
			return i;
	return -1;
}

static void
test_sizes(void **state)
{
	uint64_t lo, hi;

	assert_int_equal(launch_parse_sizes("1G:16G", &lo, &hi), 0);
	assert_true(lo == 1073741824ULL && hi == 17179869184ULL);
	assert_int_equal(launch_parse_sizes("8", &lo, &hi), 0);
	assert_true(lo == 8 && hi == 8);
	assert_int_equal(launch_parse_sizes("512k:1m", &lo, &hi), 0);
	assert_true(lo == 524288 && hi == 1048576);
	assert_int_equal(launch_parse_sizes("16G:1G", &lo, &hi), -1);	/* min > max */
	assert_int_equal(launch_parse_sizes("1T", &lo, &hi), -1);
	assert_int_equal(launch_parse_sizes("-1", &lo, &hi), -1);
	assert_int_equal(launch_parse_sizes("1G:", &lo, &hi), -1);
	assert_int_equal(launch_parse_sizes("99999999999999999999", &lo, &hi), -1);
}

static void
test_mpirun(void **state)
{
	char *hosts[] = { "gpu1", "gpu2", NULL };
	char *env[] = { "NCCL_ALGO=Ring", "NCCL_IB_HCA==mlx5_0:1", NULL };
	struct job_spec s = { .kind = JOB_NCCL, .test = "all_reduce_perf", .launcher = "mpirun",
	    .sizes = "1G:4G", .hosts = hosts, .nhosts = 2 };
	char **v = launch_argv(&cfg, &s, "/var/j/1", env);
	int i;

	assert_string_equal(v[0], "/usr/bin/mpirun");
	assert_string_equal(v[find(v, "-np") + 1], "16");		/* 2 hosts x 8 GPUs */
	assert_string_equal(v[find(v, "-H") + 1], "gpu1:8,gpu2:8");
	/* every NCCL variable forwarded by name, value in the environment */
	assert_true(find(v, "NCCL_ALGO") > 0 && strcmp(v[find(v, "NCCL_ALGO") - 1], "-x") == 0);
	assert_true(find(v, "NCCL_IB_HCA") > 0);
	i = find(v, "/opt/nt/all_reduce_perf");
	assert_true(i > find(v, "-H"));
	assert_string_equal(v[find(v, "-b") + 1], "1073741824");
	assert_string_equal(v[find(v, "-e") + 1], "4294967296");
	assert_string_equal(v[find(v, "-g") + 1], "1");			/* one GPU per rank */
	assert_string_equal(v[find(v, "-J") + 1], "/var/j/1/result.json");
	launch_free(v);
}

static void
test_srun_and_local(void **state)
{
	char *hosts[] = { "gpu1", "gpu2", "gpu3", NULL };
	struct job_spec s = { .kind = JOB_NCCL, .test = "all_gather_perf", .launcher = "srun",
	    .sizes = "16G", .hosts = hosts, .nhosts = 3 };
	char **v = launch_argv(&cfg, &s, "/d", NULL);

	assert_string_equal(v[0], "/usr/bin/srun");
	assert_string_equal(v[find(v, "-N") + 1], "3");
	assert_true(find(v, "--nodelist=gpu1,gpu2,gpu3") > 0);
	assert_true(find(v, "--ntasks-per-node=8") > 0);
	assert_true(find(v, "--mpi=pmix") > 0);
	assert_string_equal(v[find(v, "-b") + 1], v[find(v, "-e") + 1]);
	launch_free(v);

	s.launcher = "local";
	s.nhosts = 1;
	v = launch_argv(&cfg, &s, "/d", NULL);
	assert_string_equal(v[0], "/opt/nt/all_gather_perf");
	assert_string_equal(v[find(v, "-g") + 1], "8");			/* all GPUs, one process */
	assert_true(argc_of(v) > 10);
	launch_free(v);
}

static void
test_rdma_script_parses(void **state)
{
	char *hosts[] = { "gpu1", "o'brien", NULL };
	struct job_spec s = { .kind = JOB_RDMA, .test = "ib_write_bw", .launcher = "mpirun",
	    .hosts = hosts, .nhosts = 2, .hca = "mlx5_0", .rdma_port = 18600 };
	char **v = launch_argv(&cfg, &s, "/d", NULL);
	FILE *sh;

	assert_int_equal(argc_of(v), 3);
	assert_string_equal(v[0], "/bin/sh");
	assert_string_equal(v[1], "-c");
	assert_non_null(strstr(v[2], "'18600'"));
	assert_non_null(strstr(v[2], "'o'\\''brien:1'"));		/* quoted, not split */
	/* a real shell accepts the script */
	sh = popen("sh -n", "w");
	assert_non_null(sh);
	fputs(v[2], sh);
	assert_int_equal(pclose(sh), 0);
	launch_free(v);
}

/* A job's stop (issue 39: the deadline, checked without a clock): SIGKILL
 * at the timeout itself whatever the grace, SIGTERM the grace before it,
 * at most half-way; `validate --timeout 2` with kill_grace 5s (what
 * validation_timeout.sh runs) ends at 2 s, not 2 + 5. */
static void
test_kill_plan(void **state)
{
	static const uint64_t timeouts[] = { 0, 1, 2, 1000, 2000, 4000, 10000, 3600000 };
	static const uint64_t graces[] = { 0, 1, 500, 1000, 5000, 600000 };
	uint64_t term, kill;

	(void)state;
	for (size_t i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++)
		for (size_t g = 0; g < sizeof(graces) / sizeof(graces[0]); g++) {
			job_kill_plan(timeouts[i], graces[g], &term, &kill);
			assert_int_equal(kill, timeouts[i]);
			assert_true(term <= kill);
			assert_true(term >= timeouts[i] - timeouts[i] / 2);
			assert_int_equal(kill - term, graces[g] < timeouts[i] / 2 ? graces[g] : timeouts[i] / 2);
		}
	job_kill_plan(2000, 5000, &term, &kill);
	assert_int_equal(term, 1000);
	assert_int_equal(kill, 2000);
	job_kill_plan(60000, 5000, &term, &kill);
	assert_int_equal(term, 55000);
	assert_int_equal(kill, 60000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_kill_plan),
		cmocka_unit_test(test_mpirun),
		cmocka_unit_test(test_srun_and_local),
		cmocka_unit_test(test_rdma_script_parses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
