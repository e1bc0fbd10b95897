/*
 * The store's writer thread and the batches it writes: see store_writer.h.
 *
 * A batch is flat (statements, values, one buffer of text) so that
 * building one on the loop costs a few appends and no allocation per row.
 * The thread keeps its own statement cache, keyed like the loop's by the
 * address of the SQL literal.  A batch that fails (a constraint, the
 * database busy past the timeout) is rolled back whole and logged; the
 * next one is written as usual: a lost history row must not stop the rest.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/store_writer.h"

/* Past this many statements waiting, store_write_later waits for room:
 * memory stays bounded when the disk cannot keep up (logged). */
#define QUEUE_MAX_STATEMENTS	(512 * 1024)
#define BUSY_TIMEOUT_MS		5000
/* How long the thread holds back its next transaction while the loop
 * waits for the write lock (store.c's busy handler raises the flag). */
#define YIELD_MAX_US		20000
#define YIELD_STEP_US		100

enum value_kind { V_INT, V_TEXT, V_NULL };

struct batch_value {
	enum value_kind	 kind;
	int64_t		 i;		/* V_INT; V_TEXT: offset in texts */
};

struct batch_stmt {
	const char	*sql;
	size_t		 first, n;	/* its values */
};

struct store_batch {
	struct batch_stmt	*stmts;
	size_t			 nstmts, capstmts;
	struct batch_value	*vals;
	size_t			 nvals, capvals;
	char			*texts;
	size_t			 ntexts, captexts;
	struct store_batch	*next;		/* the writer's queue */
};

struct stmt_slot {
	const char	*sql;
	sqlite3_stmt	*stmt;
};

struct store_writer {
	pthread_t		 thread;
	pthread_mutex_t		 lock;
	pthread_cond_t		 work, idle, room;
	struct store_batch	*head, *tail;
	size_t			 queued;		/* statements in the queue */
	uint64_t		 submitted, done;	/* sequence numbers */
	uint64_t		 statements, failed;
	double			 batch_max_ms;
	bool			 stop;
	atomic_int		*loop_waiting;	/* store.c's: the loop wants the lock */
	_Atomic uint64_t	 yields;	/* moved outside the lock */
	sqlite3			*db;
	struct stmt_slot	*cache;
	size_t			 ncache, capcache;
};

/* ---- batches ---- */

struct store_batch *
store_batch_new(void)
{
	return xcalloc(1, sizeof(struct store_batch));
}

void
store_batch_free(struct store_batch *b)
{
	if (b == NULL)
		return;
	free(b->stmts);
	free(b->vals);
	free(b->texts);
	free(b);
}

void
store_batch_sql(struct store_batch *b, const char *sql)
{
	if (b->nstmts == b->capstmts) {
		b->capstmts = b->capstmts ? b->capstmts * 2 : 16;
		b->stmts = xreallocarray(b->stmts, b->capstmts, sizeof(*b->stmts));
	}
	b->stmts[b->nstmts++] = (struct batch_stmt){ sql, b->nvals, 0 };
}

static void
add_value(struct store_batch *b, struct batch_value v)
{
	if (b->nstmts == 0)
		fatalx("store_batch: a value before its statement");
	if (b->nvals == b->capvals) {
		b->capvals = b->capvals ? b->capvals * 2 : 64;
		b->vals = xreallocarray(b->vals, b->capvals, sizeof(*b->vals));
	}
	b->vals[b->nvals++] = v;
	b->stmts[b->nstmts - 1].n++;
}

void
store_batch_int(struct store_batch *b, int64_t v)
{
	add_value(b, (struct batch_value){ V_INT, v });
}

void
store_batch_text(struct store_batch *b, const char *s)
{
	size_t len;

	if (s == NULL) {
		add_value(b, (struct batch_value){ V_NULL, 0 });
		return;
	}
	len = strlen(s) + 1;
	while (b->ntexts + len > b->captexts) {
		b->captexts = b->captexts ? b->captexts * 2 : 1024;
		b->texts = xreallocarray(b->texts, b->captexts, 1);
	}
	memcpy(b->texts + b->ntexts, s, len);
	add_value(b, (struct batch_value){ V_TEXT, (int64_t)b->ntexts });
	b->ntexts += len;
}

size_t
store_batch_statements(const struct store_batch *b)
{
	return b ? b->nstmts : 0;
}

/* ---- writing one batch (either connection) ---- */

static int
bind_values(sqlite3_stmt *s, const struct store_batch *b, const struct batch_stmt *bs)
{
	for (size_t k = 0; k < bs->n; k++) {
		const struct batch_value *v = &b->vals[bs->first + k];
		int col = (int)k + 1, rc;

		if (v->kind == V_INT)
			rc = sqlite3_bind_int64(s, col, v->i);
		else if (v->kind == V_TEXT)
			rc = sqlite3_bind_text(s, col, b->texts + v->i, -1, SQLITE_STATIC);
		else
			rc = sqlite3_bind_null(s, col);
		if (rc != SQLITE_OK)
			return -1;
	}
	return 0;
}

/* Every statement of b; the caller holds the transaction.  0 or -1. */
int
store_batch_apply(sqlite3 *db, prepare_fn *prepare, void *ctx, const struct store_batch *b)
{
	for (size_t i = 0; i < b->nstmts; i++) {
		const struct batch_stmt *bs = &b->stmts[i];
		sqlite3_stmt *s = prepare(ctx, bs->sql);
		int rc;

		if (s == NULL)
			return -1;
		if (bind_values(s, b, bs) != 0) {
			log_warnx("store: binding %s: %s", bs->sql, sqlite3_errmsg(db));
			return -1;
		}
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
			log_warnx("store: %s: %s", bs->sql, sqlite3_errmsg(db));
			return -1;
		}
	}
	return 0;
}

/* ---- the thread ---- */

static sqlite3_stmt *
writer_prepare(void *ctx, const char *sql)
{
	struct store_writer *w = ctx;
	sqlite3_stmt *s;

	for (size_t i = 0; i < w->ncache; i++)
		if (w->cache[i].sql == sql)
			return w->cache[i].stmt;
	if (sqlite3_prepare_v2(w->db, sql, -1, &s, NULL) != SQLITE_OK) {
		log_warnx("store: writer: prepare failed: %s: %s", sqlite3_errmsg(w->db), sql);
		return NULL;
	}
	if (w->ncache == w->capcache) {
		w->capcache = w->capcache ? w->capcache * 2 : 16;
		w->cache = xreallocarray(w->cache, w->capcache, sizeof(*w->cache));
	}
	w->cache[w->ncache++] = (struct stmt_slot){ sql, s };
	return s;
}

static bool
writer_exec(struct store_writer *w, const char *sql)
{
	return sqlite3_exec(w->db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

static bool
write_batch(struct store_writer *w, const struct store_batch *b)
{
	if (!writer_exec(w, "BEGIN IMMEDIATE")) {
		log_warnx("store: writer: begin: %s", sqlite3_errmsg(w->db));
		return false;
	}
	if (store_batch_apply(w->db, writer_prepare, w, b) == 0 && writer_exec(w, "COMMIT"))
		return true;
	log_warnx("store: writer: a batch of %zu statements not stored", b->nstmts);
	writer_exec(w, "ROLLBACK");
	return false;
}

/* The loop goes first: a transaction of the loop's that waits for this
 * thread's would otherwise poll for the lock while this thread, with more
 * queued, takes it again a few microseconds after each commit. */
static void
yield_to_loop(struct store_writer *w)
{
	int64_t t0;

	if (w->loop_waiting == NULL || !atomic_load(w->loop_waiting))
		return;
	w->yields++;
	t0 = clock_mono_us();
	while (atomic_load(w->loop_waiting) && clock_mono_us() - t0 < YIELD_MAX_US)
		usleep(YIELD_STEP_US);
}

static void *
writer_main(void *arg)
{
	struct store_writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct store_batch *b;
		int64_t t0;
		double ms;
		bool ok;

		while (w->head == NULL && !w->stop)
			pthread_cond_wait(&w->work, &w->lock);
		if (w->head == NULL)
			break;			/* stopped, and nothing left */
		b = w->head;
		pthread_mutex_unlock(&w->lock);
		yield_to_loop(w);
		t0 = clock_mono_us();
		ok = write_batch(w, b);
		ms = (double)(clock_mono_us() - t0) / 1000.0;
		pthread_mutex_lock(&w->lock);
		w->head = b->next;
		if (w->head == NULL)
			w->tail = NULL;
		w->queued -= b->nstmts;
		w->done++;
		w->statements += b->nstmts;
		w->failed += !ok;
		if (ms > w->batch_max_ms)
			w->batch_max_ms = ms;
		pthread_cond_broadcast(&w->room);
		if (w->head == NULL)
			pthread_cond_broadcast(&w->idle);
		pthread_mutex_unlock(&w->lock);
		store_batch_free(b);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void
writer_free(struct store_writer *w)
{
	for (size_t i = 0; i < w->ncache; i++)
		sqlite3_finalize(w->cache[i].stmt);
	free(w->cache);
	sqlite3_close(w->db);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->idle);
	pthread_cond_destroy(&w->room);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

struct store_writer *
store_writer_start(const char *path, atomic_int *loop_waiting)
{
	struct store_writer *w = xcalloc(1, sizeof(*w));

	w->loop_waiting = loop_waiting;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->idle, NULL);
	pthread_cond_init(&w->room, NULL);
	if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    !writer_exec(w, "PRAGMA foreign_keys=ON") ||
	    !writer_exec(w, "PRAGMA synchronous=NORMAL") ||
	    !writer_exec(w, "PRAGMA wal_autocheckpoint=0")) {
		log_warnx("store: writer connection: %s", sqlite3_errmsg(w->db));
		writer_free(w);
		return NULL;
	}
	sqlite3_busy_timeout(w->db, BUSY_TIMEOUT_MS);
	if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
		log_warnx("store: no writer thread");
		writer_free(w);
		return NULL;
	}
	return w;
}

uint64_t
store_writer_submit(struct store_writer *w, struct store_batch *b)
{
	uint64_t seq;

	pthread_mutex_lock(&w->lock);
	if (w->queued > QUEUE_MAX_STATEMENTS) {
		log_warnx("store: %zu statements wait for the disk: the loop waits for room", w->queued);
		while (w->queued > QUEUE_MAX_STATEMENTS)
			pthread_cond_wait(&w->room, &w->lock);
	}
	b->next = NULL;
	if (w->tail)
		w->tail->next = b;
	else
		w->head = b;
	w->tail = b;
	w->queued += b->nstmts;
	seq = ++w->submitted;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	return seq;
}

/* A counter the thread moves, read under its lock. */
static uint64_t
read_locked(struct store_writer *w, const uint64_t *counter)
{
	uint64_t v;

	pthread_mutex_lock(&w->lock);
	v = *counter;
	pthread_mutex_unlock(&w->lock);
	return v;
}

uint64_t
store_writer_done(struct store_writer *w)
{
	return read_locked(w, &w->done);
}

uint64_t
store_writer_failed(struct store_writer *w)
{
	return read_locked(w, &w->failed);
}

uint64_t
store_writer_submitted(struct store_writer *w)
{
	return read_locked(w, &w->submitted);
}

void
store_writer_drain(struct store_writer *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->head != NULL)
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void
store_writer_stop(struct store_writer *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);		/* it writes what is queued first */
	writer_free(w);
}

json_t *
store_writer_json(struct store_writer *w)
{
	json_t *o;

	pthread_mutex_lock(&w->lock);
	o = json_pack("{s:b, s:I, s:I, s:I, s:I, s:f, s:I}", "thread", 1,
	    "queued", (json_int_t)w->queued, "batches", (json_int_t)w->done,
	    "statements", (json_int_t)w->statements, "failed", (json_int_t)w->failed,
	    "batch_max_ms", w->batch_max_ms, "yields_to_loop", (json_int_t)atomic_load(&w->yields));
	pthread_mutex_unlock(&w->lock);
	return o;
}
