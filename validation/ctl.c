/*
 * Control commands of the validation module (common/commands.def):
 * validate nccl / rdma, jobs, job show / log / cancel.  nccl-env and
 * preflight are in preflight.c.
 *
 * A job is recorded and started at once; without --follow the reply says
 * which job it is, with --follow progress items are streamed every second
 * and the final reply is the job's record when it has ended.  A client
 * that goes away leaves the job running.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/fabricd.h"
#include "validation/validation.h"

#define LOG_DEFAULT_BYTES	65536
#define LOG_MAX_BYTES		(4u << 20)

/* ---- argument checks ---- */

static bool
valid_word(const char *s, const char *extra)
{
	size_t i;

	if (s == NULL || *s == '\0' || strlen(s) > 63 || s[0] == '-')
		return false;
	for (i = 0; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && strchr(extra, s[i]) == NULL)
			return false;
	return true;
}

/*
 * The partition a job uses: --partition, else --tenant, which meant a
 * partition name here before it meant a tenant (fabricctl warns; kept for
 * one release).
 */
const char *
validation_partition_arg(json_t *args)
{
	const char *p = ctl_arg_str(args, "partition");
	return p ? p : ctl_arg_str(args, "tenant");
}

/* One host name: checked, and refused when already given (seen: the
 * names so far, hashed: comparing each with every earlier one took 8 ms
 * of the loop for 1,296 hosts, and the limit is 4,096). */
static bool
host_add(struct ctl_req *req, char **hosts, size_t n, json_t *seen, const char *s)
{
	if (!valid_word(s, "._-")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "invalid host name \"%s\"", s ? s : "");
		return false;
	}
	if (json_object_get(seen, s) != NULL) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "host \"%s\" given twice", s);
		return false;
	}
	json_object_set_new(seen, s, json_true());
	hosts[n] = xstrdup(s);
	return true;
}

/* Hosts from --hosts: each item a Slurm hostlist expression (gpu[001-064,070]),
 * expanded to names a launcher and a shell can take verbatim. */
char **
validation_hosts_arg(struct ctl_req *req, json_t *args, size_t *n)
{
	json_t *a = json_object_get(args, "hosts"), *v, *seen;
	char **hosts, **one, err[160];
	size_t i, k, m, total = 0;
	bool ok = true;

	if (!json_is_array(a) || json_array_size(a) == 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts is required (H1,H2,... or gpu[01-64])");
		return NULL;
	}
	hosts = xcalloc(VALIDATION_MAX_HOSTS + 1, sizeof(*hosts));
	seen = json_object();
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || hostlist_expand(json_string_value(v), &one, &m,
		    VALIDATION_MAX_HOSTS - total, err, sizeof(err)) != 0) {
			ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts: %s",
			    json_is_string(v) ? err : "expected host names");
			ok = false;
			break;
		}
		for (k = 0; k < m; k++)
			if (ok && (ok = host_add(req, hosts, total, seen, one[k])))
				total++;
		launch_free(one);
		if (!ok)
			break;
	}
	json_decref(seen);
	if (!ok) {
		launch_free(hosts);
		return NULL;
	}
	if (total == 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts names no host");
		launch_free(hosts);
		return NULL;
	}
	*n = total;
	return hosts;
}

static bool
id_arg(struct ctl_req *req, json_t *args, int64_t *id)
{
	const char *s = ctl_arg_str(args, "id");
	char *end;
	long long v;

	errno = 0;
	v = s ? strtoll(s, &end, 10) : 0;
	if (s == NULL || errno != 0 || *end != '\0' || v <= 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "expected a job id (a positive integer)");
		return false;
	}
	*id = v;
	return true;
}

static bool
module_ready(struct ctl_req *req)
{
	if (!fabricd->module_running[MOD_VALIDATION] || !validation_config()->enabled) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the validation module is disabled");
		return false;
	}
	return true;
}

static void
env_push(char ***env, const char *kv)
{
	size_t n = 0;

	while (*env != NULL && (*env)[n] != NULL)
		n++;
	*env = xreallocarray(*env, n + 2, sizeof(**env));
	(*env)[n] = xstrdup(kv);
	(*env)[n + 1] = NULL;
}

/* The NCCL environment for a job: what fabric state says, plus the
 * settings a link test needs (Ring: busbw then measures the wire). */
static void
job_env(struct job_spec *s)
{
	json_t *computed, *env, *v;
	const char *k;

	if (s->kind == JOB_NCCL) {
		if (s->nhosts > 1)
			env_push(&s->env, "NCCL_ALGO=Ring");
		env_push(&s->env, "NCCL_DEBUG=WARN");
	}
	computed = nccl_env_compute(s->hosts, s->nhosts, s->tenant, NULL);
	env = json_object_get(computed, "env");
	json_object_foreach(env, k, v) {
		char *kv;
		if (!json_is_string(v))
			continue;
		xasprintf(&kv, "%s=%s", k, json_string_value(v));
		env_push(&s->env, kv);
		free(kv);
	}
	json_decref(computed);
}

/* Fill the common parts of a spec from the arguments; replies on error. */
static bool
spec_from_args(struct ctl_req *req, json_t *args, enum job_kind kind, struct job_spec *s)
{
	const struct validation_config *c = validation_config();
	const char *test = ctl_arg_str(args, "test"), *launcher = ctl_arg_str(args, "launcher");
	const char *sizes = ctl_arg_str(args, "sizes"), *profile = ctl_arg_str(args, "profile");
	const char *minbw = ctl_arg_str(args, "min_busbw"), *strategy = ctl_arg_str(args, "strategy");
	const char *tenant = validation_partition_arg(args), *hca = ctl_arg_str(args, "hca");
	const struct validation_profile *p;
	long long timeout = 0;
	uint64_t lo, hi;

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	if (test == NULL)
		test = kind == JOB_NCCL ? "all_reduce_perf" : "ib_write_bw";
	if (launcher == NULL)
		launcher = c->default_launcher;
	if (sizes == NULL)
		sizes = c->default_sizes;
	if (profile == NULL)
		profile = c->default_profile;
	if (strategy == NULL)
		strategy = "single";
	if (!valid_word(test, "_")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "invalid test name \"%s\"", test);
		return false;
	}
	if (strcmp(launcher, "mpirun") && strcmp(launcher, "srun") && strcmp(launcher, "local")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--launcher: expected mpirun, srun or local");
		return false;
	}
	if (launch_parse_sizes(sizes, &lo, &hi) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--sizes: expected SIZE or MIN:MAX, e.g. 1G:16G");
		return false;
	}
	if (strcmp(strategy, "single") && strcmp(strategy, "pairwise") && strcmp(strategy, "bisect")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--strategy: expected single, pairwise or bisect");
		return false;
	}
	if (hca != NULL && !valid_word(hca, "_")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "invalid HCA name \"%s\"", hca);
		return false;
	}
	if (tenant != NULL && !valid_word(tenant, "._-")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "invalid tenant name \"%s\"", tenant);
		return false;
	}
	if (profile != NULL && (p = validation_profile(profile)) != NULL) {
		s->threshold.min_ok = kind == JOB_NCCL ? p->min_busbw : p->rdma_min_gbps;
		s->threshold.min_warn = kind == JOB_NCCL ? p->warn_busbw : 0;
	} else if (profile != NULL && ctl_arg_str(args, "profile") != NULL) {
		ctl_reply_error(req, PERR_NOT_FOUND, "no validation profile \"%s\"", profile);
		return false;
	}
	if (minbw != NULL) {
		char *end;
		errno = 0;
		s->threshold.min_ok = strtod(minbw, &end);
		if (errno || end == minbw || *end || s->threshold.min_ok < 0 || s->threshold.min_ok > 1e6) {
			ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--min-busbw: expected GB/s as a number");
			return false;
		}
		s->threshold.min_warn = 0;
	}
	if (ctl_arg_int(args, "timeout", &timeout) && (timeout < 1 || timeout > 86400)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--timeout: 1 to 86400 seconds");
		return false;
	}
	if ((s->hosts = validation_hosts_arg(req, args, &s->nhosts)) == NULL)
		return false;
	s->timeout_ms = timeout > 0 ? (uint64_t)timeout * 1000 : c->job_timeout_ms;
	s->test = xstrdup(test);
	s->launcher = xstrdup(launcher);
	s->sizes = xstrdup(sizes);
	s->strategy = xstrdup(strategy);
	s->tenant = tenant ? xstrdup(tenant) : NULL;
	s->profile = profile ? xstrdup(profile) : NULL;
	s->hca = hca ? xstrdup(hca) : NULL;
	job_env(s);
	return true;
}

/* ---- follow ---- */

/* The request stays ours until answered, even after its client left
 * (the answer then goes nowhere): ctl_reply_stream just reports -1. */
struct follow {
	struct ctl_req	*req;
	int64_t		 id;
	struct event	*tick;
	bool		 campaign;
	bool		 starting;	/* inside campaign_start/job_start */
	bool		 finished;	/* ended while starting */
	bool		 fail_on_inconclusive;	/* --fail-on inconclusive: exit 1, not 2 */
};

static void
follow_free(struct follow *f)
{
	if (f->tick != NULL)
		event_free(f->tick);
	free(f);
}

static void
follow_tick(evutil_socket_t fd, short what, void *arg)
{
	struct follow *f = arg;
	json_t *item;

	if (f->campaign) {
		json_t *rec = jobstore_show(f->id);
		json_t *probes = rec ? json_object_get(rec, "probes") : NULL;
		item = json_pack("{s:I, s:s, s:i}", "job", (json_int_t)f->id, "state", "running",
		    "probes", (int)json_array_size(probes));
		json_decref(rec);
	} else if ((item = job_progress(f->id)) == NULL)
		return;
	ctl_reply_stream(f->req, item);
}

static void
follow_answer(struct follow *f)
{
	json_t *rec;

	if (f->starting) {
		f->finished = true;
		return;
	}
	if ((rec = jobstore_show(f->id)) != NULL) {
		/* The one exit contract: pass (and warn) 0, fail 1, inconclusive 2. */
		const char *v = json_string_value(json_object_get(rec, "verdict"));
		int code = v == NULL ? 2 : !strcmp(v, "pass") || !strcmp(v, "warn") ? 0 :
		    !strcmp(v, "fail") ? 1 : f->fail_on_inconclusive ? 1 : 2;
		json_object_set_new(rec, "exit_code", json_integer(code));
		ctl_reply_ok(f->req, rec);
	}
	else
		ctl_reply_error(f->req, PERR_INTERNAL, "job %lld has no record", (long long)f->id);
	follow_free(f);
}

static void
follow_job_done(struct job *j, void *arg)
{
	struct follow *f = arg;

	f->id = job_id(j);
	follow_answer(f);
}

static void
follow_campaign_done(int64_t id, const struct verdict_result *r, json_t *summary, void *arg)
{
	struct follow *f = arg;

	f->id = id;
	follow_answer(f);
}

static void
start_validation(struct ctl_req *req, json_t *args, struct job_spec *s)
{
	bool follow = ctl_arg_bool(args, "follow");
	const char *fail_on = ctl_arg_str(args, "fail_on");
	bool campaign = strcmp(s->strategy, "single") != 0 || (s->kind == JOB_RDMA && s->nhosts > 2);
	struct follow *f = NULL;
	char err[160];
	int64_t id;

	if (s->kind == JOB_RDMA && campaign && strcmp(s->strategy, "single") == 0) {
		free(s->strategy);
		s->strategy = xstrdup("pairwise");
	}
	if (fail_on && (strcmp(fail_on, "inconclusive") || !follow)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--fail-on: only \"inconclusive\", with --follow");
		return;
	}
	if (follow) {
		struct timeval second = { 1, 0 };
		f = xcalloc(1, sizeof(*f));
		f->req = req;
		f->fail_on_inconclusive = fail_on != NULL;
		f->campaign = campaign;
		f->starting = true;
		f->tick = event_new(fabricd->base, -1, EV_PERSIST, follow_tick, f);
		evtimer_add(f->tick, &second);
	}
	if (campaign)
		id = campaign_start(s, f ? follow_campaign_done : NULL, f, err, sizeof(err));
	else
		id = job_start(s, f ? follow_job_done : NULL, f, err, sizeof(err));
	if (id <= 0) {
		if (f != NULL)
			follow_free(f);
		ctl_reply_error(req, campaign ? PERR_INVALID_ARGUMENT : PERR_INTERNAL, "%s", err);
		return;
	}
	if (f != NULL) {
		f->id = id;
		f->starting = false;
		if (f->finished)	/* a campaign that could not start a probe */
			follow_answer(f);
		return;
	}
	ctl_reply_ok(req, json_pack("{s:I, s:s, s:s}", "job", (json_int_t)id, "state", "running",
	    "kind", campaign ? "campaign" : (s->kind == JOB_NCCL ? "nccl" : "rdma")));
}

void
ctl_validate_nccl(struct ctl_req *req, json_t *args)
{
	struct job_spec s;

	if (!module_ready(req) || !spec_from_args(req, args, JOB_NCCL, &s))
		return;
	start_validation(req, args, &s);
	job_spec_free(&s);
}

void
ctl_validate_rdma(struct ctl_req *req, json_t *args)
{
	struct job_spec s;
	long long size = 0;

	if (!module_ready(req) || !spec_from_args(req, args, JOB_RDMA, &s))
		return;
	if (ctl_arg_int(args, "size", &size) && (size < 1 || size > (1LL << 31))) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--size: 1 byte to 2 GiB");
		job_spec_free(&s);
		return;
	}
	s.rdma_size = (uint64_t)size;
	if (s.nhosts < 2) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "perftest needs two hosts (server, client)");
		job_spec_free(&s);
		return;
	}
	start_validation(req, args, &s);
	job_spec_free(&s);
}

/*
 * `jobs` in pages of JOBS_PAGE (schemas/protocol.md, "Paged replies"):
 * 10,000 jobs with their host lists were one long step of the loop.  The
 * cursor carries the last id sent, as INT64_MAX less it so that cursors
 * grow byte by byte while the ids, newest first, fall, and how many of
 * --limit are still to come (an OFFSET to find the window's end stepped
 * over every job's row: 18 ms for 10,000).
 */
#define JOBS_PAGE	16	/* a job with 64 hosts is 40-80 us of JSON */
#define CURSOR_PART	19

static int
jobs_cursor(json_t *args, int64_t *before, long long *left)
{
	const char *c = ctl_arg_str(args, "after");
	long long inv, fl;
	int used = 0;

	if (c == NULL)
		return 0;
	if (strlen(c) != 2 * CURSOR_PART + 1 || strspn(c, "0123456789") != CURSOR_PART ||
	    c[CURSOR_PART] != ':' || strspn(c + CURSOR_PART + 1, "0123456789") != CURSOR_PART ||
	    sscanf(c, "%19lld:%19lld%n", &inv, &fl, &used) != 2 || c[used] != '\0' || inv < 0 || fl < 0)
		return -1;
	*before = INT64_MAX - inv;
	*left = fl;
	return fl >= 1 && fl <= 10000 ? 1 : -1;
}

void
ctl_jobs(struct ctl_req *req, json_t *args)
{
	long long limit = 50, left;
	int64_t before = INT64_MAX;
	char next[2 * CURSOR_PART + 2];
	json_t *rows, *last, *res;
	size_t n;
	int paged;

	if (!module_ready(req))
		return;
	if (ctl_arg_int(args, "limit", &limit) && (limit < 1 || limit > 10000)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--limit: 1 to 10000 jobs");
		return;
	}
	if ((paged = jobs_cursor(args, &before, &left)) < 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT,
		    "after: expected the \"next\" of the page before");
		return;
	}
	if (paged == 0)
		left = limit;
	n = left < JOBS_PAGE ? (size_t)left : JOBS_PAGE;
	rows = jobstore_page(before, n);
	res = json_pack("{s:o}", "jobs", rows);
	if (json_array_size(rows) == n && left > (long long)n &&
	    (last = json_array_get(rows, n - 1)) != NULL) {
		snprintf(next, sizeof(next), "%0*lld:%0*lld", CURSOR_PART,
		    (long long)(INT64_MAX - json_integer_value(json_object_get(last, "id"))),
		    CURSOR_PART, left - (long long)n);
		json_object_set_new(res, "next", json_string(next));
	}
	ctl_reply_ok(req, res);
}

void
ctl_job_show(struct ctl_req *req, json_t *args)
{
	json_t *rec;
	int64_t id;

	if (!module_ready(req) || !id_arg(req, args, &id))
		return;
	if ((rec = jobstore_show(id)) == NULL) {
		ctl_reply_error(req, PERR_NOT_FOUND, "no job %lld", (long long)id);
		return;
	}
	ctl_reply_ok(req, rec);
}

/* Log text as JSON can carry it: bytes that are not printable ASCII
 * become '?' (a launcher may print anything). */
static void
sanitize(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t'))
			s[i] = '?';
	}
}

void
ctl_job_log(struct ctl_req *req, json_t *args)
{
	bool err = ctl_arg_bool(args, "stderr");
	long long want = LOG_DEFAULT_BYTES;
	char *path, *buf;
	struct stat st;
	off_t from;
	ssize_t got;
	int64_t id;
	int fd;

	if (!module_ready(req) || !id_arg(req, args, &id))
		return;
	(void)ctl_arg_int(args, "bytes", &want);
	if (want < 1 || want > LOG_MAX_BYTES)
		want = LOG_MAX_BYTES;
	if ((path = jobstore_log_path(id, err)) == NULL) {
		ctl_reply_error(req, PERR_NOT_FOUND, "no log for job %lld", (long long)id);
		return;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) != 0) {
		ctl_reply_error(req, PERR_NOT_FOUND, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return;
	}
	from = st.st_size > want ? st.st_size - want : 0;
	buf = xmalloc((size_t)(st.st_size - from) + 1);
	got = pread(fd, buf, (size_t)(st.st_size - from), from);
	close(fd);
	if (got < 0)
		got = 0;
	sanitize(buf, (size_t)got);
	ctl_reply_ok(req, json_pack("{s:I, s:s, s:s, s:I, s:b, s:s%}", "job", (json_int_t)id,
	    "stream", err ? "stderr" : "stdout", "path", path, "size", (json_int_t)st.st_size,
	    "truncated", from > 0, "text", buf, (size_t)got));
	free(buf);
	free(path);
}

void
ctl_job_cancel(struct ctl_req *req, json_t *args)
{
	int64_t id;
	int n;

	if (!module_ready(req) || !id_arg(req, args, &id))
		return;
	n = campaign_cancel(id) ? 1 : 0;
	n += job_cancel(id);
	if (n <= 0) {
		ctl_reply_error(req, PERR_NOT_FOUND, "job %lld is not running", (long long)id);
		return;
	}
	ctl_reply_ok(req, json_pack("{s:I, s:i}", "job", (json_int_t)id, "cancelled", n));
}
