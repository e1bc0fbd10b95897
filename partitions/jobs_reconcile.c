/*
 * The reconcile of job partitions with the scheduler (jobs.h): every
 * partitions.jobs.reconcile_interval, while any job partition exists,
 * squeue is asked which jobs are still pending, running or completing;
 * a job partition made before the question whose job is not listed is
 * removed.  That is what bounds a partition's life when the job's
 * EpilogSlurmctld never ran (slurmctld down when the job ended, a crash):
 * never more than one interval past its job.
 *
 * squeue runs as a child (posix_spawn, no shell), its output read from a
 * pipe on the event loop; the loop never waits for it.  When it fails
 * (slurmctld down: squeue exits 1) nothing is removed: a partition is
 * removed only on the scheduler's word that its job is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "partitions/internal.h"
#include "partitions/jobs.h"

extern char **environ;

#define SQUEUE_TIMEOUT_MS	30000
#define SQUEUE_MAX_OUTPUT	(16 << 20)
#define REAP_POLL_MS		10
/* Every state in which a job may still use its partition; COMPLETED,
 * CANCELLED, FAILED, TIMEOUT and the like are gone.  squeue would list
 * those too for MinJobAge after the end: hence the list. */
#define SQUEUE_STATES		"PD,CF,R,S,CG,RQ,RH,RS,SI,SO,ST"

static struct {
	struct event_base *base;
	bool		 running;
	uint64_t	 interval_ms;
	char		*squeue;
	struct event	*timer;		/* the next question */
	pid_t		 pid;		/* > 0 while squeue runs */
	int		 out_fd, err_fd;
	struct event	*out_ev, *err_ev, *reap_ev;
	struct evbuffer	*out, *err;
	int64_t		 asked_ms;	/* wall clock when squeue started */
	int64_t		 started_mono;
	/* what status says */
	const char	*state;		/* "off", "idle", "asking", "ok", "failed" */
	int64_t		 last_ms, last_ok_ms;
	char		 last_error[256];
	uint64_t	 runs, failures;
	size_t		 last_jobs;
	struct pt_reconcile_ops ops;
} rc;

/* ---- pure: squeue's output ---- */

int
pt_squeue_parse(const char *text, char ***ids, size_t *n)
{
	const char *p = text;

	*ids = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char line[64];
		size_t a = 0, b = len;

		while (a < b && (p[a] == ' ' || p[a] == '\t' || p[a] == '\r'))
			a++;
		while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t' || p[b - 1] == '\r'))
			b--;
		if (b > a) {
			if (b - a >= sizeof(line))
				goto bad;
			snprintf(line, sizeof(line), "%.*s", (int)(b - a), p + a);
			if (!pt_job_id_valid(line))
				goto bad;
			*ids = xreallocarray(*ids, *n + 1, sizeof(**ids));
			(*ids)[(*n)++] = xstrdup(line);
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return 0;
bad:
	for (size_t i = 0; i < *n; i++)
		free((*ids)[i]);
	free(*ids);
	*ids = NULL;
	*n = 0;
	return -1;
}

/* ---- the child ---- */

static void arm(uint64_t ms);

static void
close_child_io(void)
{
	if (rc.out_ev) {
		event_free(rc.out_ev);
		rc.out_ev = NULL;
	}
	if (rc.err_ev) {
		event_free(rc.err_ev);
		rc.err_ev = NULL;
	}
	if (rc.out_fd >= 0)
		close(rc.out_fd);
	if (rc.err_fd >= 0)
		close(rc.err_fd);
	rc.out_fd = rc.err_fd = -1;
}

static void
fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
fail(const char *fmt, ...)
{
	bool was_failing = rc.state != NULL && strcmp(rc.state, "failed") == 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rc.last_error, sizeof(rc.last_error), fmt, ap);
	va_end(ap);
	rc.state = "failed";
	rc.failures++;
	/* once per outage, not once per interval */
	if (!was_failing)
		event_post(EV_WARNING, "partitions", NULL, "job reconcile: %s; no job partition is "
		    "removed until the scheduler answers", rc.last_error);
}

/* The first line of what squeue said on stderr, for the operator. */
static const char *
err_line(char *buf, size_t len)
{
	size_t n = evbuffer_get_length(rc.err);

	if (n >= len)
		n = len - 1;
	evbuffer_copyout(rc.err, buf, n);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? buf : "no message";
}

static void
finished(int status)
{
	char *text, errbuf[200], **ids;
	size_t n, len;

	rc.pid = 0;
	rc.runs++;
	rc.last_ms = event_now_ms();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			fail("%s could not be run (not installed? partitions.jobs.squeue)", rc.squeue);
		else if (WIFEXITED(status))
			fail("%s exited %d: %s", rc.squeue, WEXITSTATUS(status),
			    err_line(errbuf, sizeof(errbuf)));
		else
			fail("%s killed by signal %d%s", rc.squeue, WTERMSIG(status),
			    clock_mono_ms() - rc.started_mono >= SQUEUE_TIMEOUT_MS ?
			    " after 30 s without an answer" : "");
		goto next;
	}
	len = evbuffer_get_length(rc.out);
	text = xmalloc(len + 1);
	evbuffer_remove(rc.out, text, len);
	text[len] = '\0';
	if (pt_squeue_parse(text, &ids, &n) != 0) {
		fail("%s printed something that is not a job id per line", rc.squeue);
		free(text);
		goto next;
	}
	free(text);
	if (strcmp(rc.state, "failed") == 0)
		event_post(EV_INFO, "partitions", NULL, "job reconcile: the scheduler answers again");
	rc.state = "ok";
	rc.last_ok_ms = rc.last_ms;
	rc.last_error[0] = '\0';
	rc.last_jobs = n;
	rc.ops.answer(ids, n, rc.asked_ms);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
next:
	evbuffer_drain(rc.out, evbuffer_get_length(rc.out));
	evbuffer_drain(rc.err, evbuffer_get_length(rc.err));
	arm(rc.interval_ms);
}

/* Reaped only by pid, never -1: validation's jobs are its own. */
static void
on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct timeval tv = clock_tv_ms(REAP_POLL_MS);
	int status;

	if (rc.pid <= 0)
		return;
	if (clock_mono_ms() - rc.started_mono >= SQUEUE_TIMEOUT_MS)
		kill(rc.pid, SIGKILL);
	if (rc.out_fd < 0 && rc.err_fd < 0 && waitpid(rc.pid, &status, WNOHANG) == rc.pid) {
		finished(status);
		return;
	}
	evtimer_add(rc.reap_ev, &tv);
}

static void
on_output(evutil_socket_t fd, short what, void *arg)
{
	struct evbuffer *buf = arg == (void *)1 ? rc.out : rc.err;
	int r = evbuffer_read(buf, fd, 65536);

	if (r > 0 && evbuffer_get_length(buf) <= SQUEUE_MAX_OUTPUT)
		return;
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r > 0)	/* far more than any job list: stop it */
		kill(rc.pid, SIGKILL);
	/* EOF or error: this stream is done */
	if (arg == (void *)1) {
		event_free(rc.out_ev);
		rc.out_ev = NULL;
		close(rc.out_fd);
		rc.out_fd = -1;
	} else {
		event_free(rc.err_ev);
		rc.err_ev = NULL;
		close(rc.err_fd);
		rc.err_fd = -1;
	}
}

static int
spawn(void)
{
	char *argv[] = { rc.squeue, "--noheader", "--format=%A", "--states=" SQUEUE_STATES, NULL };
	posix_spawn_file_actions_t fa;
	int out[2], err[2], e;

	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) != 0)
		return errno;
	if (pipe2(err, O_CLOEXEC | O_NONBLOCK) != 0) {
		e = errno;
		close(out[0]);
		close(out[1]);
		return e;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	e = posix_spawnp(&rc.pid, rc.squeue, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	if (e != 0) {
		rc.pid = 0;
		close(out[0]);
		close(err[0]);
		return e;
	}
	rc.out_fd = out[0];
	rc.err_fd = err[0];
	rc.out_ev = event_new(rc.base, rc.out_fd, EV_READ | EV_PERSIST, on_output, (void *)1);
	rc.err_ev = event_new(rc.base, rc.err_fd, EV_READ | EV_PERSIST, on_output, (void *)2);
	event_add(rc.out_ev, NULL);
	event_add(rc.err_ev, NULL);
	return 0;
}

static void
on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct timeval tv = clock_tv_ms(REAP_POLL_MS);
	int e;

	if (rc.pid > 0)
		return;
	if (rc.ops.count() == 0) {	/* nothing to reconcile: Slurm need not exist */
		rc.state = "idle";
		arm(rc.interval_ms);
		return;
	}
	rc.asked_ms = event_now_ms();
	rc.started_mono = clock_mono_ms();
	if ((e = spawn()) != 0) {
		rc.last_ms = rc.asked_ms;
		if (e == ENOENT)
			fail("%s could not be run (not installed? partitions.jobs.squeue)", rc.squeue);
		else
			fail("%s could not be run: %s", rc.squeue, strerror(e));
		arm(rc.interval_ms);
		return;
	}
	rc.state = "asking";
	evtimer_add(rc.reap_ev, &tv);
}

static void
arm(uint64_t ms)
{
	struct timeval tv = clock_tv_ms(ms);

	if (rc.running && rc.interval_ms > 0)
		evtimer_add(rc.timer, &tv);
}

/* ---- life cycle ---- */

void
pt_reconcile_configure(const struct pt_jobs_config *cfg)
{
	bool was = rc.interval_ms > 0;

	free(rc.squeue);
	rc.squeue = xstrdup(cfg->squeue && cfg->squeue[0] ? cfg->squeue : "squeue");
	rc.interval_ms = cfg->enabled ? cfg->reconcile_ms : 0;
	if (!rc.running)
		return;
	if (rc.interval_ms == 0) {
		evtimer_del(rc.timer);
		rc.state = "off";
	} else if (!was && rc.pid <= 0)
		arm(rc.interval_ms);
}

void
pt_reconcile_start(struct event_base *base, const struct pt_jobs_config *cfg,
    const struct pt_reconcile_ops *ops)
{
	rc.base = base;
	rc.ops = *ops;
	rc.out_fd = rc.err_fd = -1;
	rc.out = evbuffer_new();
	rc.err = evbuffer_new();
	rc.timer = evtimer_new(base, on_timer, NULL);
	rc.reap_ev = evtimer_new(base, on_reap, NULL);
	rc.running = true;
	rc.interval_ms = 0;
	pt_reconcile_configure(cfg);
	rc.state = rc.interval_ms ? "idle" : "off";
	arm(rc.interval_ms);
}

void
pt_reconcile_stop(void)
{
	int status;

	if (!rc.running)
		return;
	close_child_io();
	if (rc.pid > 0) {	/* a child of ours must not outlive the daemon */
		kill(rc.pid, SIGKILL);
		(void)waitpid(rc.pid, &status, 0);
	}
	event_free(rc.timer);
	event_free(rc.reap_ev);
	evbuffer_free(rc.out);
	evbuffer_free(rc.err);
	free(rc.squeue);
	memset(&rc, 0, sizeof(rc));
}

json_t *
pt_reconcile_status(void)
{
	json_t *o = json_pack("{s:s, s:I, s:s, s:I, s:I}", "state", rc.state ? rc.state : "off",
	    "interval_ms", (json_int_t)rc.interval_ms, "squeue", rc.squeue ? rc.squeue : "",
	    "runs", (json_int_t)rc.runs, "failures", (json_int_t)rc.failures);

	json_object_set_new(o, "last_ms", rc.last_ms ? json_integer(rc.last_ms) : json_null());
	json_object_set_new(o, "last_ok_ms", rc.last_ok_ms ? json_integer(rc.last_ok_ms) :
	    json_null());
	if (rc.last_error[0])
		json_object_set_new(o, "error", json_string(rc.last_error));
	if (rc.last_ok_ms)
		json_object_set_new(o, "jobs_listed", json_integer((json_int_t)rc.last_jobs));
	return o;
}
