/*
 * The event log: written to sqlite, pushed live to `events --follow`
 * clients.  A failure to store an event is logged and otherwise ignored:
 * losing a history row must never stop the fabric work that caused it.
 *
 * event_post() never writes: it gives the event its id, tells the
 * followers and queues it; a timer of ordinary priority writes the queue
 * in transactions of at most FLUSH_ROWS rows and FLUSH_US of work, so that
 * a burst of events costs the MADs and control requests around it a few
 * short steps, not one long one (and never one transaction per event).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"

static const char *const severity_names[] = { "info", "warning", "error", "critical" };

struct follower {
	struct ctl_req		*req;
	enum event_severity	 min;
	struct follower		*next;
};
static struct follower *followers;

#define FLUSH_ROWS	256
#define FLUSH_US	3000

struct queued_event {
	int64_t			 id, time_ms;
	enum event_severity	 sev;
	char			*source, *object, *message;
};

static struct queued_event *queue;
static size_t q_head, q_tail, q_cap;
static int64_t next_id;			/* 0: not read from the store yet */
static struct event *flush_ev;
static uint64_t flushed_total, flush_chunks;
static double flush_max_ms;

const char *
event_severity_name(enum event_severity s)
{
	return s <= EV_CRITICAL ? severity_names[s] : "?";
}

int
event_severity_parse(const char *name, enum event_severity *out)
{
	for (int i = EV_INFO; i <= EV_CRITICAL; i++) {
		if (strcasecmp(name, severity_names[i]) == 0) {
			*out = (enum event_severity)i;
			return 0;
		}
	}
	return -1;
}

int64_t
event_now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static json_t *
event_json(int64_t id, int64_t time_ms, int sev, const char *source, const char *object,
    const char *message)
{
	return json_pack("{s:I, s:I, s:s, s:s, s:s?, s:s}", "id", (json_int_t)id,
	    "time_ms", (json_int_t)time_ms, "severity", event_severity_name(sev), "source", source,
	    "object", object, "message", message);
}

static void
notify_followers(json_t *ev, enum event_severity sev)
{
	for (struct follower *f = followers; f; f = f->next)
		if (sev >= f->min)
			ctl_reply_stream(f->req, json_incref(ev));
}

/* Ids are handed out here, in order, so that followers see the id the row
 * will have; the first one follows what the table already holds. */
static int64_t
take_id(void)
{
	sqlite3_stmt *s;

	if (next_id == 0 && fabricd && fabricd->store &&
	    (s = store_prepare(fabricd->store, "SELECT COALESCE((SELECT seq FROM "
	    "sqlite_sequence WHERE name = 'events'), (SELECT MAX(id) FROM events), 0)")) != NULL) {
		if (sqlite3_step(s) == SQLITE_ROW)
			next_id = sqlite3_column_int64(s, 0) + 1;
		sqlite3_reset(s);
	}
	if (next_id == 0)
		next_id = 1;
	return next_id++;
}

static void
queued_free(struct queued_event *e)
{
	free(e->source);
	free(e->object);
	free(e->message);
}

static int
insert_one(const struct queued_event *e)
{
	sqlite3_stmt *s = store_prepare(fabricd->store, "INSERT INTO events(id, time_ms, "
	    "severity, source, object, message) VALUES (?, ?, ?, ?, ?, ?)");

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, e->id);
	sqlite3_bind_int64(s, 2, e->time_ms);
	sqlite3_bind_int(s, 3, e->sev);
	sqlite3_bind_text(s, 4, e->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, e->object, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, e->message, -1, SQLITE_STATIC);
	return store_step_done(fabricd->store, s);
}

/* One chunk: up to max_rows rows or budget_us of work, in one transaction. */
static void
flush_chunk(size_t max_rows, int64_t budget_us)
{
	int64_t t0 = clock_mono_us();
	size_t n = 0;
	double ms;

	if (q_head == q_tail || fabricd == NULL || fabricd->store == NULL)
		return;
	store_begin(fabricd->store);
	while (q_head < q_tail && n < max_rows && (n == 0 || clock_mono_us() - t0 < budget_us)) {
		struct queued_event *e = &queue[q_head++];
		if (insert_one(e) != 0)
			log_warnx("event %lld not stored", (long long)e->id);
		queued_free(e);
		n++;
	}
	store_commit(fabricd->store);
	if (q_head == q_tail)
		q_head = q_tail = 0;
	flushed_total += n;
	flush_chunks++;
	ms = (double)(clock_mono_us() - t0) / 1000.0;
	if (ms > flush_max_ms)
		flush_max_ms = ms;
}

static void
flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct timeval now = { 0, 0 };

	(void)fd;
	(void)what;
	(void)arg;
	flush_chunk(FLUSH_ROWS, FLUSH_US);
	if (q_head < q_tail)
		evtimer_add(flush_ev, &now);	/* the rest after whatever else waits */
}

static void
flush_schedule(void)
{
	struct timeval now = { 0, 0 };

	if (flush_ev == NULL && fabricd && fabricd->base)
		flush_ev = evtimer_new(fabricd->base, flush_cb, NULL);
	if (flush_ev == NULL) {
		events_flush_all();		/* no loop (yet): write now */
		return;
	}
	if (!evtimer_pending(flush_ev, NULL))
		evtimer_add(flush_ev, &now);
}

void
events_flush_all(void)
{
	while (q_head < q_tail && fabricd && fabricd->store)
		flush_chunk(SIZE_MAX, INT64_MAX);
}

json_t *
events_status(void)
{
	return json_pack("{s:I, s:I, s:I, s:f}", "queued", (json_int_t)(q_tail - q_head),
	    "stored", (json_int_t)flushed_total, "write_chunks", (json_int_t)flush_chunks,
	    "write_chunk_max_ms", flush_max_ms);
}

static void
enqueue(const struct queued_event *e)
{
	if (q_tail == q_cap) {
		if (q_head > 0) {
			memmove(queue, queue + q_head, (q_tail - q_head) * sizeof(*queue));
			q_tail -= q_head;
			q_head = 0;
		}
		if (q_tail == q_cap) {
			q_cap = q_cap ? q_cap * 2 : 64;
			queue = xreallocarray(queue, q_cap, sizeof(*queue));
		}
	}
	queue[q_tail++] = *e;
}

void
event_post(enum event_severity sev, const char *source, const char *object, const char *fmt, ...)
{
	struct queued_event e = { 0, event_now_ms(), sev, xstrdup(source),
	    object ? xstrdup(object) : NULL, NULL };
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&e.message, fmt, ap) < 0)
		fatal("event_post");
	va_end(ap);
	log_notice("event [%s] %s%s%s: %s", event_severity_name(sev), source,
	    object ? " " : "", object ? object : "", e.message);
	if (fabricd == NULL || fabricd->store == NULL) {
		queued_free(&e);
		return;
	}
	e.id = take_id();
	if (followers) {
		json_t *ev = event_json(e.id, e.time_ms, sev, source, object, e.message);
		notify_followers(ev, sev);
		json_decref(ev);
	}
	enqueue(&e);
	flush_schedule();
}

/* "Z", "+01:00", "-0500" after an ISO 8601 time: tm is in that zone. */
static int
parse_zone(const char *z, struct tm *tm, int64_t *out_ms)
{
	int sign, hh, mm = 0;
	time_t t = timegm(tm);

	if (strcmp(z, "Z") == 0) {
		*out_ms = (int64_t)t * 1000;
		return 0;
	}
	if ((z[0] != '+' && z[0] != '-') || (sscanf(z + 1, "%2d:%2d", &hh, &mm) != 2 &&
	    sscanf(z + 1, "%2d%2d", &hh, &mm) != 2) || hh > 23 || mm > 59 ||
	    strlen(z) != (strchr(z, ':') ? 6u : 5u))
		return -1;
	sign = z[0] == '-' ? -1 : 1;
	*out_ms = ((int64_t)t - sign * (hh * 3600 + mm * 60)) * 1000;
	return 0;
}

/*
 * --since accepts a relative age ("90s", "10m", "2h", "1d"), milliseconds
 * since the epoch, or a local time "YYYY-MM-DD[ HH:MM[:SS]]" (or with T),
 * optionally with its zone (Z, +01:00) as fabricctl prints times.
 */
int
event_parse_since(const char *s, int64_t *out_ms)
{
	struct tm tm = { 0 };
	const char *rest;
	long long v;
	char *end;

	v = strtoll(s, &end, 10);
	if (end != s && v >= 0 && *end == '\0') {
		*out_ms = v;
		return 0;
	}
	if (end != s && v >= 0 && end[1] == '\0') {
		int64_t mult = *end == 's' ? 1000 : *end == 'm' ? 60000 :
		    *end == 'h' ? 3600000 : *end == 'd' ? 86400000 : 0;
		if (mult) {
			*out_ms = event_now_ms() - v * mult;
			return 0;
		}
	}
	rest = strptime(s, "%Y-%m-%d", &tm);
	if (rest && (*rest == ' ' || *rest == 'T'))
		rest = strptime(rest + 1, "%H:%M", &tm);
	if (rest && *rest == ':')
		rest = strptime(rest + 1, "%S", &tm);
	if (rest && *rest != '\0')	/* a zone, as fabricctl prints times */
		return parse_zone(rest, &tm, out_ms);
	if (rest == NULL)
		return -1;
	tm.tm_isdst = -1;
	*out_ms = (int64_t)mktime(&tm) * 1000;
	return 0;
}

static void
follower_gone(struct ctl_req *req, void *arg)
{
	struct follower **pp, *f = arg;

	for (pp = &followers; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	free(f);
	ctl_reply_ok(req, NULL);	/* frees the request; nobody is listening */
}

/* Events not written yet come after every stored one (ids in order). */
static void
append_queued(json_t *rows, int64_t since_ms, enum event_severity min, size_t limit)
{
	for (size_t i = q_head; i < q_tail; i++) {
		const struct queued_event *e = &queue[i];
		if (e->time_ms >= since_ms && e->sev >= min)
			json_array_append_new(rows, event_json(e->id, e->time_ms, e->sev,
			    e->source, e->object, e->message));
	}
	while (json_array_size(rows) > limit)
		json_array_remove(rows, 0);
}

void
ctl_events(struct ctl_req *req, json_t *args)
{
	const char *since = ctl_arg_str(args, "since"), *sevname = ctl_arg_str(args, "severity");
	enum event_severity min = EV_INFO;
	int64_t since_ms = 0;
	long long limit = 1000;
	sqlite3_stmt *s;
	json_t *rows;

	if (since && event_parse_since(since, &since_ms) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "cannot parse --since \"%s\": use "
		    "10m, 2h, 1d, epoch milliseconds or YYYY-MM-DD HH:MM:SS[+HH:MM]", since);
		return;
	}
	if (sevname && event_severity_parse(sevname, &min) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "unknown severity \"%s\": expected "
		    "info, warning, error or critical", sevname);
		return;
	}
	if (json_object_get(args, "limit") && (!ctl_arg_int(args, "limit", &limit) ||
	    limit < 1 || limit > 100000)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--limit must be between 1 and 100000");
		return;
	}
	s = store_prepare(fabricd->store, "SELECT id, time_ms, severity, source, object, message "
	    "FROM (SELECT * FROM events WHERE time_ms >= ? AND severity >= ? "
	    "ORDER BY id DESC LIMIT ?) ORDER BY id");
	if (s == NULL) {
		ctl_reply_error(req, PERR_INTERNAL, "database error");
		return;
	}
	sqlite3_bind_int64(s, 1, since_ms);
	sqlite3_bind_int(s, 2, min);
	sqlite3_bind_int64(s, 3, limit);
	rows = json_array();
	while (sqlite3_step(s) == SQLITE_ROW)
		json_array_append_new(rows, event_json(sqlite3_column_int64(s, 0),
		    sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2),
		    (const char *)sqlite3_column_text(s, 3), (const char *)sqlite3_column_text(s, 4),
		    (const char *)sqlite3_column_text(s, 5)));
	sqlite3_reset(s);
	append_queued(rows, since_ms, min, (size_t)limit);
	if (!ctl_arg_bool(args, "follow")) {
		ctl_reply_ok(req, json_pack("{s:o}", "events", rows));
		return;
	}
	/* Follow: history first as stream items, then live events until the
	 * client hangs up (the final reply is never sent while it listens). */
	struct follower *f = xcalloc(1, sizeof(*f));
	size_t i;
	json_t *ev;

	json_array_foreach(rows, i, ev)
		ctl_reply_stream(req, json_incref(ev));
	json_decref(rows);
	f->req = req;
	f->min = min;
	f->next = followers;
	followers = f;
	ctl_req_on_gone(req, follower_gone, f);
}

/* At shutdown, end every follow stream with a final reply. */
void
events_shutdown(void)
{
	if (flush_ev)
		event_free(flush_ev);
	flush_ev = NULL;
	while (followers) {
		struct follower *f = followers;
		followers = f->next;
		ctl_reply_ok(f->req, json_pack("{s:s}", "end", "daemon shutting down"));
		free(f);
	}
}
