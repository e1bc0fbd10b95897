/*
 * The job runner: one launcher process per job, in its own process group,
 * stdout and stderr to files in the job's folder, a wall-clock timeout
 * that kills the whole group (SIGTERM, then SIGKILL after a grace), and
 * the end noticed from the daemon's event loop: a SIGCHLD event plus a
 * one-second poll (a coalesced or missed signal must not strand a job).
 * Only our own children are waited for (waitpid by pid, never -1).
 * Nothing here blocks the loop: output is parsed once the group is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <event2/event.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "validation/validation.h"

#define OUTPUT_PARSE_MAX	(32u << 20)	/* bytes of a log we parse */

struct job {
	int64_t		 id;
	struct job_spec	 spec;
	pid_t		 pid;		/* also the process group id */
	char		*dir, *out, *err;
	struct event	*timer;		/* timeout, then the SIGKILL grace */
	bool		 term_sent;
	struct run_outcome outcome;
	struct verdict_result result;
	job_done_fn	 done;
	void		*arg;
	struct job	*next;
};

static struct job *running;
static struct event *sigchld_ev, *poll_ev;
static struct event_base *base;

/* ---- spec helpers ---- */

static char **
strv_dup(char *const *v, size_t n)
{
	char **d;
	size_t i;

	if (v == NULL)
		return NULL;
	if (n == (size_t)-1)
		for (n = 0; v[n] != NULL; n++)
			;
	d = xcalloc(n + 1, sizeof(*d));
	for (i = 0; i < n; i++)
		d[i] = xstrdup(v[i]);
	return d;
}

static char *
str_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void
job_spec_copy(struct job_spec *d, const struct job_spec *s)
{
	*d = *s;
	d->test = str_dup(s->test);
	d->launcher = str_dup(s->launcher);
	d->sizes = str_dup(s->sizes);
	d->tenant = str_dup(s->tenant);
	d->profile = str_dup(s->profile);
	d->strategy = str_dup(s->strategy);
	d->hca = str_dup(s->hca);
	d->hosts = strv_dup(s->hosts, s->nhosts);
	d->env = strv_dup(s->env, (size_t)-1);
}

void
job_spec_free(struct job_spec *s)
{
	free(s->test);
	free(s->launcher);
	free(s->sizes);
	free(s->tenant);
	free(s->profile);
	free(s->strategy);
	free(s->hca);
	launch_free(s->hosts);
	launch_free(s->env);
	memset(s, 0, sizeof(*s));
}

/* ---- child side ---- */

static void __attribute__((noreturn))
child_exec(char **argv, char *const *env, const char *dir, int out, int err)
{
	long fd, maxfd = sysconf(_SC_OPEN_MAX);
	int devnull = open("/dev/null", O_RDONLY);
	sigset_t none;
	size_t i;

	setpgid(0, 0);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	/* the daemon's sockets and database must not leak into the job.
	 * Raw system calls: after fork() in a process that may carry an
	 * LD_PRELOAD shim (umad2sim under test), its close() wrapper could
	 * wait on a lock some other thread held at the fork */
	if (maxfd < 0 || maxfd > 65536)
		maxfd = 65536;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
		for (fd = 3; fd < maxfd; fd++)
			syscall(SYS_close, (int)fd);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (i = 1; i < NSIG; i++)
		signal((int)i, SIG_DFL);
	for (i = 0; env != NULL && env[i] != NULL; i++)
		putenv(env[i]);
	if (chdir(dir) != 0)
		dprintf(STDERR_FILENO, "fabricd: chdir %s: %s\n", dir, strerror(errno));
	execvp(argv[0], argv);
	i = (size_t)errno;	/* dprintf may change errno */
	dprintf(STDERR_FILENO, "fabricd: cannot execute %s: %s\n", argv[0], strerror((int)i));
	_exit(i == ENOENT ? RUN_EXIT_NOTFOUND : RUN_EXIT_NOEXEC);
}

/* ---- end of a job ---- */

static char *
read_file(const char *path, size_t *len)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	char *buf;
	size_t n;

	*len = 0;
	if (f == NULL)
		return NULL;
	buf = xmalloc(OUTPUT_PARSE_MAX + 1);
	n = fread(buf, 1, OUTPUT_PARSE_MAX, f);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * An inconclusive verdict says why in its own words: the last line the
 * job wrote to stderr ("mpirun: command not found", "fabricd: cannot
 * execute ...") goes after the reason, so that nobody has to read
 * `job log N --stderr` to learn what was missing.
 */
static void
add_stderr_tail(const struct job *j, struct verdict_result *r)
{
	FILE *f = r->verdict == VERDICT_INCONCLUSIVE ? fopen(j->err, "rb") : NULL;
	char buf[513], *line;
	size_t n, used = strlen(r->reason);

	if (f == NULL)
		return;
	if (fseek(f, -512, SEEK_END) != 0)
		rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	line = strrchr(buf, '\n') ? strrchr(buf, '\n') + 1 : buf;
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	if (*line && used + 12 < sizeof(r->reason))
		snprintf(r->reason + used, sizeof(r->reason) - used, "; stderr: %.*s",
		    (int)(sizeof(r->reason) - used - 11), line);
}

static json_t *
nccl_summary(const struct nccl_parsed *p)
{
	json_t *s = json_object(), *fails = json_array(), *unknown = json_array();
	size_t i;

	for (i = 0; i < p->nfailures && i < 8; i++) {
		const struct nccl_failure *f = &p->failures[i];
		json_array_append_new(fails, json_pack("{s:s, s:s, s:s, s:s}", "host", f->host,
		    "hca", f->hca, "peer", f->peer, "message", f->message));
	}
	for (i = 0; i < p->unknown_lines && i < PARSE_UNKNOWN_KEEP; i++)
		if (p->unknown[i] != NULL)
			json_array_append_new(unknown, json_string(p->unknown[i]));
	json_object_set_new(s, "tests_version", json_string(p->tests_version));
	json_object_set_new(s, "nccl_version", json_string(p->nccl_version));
	json_object_set_new(s, "ranks", json_integer((json_int_t)p->ndevices));
	json_object_set_new(s, "rows", json_integer((json_int_t)p->nrows));
	json_object_set_new(s, "footer", json_boolean(nccl_footer_seen(p)));
	json_object_set_new(s, "out_of_bounds", json_integer(p->oob_count));
	if (p->avg_seen)
		json_object_set_new(s, "avg_busbw", json_real(p->avg_busbw));
	json_object_set_new(s, "failures", fails);
	json_object_set_new(s, "unknown_lines", json_integer((json_int_t)p->unknown_lines));
	json_object_set_new(s, "unknown", unknown);
	if (p->mpi_failed_rank >= 0)
		json_object_set_new(s, "mpi_failed_rank", json_integer(p->mpi_failed_rank));
	return s;
}

static void
judge_nccl(struct job *j, json_t **summary)
{
	struct nccl_parsed text, js;
	size_t len, jlen;
	char *buf = read_file(j->out, &len), *jpath, *jbuf;
	const struct nccl_parsed *use = &text;
	bool have_json = false;

	nccl_parse_text(buf, len, &text);
	xasprintf(&jpath, "%s/result.json", j->dir);
	jbuf = read_file(jpath, &jlen);
	/* stdout carries the failure text; the JSON only helps when stdout
	 * lost its rows (interleaving) */
	if (jbuf != NULL && nccl_parse_json(jbuf, jlen, &js) == 0) {
		have_json = true;
		if (js.nrows > text.nrows) {
			free(text.rows);
			text.rows = js.rows;
			text.nrows = js.nrows;
			js.rows = NULL;
			js.nrows = 0;
		}
	}
	verdict_nccl(use, &j->outcome, &j->spec.threshold, &j->result);
	add_stderr_tail(j, &j->result);
	*summary = nccl_summary(use);
	json_object_set_new(*summary, "json_report", json_boolean(have_json));
	jobstore_finished(j->id, &j->outcome, &j->result, use, NULL, *summary);
	if (have_json)
		nccl_parsed_free(&js);
	nccl_parsed_free(&text);
	free(jbuf);
	free(jpath);
	free(buf);
}

static void
judge_rdma(struct job *j, json_t **summary)
{
	struct perftest_parsed p;
	size_t lo, le;
	char *o = read_file(j->out, &lo), *e = read_file(j->err, &le), *all;

	/* perftest reports errors on stderr: judge both streams together */
	all = xmalloc(lo + le + 2);
	memcpy(all, o ? o : "", lo);
	all[lo] = '\n';
	memcpy(all + lo + 1, e ? e : "", le);
	perftest_parse(all, lo + le + 1, &p);
	verdict_perftest(&p, &j->outcome, &j->spec.threshold, &j->result);
	add_stderr_tail(j, &j->result);
	*summary = json_pack("{s:s, s:s, s:s, s:i, s:s}", "test", p.test, "device", p.device,
	    "link_type", p.link_type, "rows", (int)p.nrows, "error", p.error_text);
	jobstore_finished(j->id, &j->outcome, &j->result, NULL, &p, *summary);
	perftest_parsed_free(&p);
	free(all);
	free(o);
	free(e);
}

static void
unlink_running(struct job *j)
{
	struct job **pp;

	for (pp = &running; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			return;
		}
}

static void
job_free(struct job *j)
{
	if (j->timer != NULL)
		event_free(j->timer);
	job_spec_free(&j->spec);
	free(j->dir);
	free(j->out);
	free(j->err);
	free(j);
}

static void
job_finish(struct job *j)
{
	json_t *summary = NULL;

	unlink_running(j);
	if (j->spec.kind == JOB_RDMA)
		judge_rdma(j, &summary);
	else
		judge_nccl(j, &summary);
	event_post(j->result.verdict == VERDICT_FAIL ? EV_WARNING : EV_INFO, "validation",
	    j->result.host[0] ? j->result.host : NULL, "job %lld %s: %s (%s)", (long long)j->id,
	    verdict_name(j->result.verdict), j->result.code, j->result.reason);
	if (j->done != NULL)
		j->done(j, j->arg);
	json_decref(summary);
	job_free(j);
}

static void
reap(struct job *j, int status)
{
	j->outcome.exited = WIFEXITED(status);
	j->outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	j->outcome.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	/* whatever the leader left behind in its group goes with it */
	kill(-j->pid, SIGKILL);
	job_finish(j);
}

static void
check_children(void)
{
	struct job *j, *next;
	int status;

	for (j = running; j != NULL; j = next) {
		next = j->next;
		if (j->pid > 0 && waitpid(j->pid, &status, WNOHANG) == j->pid)
			reap(j, status);
	}
}

static void
on_sigchld(evutil_socket_t sig, short what, void *arg)
{
	check_children();
}

static void
on_poll(evutil_socket_t fd, short what, void *arg)
{
	check_children();
}

void
job_kill_plan(uint64_t timeout_ms, uint64_t kill_grace_ms, uint64_t *term_ms, uint64_t *kill_ms)
{
	uint64_t grace = kill_grace_ms < timeout_ms / 2 ? kill_grace_ms : timeout_ms / 2;

	*term_ms = timeout_ms - grace;
	*kill_ms = timeout_ms;
}

/* The SIGTERM-to-SIGKILL grace of job j (job_kill_plan). */
static uint64_t
grace_ms(const struct job *j)
{
	uint64_t term, kill;

	job_kill_plan(j->spec.timeout_ms, validation_config()->kill_grace_ms, &term, &kill);
	return kill - term;
}

static void
on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;
	struct timeval tv = clock_tv_ms(grace_ms(j));

	if (!j->term_sent) {
		if (!j->outcome.cancelled)
			j->outcome.timed_out = true;
		log_info("validation: job %lld %s: terminating process group %d", (long long)j->id,
		    j->outcome.cancelled ? "cancelled" : "timed out", (int)j->pid);
		kill(-j->pid, SIGTERM);
		j->term_sent = true;
		evtimer_add(j->timer, &tv);
		return;
	}
	/* the grace is over: nothing in the group gets to ignore us */
	kill(-j->pid, SIGKILL);
}

/* ---- start ---- */

static int
mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0750) != 0 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (mkdir(p, 0750) != 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

static int
open_log(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
}

static void
on_not_started(evutil_socket_t fd, short what, void *arg)
{
	job_finish(arg);
}

/* A job whose launcher could not be forked still gets a record and a
 * verdict; from the loop, so that done() never runs before job_start()
 * has returned the id to its caller. */
static void
job_not_started(struct job *j)
{
	struct timeval now = { 0, 0 };

	j->outcome.started = false;
	if (event_base_once(base, -1, EV_TIMEOUT, on_not_started, j, &now) != 0)
		job_finish(j);
}

int64_t
job_start(const struct job_spec *spec, job_done_fn done, void *arg, char *err, size_t errlen)
{
	const struct validation_config *c = validation_config();
	struct job *j;
	char **argv;
	int out, errfd;
	struct timeval tv;
	int64_t id;

	if (base == NULL) {
		snprintf(err, errlen, "validation module not started");
		return -1;
	}
	if ((id = jobstore_create(spec, false)) <= 0) {
		snprintf(err, errlen, "cannot record the job");
		return -1;
	}
	j = xcalloc(1, sizeof(*j));
	j->id = id;
	j->done = done;
	j->arg = arg;
	job_spec_copy(&j->spec, spec);
	xasprintf(&j->dir, "%s/validation/jobs/%lld", validation_state_dir(), (long long)id);
	xasprintf(&j->out, "%s/stdout.log", j->dir);
	xasprintf(&j->err, "%s/stderr.log", j->dir);
	j->next = running;
	running = j;
	argv = launch_argv(c, &j->spec, j->dir, j->spec.env);
	if (mkdir_p(j->dir) != 0 || (out = open_log(j->out)) < 0) {
		log_warn("validation: job %lld: %s", (long long)id, j->dir);
		jobstore_started(id, 0, argv, j->spec.env, j->dir, NULL, NULL);
		launch_free(argv);
		job_not_started(j);
		return id;
	}
	if ((errfd = open_log(j->err)) < 0) {
		close(out);
		jobstore_started(id, 0, argv, j->spec.env, j->dir, NULL, NULL);
		launch_free(argv);
		job_not_started(j);
		return id;
	}
	j->pid = fork();
	if (j->pid == 0)
		child_exec(argv, j->spec.env, j->dir, out, errfd);
	close(out);
	close(errfd);
	if (j->pid < 0) {
		log_warn("validation: job %lld: fork", (long long)id);
		j->pid = 0;
		jobstore_started(id, 0, argv, j->spec.env, j->dir, j->out, j->err);
		launch_free(argv);
		job_not_started(j);
		return id;
	}
	/* both sides set the group: whichever runs first wins the race */
	setpgid(j->pid, j->pid);
	j->outcome.started = true;
	jobstore_started(id, j->pid, argv, j->spec.env, j->dir, j->out, j->err);
	launch_free(argv);
	j->timer = evtimer_new(base, on_timer, j);
	tv = clock_tv_ms(j->spec.timeout_ms - grace_ms(j));
	evtimer_add(j->timer, &tv);
	log_info("validation: job %lld started: %s on %zu host(s), pid %d", (long long)id,
	    j->spec.test, j->spec.nhosts, (int)j->pid);
	return id;
}

static struct job *
find(int64_t id)
{
	struct job *j;

	for (j = running; j != NULL; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

static void
cancel_one(struct job *j)
{
	j->outcome.cancelled = true;
	if (!j->term_sent && j->timer != NULL) {
		evtimer_del(j->timer);
		on_timer(-1, 0, j);
	}
}

int
job_cancel(int64_t id)
{
	struct job *j;
	int n = 0;

	/* the job itself, or every running probe of a campaign */
	for (j = running; j != NULL; j = j->next)
		if (j->pid > 0 && (j->id == id || j->spec.parent == id)) {
			cancel_one(j);
			n++;
		}
	return n;
}

bool
job_running(int64_t id)
{
	return find(id) != NULL;
}

int64_t job_id(const struct job *j) { return j->id; }
enum verdict job_verdict(const struct job *j) { return j->result.verdict; }
const struct verdict_result *job_result(const struct job *j) { return &j->result; }
const struct job_spec *job_spec_of(const struct job *j) { return &j->spec; }

json_t *
job_progress(int64_t id)
{
	struct job *j = find(id);
	struct nccl_parsed p;
	json_t *o;
	size_t len;
	char *buf;

	if (j == NULL)
		return NULL;
	buf = read_file(j->out, &len);
	nccl_parse_text(buf, len, &p);
	o = json_pack("{s:I, s:s, s:I, s:i, s:i}", "job", (json_int_t)id, "state", "running",
	    "bytes", (json_int_t)len, "ranks", (int)p.ndevices, "rows", (int)p.nrows);
	if (p.nrows > 0) {
		const struct nccl_row *r = &p.rows[p.nrows - 1];
		json_object_set_new(o, "size", json_integer((json_int_t)r->size));
		json_object_set_new(o, "busbw", json_real(r->oop.busbw));
	}
	nccl_parsed_free(&p);
	free(buf);
	return o;
}

void
jobs_init(struct fabricd *fd)
{
	struct timeval second = { 1, 0 };

	base = fd->base;
	jobstore_recover();
	sigchld_ev = evsignal_new(base, SIGCHLD, on_sigchld, NULL);
	evsignal_add(sigchld_ev, NULL);
	poll_ev = event_new(base, -1, EV_PERSIST, on_poll, NULL);
	evtimer_add(poll_ev, &second);
}

void
jobs_shutdown(void)
{
	struct job *j;
	int status;

	/* a stopping daemon takes its jobs with it: they would run unseen */
	while ((j = running) != NULL) {
		if (j->pid > 0) {
			kill(-j->pid, SIGKILL);
			j->outcome.cancelled = true;
			if (waitpid(j->pid, &status, 0) == j->pid) {
				j->done = NULL;
				reap(j, status);
				continue;
			}
		}
		j->done = NULL;
		job_finish(j);
	}
	if (sigchld_ev != NULL)
		event_free(sigchld_ev);
	if (poll_ev != NULL)
		event_free(poll_ev);
	sigchld_ev = poll_ev = NULL;
	base = NULL;
}
