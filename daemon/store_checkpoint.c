/*
 * WAL checkpoints off the event loop.
 *
 * Why: with sqlite's automatic checkpoint the commit that crosses 1,000
 * WAL pages copies them into the database and fsyncs it, on whichever
 * module's commit that happens to be: at 1,296 hosts such commits held the
 * loop for 17-57 ms during a storm.  So the loop's connection never
 * checkpoints (wal_autocheckpoint=0) and this thread, on a connection of
 * its own, runs a PASSIVE checkpoint every CHECKPOINT_MS: it waits for no
 * reader or writer, and writers on the loop are never made to wait for it
 * (WAL mode).  The loop's writes stay durable as before: synchronous=NORMAL
 * in WAL makes a commit survive a process crash at once and a power loss
 * from the next checkpoint on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <sqlite3.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/store_checkpoint.h"

#define CHECKPOINT_MS	1000

struct store_checkpointer {
	pthread_t	 thread;
	pthread_mutex_t	 lock;
	pthread_cond_t	 wake;
	bool		 stop;
	sqlite3		*db;
	unsigned long	 runs, failures;
};

static void
deadline_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *
checkpoint_main(void *arg)
{
	struct store_checkpointer *c = arg;
	struct timespec until;

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		deadline_in(&until, CHECKPOINT_MS);
		while (!c->stop && pthread_cond_timedwait(&c->wake, &c->lock, &until) != ETIMEDOUT)
			;
		if (c->stop)
			break;
		pthread_mutex_unlock(&c->lock);
		/* SQLITE_BUSY: another checkpoint or a writer's WAL restart
		 * was under way; the next round catches up. */
		if (sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL)
		    == SQLITE_OK)
			c->runs++;
		else
			c->failures++;
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct store_checkpointer *
store_checkpointer_start(const char *path)
{
	struct store_checkpointer *c = xcalloc(1, sizeof(*c));
	pthread_condattr_t ca;

	/* The schema read opens the WAL: until then a connection does not
	 * know the database is in WAL mode and its checkpoints do nothing. */
	if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(c->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
		log_warnx("store: checkpoint connection: %s", sqlite3_errmsg(c->db));
		sqlite3_close(c->db);
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&c->thread, NULL, checkpoint_main, c) != 0) {
		log_warnx("store: no checkpoint thread");
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		sqlite3_close(c->db);
		free(c);
		return NULL;
	}
	return c;
}

void
store_checkpointer_stop(struct store_checkpointer *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	sqlite3_close(c->db);
	free(c);
}
