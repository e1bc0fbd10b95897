/*
 * Routing off the event loop.
 *
 * Why: routing is pure computation over the new model, and at 1,296 hosts
 * it held the loop for 11 ms (ftree) of a 20-30 ms step, 50 ms and more at
 * 5,184, while traps, SA queries and status requests waited.  So the sweep
 * hands the model to a thread and waits (STEP_ASYNC) until the tables are
 * back; the loop goes on meanwhile.
 *
 * What makes that safe: the model the thread reads is the heavy sweep's
 * sm->next, which nothing on the loop writes between discovery and
 * activation (the sweep, its only writer, is parked on this job); readers
 * on the loop (M_Key lookups) only read.  The thread touches nothing else:
 * its parameters are copied.  It tells the loop through a pipe; the loop
 * joins it, then runs the caller's callback.  A job is waited for, never
 * killed: stopping the SM joins it first.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "sm/core/route_job.h"

struct route_job {
	pthread_t		 thread;
	int			 pipe_rd, pipe_wr;
	struct event		*ev;
	const struct fabric	*f;
	struct routing_params	 params;
	uint64_t		*roots;		/* the job's own copy */
	struct routing_table	*rt;
	struct routing_memory	*mem;		/* updated with rt on the thread */
	int			 kept;
	char			 err[256];
	route_job_done		 done;
	void			*arg;
};

static void *
job_main(void *arg)
{
	struct route_job *j = arg;
	char b = 1;

	j->rt = routing_compute_fabric(j->f, &j->params, j->err, sizeof(j->err));
	j->kept = j->rt && j->mem ? routing_memory_update(j->mem, j->rt) : -1;
	while (write(j->pipe_wr, &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void
job_free(struct route_job *j)
{
	if (j->ev)
		event_free(j->ev);
	close(j->pipe_rd);
	close(j->pipe_wr);
	free(j->roots);
	free(j);
}

static void
job_finished(evutil_socket_t fd, short what, void *arg)
{
	struct route_job *j = arg;
	route_job_done done = j->done;
	void *done_arg = j->arg;
	struct routing_table *rt;
	char err[sizeof(j->err)];
	int kept;
	char b;

	(void)what;
	if (read(fd, &b, 1) != 1)
		return;		/* spurious: the thread writes exactly once */
	pthread_join(j->thread, NULL);
	rt = j->rt;
	kept = j->kept;
	memcpy(err, j->err, sizeof(err));
	job_free(j);
	done(rt, err, kept, done_arg);
}

static void
copy_params(struct route_job *j, const struct routing_params *p)
{
	j->params = *p;
	if (p->nroots) {
		j->roots = xreallocarray(NULL, p->nroots, sizeof(*j->roots));
		memcpy(j->roots, p->root_guids, p->nroots * sizeof(*j->roots));
		j->params.root_guids = j->roots;
	}
}

struct route_job *
route_job_start(struct event_base *base, const struct fabric *f,
    const struct routing_params *params, struct routing_memory *mem, route_job_done done,
    void *arg)
{
	struct route_job *j = xcalloc(1, sizeof(*j));
	int p[2];

	if (base == NULL || pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
		free(j);
		return NULL;
	}
	j->pipe_rd = p[0];
	j->pipe_wr = p[1];
	j->f = f;
	j->mem = mem;
	j->done = done;
	j->arg = arg;
	copy_params(j, params);
	/* persistent: a wake-up without the byte (EINTR) must not lose it */
	if ((j->ev = event_new(base, j->pipe_rd, EV_READ | EV_PERSIST, job_finished, j)) == NULL ||
	    event_add(j->ev, NULL) != 0 || pthread_create(&j->thread, NULL, job_main, j) != 0) {
		job_free(j);
		return NULL;
	}
	return j;
}

void
route_job_abandon(struct route_job *j)
{
	if (j == NULL)
		return;
	pthread_join(j->thread, NULL);
	routing_table_free(j->rt);
	job_free(j);
}
