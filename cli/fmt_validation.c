/* Human output for the validation commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"

/* A job record (validate --follow, job show). */
static void
job_result(json_t *r)
{
	static const char *const row_cols[] = { "size", "in_place", "time_us", "algbw", "busbw",
	    "nwrong", NULL };
	static const char *const perf_cols[] = { "bytes", "iterations", "bw_peak", "bw_avg", "unit",
	    NULL };
	static const char *const probe_cols[] = { "id", "verdict", "code", "culprit", "hosts", NULL };
	json_t *rows, *probes, *summary, *culprits, *v;
	char buf[64];
	size_t i;

	if (json_object_get(r, "id") == NULL) {	/* "started" reply without --follow */
		printf("job %s %s (%s)\n", cli_scalar_text(json_object_get(r, "job"), buf, sizeof(buf)),
		    cli_str(r, "state", "-"), cli_str(r, "kind", "-"));
		return;
	}
	printf("job %s: %s %s via %s, %s\n", cli_scalar_text(json_object_get(r, "id"), buf, sizeof(buf)),
	    cli_str(r, "kind", "-"), cli_str(r, "test", "-"), cli_str(r, "launcher", "-"),
	    cli_str(r, "state", "-"));
	printf("verdict: %s (%s) %s\n", cli_str(r, "verdict", "-"), cli_str(r, "code", "-"),
	    cli_str(r, "reason", "-"));
	if (json_is_string(json_object_get(r, "culprit_host")))
		printf("culprit: %s%s%s\n", cli_str(r, "culprit_host", "-"),
		    json_is_string(json_object_get(r, "culprit_hca")) ? " " : "",
		    json_is_string(json_object_get(r, "culprit_hca")) ? cli_str(r, "culprit_hca", "-") : "");
	if (json_is_integer(json_object_get(r, "exit_status")))
		printf("exit status: %lld\n", json_integer_value(json_object_get(r, "exit_status")));
	if (json_is_integer(json_object_get(r, "term_signal")))
		printf("signal: %lld\n", json_integer_value(json_object_get(r, "term_signal")));
	if (json_is_true(json_object_get(r, "timed_out")) ||
	    json_integer_value(json_object_get(r, "timed_out")) == 1)
		printf("timed out\n");
	if (json_is_string(json_object_get(r, "stdout_path")))
		printf("log: %s\n", cli_str(r, "stdout_path", "-"));
	summary = json_object_get(r, "summary");
	culprits = json_object_get(summary, "culprits");
	if (json_array_size(culprits) > 0) {
		printf("culprits:");
		json_array_foreach(culprits, i, v)
			printf(" %s", json_string_value(v));
		printf("\n");
	}
	rows = json_object_get(r, "rows");
	if (json_array_size(rows) > 0) {
		putchar('\n');
		cli_print_table(stdout, rows, json_object_get(json_array_get(rows, 0), "busbw") ?
		    row_cols : perf_cols);
	}
	probes = json_object_get(r, "probes");
	if (json_array_size(probes) > 0) {
		printf("\nprobes:\n");
		cli_print_table(stdout, probes, probe_cols);
	}
}

static void
job_progress(json_t *item)
{
	char a[32], b[32], c[32];

	if (json_object_get(item, "probes") != NULL) {
		printf("job %s: %s probes done\n", cli_scalar_text(json_object_get(item, "job"), a, sizeof(a)),
		    cli_scalar_text(json_object_get(item, "probes"), b, sizeof(b)));
		return;
	}
	printf("job %s: %s ranks, %s rows", cli_scalar_text(json_object_get(item, "job"), a, sizeof(a)),
	    cli_scalar_text(json_object_get(item, "ranks"), b, sizeof(b)),
	    cli_scalar_text(json_object_get(item, "rows"), c, sizeof(c)));
	if (json_object_get(item, "size") != NULL)
		printf(", last %s bytes at %s GB/s", cli_scalar_text(json_object_get(item, "size"), a,
		    sizeof(a)), cli_scalar_text(json_object_get(item, "busbw"), b, sizeof(b)));
	printf("\n");
}

static void
log_result(json_t *r)
{
	const char *text = json_string_value(json_object_get(r, "text"));

	if (json_is_true(json_object_get(r, "truncated")))
		fprintf(stderr, "(last part of %s)\n", cli_str(r, "path", "-"));
	fputs(text ? text : "", stdout);
}

/* nccl-env: lines a job script can source; notes as comments. */
static void
env_result(json_t *r)
{
	json_t *env = json_object_get(r, "env"), *v;
	const char *k;
	size_t i;

	json_object_foreach(env, k, v)
		printf("export %s='%s'\n", k, json_string_value(v));
	json_array_foreach(json_object_get(r, "notes"), i, v)
		printf("# %s\n", json_string_value(v));
	json_array_foreach(json_object_get(r, "faults"), i, v) {
		char *s = json_dumps(v, JSON_COMPACT);
		printf("# fault: %s\n", s);
		free(s);
	}
}

static void
preflight_result(json_t *r)
{
	json_t *checks = json_object_get(r, "checks"), *c, *f;
	size_t i, j;

	if (json_object_get(r, "drain")) {
		/* --format slurm: nothing but the lines a prolog may run. */
		json_array_foreach(json_object_get(r, "drain"), i, c)
			printf("%s\n", json_string_value(c));
		return;
	}
	printf("preflight: %s\n", cli_str(r, "verdict", "-"));
	json_array_foreach(checks, i, c) {
		printf("  %-8s %-12s %s\n", cli_str(c, "name", "-"), cli_str(c, "status", "-"),
		    cli_str(c, "detail", "-"));
		json_array_foreach(json_object_get(c, "faults"), j, f)
			printf("           %s: %s\n", cli_str(f, "code", "-"), cli_str(f, "message", "-"));
	}
}

const struct cli_formatter fmt_validation[] = {
	{ "validate.nccl", job_result, job_progress },
	{ "validate.rdma", job_result, job_progress },
	{ "job.show", job_result, NULL },
	{ "job.log", log_result, NULL },
	{ "nccl-env", env_result, NULL },
	{ "preflight", preflight_result, NULL },
	{ NULL, NULL, NULL }
};
