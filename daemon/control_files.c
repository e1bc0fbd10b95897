/*
 * Passed files read on reader threads (see control_files.h).
 *
 * Ownership: a job is the loop's except its fds and its result, which
 * belong to its thread until the thread writes the job's pointer into the
 * pipe, its last touch.  The loop then runs the callback (unless the
 * deadline already answered) and frees the job.  At shutdown the pipe is
 * closed under the lock; a thread that finds it closed frees its job
 * itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/file.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control_files.h"

#define READER_STACK	(256u << 10)

struct file_job {
	int			 fd[CTL_MAX_FDS];
	uid_t			 uid;
	ctl_files_cb		 cb;		/* NULL once answered */
	void			*arg;
	struct event		*deadline;
	struct ctl_files_result	 r;		/* the thread's until posted */
	struct file_job		*next;		/* live jobs (loop only) */
};

static struct {
	pthread_mutex_t		 lock;		/* guards open and the pipe's write end */
	bool			 open;
	int			 pipe_rd, pipe_wr;
	struct event		*pipe_ev;
	struct event_base	*base;
	struct file_job		*jobs;		/* threads alive, loop's view */
} cf = { .lock = PTHREAD_MUTEX_INITIALIZER, .pipe_rd = -1, .pipe_wr = -1 };

static void
job_free(struct file_job *j)
{
	for (size_t i = 0; i < j->r.n; i++)
		free(j->r.data[i]);
	if (j->deadline)
		event_free(j->deadline);
	free(j);
}

static void
job_unlink(struct file_job *j)
{
	for (struct file_job **pp = &cf.jobs; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			return;
		}
}

/* The thread: everything that may block on the file happens here. */
static void *
reader_main(void *p)
{
	struct file_job *j = p;
	const char *why;
	bool posted = false;

	j->r.status = CTL_FILES_OK;
	for (size_t i = 0; i < j->r.n; i++) {
		if (file_read_fd(j->fd[i], FILE_MAX_INPUT, &j->r.data[i], &j->r.len[i], &why) != 0) {
			j->r.status = CTL_FILES_REFUSED;
			j->r.failed = i;
			snprintf(j->r.why, sizeof(j->r.why), "%s", why);
			break;
		}
	}
	for (size_t i = 0; i < j->r.n; i++)
		close(j->fd[i]);
	pthread_mutex_lock(&cf.lock);
	if (cf.open) {
		ssize_t w;
		do
			w = write(cf.pipe_wr, &j, sizeof(j));
		while (w < 0 && errno == EINTR);
		posted = w == (ssize_t)sizeof(j);
	}
	pthread_mutex_unlock(&cf.lock);
	if (!posted)		/* the daemon is stopping: nobody waits for it */
		job_free(j);
	return NULL;
}

static void
job_done(struct file_job *j)
{
	job_unlink(j);
	if (j->cb)
		j->cb(j->arg, &j->r);
	job_free(j);
}

static void
on_posted(evutil_socket_t fd, short what, void *arg)
{
	struct file_job *j;

	(void)what;
	(void)arg;
	while (read(fd, &j, sizeof(j)) == (ssize_t)sizeof(j))
		job_done(j);
}

/* The caller is answered; the thread keeps its slot until it returns. */
static void
answer_stopped(struct file_job *j, const char *why)
{
	struct ctl_files_result t = { .status = CTL_FILES_TIMEOUT, .n = j->r.n };
	ctl_files_cb cb = j->cb;

	if (cb == NULL)
		return;
	j->cb = NULL;
	snprintf(t.why, sizeof(t.why), "%s", why);
	cb(j->arg, &t);
}

static void
on_deadline(evutil_socket_t fd, short what, void *arg)
{
	char why[96];

	(void)fd;
	(void)what;
	snprintf(why, sizeof(why), "the file was not read within %d s",
	    CTL_FILE_DEADLINE_MS / 1000);
	answer_stopped(arg, why);
}

static unsigned
count_uid(uid_t uid)
{
	unsigned n = 0;

	for (struct file_job *j = cf.jobs; j; j = j->next)
		n += j->uid == uid;
	return n;
}

unsigned
ctl_files_running(void)
{
	unsigned n = 0;

	for (struct file_job *j = cf.jobs; j; j = j->next)
		n++;
	return n;
}

static int
start_thread(struct file_job *j)
{
	pthread_attr_t at;
	pthread_t t;
	int rc;

	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, READER_STACK);
	rc = pthread_create(&t, &at, reader_main, j);
	pthread_attr_destroy(&at);
	return rc;
}

int
ctl_files_read(const int *fds, size_t n, uid_t uid, ctl_files_cb cb, void *arg, char *why,
    size_t whylen)
{
	struct timeval tv = clock_tv_ms(CTL_FILE_DEADLINE_MS);
	struct file_job *j;

	if (!cf.open || n == 0 || n > CTL_MAX_FDS) {
		snprintf(why, whylen, "files cannot be read now");
		return -1;
	}
	if (ctl_files_running() >= CTL_FILE_THREADS || count_uid(uid) >= CTL_FILE_PER_UID) {
		snprintf(why, whylen, "too many passed files are being read (at most %d at once, "
		    "%d for one user); try again", CTL_FILE_THREADS, CTL_FILE_PER_UID);
		return -1;
	}
	j = xcalloc(1, sizeof(*j));
	memcpy(j->fd, fds, n * sizeof(*fds));
	j->r.n = n;
	j->uid = uid;
	j->cb = cb;
	j->arg = arg;
	j->deadline = evtimer_new(cf.base, on_deadline, j);
	if (start_thread(j) != 0) {
		event_free(j->deadline);
		free(j);
		snprintf(why, whylen, "no reader thread could be started");
		return -1;
	}
	evtimer_add(j->deadline, &tv);
	j->next = cf.jobs;
	cf.jobs = j;
	return 0;
}

int
ctl_files_init(struct event_base *base)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0) {
		log_warn("control: pipe");
		return -1;
	}
	cf.pipe_rd = p[0];
	cf.pipe_wr = p[1];
	evutil_make_socket_nonblocking(cf.pipe_rd);
	cf.base = base;
	cf.pipe_ev = event_new(base, cf.pipe_rd, EV_READ | EV_PERSIST, on_posted, NULL);
	event_add(cf.pipe_ev, NULL);
	cf.open = true;
	return 0;
}

/* Callers still waiting are answered (into the void: their connections
 * are gone); jobs already posted are freed here, the others by their
 * threads when they return. */
void
ctl_files_shutdown(void)
{
	struct file_job *j;

	if (!cf.open)
		return;
	for (j = cf.jobs; j; j = j->next) {
		answer_stopped(j, "the daemon is stopping");
		event_free(j->deadline);
		j->deadline = NULL;
	}
	cf.jobs = NULL;		/* from here a thread may free its own job */
	pthread_mutex_lock(&cf.lock);
	cf.open = false;
	pthread_mutex_unlock(&cf.lock);
	while (read(cf.pipe_rd, &j, sizeof(j)) == (ssize_t)sizeof(j))
		job_done(j);
	event_free(cf.pipe_ev);
	close(cf.pipe_rd);
	close(cf.pipe_wr);
}
