/* Human output for the validation commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "cli/fabricctl.h"

/* A word as a shell would read it back: quoted when it must be. */
static void
print_word(const char *w)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	    "-_./:=,@%+") == strlen(w)) {
		fputs(w, stdout);
		return;
	}
	putchar('\'');
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*w);
	putchar('\'');
}

/* What the job ran: its command line and the environment it added. */
static void
command_lines(json_t *r)
{
	json_t *cmd = json_object_get(r, "command"), *env = json_object_get(r, "environment"), *v;
	const char *k;
	size_t i;

	if (json_array_size(cmd) > 0) {
		printf("command:");
		json_array_foreach(cmd, i, v) {
			putchar(' ');
			print_word(json_is_string(v) ? json_string_value(v) : "?");
		}
		putchar('\n');
	}
	if (json_object_size(env) > 0) {
		printf("environment:\n");
		json_object_foreach(env, k, v) {
			printf("  %s=", k);
			print_word(json_is_string(v) ? json_string_value(v) : "?");
			putchar('\n');
		}
	}
}

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
	command_lines(r);
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

/*
 * --follow: the daemon reports progress every second; a line is printed
 * only when it says something new, after the time since the first one,
 * with the message size in units ("[12.3 s] job 7: 16 ranks, 9 rows, last
 * 1.0 GiB at 341.2 GB/s").
 */
static void
job_progress(json_t *item)
{
	static char last[256];
	static int64_t t0_ms = -1;
	char a[32], b[32], c[32], line[256], el[32];
	int64_t now_ms;
	int n;

	if (json_object_get(item, "probes") != NULL) {
		n = snprintf(line, sizeof(line), "job %s: %s probes done",
		    cli_scalar_text(json_object_get(item, "job"), a, sizeof(a)),
		    cli_scalar_text(json_object_get(item, "probes"), b, sizeof(b)));
	} else {
		n = snprintf(line, sizeof(line), "job %s: %s ranks, %s rows",
		    cli_scalar_text(json_object_get(item, "job"), a, sizeof(a)),
		    cli_scalar_text(json_object_get(item, "ranks"), b, sizeof(b)),
		    cli_scalar_text(json_object_get(item, "rows"), c, sizeof(c)));
		if (json_object_get(item, "size") != NULL && n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n, ", last %s at %s GB/s",
			    cli_size_text((long long)json_integer_value(json_object_get(item, "size")), a,
			    sizeof(a)), cli_scalar_text(json_object_get(item, "busbw"), b, sizeof(b)));
	}
	now_ms = clock_mono_ms();
	if (t0_ms < 0)
		t0_ms = now_ms;
	if (strcmp(line, last) == 0)
		return;
	snprintf(last, sizeof(last), "%s", line);
	printf("[%s] %s\n", cli_duration_text(now_ms - t0_ms, el, sizeof(el)), line);
}

static void
log_result(json_t *r)
{
	const char *text = json_string_value(json_object_get(r, "text"));

	if (json_is_true(json_object_get(r, "truncated")))
		fprintf(stderr, "(last part of %s)\n", cli_str(r, "path", "-"));
	/* an empty log is said so, not answered with nothing */
	if (text == NULL || text[0] == '\0')
		fprintf(stderr, "(job %lld wrote nothing to %s: %s is empty)\n",
		    (long long)json_integer_value(json_object_get(r, "job")),
		    cli_str(r, "stream", "stdout"), cli_str(r, "path", "-"));
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
		/* --format slurm: nothing but the lines a prolog may run, and
		 * the reasons that drain no node as comments. */
		json_array_foreach(json_object_get(r, "drain"), i, c)
			printf("%s\n", json_string_value(c));
		json_array_foreach(json_object_get(r, "reasons"), i, c)
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
