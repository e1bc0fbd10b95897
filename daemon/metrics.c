/*
 * The exposition (daemon/metrics.h) and `fabricctl metrics`, which streams
 * it in chunks of whole lines, each when the client has read the one before:
 * the control socket drops a client with more than 4 MiB unread, and a large
 * fabric's exposition is more than that (15 MB at 1,296 hosts).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/prom.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/fabricd.h"
#include "daemon/metrics.h"
#include "mad/mad.h"

static void
daemon_families(struct prom *pr)
{
	struct prom_label l[2];

	prom_family(pr, "fabricd_build_info", "gauge", "always 1: the running fabricd's version");
	l[0] = (struct prom_label){ "version", FABRICD_VERSION };
	prom_sample_u64(pr, "fabricd_build_info", l, 1, 1);
	prom_family(pr, "fabricd_start_time_seconds", "gauge", "when fabricd started (Unix time)");
	prom_sample_u64(pr, "fabricd_start_time_seconds", NULL, 0, (uint64_t)fabricd->started);
	prom_family(pr, "fabricd_module_up", "gauge",
	    "1 when the module runs, 0 when it is off, -1 when it failed to start");
	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = fabricd->config->modules[m];
		json_t *st = mod->status && fabricd->module_running[m] > 0 ? mod->status(fabricd) : NULL;
		const char *state = json_string_value(json_object_get(st, "state"));
		double up = fabricd->module_running[m] < 0 ? -1 :
		    fabricd->module_running[m] == 0 || (state && strcmp(state, "disabled") == 0) ? 0 : 1;

		l[0] = (struct prom_label){ "module", mod->name };
		prom_sample_double(pr, "fabricd_module_up", l, 1, up);
		json_decref(st);
	}
}

static json_t *
status_get(json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o != NULL && (dot = strchr(path, '.')) != NULL) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return o ? json_object_get(o, path) : NULL;
}

static bool
status_has(json_t *v)
{
	return json_is_number(v) || json_is_boolean(v);
}

void
metrics_from_statuses(struct prom *p, json_t *const *status, const char *label,
    const char *const *values, size_t nstatus, const struct status_metric *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool family = false;

		for (size_t s = 0; s < nstatus; s++) {
			json_t *v = status_get(status[s], t[i].path);
			struct prom_label l = { label, values ? values[s] : NULL };

			if (!status_has(v))
				continue;
			if (!family)
				prom_family(p, t[i].name, t[i].type, t[i].help);
			family = true;
			prom_sample_double(p, t[i].name, &l, label ? 1 : 0,
			    json_is_boolean(v) ? (json_is_true(v) ? 1 : 0) : json_number_value(v));
		}
	}
}

void
metrics_from_status(struct prom *p, json_t *status, const struct status_metric *t, size_t n)
{
	metrics_from_statuses(p, &status, NULL, NULL, 1, t, n);
}

void
metrics_state_sets(struct prom *p, const char *name, const char *help,
    const char *const *current, const char *label, const char *const *values, size_t nvalues,
    const char *const *states)
{
	struct prom_label l[2];

	prom_family(p, name, "gauge", help);
	for (size_t v = 0; v < nvalues; v++) {
		l[0] = (struct prom_label){ label, values ? values[v] : NULL };
		for (size_t i = 0; states[i]; i++) {
			l[1] = (struct prom_label){ "state", states[i] };
			prom_sample_u64(p, name, label ? l : l + 1, label ? 2 : 1,
			    current[v] && strcmp(current[v], states[i]) == 0);
		}
	}
}

void
metrics_state_set(struct prom *p, const char *name, const char *help, const char *current,
    const char *const *states)
{
	metrics_state_sets(p, name, help, &current, NULL, NULL, 1, states);
}

/* The MAD engine is the daemon's (every module's SMPs and PerfMgt MADs):
 * the same counters as status's sm.mads. */
static void
mad_families(struct prom *pr)
{
	const struct mad_counters *c;

	if (fabricd->me == NULL)
		return;
	c = mad_engine_counters(fabricd->me);
	const struct { const char *name, *help; uint64_t value; } fam[] = {
		{ "fabricd_mad_sent_total", "MADs sent by the engine (SMPs, SA replies, PerfMgt)",
		    c->sent },
		{ "fabricd_mad_received_total", "MADs received", c->received },
		{ "fabricd_mad_timeouts_total", "MADs that got no reply after every retry",
		    c->timeouts },
		{ "fabricd_mad_retries_total", "MAD retransmissions", c->retries },
		{ "fabricd_mad_errors_total", "MADs answered with an error status or refused by umad",
		    c->errors },
		{ "fabricd_mad_unsolicited_total", "unsolicited MADs received (traps, SA requests)",
		    c->unsolicited },
		{ NULL, NULL, 0 },
	};

	for (size_t i = 0; fam[i].name; i++) {
		prom_family(pr, fam[i].name, "counter", fam[i].help);
		prom_sample_u64(pr, fam[i].name, NULL, 0, fam[i].value);
	}
	prom_family(pr, "fabricd_mad_outstanding", "gauge", "MADs in flight now");
	prom_sample_u64(pr, "fabricd_mad_outstanding", NULL, 0, mad_engine_outstanding(fabricd->me));
	prom_family(pr, "fabricd_mad_queued", "gauge", "MADs waiting for a window slot");
	prom_sample_u64(pr, "fabricd_mad_queued", NULL, 0, mad_engine_queued(fabricd->me));
}

/*
 * A build: the daemon's families, then each running module's, in slices
 * of at most METRICS_SLICE_NS on successive turns of the loop (a zero
 * timer), so that a large fabric's text never holds the loop long.
 */
#define METRICS_SLICE_NS	2000000u

struct metrics_build {
	struct prom		 pr;
	int			 module;	/* -1: the daemon's families are next */
	struct prom_cursor	 cur;		/* the module's, while it is sliced */
	struct event		*ev;
	metrics_done_fn		*done;
	void			*arg;
	struct metrics_build	*next;		/* builds in progress */
};

static struct metrics_build *builds;

static void
build_free(struct metrics_build *b)
{
	struct metrics_build **pp = &builds;

	while (*pp != b)
		pp = &(*pp)->next;
	*pp = b->next;
	event_free(b->ev);
	free(b->cur.keys);
	prom_free(&b->pr);
	free(b);
}

/* One slice; true when the text is complete.  A module stopped between
 * two slices is skipped from there on. */
static bool
build_slice(struct metrics_build *b)
{
	b->cur.until_ns = clock_mono_ns() + METRICS_SLICE_NS;
	if (b->module < 0) {
		daemon_families(&b->pr);
		mad_families(&b->pr);
		b->module = 0;
	}
	for (; b->module < MOD_COUNT; b->module++) {
		const struct fabricd_module *mod = fabricd->config->modules[b->module];
		uint64_t until = b->cur.until_ns;

		if (fabricd->module_running[b->module] > 0) {
			if (mod->metrics_slice && !mod->metrics_slice(fabricd, &b->pr, &b->cur))
				return false;
			if (!mod->metrics_slice && mod->metrics)
				mod->metrics(fabricd, &b->pr);
		}
		free(b->cur.keys);
		b->cur = (struct prom_cursor){ .until_ns = until };
		if (b->module + 1 < MOD_COUNT && prom_cursor_spent(&b->cur)) {
			b->module++;
			return false;
		}
	}
	return true;
}

static void
build_next(evutil_socket_t fd, short what, void *arg)
{
	struct metrics_build *b = arg;
	static const struct timeval now = { 0, 0 };
	metrics_done_fn *done = b->done;
	void *done_arg = b->arg;
	size_t len;
	char *text;

	(void)fd;
	(void)what;
	if (!build_slice(b)) {
		evtimer_add(b->ev, &now);
		return;
	}
	text = b->pr.buf;
	len = b->pr.len;
	b->pr.buf = NULL;
	build_free(b);
	done(text, len, done_arg);
}

struct metrics_build *
metrics_build_start(metrics_done_fn *done, void *arg)
{
	struct metrics_build *b = xcalloc(1, sizeof(*b));
	static const struct timeval now = { 0, 0 };

	prom_init(&b->pr);
	b->module = -1;
	b->done = done;
	b->arg = arg;
	b->ev = evtimer_new(fabricd->base, build_next, b);
	b->next = builds;
	builds = b;
	evtimer_add(b->ev, &now);
	return b;
}

void
metrics_build_cancel(struct metrics_build *b)
{
	build_free(b);
}

void
metrics_builds_stop(void)
{
	while (builds) {
		metrics_done_fn *done = builds->done;
		void *arg = builds->arg;

		build_free(builds);
		done(NULL, 0, arg);
	}
}

#define METRICS_CHUNK 32768

struct metrics_job {
	struct ctl_req		*req;
	struct metrics_build	*build;		/* until the text is complete */
	char			*text;
	size_t			 len, off;
	struct event		*ev;
};

static void
metrics_job_end(struct metrics_job *j, bool client_there)
{
	if (j->text == NULL && !ctl_req_gone(j->req))
		ctl_reply_error(j->req, PERR_UNAVAILABLE, "fabricd is stopping");
	else if (client_there)
		ctl_reply_ok(j->req, json_pack("{s:I}", "bytes", (json_int_t)j->len));
	else
		ctl_reply_ok(j->req, NULL);	/* frees the request */
	event_free(j->ev);
	free(j->text);
	free(j);
}

/* One chunk a turn of the loop, so that other clients are served between,
 * and no faster than the client reads. */
static void
metrics_next(evutil_socket_t fd, short what, void *arg)
{
	struct metrics_job *j = arg;
	struct timeval soon = { 0, 1000 }, slow_reader = { 0, 10000 };
	size_t n = j->len - j->off;

	(void)fd;
	(void)what;
	if (j->text == NULL) {		/* gone while it was built, or shutdown */
		metrics_job_end(j, false);
		return;
	}
	/* a client slower than the loop (a loaded fabricctl) is waited for:
	 * chunks queued faster than it reads would reach the control socket's
	 * drop mark (4 MiB unread) and cut a reader off mid-exposition */
	if (ctl_req_unsent(j->req) > METRICS_CHUNK) {
		evtimer_add(j->ev, &slow_reader);
		return;
	}
	if (n > METRICS_CHUNK) {
		n = METRICS_CHUNK;
		while (n > 0 && j->text[j->off + n - 1] != '\n')
			n--;
		if (n == 0)
			n = METRICS_CHUNK;	/* no line is that long */
	}
	if (n > 0 && ctl_reply_stream(j->req, json_pack("{s:s%}", "text", j->text + j->off, n)) < 0) {
		metrics_job_end(j, false);
		return;
	}
	j->off += n;
	if (j->off >= j->len)
		metrics_job_end(j, true);
	else
		evtimer_add(j->ev, &soon);
}

static void
metrics_built(char *text, size_t len, void *arg)
{
	struct metrics_job *j = arg;

	j->build = NULL;
	j->text = text;
	j->len = len;
	metrics_next(-1, 0, j);
}

/* The client left while its text was being built: stop building.  (While
 * it streams, the next chunk finds it gone.) */
static void
metrics_gone(struct ctl_req *req, void *arg)
{
	struct metrics_job *j = arg;
	static const struct timeval now = { 0, 0 };

	(void)req;
	if (j->build == NULL)
		return;
	metrics_build_cancel(j->build);
	j->build = NULL;
	evtimer_add(j->ev, &now);	/* ends the job, out of the control code's call */
}

void
ctl_metrics(struct ctl_req *req, json_t *args)
{
	struct metrics_job *j = xcalloc(1, sizeof(*j));

	(void)args;
	j->req = req;
	j->ev = evtimer_new(fabricd->base, metrics_next, j);
	ctl_req_on_gone(req, metrics_gone, j);
	j->build = metrics_build_start(metrics_built, j);
}
