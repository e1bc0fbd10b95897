/* Job partitions' pure parts: the pool's next key, squeue's answer, the
 * job record in the model (copied, checked, carried by the YAML with
 * jobs and left out of the operator's export). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "partitions/files.h"
#include "partitions/jobs.h"
#include "partitions/model.h"

static struct pt_config *
with_keys(const uint16_t *keys, size_t n)
{
	struct pt_config *c = pt_config_new();
	struct pt_err e;
	char name[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%zu", i);
		assert_int_equal(pt_partition_add(c, name, NULL, keys[i], &e), 0);
	}
	return c;
}

static void
test_free_key(void **state)
{
	static const uint16_t used[] = { 0x1000, 0x1001, 0x1003, 0x0a01 };
	struct pt_config *c = with_keys(used, 4);

	assert_int_equal(pt_jobs_free_key(c, 0x1000, 0x1fff), 0x1002);
	assert_int_equal(pt_jobs_free_key(c, 0x1003, 0x1004), 0x1004);
	assert_int_equal(pt_jobs_free_key(c, 0x1000, 0x1001), 0);	/* exhausted */
	assert_int_equal(pt_jobs_free_key(c, 0x7ffe, 0x7ffe), 0x7ffe);	/* no wrap past the top */
	pt_config_free(c);
}

static void
test_squeue_parse(void **state)
{
	char **ids;
	size_t n;

	assert_int_equal(pt_squeue_parse("101\n  102 \n\n1234_7\r\n", &ids, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ids[0], "101");
	assert_string_equal(ids[1], "102");
	assert_string_equal(ids[2], "1234_7");
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	assert_int_equal(pt_squeue_parse("", &ids, &n), 0);	/* no job runs */
	assert_int_equal(n, 0);
	free(ids);
	/* an error text on stdout is not "no job runs": refused whole */
	assert_int_equal(pt_squeue_parse("101\nslurm_load_jobs error: Unable to contact\n", &ids,
	    &n), -1);
	assert_null(ids);
	assert_int_equal(n, 0);
}

static void
test_job_id(void **state)
{
	assert_true(pt_job_id_valid("1234"));
	assert_true(pt_job_id_valid("1234_7"));
	assert_false(pt_job_id_valid(""));
	assert_false(pt_job_id_valid(NULL));
	assert_false(pt_job_id_valid("12 34"));
	assert_false(pt_job_id_valid("../x"));
	assert_false(pt_job_id_valid("12345678901234567890123456789012345678901"));	/* 41 */
}

static struct pt_config *
one_job(const char *name, uint16_t pkey, const char *id)
{
	struct pt_config *c = pt_config_new();
	struct pt_err e;

	assert_int_equal(pt_partition_add(c, name, "jobs", pkey, &e), 0);
	assert_int_equal(pt_member_add(c, name, "0x0002c90300000002", true, &e), 0);
	pt_partition_set_job(pt_find(c, name), &(struct pt_job){ (char *)id, "alice", "ml",
	    "gpu[1-2]", 1765000000000 });
	return c;
}

static void
test_model_record(void **state)
{
	struct pt_config *c = one_job("job-7", 0x1000, "7"), *d;
	struct pt_err e;

	d = pt_config_dup(c);
	assert_non_null(pt_find_job(d, "7"));
	assert_string_equal(pt_find_job(d, "7")->job->hosts, "gpu[1-2]");
	assert_ptr_not_equal(pt_find_job(d, "7")->job, pt_find_job(c, "7")->job);
	assert_null(pt_find_job(d, "8"));
	/* two partitions for one job: the model refuses */
	assert_int_equal(pt_partition_add(d, "job-7b", "jobs", 0x1001, &e), 0);
	pt_partition_set_job(pt_find(d, "job-7b"), pt_find_job(c, "7")->job);
	assert_int_equal(pt_config_check(d, &e), -1);
	assert_int_equal(e.code, PERR_CONFLICT);
	assert_int_equal(pt_partition_delete(d, "job-7", &e), 0);
	assert_int_equal(pt_config_check(d, &e), 0);
	pt_config_free(d);
	pt_config_free(c);
}

static void
test_yaml_jobs(void **state)
{
	struct pt_config *c = one_job("job-7", 0x1000, "7"), *back = NULL;
	struct pt_err e;
	char *op, *all, *err = NULL;

	assert_int_equal(pt_partition_add(c, "acme", NULL, 0x0a01, &e), 0);
	assert_int_equal(pt_member_add(c, "acme", "host5", true, &e), 0);
	op = pt_yaml_export(c);
	assert_null(strstr(op, "job-7"));	/* an operator's export: no job partition */
	assert_non_null(strstr(op, "acme"));
	all = pt_yaml_export_with(c, true);	/* the replicated intent: all of them */
	assert_non_null(strstr(all, "job-7"));
	assert_int_equal(pt_yaml_parse_text("intent", all, strlen(all), &back, &err), 0);
	assert_non_null(pt_find(back, "job-7"));
	assert_int_equal(pt_find(back, "job-7")->pkey, 0x1000);
	assert_int_equal(pt_find(back, "job-7")->nmembers, 1);
	free(op);
	free(all);
	pt_config_free(back);
	pt_config_free(c);
}

/* partitions.jobs errors say file:line:column and what was expected. */
static void
test_jobs_config_errors(void **state)
{
	static const struct { const char *yaml, *where, *what; } bad[] = {
		{ "partitions:\n  jobs:\n    pkeys: 0x2000-0x1000\n", "f.yaml:3:12",
		    "low end is above" },
		{ "partitions:\n  jobs:\n    pkeys: 0x1000\n", "f.yaml:3:12", "LOW-HIGH" },
		{ "partitions:\n  jobs:\n    pkeys: 0x0000-0x0010\n", "f.yaml:3:12", "out of range" },
		{ "partitions:\n  jobs:\n    membership: both\n", "f.yaml:3:17", "full or limited" },
		{ "partitions:\n  jobs:\n    reconcile: 60s\n", "f.yaml:3:5", "unknown key \"reconcile\" in partitions.jobs" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pt_config *c = NULL;
		char *err = NULL;

		assert_int_equal(pt_yaml_parse_text("f.yaml", bad[i].yaml, strlen(bad[i].yaml), &c,
		    &err), -1);
		assert_non_null(err);
		if (strstr(err, bad[i].where) == NULL || strstr(err, bad[i].what) == NULL)
			fail_msg("case %zu: \"%s\" lacks %s / %s", i, err, bad[i].where, bad[i].what);
		free(err);
		assert_null(c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_key),
		cmocka_unit_test(test_squeue_parse),
		cmocka_unit_test(test_job_id),
		cmocka_unit_test(test_model_record),
		cmocka_unit_test(test_yaml_jobs),
		cmocka_unit_test(test_jobs_config_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
