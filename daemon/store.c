/*
 * sqlite3 state store.  One connection, used only from the event loop
 * thread (WAL checkpoints have their own, on a thread: store_checkpoint.c).
 * Statements are prepared once and cached by the address of their SQL
 * literal: callers never build SQL text, so nothing user-supplied can
 * reach the parser except as a bound value.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/store.h"
#include "daemon/store_checkpoint.h"
#include "daemon/store_writer.h"

struct stmt_cache {
	const char	*sql;
	sqlite3_stmt	*stmt;
};

struct store {
	sqlite3			*db;
	struct stmt_cache	*cache;
	size_t			 ncache, capcache;
	int			 depth;		/* open transaction nesting */
	struct store_checkpointer *checkpointer;	/* WAL checkpoints off the loop */
	struct store_writer	*writer;	/* writes the loop does not wait for */
	uint64_t		 sync_batches;	/* without a writer: batches written here */
	uint64_t		 sync_failed;
	atomic_int		 loop_waiting;	/* the busy handler's flag for the writer */
	int64_t			 busy_since_us;
	double			 busy_max_ms;	/* the loop's longest wait for the lock */
};

/*
 * The loop's connection waits for the write lock in steps of 200 us and
 * raises a flag the writer thread yields to.  sqlite's own busy timeout
 * sleeps 1, 2, 5, 10 ... 100 ms between tries: a loop transaction that met
 * one of the writer's (a few ms) slept up to 100 ms while the thread, with
 * more queued, took the lock again between two of its tries.
 */
#define LOOP_BUSY_MAX_US	2000000
#define LOOP_BUSY_STEP_US	200

static int
loop_busy(void *arg, int tries)
{
	struct store *st = arg;
	int64_t now = clock_mono_us();

	if (tries == 0) {
		st->busy_since_us = now;
		atomic_store(&st->loop_waiting, 1);
	}
	if (now - st->busy_since_us >= LOOP_BUSY_MAX_US) {
		atomic_store(&st->loop_waiting, 0);
		return 0;		/* SQLITE_BUSY to the caller (logged there) */
	}
	usleep(LOOP_BUSY_STEP_US);
	return 1;
}

/* After any statement that may have waited: lower the flag, keep the
 * figure. */
static void
loop_busy_end(struct store *st)
{
	double ms;

	if (!atomic_load(&st->loop_waiting))
		return;
	atomic_store(&st->loop_waiting, 0);
	ms = (double)(clock_mono_us() - st->busy_since_us) / 1000.0;
	if (ms > st->busy_max_ms)
		st->busy_max_ms = ms;
}

sqlite3 *
store_db(struct store *st)
{
	return st->db;
}

static int
exec_plain(struct store *st, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &err);

	loop_busy_end(st);
	if (rc != SQLITE_OK) {
		log_warnx("store: %s: %s", sql, err ? err : "?");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

sqlite3_stmt *
store_prepare(struct store *st, const char *sql)
{
	sqlite3_stmt *stmt;

	for (size_t i = 0; i < st->ncache; i++) {
		if (st->cache[i].sql == sql) {
			sqlite3_reset(st->cache[i].stmt);
			sqlite3_clear_bindings(st->cache[i].stmt);
			return st->cache[i].stmt;
		}
	}
	if (sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		log_warnx("store: prepare failed: %s: %s", sqlite3_errmsg(st->db), sql);
		return NULL;
	}
	if (st->ncache == st->capcache) {
		st->capcache = st->capcache ? st->capcache * 2 : 32;
		st->cache = xreallocarray(st->cache, st->capcache, sizeof(*st->cache));
	}
	st->cache[st->ncache].sql = sql;
	st->cache[st->ncache++].stmt = stmt;
	return stmt;
}

int
store_step_done(struct store *st, sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt);

	loop_busy_end(st);
	sqlite3_reset(stmt);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		log_warnx("store: %s", sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

/* Nested transactions are savepoints, so an inner failure can be undone
 * without losing the outer work. */
int
store_begin(struct store *st)
{
	char sql[48];

	if (st->depth == 0) {
		if (exec_plain(st, "BEGIN IMMEDIATE") != 0)
			return -1;
	} else {
		snprintf(sql, sizeof(sql), "SAVEPOINT sp%d", st->depth);
		if (exec_plain(st, sql) != 0)
			return -1;
	}
	st->depth++;
	return 0;
}

int
store_commit(struct store *st)
{
	char sql[48];

	if (st->depth <= 0) {
		log_warnx("store: commit without a transaction");
		return -1;
	}
	st->depth--;
	if (st->depth == 0)
		return exec_plain(st, "COMMIT");
	snprintf(sql, sizeof(sql), "RELEASE sp%d", st->depth);
	return exec_plain(st, sql);
}

void
store_rollback(struct store *st)
{
	char sql[64];

	if (st->depth <= 0)
		return;
	st->depth--;
	if (st->depth == 0) {
		exec_plain(st, "ROLLBACK");
		return;
	}
	snprintf(sql, sizeof(sql), "ROLLBACK TO sp%d", st->depth);
	exec_plain(st, sql);
	snprintf(sql, sizeof(sql), "RELEASE sp%d", st->depth);
	exec_plain(st, sql);
}

int
store_schema_version(struct store *st)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
	int v = -1;

	if (s && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int(s, 0);
	if (s)
		sqlite3_reset(s);
	return v;
}

static int
apply_migrations(struct store *st)
{
	int current;

	if (exec_plain(st, "CREATE TABLE IF NOT EXISTS schema_version ("
	    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)") != 0)
		return -1;
	current = store_schema_version(st);
	if (current < 0)
		return -1;
	for (const struct store_migration *m = store_migrations; m->sql; m++) {
		sqlite3_stmt *rec;

		if (m->version <= current)
			continue;
		if (store_begin(st) != 0)
			return -1;
		if (exec_plain(st, m->sql) != 0)
			goto fail;
		rec = store_prepare(st, "INSERT INTO schema_version(version, name, applied_ms) "
		    "VALUES (?, ?, CAST(strftime('%s','now') AS INTEGER) * 1000)");
		if (rec == NULL)
			goto fail;
		sqlite3_bind_int(rec, 1, m->version);
		sqlite3_bind_text(rec, 2, m->name, -1, SQLITE_STATIC);
		if (store_step_done(st, rec) != 0 || store_commit(st) != 0)
			goto fail;
		log_info("store: applied migration %s", m->name);
		continue;
fail:
		store_rollback(st);
		log_warnx("store: migration %s failed", m->name);
		return -1;
	}
	return 0;
}

/*
 * The database holds who changed what and the fabric's keys: 0600, owner
 * only (the state directory's 0750 alone used to protect it).  sqlite
 * gives -wal and -shm the main file's mode when it creates them; files
 * left by an older fabricd are tightened here too.
 */
static void
tighten_modes(const char *path)
{
	static const char *const suffixes[] = { "", "-wal", "-shm" };

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		char *f;
		xasprintf(&f, "%s%s", path, suffixes[i]);
		if (chmod(f, 0600) != 0 && errno != ENOENT)
			log_warn("store: chmod %s", f);
		free(f);
	}
}

int
store_open(const char *state_dir, struct store **out)
{
	struct store *st;
	mode_t old_mask;
	char *path;
	int rc;

	*out = NULL;
	if (mkdir(state_dir, 0750) != 0 && errno != EEXIST) {
		log_warn("store: cannot create %s", state_dir);
		return -1;
	}
	st = xcalloc(1, sizeof(*st));
	xasprintf(&path, "%s/fabricd.db", state_dir);
	old_mask = umask(0077);
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	umask(old_mask);
	tighten_modes(path);
	if (rc != SQLITE_OK) {
		log_warnx("store: cannot open %s: %s", path, sqlite3_errmsg(st->db));
		free(path);
		store_close(st);
		return -1;
	}
	sqlite3_busy_handler(st->db, loop_busy, st);
	if (exec_plain(st, "PRAGMA journal_mode=WAL") != 0 ||
	    exec_plain(st, "PRAGMA foreign_keys=ON") != 0 ||
	    exec_plain(st, "PRAGMA synchronous=NORMAL") != 0 ||
	    apply_migrations(st) != 0) {
		free(path);
		store_close(st);
		return -1;
	}
	/* Checkpoints run on their own thread; without it, sqlite's own. */
	if ((st->checkpointer = store_checkpointer_start(path)) != NULL)
		exec_plain(st, "PRAGMA wal_autocheckpoint=0");
	/* NULL: batches written on the loop */
	st->writer = store_writer_start(path, &st->loop_waiting);
	free(path);
	*out = st;
	return 0;
}

void
store_close(struct store *st)
{
	if (st == NULL)
		return;
	store_writer_stop(st->writer);		/* what it holds is written first */
	store_checkpointer_stop(st->checkpointer);	/* before the last close checkpoints */
	for (size_t i = 0; i < st->ncache; i++)
		sqlite3_finalize(st->cache[i].stmt);
	free(st->cache);
	if (st->db)
		sqlite3_close(st->db);
	free(st);
}

/* ---- writes handed over (store_writer.h) ---- */

static sqlite3_stmt *
loop_prepare(void *ctx, const char *sql)
{
	return store_prepare(ctx, sql);
}

int
store_batch_run(struct store *st, const struct store_batch *b)
{
	if (b == NULL || store_batch_statements(b) == 0)
		return 0;
	if (store_begin(st) != 0)
		return -1;
	if (store_batch_apply(store_db(st), loop_prepare, st, b) != 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st);
}

uint64_t
store_write_later(struct store *st, struct store_batch *b)
{
	if (store_batch_statements(b) == 0) {
		store_batch_free(b);
		return st->writer ? store_writer_submitted(st->writer) : st->sync_batches;
	}
	if (st->writer)
		return store_writer_submit(st->writer, b);
	if (store_batch_run(st, b) != 0 && ++st->sync_failed)
		log_warnx("store: a batch of %zu statements not stored", store_batch_statements(b));
	store_batch_free(b);
	return ++st->sync_batches;
}

uint64_t
store_write_failures(struct store *st)
{
	return st->writer ? store_writer_failed(st->writer) : st->sync_failed;
}

uint64_t
store_written(struct store *st)
{
	return st->writer ? store_writer_done(st->writer) : st->sync_batches;
}

void
store_write_wait(struct store *st)
{
	if (st->writer)
		store_writer_drain(st->writer);
}

json_t *
store_writer_status(struct store *st)
{
	json_t *o = st->writer ? store_writer_json(st->writer) :
	    json_pack("{s:b, s:I}", "thread", 0, "batches", (json_int_t)st->sync_batches);

	json_object_set_new(o, "loop_lock_wait_max_ms", json_real(st->busy_max_ms));
	return o;
}
