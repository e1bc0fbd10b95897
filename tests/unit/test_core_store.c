/* Store: migrations applied once, nested transactions, the writer thread, events written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/store.h"
#include "daemon/store_writer.h"

static struct fabricd fake;
static char dir[] = "/tmp/fabricd-store-XXXXXX";

static int
count(struct store *st, const char *sql)
{
	sqlite3_stmt *s = store_prepare(st, sql);
	int n;

	assert_non_null(s);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int(s, 0);
	sqlite3_reset(s);
	return n;
}

static int
max_migration(void)
{
	int v = 0;
	for (const struct store_migration *m = store_migrations; m->sql; m++)
		v = m->version > v ? m->version : v;
	return v;
}

static void
test_migrations_once(void **state)
{
	struct store *st;

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(store_schema_version(st), max_migration());
	assert_int_equal(count(st, "SELECT count(*) FROM schema_version"),
	    count(st, "SELECT count(DISTINCT version) FROM schema_version"));
	store_close(st);
	/* Re-opening applies nothing new. */
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM schema_version WHERE version = 1"), 1);
	store_close(st);
}

static void
insert_note(struct store *st, const char *text)
{
	sqlite3_stmt *s = store_prepare(st, "INSERT INTO notes (t) VALUES (?)");

	assert_non_null(s);
	sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
	assert_int_equal(store_step_done(st, s), 0);
}

static void
test_nested_rollback(void **state)
{
	struct store *st;
	sqlite3_stmt *ins;

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(sqlite3_exec(store_db(st), "CREATE TABLE notes (t TEXT)", NULL, NULL,
	    NULL), SQLITE_OK);
	assert_int_equal(store_begin(st), 0);
	insert_note(st, "outer");
	assert_int_equal(store_begin(st), 0);
	insert_note(st, "inner");
	store_rollback(st);		/* undo inner only */
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM notes WHERE t = 'outer'"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM notes WHERE t = 'inner'"), 0);
	/* A bad statement fails cleanly. */
	assert_null(store_prepare(st, "SELECT nope FROM nowhere"));
	ins = store_prepare(st, "INSERT INTO events(time_ms, severity, source, message) VALUES (1, 9, 'x', 'y')");
	assert_int_equal(store_step_done(st, ins), -1);	/* CHECK constraint */
	assert_int_equal(sqlite3_exec(store_db(st), "DROP TABLE notes", NULL, NULL, NULL), SQLITE_OK);
	store_close(st);
}

/*
 * The writer thread: batches are written in the order handed over, each
 * whole or not at all; a failed batch does not stop the next; the loop's
 * connection sees them once store_written() has passed their number; and
 * what is still queued at close is written, not lost.
 */
static void
note_batch(struct store_batch *b, const char *text, int64_t n)
{
	store_batch_sql(b, "INSERT INTO wnotes (t, n) VALUES (?1, ?2)");
	store_batch_text(b, text);
	store_batch_int(b, n);
}

static void
test_writer_batches(void **state)
{
	struct store *st;
	struct store_batch *b;
	uint64_t first, bad, last;

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(sqlite3_exec(store_db(st), "CREATE TABLE wnotes (t TEXT NOT NULL, "
	    "n INTEGER UNIQUE)", NULL, NULL, NULL), SQLITE_OK);
	b = store_batch_new();
	for (int i = 0; i < 1000; i++)
		note_batch(b, "first", i);
	first = store_write_later(st, b);
	b = store_batch_new();		/* n 5 is taken: the whole batch goes */
	note_batch(b, "bad", 2000);
	note_batch(b, "bad", 5);
	bad = store_write_later(st, b);
	b = store_batch_new();		/* a value more than the ?N: refused whole */
	note_batch(b, "surplus", 3001);
	store_batch_text(b, NULL);
	bad = store_write_later(st, b);
	last = store_write_later(st, store_batch_new());	/* empty: the last number */
	assert_int_equal(last, bad);
	b = store_batch_new();
	note_batch(b, "last", 3000);
	last = store_write_later(st, b);
	assert_true(first < bad && bad < last);
	for (int i = 0; i < 500 && store_written(st) < last; i++)
		usleep(10000);
	assert_int_equal(store_written(st), last);
	assert_int_equal(store_write_failures(st), 2);
	assert_int_equal(count(st, "SELECT count(*) FROM wnotes WHERE t = 'first'"), 1000);
	assert_int_equal(count(st, "SELECT count(*) FROM wnotes WHERE t IN ('bad', 'surplus')"), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM wnotes WHERE t = 'last'"), 1);
	/* Queued at close: written before the thread ends. */
	for (int k = 0; k < 20; k++) {
		b = store_batch_new();
		for (int i = 0; i < 500; i++)
			note_batch(b, "late", 10000 + k * 500 + i);
		store_write_later(st, b);
	}
	store_close(st);
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM wnotes WHERE t = 'late'"), 10000);
	assert_int_equal(sqlite3_exec(store_db(st), "DROP TABLE wnotes", NULL, NULL, NULL), SQLITE_OK);
	store_close(st);
}

/*
 * A transaction of the loop's that meets the writer's waits for that one
 * transaction, not for the thread's whole queue: the writer holds back
 * while the loop waits.  (With sqlite's own busy timeout the loop slept
 * 1, 2, 5 ... 100 ms between tries and found the lock free only once the
 * queue was empty: 99 ms in a storm test.)
 */
static void
test_loop_goes_first(void **state)
{
	struct store *st;
	struct store_batch *b;
	uint64_t last = 0;
	struct timespec t0, t1;
	double ms;
	json_t *status;

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(sqlite3_exec(store_db(st), "CREATE TABLE wnotes (t TEXT NOT NULL, "
	    "n INTEGER UNIQUE)", NULL, NULL, NULL), SQLITE_OK);
	for (int k = 0; k < 40; k++) {
		b = store_batch_new();
		for (int i = 0; i < 3000; i++)
			note_batch(b, "queued", k * 3000 + i);
		last = store_write_later(st, b);
	}
	while (store_written(st) < 1)
		usleep(100);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(store_begin(st), 0);
	sqlite3_exec(store_db(st), "INSERT INTO wnotes (t, n) VALUES ('loop', -1)", NULL, NULL, NULL);
	assert_int_equal(store_commit(st), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	status = store_writer_status(st);
	print_message("the loop's transaction: %.2f ms, %llu of %llu batches written then; "
	    "longest batch %.2f ms\n", ms, (unsigned long long)store_written(st),
	    (unsigned long long)last,
	    json_real_value(json_object_get(status, "batch_max_ms")));
	/* the order, not only the time: the thread still had most of its
	 * queue when the loop got the lock */
	assert_true(store_written(st) < last / 2);
	assert_non_null(json_object_get(status, "yields_to_loop"));
	assert_non_null(json_object_get(status, "loop_lock_wait_max_ms"));
	json_decref(status);
	store_write_wait(st);
	assert_int_equal(count(st, "SELECT count(*) FROM wnotes"), 40 * 3000 + 1);
	assert_int_equal(sqlite3_exec(store_db(st), "DROP TABLE wnotes", NULL, NULL, NULL), SQLITE_OK);
	store_close(st);
}

/* Events go through the writer; `events` finds them before and after. */
static void
test_events_written(void **state)
{
	struct store *st;

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	fake.store = st;
	fabricd = &fake;
	events_attach(NULL, st);
	for (int i = 0; i < 600; i++)
		event_post(EV_INFO, "test", i % 2 ? "obj" : NULL, "event %d", i);
	events_flush_all();
	assert_int_equal(count(st, "SELECT count(*) FROM events WHERE source = 'test'"), 600);
	assert_int_equal(count(st, "SELECT count(*) FROM events WHERE source = 'test' AND "
	    "object IS NULL"), 300);
	assert_int_equal(count(st, "SELECT count(DISTINCT id) FROM events WHERE source = 'test'"), 600);
	fabricd = NULL;
	events_attach(NULL, NULL);
	store_close(st);
}

static void
test_parse_since(void **state)
{
	int64_t ms, before, after;

	(void)state;
	/* The parser reads the clock itself: bracket it, so a slow run (ASan)
	 * that crosses a millisecond does not fail. */
	before = event_now_ms();
	assert_int_equal(event_parse_since("10m", &ms), 0);
	after = event_now_ms();
	assert_true(ms >= before - 600000 && ms <= after - 600000);
	assert_int_equal(event_parse_since("1700000000000", &ms), 0);
	assert_int_equal(ms, 1700000000000LL);
	assert_int_equal(event_parse_since("2026-01-02 03:04:05", &ms), 0);
	assert_int_equal(event_parse_since("2026-01-02", &ms), 0);
	assert_int_equal(event_parse_since("yesterday", &ms), -1);
	assert_int_equal(event_parse_since("10x", &ms), -1);
	assert_int_equal(event_parse_since("2026-01-02 03:04:05junk", &ms), -1);
	/* ISO 8601 with its zone, as fabricctl prints times: 2026-01-02T03:04:05Z
	 * is 1767323045 s after the epoch (date -u -d ... +%s) */
	assert_int_equal(event_parse_since("2026-01-02T03:04:05Z", &ms), 0);
	assert_int_equal(ms, 1767323045000LL);
	assert_int_equal(event_parse_since("2026-01-02T04:34:05+01:30", &ms), 0);
	assert_int_equal(ms, 1767323045000LL);
	assert_int_equal(event_parse_since("2026-01-01T22:04:05-0500", &ms), 0);
	assert_int_equal(ms, 1767323045000LL);
	assert_int_equal(event_parse_since("2026-01-02T03:04:05+1", &ms), -1);
}

static long long
file_size(const char *name)
{
	char path[256];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* Checkpoints happen off the loop: a commit of 4 MB leaves the database
 * file as it was (the pages wait in the WAL, no commit copies them); the
 * checkpoint thread copies them within its second. */
static void
test_checkpoint_off_the_loop(void **state)
{
	struct store *st;
	sqlite3_stmt *s;
	long long before, after_commit, later = 0;
	char blob[4096];

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(sqlite3_exec(store_db(st), "CREATE TABLE IF NOT EXISTS big (b BLOB)",
	    NULL, NULL, NULL), SQLITE_OK);
	before = file_size("fabricd.db");
	memset(blob, 0x5a, sizeof(blob));
	assert_int_equal(store_begin(st), 0);
	for (int i = 0; i < 1000; i++) {
		s = store_prepare(st, "INSERT INTO big (b) VALUES (?)");
		sqlite3_bind_blob(s, 1, blob, sizeof(blob), SQLITE_STATIC);
		assert_int_equal(store_step_done(st, s), 0);
	}
	assert_int_equal(store_commit(st), 0);
	after_commit = file_size("fabricd.db");
	assert_true(file_size("fabricd.db-wal") > 4000000);
	assert_true(after_commit < before + 1000000);	/* the commit copied nothing */
	for (int i = 0; i < 40 && later < before + 4000000; i++) {
		usleep(100000);
		later = file_size("fabricd.db");
	}
	print_message("db %lld -> %lld after the commit -> %lld\n", before, after_commit, later);
	assert_true(later >= before + 4000000);	/* the thread did */
	assert_int_equal(sqlite3_exec(store_db(st), "DROP TABLE big", NULL, NULL, NULL), SQLITE_OK);
	store_close(st);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrations_once),
		cmocka_unit_test(test_nested_rollback),
		cmocka_unit_test(test_writer_batches),
		cmocka_unit_test(test_events_written),
		cmocka_unit_test(test_checkpoint_off_the_loop),
		cmocka_unit_test(test_loop_goes_first),	/* after: it grows the file */
		cmocka_unit_test(test_parse_since),
	};
	log_init("test", LOG_LVL_ERROR);
	if (mkdtemp(dir) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, teardown);
}
