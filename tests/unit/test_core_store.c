/* Store: migrations applied once, nested transactions, events written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/store.h"

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
test_nested_rollback(void **state)
{
	struct store *st;
	sqlite3_stmt *ins;

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	fake.store = st;
	fabricd = &fake;
	assert_int_equal(store_begin(st), 0);
	event_post(EV_INFO, "test", NULL, "outer");
	assert_int_equal(store_begin(st), 0);
	event_post(EV_INFO, "test", NULL, "inner");
	store_rollback(st);		/* undo inner only */
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM events WHERE source = 'test' AND message = 'outer'"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM events WHERE message = 'inner'"), 0);
	/* A bad statement fails cleanly. */
	assert_null(store_prepare(st, "SELECT nope FROM nowhere"));
	ins = store_prepare(st, "INSERT INTO events(time_ms, severity, source, message) VALUES (1, 9, 'x', 'y')");
	assert_int_equal(store_step_done(st, ins), -1);	/* CHECK constraint */
	fabricd = NULL;
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
		cmocka_unit_test(test_checkpoint_off_the_loop),
		cmocka_unit_test(test_parse_since),
	};
	log_init("test", LOG_LVL_ERROR);
	if (mkdtemp(dir) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, teardown);
}
