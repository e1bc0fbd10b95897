/*
 * The alarms kept across a restart (schemas/510_health_alarms.sql): every
 * raise and clear is written (through the store's writer thread, one batch
 * per turn of the loop however many a storm raises), a raised alarm's
 * last_seen again once a minute, and start-up reads back the raised ones
 * and the cleared ones of the last day: the pre-flight then still names a
 * port that failed before the restart, inside its window, and a raised
 * alarm keeps its quiet time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/store_writer.h"
#include "health/alarm_store.h"
#include "health/hstate.h"

#define KEEP_CLEARED_MS	(24 * 3600 * 1000LL)
#define REFRESH_MS	60000

static const char upsert_sql[] =
    "INSERT INTO health_alarms (object, check_name, node_guid, port, severity, first_seen_ms, "
    "last_seen_ms, failures, detail, cleared_ms, released) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
    "?8, ?9, ?10, ?11) ON CONFLICT(object, check_name) DO UPDATE SET node_guid = ?3, port = ?4, "
    "severity = ?5, first_seen_ms = ?6, last_seen_ms = ?7, failures = ?8, detail = ?9, "
    "cleared_ms = ?10, released = ?11";

static void
flush(evutil_socket_t fd, short what, void *arg)
{
	struct health *h = arg;

	if (h->alarm_batch && h->fd && h->fd->store)
		store_write_later(h->fd->store, h->alarm_batch);
	else
		store_batch_free(h->alarm_batch);
	h->alarm_batch = NULL;
}

static void
append(struct health *h, const struct alarm *a, int64_t cleared_ms)
{
	struct store_batch *b;

	if (h->fd == NULL || h->fd->store == NULL)
		return;
	if (h->alarm_batch == NULL) {
		h->alarm_batch = store_batch_new();
		if (h->alarm_flush_ev) {
			struct timeval zero = { 0, 0 };

			evtimer_add(h->alarm_flush_ev, &zero);	/* the rest of this turn joins it */
		}
	}
	b = h->alarm_batch;
	store_batch_sql(b, upsert_sql);
	store_batch_text(b, a->object);
	store_batch_text(b, hchk_name(a->check));
	store_batch_int(b, (int64_t)a->node_guid);
	store_batch_int(b, a->port);
	store_batch_int(b, a->severity);
	store_batch_int(b, a->first_seen_ms);
	store_batch_int(b, a->last_seen_ms);
	store_batch_int(b, a->failures);
	store_batch_text(b, a->detail);
	store_batch_int(b, cleared_ms);
	store_batch_int(b, a->released);
	if (h->alarm_flush_ev == NULL)
		flush(-1, 0, h);
}

void
health_alarm_stored(struct health *h, const struct alarm *a, bool raised)
{
	append(h, a, raised ? 0 : event_now_ms());
	ha_mirror_changed(h->alarms_mirror);	/* alarm_replica.c publishes it */
}

static void
refresh(evutil_socket_t fd, short what, void *arg)
{
	struct health *h = arg;
	struct timeval tv = clock_tv_ms(REFRESH_MS);

	for (size_t i = 0; i < alarm_count(h->alarms); i++)
		append(h, alarm_at(h->alarms, i), 0);
	evtimer_add(h->alarm_refresh_ev, &tv);
}

static void
restore_row(struct health *h, sqlite3_stmt *s)
{
	const char *object = (const char *)sqlite3_column_text(s, 0);
	int check = hchk_by_name((const char *)sqlite3_column_text(s, 1));
	const char *detail = (const char *)sqlite3_column_text(s, 8);
	struct alarm a;

	if (object == NULL || check < 0)
		return;
	a = (struct alarm){ .object = (char *)object, .check = (enum hchk)check,
	    .node_guid = (uint64_t)sqlite3_column_int64(s, 2),
	    .port = (uint8_t)sqlite3_column_int(s, 3),
	    .severity = (enum event_severity)sqlite3_column_int(s, 4),
	    .first_seen_ms = sqlite3_column_int64(s, 5), .last_seen_ms = sqlite3_column_int64(s, 6),
	    .failures = (uint32_t)sqlite3_column_int(s, 7), .cleared_ms = sqlite3_column_int64(s, 9),
	    .released = sqlite3_column_int(s, 10) != 0 };
	snprintf(a.detail, sizeof(a.detail), "%s", detail ? detail : "");
	alarm_restore(h->alarms, &a);	/* ports count theirs when they are made */
}

void
health_alarms_load(struct health *h)
{
	struct store *st = h->fd ? h->fd->store : NULL;
	int64_t since = event_now_ms() - KEEP_CLEARED_MS;
	struct timeval tv = clock_tv_ms(REFRESH_MS);
	sqlite3_stmt *s;
	size_t raised = 0, cleared = 0;
	if (st == NULL)
		return;
	h->alarm_flush_ev = evtimer_new(h->fd->base, flush, h);
	h->alarm_refresh_ev = evtimer_new(h->fd->base, refresh, h);
	evtimer_add(h->alarm_refresh_ev, &tv);
	if ((s = store_prepare(st, "DELETE FROM health_alarms WHERE cleared_ms != 0 AND "
	    "last_seen_ms < ?1")) != NULL) {
		sqlite3_bind_int64(s, 1, since);
		store_step_done(st, s);
	}
	/* oldest first: the ring keeps the newest when there are more */
	if ((s = store_prepare(st, "SELECT object, check_name, node_guid, port, severity, "
	    "first_seen_ms, last_seen_ms, failures, detail, cleared_ms, released FROM health_alarms "
	    "ORDER BY last_seen_ms")) == NULL)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		restore_row(h, s);
		if (sqlite3_column_int64(s, 9) == 0)
			raised++;
		else
			cleared++;
	}
	sqlite3_reset(s);
	if (raised + cleared)
		log_info("health: %zu raised alarm%s and %zu cleared in the last day read back",
		    raised, raised == 1 ? "" : "s", cleared);
}

void
health_alarms_stop(struct health *h)
{
	flush(-1, 0, h);
	if (h->alarm_flush_ev)
		event_free(h->alarm_flush_ev);
	if (h->alarm_refresh_ev)
		event_free(h->alarm_refresh_ev);
	h->alarm_flush_ev = h->alarm_refresh_ev = NULL;
}
