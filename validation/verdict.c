/*
 * Verdict rules, in the order they are tried (first match decides):
 * harness failure -> inconclusive; hard failure evidence -> fail (with
 * the host/HCA the output blames); performance on the largest size vs
 * the threshold -> fail/warn; else pass.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "validation/verdict.h"

static const char *const verdict_names[] = { "pass", "warn", "fail", "inconclusive" };

const char *
verdict_name(enum verdict v)
{
	return (unsigned)v < 4 ? verdict_names[v] : "?";
}

int
verdict_parse(const char *name, enum verdict *out)
{
	int i;

	for (i = 0; i < 4; i++)
		if (name != NULL && strcmp(name, verdict_names[i]) == 0) {
			*out = (enum verdict)i;
			return 0;
		}
	return -1;
}

static int
gravity(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS: return 0;
	case VERDICT_WARN: return 1;
	case VERDICT_INCONCLUSIVE: return 2;
	case VERDICT_FAIL: return 3;
	}
	return 3;
}

enum verdict
verdict_worse(enum verdict a, enum verdict b)
{
	return gravity(a) >= gravity(b) ? a : b;
}

static void __attribute__((format(printf, 4, 5)))
set(struct verdict_result *r, enum verdict v, const char *code, const char *fmt, ...)
{
	va_list ap;

	r->verdict = v;
	snprintf(r->code, sizeof(r->code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

static void
blame(struct verdict_result *r, const char *host, const char *hca)
{
	if (host != NULL && r->host[0] == '\0')
		snprintf(r->host, sizeof(r->host), "%s", host);
	if (hca != NULL && r->hca[0] == '\0')
		snprintf(r->hca, sizeof(r->hca), "%s", hca);
}

/* Harness trouble: the program never really ran. */
static bool
nccl_harness_failed(const struct nccl_parsed *p, const struct run_outcome *o,
    struct verdict_result *r)
{
	if (!o->started) {
		set(r, VERDICT_INCONCLUSIVE, "HarnessError", "launcher could not be started");
		return true;
	}
	if (o->cancelled) {
		set(r, VERDICT_INCONCLUSIVE, "Cancelled", "job cancelled");
		return true;
	}
	if (p->nrows == 0 && p->usage_seen) {
		set(r, VERDICT_INCONCLUSIVE, "HarnessError", "the test printed its usage (bad arguments)");
		return true;
	}
	if (o->exited && (o->exit_status == RUN_EXIT_NOEXEC || o->exit_status == RUN_EXIT_NOTFOUND) &&
	    p->ndevices == 0) {
		set(r, VERDICT_INCONCLUSIVE, "HarnessError", "launcher or test binary not found (exit %d)",
		    o->exit_status);
		return true;
	}
	/* nothing of the test came out and no failure names a host: the
	 * launcher itself failed (no slots, cannot reach a node, garbage) */
	if (p->ndevices == 0 && p->nrows == 0 && p->nfailures == 0) {
		if (o->timed_out)
			set(r, VERDICT_INCONCLUSIVE, "HarnessError", "timed out before the test started");
		else
			set(r, VERDICT_INCONCLUSIVE, "HarnessError",
			    "the test did not start (no device lines; %zu unrecognised lines)",
			    p->unknown_lines);
		return true;
	}
	return false;
}

static const struct nccl_failure *
first_failure(const struct nccl_parsed *p, enum nccl_failure_kind kind)
{
	size_t i;

	for (i = 0; i < p->nfailures; i++)
		if (p->failures[i].kind == kind)
			return &p->failures[i];
	return NULL;
}

static bool
nccl_hard_failure(const struct nccl_parsed *p, const struct run_outcome *o,
    struct verdict_result *r)
{
	const struct nccl_failure *ib = first_failure(p, NCCL_FAIL_IB), *f;
	size_t i;

	/* the IB completion error names host and HCA: the best attribution */
	if (ib != NULL)
		blame(r, ib->host, ib->hca);
	if ((f = first_failure(p, NCCL_FAIL_NCCL)) != NULL) {
		blame(r, f->host, NULL);
		set(r, VERDICT_FAIL, ib ? "IBCompletionError" : "NcclError", "%s: %s", f->host, f->message);
		return true;
	}
	if ((f = first_failure(p, NCCL_FAIL_CUDA)) != NULL) {
		blame(r, f->host, NULL);
		set(r, VERDICT_FAIL, "CudaError", "%s: %s", f->host, f->message);
		return true;
	}
	if ((f = first_failure(p, NCCL_FAIL_TIMEOUT)) != NULL) {
		blame(r, f->host, NULL);
		set(r, VERDICT_FAIL, "TestTimeout", "%s: %s", f->host, f->message);
		return true;
	}
	for (i = 0; i < p->nrows; i++) {
		const struct nccl_row *row = &p->rows[i];
		if (row->oop.nwrong > 0 || row->ip.nwrong > 0) {
			set(r, VERDICT_FAIL, "DataCorruption", "%lld wrong elements at %llu bytes",
			    row->oop.nwrong > 0 ? row->oop.nwrong : row->ip.nwrong,
			    (unsigned long long)row->size);
			if (p->ndevices > 0 && p->devices[0].host[0] != '\0' &&
			    strcmp(p->devices[0].host, p->devices[p->ndevices - 1].host) == 0)
				blame(r, p->devices[0].host, NULL);
			return true;
		}
	}
	if (p->oob_count > 0) {
		set(r, VERDICT_FAIL, "DataCorruption", "%lld out-of-bounds values", p->oob_count);
		return true;
	}
	if (o->timed_out) {
		set(r, VERDICT_FAIL, "Hang", "killed by the wall-clock timeout after the test started");
		return true;
	}
	if (!o->exited) {
		set(r, VERDICT_FAIL, "Crash", "killed by signal %d", o->term_signal);
		return true;
	}
	if (o->exit_status != 0) {
		if (p->mpi_failed_rank >= 0)
			blame(r, nccl_rank_host(p, p->mpi_failed_rank), NULL);
		set(r, VERDICT_FAIL, p->avg_gate == 0 ? "IBPerformance" : "ExitStatus",
		    "test exited with status %d%s%s", o->exit_status, r->host[0] ? " on " : "", r->host);
		return true;
	}
	if (!nccl_footer_seen(p)) {
		set(r, VERDICT_FAIL, "Truncated", "output ended without the footer");
		return true;
	}
	if (p->nrows == 0) {
		set(r, VERDICT_FAIL, "NoResults", "no result rows");
		return true;
	}
	return false;
}

/* min(out-of-place, in-place) busbw over the rows of the largest size;
 * with repeated sweeps (-N) the median of those rows. */
static double
largest_size_busbw(const struct nccl_parsed *p, uint64_t *size)
{
	double v[64];
	size_t i, n = 0;
	uint64_t max = 0;

	for (i = 0; i < p->nrows; i++)
		if (p->rows[i].size > max)
			max = p->rows[i].size;
	for (i = 0; i < p->nrows && n < 64; i++) {
		const struct nccl_row *r = &p->rows[i];
		if (r->size == max)
			v[n++] = r->oop.busbw < r->ip.busbw ? r->oop.busbw : r->ip.busbw;
	}
	*size = max;
	/* insertion sort: n is tiny */
	for (i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n ? v[n / 2] : -1;
}

static void
judge_bandwidth(double measured, const struct threshold *t, const char *unit,
    struct verdict_result *r)
{
	r->measured = measured;
	if (t->min_ok > 0 && measured < t->min_ok)
		set(r, VERDICT_FAIL, "IBPerformance", "%.2f %s at %llu bytes, below %.2f",
		    measured, unit, (unsigned long long)r->judged_size, t->min_ok);
	else if (t->min_warn > 0 && measured < t->min_warn)
		set(r, VERDICT_WARN, "IBPerformance", "%.2f %s at %llu bytes, below warning %.2f",
		    measured, unit, (unsigned long long)r->judged_size, t->min_warn);
	else
		set(r, VERDICT_PASS, "OK", "%.2f %s at %llu bytes", measured, unit,
		    (unsigned long long)r->judged_size);
}

void
verdict_nccl(const struct nccl_parsed *p, const struct run_outcome *o,
    const struct threshold *t, struct verdict_result *r)
{
	memset(r, 0, sizeof(*r));
	r->measured = -1;
	if (nccl_harness_failed(p, o, r) || nccl_hard_failure(p, o, r))
		return;
	judge_bandwidth(largest_size_busbw(p, &r->judged_size), t, "GB/s busbw", r);
}

void
verdict_perftest(const struct perftest_parsed *p, const struct run_outcome *o,
    const struct threshold *t, struct verdict_result *r)
{
	const struct perftest_row *best = NULL;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->measured = -1;
	if (!o->started || o->cancelled ||
	    (o->exited && (o->exit_status == RUN_EXIT_NOEXEC || o->exit_status == RUN_EXIT_NOTFOUND))) {
		set(r, VERDICT_INCONCLUSIVE, "HarnessError", o->cancelled ? "job cancelled" :
		    "launcher or perftest binary not found");
		return;
	}
	/* the out-of-band TCP exchange failed: management network or the
	 * server side did not start; it says nothing about the IB path */
	if (p->error == PERFTEST_ERR_SOCKET) {
		set(r, VERDICT_INCONCLUSIVE, "HarnessError", "%s", p->error_text);
		return;
	}
	if (p->error != PERFTEST_OK) {
		set(r, VERDICT_FAIL, p->error == PERFTEST_ERR_LINK ? "IBLinkError" : "PerftestError",
		    "%s", p->error_text);
		blame(r, NULL, p->device);
		return;
	}
	if (o->timed_out || !o->exited || o->exit_status != 0 || p->nrows == 0) {
		if (p->nrows == 0 && !p->header_seen && !o->timed_out && o->exited)
			set(r, VERDICT_INCONCLUSIVE, "HarnessError", "perftest printed no result (exit %d)",
			    o->exit_status);
		else
			set(r, VERDICT_FAIL, o->timed_out ? "Hang" : "ExitStatus",
			    "perftest %s", o->timed_out ? "timed out" : "failed");
		return;
	}
	for (i = 0; i < p->nrows; i++)
		if (best == NULL || p->rows[i].bytes >= best->bytes)
			best = &p->rows[i];
	r->judged_size = best->bytes;
	if (p->latency) {
		set(r, VERDICT_PASS, "OK", "typical latency %.2f us at %llu bytes", best->t_typical,
		    (unsigned long long)best->bytes);
		r->measured = best->t_typical;
		return;
	}
	judge_bandwidth(perftest_gbits(p, best->bw_avg), t, "Gb/s", r);
	blame(r, NULL, r->verdict == VERDICT_PASS ? NULL : p->device);
}
