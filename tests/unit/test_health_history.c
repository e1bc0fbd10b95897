/*
 * Counter history in sqlite: downsampling keeps the row count at the
 * stated bound, queries take the finest tier for each stretch of time
 * without counting any increment twice, and the measured size per row
 * gives the 2,000-port / 30-day figure of health/README.md.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/store.h"
#include "health/history.h"

struct fixture {
	char		 dir[64];
	struct store	*st;
};

static int
setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/health-hist-XXXXXX");
	if (mkdtemp(fx->dir) == NULL || store_open(fx->dir, &fx->st) != 0)
		return -1;
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];
	store_close(fx->st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	free(fx);
	return system(cmd);
}

static int64_t
scalar(struct store *st, const char *sql, int64_t port_id, int tier)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_prepare_v2(store_db(st), sql, -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int64(s, 1, port_id);
	sqlite3_bind_int(s, 2, tier);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The id history gave the port's row (written by GUID and port). */
static int64_t
id_of(struct store *st, uint64_t guid, uint8_t port)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_prepare_v2(store_db(st), "SELECT id FROM health_ports WHERE "
	    "node_guid = ?1 AND port = ?2", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int64(s, 1, (int64_t)guid);
	sqlite3_bind_int(s, 2, port);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	assert_true(v > 0);
	return v;
}

/* Writes b on the test's connection (the daemon hands it to the writer). */
static void
run(struct store *st, struct store_batch *b)
{
	assert_int_equal(store_batch_run(st, b), 0);
	store_batch_free(b);
}

static void
downsampling_keeps_the_bound(void **state)
{
	struct fixture *fx = *state;
	struct history_cfg c;
	struct history_port hp[4];
	const uint64_t interval = 60000;	/* 1-minute rounds keep the test short */
	const int64_t start = 1700000000000LL, days = 31;
	uint64_t d[HC_COUNT] = { 0 };
	uint64_t expect_total = 0;

	struct store_batch *b = store_batch_new();

	history_cfg_default(&c);
	for (int p = 0; p < 4; p++)
		history_port_open(b, 0x1000 + p, 1, "h", &hp[p]);
	run(fx->st, b);
	b = NULL;
	d[HC_SYMBOL_ERRORS] = 1;
	d[HC_XMIT_DATA] = 123456789;
	for (int64_t t = start + (int64_t)interval; t <= start + days * 86400000; t += (int64_t)interval) {
		if ((t - start) % 86400000 == (int64_t)interval)
			b = store_batch_new();	/* a day a batch */
		for (int p = 0; p < 4; p++)
			history_record(b, &c, &hp[p], t, interval, d);
		expect_total += d[HC_SYMBOL_ERRORS];
		if ((t - start) % 86400000 == 0)
			run(fx->st, b);
	}
	/* Per port: keep0/interval raw rows (+1 for the open bucket's edge),
	 * 24 h of 5-minute rows, 30 days of hourly rows, each +-1. */
	for (int p = 0; p < 4; p++) {
		int64_t id = id_of(fx->st, 0x1000 + p, 1);
		int64_t r0 = scalar(fx->st, "SELECT count(*) FROM health_samples WHERE port_id=?1 AND tier=?2", id, 0);
		int64_t r1 = scalar(fx->st, "SELECT count(*) FROM health_samples WHERE port_id=?1 AND tier=?2", id, 1);
		int64_t r2 = scalar(fx->st, "SELECT count(*) FROM health_samples WHERE port_id=?1 AND tier=?2", id, 2);
		assert_in_range(r0, 60, 66);
		assert_in_range(r1, 287, 290);
		assert_in_range(r2, 719, 721);
	}
	assert_in_range(history_row_count(fx->st), 4 * (60 + 287 + 719), 4 * (66 + 290 + 721));

	/* The whole history, finest tier first: every round's symbol error
	 * is counted once, minus what retention dropped (older than 30 days)
	 * and the still-open buckets (not written yet, but raw rows have them). */
	json_t *rows = history_query(fx->st, hp[0].node_guid, hp[0].port, 0);
	assert_non_null(rows);
	uint64_t sum = 0;
	int64_t prev_end = 0;
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		int64_t t = json_integer_value(json_object_get(row, "t_ms"));
		int64_t span = json_integer_value(json_object_get(row, "span_ms"));
		/* Oldest first; a round may straddle a bucket edge (it belongs
		 * to the bucket it ends in), so only the ends are ordered. */
		assert_true(t > prev_end);
		assert_true(span > 0);
		prev_end = t;
		sum += (uint64_t)json_integer_value(json_object_get(row, "symbol_errors"));
	}
	assert_int_equal(prev_end, start + days * 86400000);
	/* Coverage is the oldest kept hour to now: 30 days (720 hourly rows). */
	int64_t oldest = json_integer_value(json_object_get(json_array_get(rows, 0), "t_ms")) -
	    json_integer_value(json_object_get(json_array_get(rows, 0), "span_ms"));
	/* rounds ending in (oldest, now]: now is a round, oldest an hour edge */
	assert_int_equal(sum, ((uint64_t)(prev_end - oldest) + interval - 1) / interval);
	assert_true(sum < expect_total);
	json_decref(rows);
}

static void
query_since_uses_raw_rows_and_rates(void **state)
{
	struct fixture *fx = *state;
	struct history_cfg c;
	struct history_port hp;
	uint64_t d[HC_COUNT] = { 0 };
	const int64_t t0 = 1700000000000LL;

	struct store_batch *b = store_batch_new();

	history_cfg_default(&c);
	/* Before the first write the port has no history, not an error. */
	json_t *none = history_query(fx->st, 0xabc, 3, 0);
	assert_non_null(none);
	assert_int_equal(json_array_size(none), 0);
	json_decref(none);
	history_port_open(b, 0xabc, 3, "sw1", &hp);
	for (int i = 1; i <= 6; i++) {
		d[HC_SYMBOL_ERRORS] = (uint64_t)i * 10;
		history_record(b, &c, &hp, t0 + i * 10000, 10000, d);
	}
	run(fx->st, b);
	json_t *rows = history_query(fx->st, 0xabc, 3, t0 + 35000);
	assert_int_equal(json_array_size(rows), 3);
	json_t *last = json_array_get(rows, 2);
	assert_int_equal(json_integer_value(json_object_get(last, "symbol_errors")), 60);
	assert_int_equal(json_integer_value(json_object_get(last, "tier")), 0);
	assert_true(json_real_value(json_object_get(json_object_get(last, "rates"), "symbol_errors")) == 6.0);
	json_decref(rows);

	/* Re-opening the same port keeps its row (and id), renamed. */
	struct history_port again;
	int64_t id = id_of(fx->st, 0xabc, 3);
	b = store_batch_new();
	history_port_open(b, 0xabc, 3, "sw1-renamed", &again);
	run(fx->st, b);
	assert_int_equal(id_of(fx->st, 0xabc, 3), id);
	assert_int_equal(scalar(fx->st, "SELECT count(*) FROM health_ports WHERE id = ?1 AND "
	    "node_desc = 'sw1-renamed' AND ?2 = ?2", id, 0), 1);
}

/* Fill a steady-state database for 50 ports with realistic values and
 * extrapolate its size to 2,000 ports.  The bound stated in the README
 * is checked here: under 240 MB. */
static void
size_bound_for_2000_ports(void **state)
{
	struct fixture *fx = *state;
	const int ports = 50, rows0 = 360, rows1 = 288, rows2 = 720;
	uint64_t d[HC_COUNT];
	int64_t page_count, page_size;
	double per_port, total_mb;

	srand(7);
	assert_int_equal(store_begin(fx->st), 0);
	for (int p = 0; p < ports; p++) {
		struct history_port hp;
		struct store_batch *b = store_batch_new();
		history_port_open(b, 0x0002c90300000000ULL + (uint64_t)p, 1 + p % 36, "leaf", &hp);
		assert_int_equal(store_batch_run(fx->st, b), 0);
		store_batch_free(b);
		int64_t hp_id = id_of(fx->st, hp.node_guid, hp.port);
		const int n[3] = { rows0, rows1, rows2 };
		const uint64_t span[3] = { 10000, 300000, 3600000 };
		for (int tier = 0; tier < 3; tier++)
			for (int r = 0; r < n[tier]; r++) {
				memset(d, 0, sizeof(d));
				double scale = (double)span[tier] / 1000.0;
				/* A busy 200 Gb/s port at ~30 %: words, packets of ~4 KB,
				 * some wait ticks; an error now and then. */
				d[HC_XMIT_DATA] = (uint64_t)(scale * 1.9e9 * (0.5 + rand() / (double)RAND_MAX));
				d[HC_RCV_DATA] = (uint64_t)(scale * 1.9e9 * (0.5 + rand() / (double)RAND_MAX));
				d[HC_XMIT_PKTS] = d[HC_XMIT_DATA] / 1000;
				d[HC_RCV_PKTS] = d[HC_RCV_DATA] / 1000;
				d[HC_XMIT_WAIT] = (uint64_t)(scale * 1e5 * (rand() / (double)RAND_MAX));
				if (rand() % 50 == 0)
					d[HC_SYMBOL_ERRORS] = (uint64_t)(rand() % 100);
				sqlite3_stmt *s;
				/* Direct insert of a steady-state row, as history writes it. */
				assert_int_equal(sqlite3_prepare_v2(store_db(fx->st), "INSERT INTO health_samples VALUES "
				    "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21)", -1, &s, NULL), SQLITE_OK);
				sqlite3_bind_int64(s, 1, hp_id);
				sqlite3_bind_int(s, 2, tier);
				sqlite3_bind_int64(s, 3, 1700000000000LL + (int64_t)r * (int64_t)span[tier]);
				sqlite3_bind_int64(s, 4, (int64_t)span[tier]);
				for (int i = 0; i < HC_COUNT; i++)
					sqlite3_bind_int64(s, 5 + i, (int64_t)d[i]);
				assert_int_equal(sqlite3_step(s), SQLITE_DONE);
				sqlite3_finalize(s);
			}
	}
	assert_int_equal(store_commit(fx->st), 0);
	sqlite3_exec(store_db(fx->st), "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	page_count = scalar(fx->st, "SELECT page_count FROM pragma_page_count() WHERE ?1 = ?1 AND ?2 = ?2", 0, 0);
	page_size = scalar(fx->st, "SELECT page_size FROM pragma_page_size() WHERE ?1 = ?1 AND ?2 = ?2", 0, 0);
	per_port = (double)(page_count * page_size) / ports;
	total_mb = per_port * 2000 / 1e6;
	print_message("history: %.0f bytes per port (%d rows), 2000 ports x 30 days = %.1f MB\n",
	    per_port, rows0 + rows1 + rows2, total_mb);
	assert_true(total_mb < 240.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(downsampling_keeps_the_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(query_since_uses_raw_rows_and_rates, setup, teardown),
		cmocka_unit_test_setup_teardown(size_bound_for_2000_ports, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
