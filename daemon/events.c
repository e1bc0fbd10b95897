/*
 * The event log: written to sqlite, pushed live to `events --follow`
 * clients.  A failure to store an event is logged and otherwise ignored:
 * losing a history row must never stop the fabric work that caused it.
 *
 * event_post() never writes: it gives the event its id, tells the
 * followers, adds its row to the pending batch and keeps it in memory; a
 * timer hands the batch to the store's writer thread (store_writer.h),
 * at once when it holds BATCH_ROWS rows, so that a storm of events costs
 * the loop a few appends per event and never a wait for the disk, and the
 * writer's transactions stay short beside the loop's own.  An event stays
 * in memory until its batch is written, so `events` answers with it
 * meanwhile.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <event2/event.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "daemon/store.h"
#include "daemon/store_writer.h"

static const char *const severity_names[] = { "info", "warning", "error", "critical" };

struct follower {
	struct ctl_req		*req;
	enum event_severity	 min;
	struct follower		*next;
};
static struct follower *followers;
static int nfollowers;		/* live ones: status shows it, a test waits on it */

#define BATCH_ROWS	256

struct queued_event {
	int64_t			 id, time_ms;
	enum event_severity	 sev;
	char			*source, *object, *message;
	uint64_t		 batch;		/* its batch's number; 0: not handed over */
};

static struct queued_event *queue;	/* not known to be written yet */
static size_t q_head, q_tail, q_cap;
static struct store_batch *pending;	/* rows of the events not handed over */
static size_t pending_rows;
static int64_t next_id;			/* 0: not read from the store yet */
static struct event *flush_ev;
static struct event_base *ev_base;	/* events_attach: where rows go, and the */
static struct store *ev_store;		/* loop that hands them over */
static uint64_t posted_total, handed_batches;

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

	if (next_id == 0 && ev_store &&
	    (s = store_prepare(ev_store, "SELECT COALESCE((SELECT seq FROM "
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

static void
add_row(const struct queued_event *e)
{
	if (pending == NULL)
		pending = store_batch_new();
	store_batch_sql(pending, "INSERT INTO events(id, time_ms, severity, source, object, "
	    "message) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
	store_batch_int(pending, e->id);
	store_batch_int(pending, e->time_ms);
	store_batch_int(pending, e->sev);
	store_batch_text(pending, e->source);
	store_batch_text(pending, e->object);
	store_batch_text(pending, e->message);
	pending_rows++;
}

/* Forget the events whose batch is written: the table has them now. */
static void
forget_written(void)
{
	uint64_t written;

	if (q_head == q_tail || ev_store == NULL)
		return;
	written = store_written(ev_store);
	while (q_head < q_tail && queue[q_head].batch != 0 && queue[q_head].batch <= written)
		queued_free(&queue[q_head++]);
	if (q_head == q_tail)
		q_head = q_tail = 0;
}

/* The pending rows to the writer thread, in one batch. */
static void
hand_over(void)
{
	uint64_t seq;

	if (pending == NULL || ev_store == NULL)
		return;
	seq = store_write_later(ev_store, pending);
	pending = NULL;
	pending_rows = 0;
	handed_batches++;
	for (size_t i = q_tail; i > q_head && queue[i - 1].batch == 0; i--)
		queue[i - 1].batch = seq;
	forget_written();
}

static void
flush_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	hand_over();
}

static void
flush_schedule(void)
{
	struct timeval now = { 0, 0 };

	if (flush_ev == NULL && ev_base)
		flush_ev = evtimer_new(ev_base, flush_cb, NULL);
	if (flush_ev == NULL || pending_rows >= BATCH_ROWS) {
		hand_over();			/* no loop (yet), or a full batch */
		return;
	}
	if (!evtimer_pending(flush_ev, NULL))
		evtimer_add(flush_ev, &now);
}

void
events_attach(struct event_base *base, struct store *store)
{
	if (base != ev_base && flush_ev != NULL) {
		event_free(flush_ev);		/* a timer of the old loop */
		flush_ev = NULL;
	}
	ev_base = base;
	ev_store = store;
}

void
events_flush_all(void)
{
	hand_over();
	if (ev_store) {
		store_write_wait(ev_store);
		forget_written();
	}
}

json_t *
events_status(void)
{
	forget_written();
	return json_pack("{s:I, s:I, s:I, s:i}", "unwritten", (json_int_t)(q_tail - q_head),
	    "posted", (json_int_t)posted_total, "batches", (json_int_t)handed_batches,
	    "followers", nfollowers);
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
	    object ? xstrdup(object) : NULL, NULL, 0 };
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&e.message, fmt, ap) < 0)
		fatal("event_post");
	va_end(ap);
	log_notice("event [%s] %s%s%s: %s", event_severity_name(sev), source,
	    object ? " " : "", object ? object : "", e.message);
	if (ev_store == NULL) {
		queued_free(&e);
		return;
	}
	e.id = take_id();
	posted_total++;
	if (followers) {
		json_t *ev = event_json(e.id, e.time_ms, sev, source, object, e.message);
		notify_followers(ev, sev);
		json_decref(ev);
	}
	add_row(&e);
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
			nfollowers--;
			break;
		}
	}
	free(f);
	ctl_reply_ok(req, NULL);	/* frees the request; nobody is listening */
}

/*
 * `events` answers in pages of PAGE_EVENTS rows (schemas/protocol.md,
 * "Paged replies"; the cursor is the last row's id, 20 digits, so that
 * byte order is id order), and `--follow` sends its history a page a turn:
 * 100,000 rows in one reply held the loop for a long step.  The first page
 * finds where the newest --limit rows start; the pages after it go on from
 * their cursor (the limit is not looked at again), to the newest event.
 */
#define PAGE_EVENTS	512
#define CURSOR_DIGITS	20

struct ev_filter {
	int64_t			 since_ms;
	enum event_severity	 min;
};

static bool
passes(const struct ev_filter *f, int64_t time_ms, enum event_severity sev)
{
	return time_ms >= f->since_ms && sev >= f->min;
}

static int64_t
max_stored_id(void)
{
	sqlite3_stmt *s = store_prepare(ev_store, "SELECT COALESCE(MAX(id), 0) FROM events");
	int64_t id = 0;

	if (s && sqlite3_step(s) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	if (s)
		sqlite3_reset(s);
	return id;
}

int64_t
events_recall_node(const char *desc, const char *message)
{
	/* a bounded scan from the newest: an error path, never a long one */
	sqlite3_stmt *s = ev_store ? store_prepare(ev_store, "SELECT time_ms FROM events WHERE "
	    "id > (SELECT COALESCE(MAX(id), 0) FROM events) - ?3 AND message = ?2 AND "
	    "substr(object, 1, length(?1) + 2) = ?1 || ' (' ORDER BY id DESC LIMIT 1") : NULL;
	int64_t t = 0;

	if (s == NULL)
		return 0;
	sqlite3_bind_text(s, 1, desc, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, message, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, EVENTS_RECALL_ROWS);
	if (sqlite3_step(s) == SQLITE_ROW)
		t = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return t;
}

/* At most n rows after id `after` that pass f, in id order: the stored
 * ones, then those only in memory (one written since the table was read
 * is among the rows already).  NULL on a database error. */
static json_t *
rows_after(const struct ev_filter *f, int64_t after, size_t n)
{
	sqlite3_stmt *s = store_prepare(ev_store, "SELECT id, time_ms, severity, source, "
	    "object, message FROM events WHERE id > ? AND time_ms >= ? AND severity >= ? "
	    "ORDER BY id LIMIT ?");
	json_t *rows, *last;
	int64_t top;

	if (s == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, after);
	sqlite3_bind_int64(s, 2, f->since_ms);
	sqlite3_bind_int(s, 3, f->min);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)n);
	rows = json_array();
	while (sqlite3_step(s) == SQLITE_ROW)
		json_array_append_new(rows, event_json(sqlite3_column_int64(s, 0),
		    sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2),
		    (const char *)sqlite3_column_text(s, 3), (const char *)sqlite3_column_text(s, 4),
		    (const char *)sqlite3_column_text(s, 5)));
	sqlite3_reset(s);
	last = json_array_get(rows, json_array_size(rows) - 1);
	top = last ? json_integer_value(json_object_get(last, "id")) : after;
	for (size_t i = q_head; i < q_tail && json_array_size(rows) < n; i++) {
		const struct queued_event *e = &queue[i];
		if (e->id > top && passes(f, e->time_ms, e->sev))
			json_array_append_new(rows, event_json(e->id, e->time_ms, e->sev,
			    e->source, e->object, e->message));
	}
	return rows;
}

static int64_t
last_id(json_t *rows, int64_t otherwise)
{
	json_t *last = json_array_get(rows, json_array_size(rows) - 1);

	return last ? json_integer_value(json_object_get(last, "id")) : otherwise;
}

/* args.after: 1 with *after set, 0 when absent, -1 when malformed. */
static int
parse_cursor(json_t *args, int64_t *after)
{
	const char *c = ctl_arg_str(args, "after");
	char *end;

	if (c == NULL)
		return 0;
	if (strlen(c) != CURSOR_DIGITS || strspn(c, "0123456789") != CURSOR_DIGITS)
		return -1;
	*after = strtoll(c, &end, 10);
	return *end == '\0' && *after >= 0 ? 1 : -1;
}

/* --follow's history, a page a turn, then the live events. */
struct history {
	struct ctl_req		*req;
	struct ev_filter	 f;
	int64_t			 after;
	struct event		*ev;
};

static void
follow_live(struct ctl_req *req, enum event_severity min)
{
	struct follower *f = xcalloc(1, sizeof(*f));

	f->req = req;
	f->min = min;
	f->next = followers;
	followers = f;
	nfollowers++;
	ctl_req_on_gone(req, follower_gone, f);
}

static void
history_page(evutil_socket_t fd, short what, void *arg)
{
	struct history *h = arg;
	struct timeval zero = { 0, 0 };
	json_t *rows, *ev;
	size_t i, n;

	(void)fd;
	(void)what;
	if (ctl_req_gone(h->req)) {
		ctl_reply_ok(h->req, NULL);	/* frees the request; nobody listens */
		goto done;
	}
	if ((rows = rows_after(&h->f, h->after, PAGE_EVENTS)) == NULL) {
		ctl_reply_error(h->req, PERR_INTERNAL, "database error");
		goto done;
	}
	n = json_array_size(rows);
	h->after = last_id(rows, h->after);
	json_array_foreach(rows, i, ev)
		ctl_reply_stream(h->req, json_incref(ev));
	json_decref(rows);
	if (n == PAGE_EVENTS) {
		evtimer_add(h->ev, &zero);
		return;
	}
	/* caught up on this turn: every later event reaches the follower */
	follow_live(h->req, h->f.min);
done:
	event_free(h->ev);
	free(h);
}

static void
follow(struct ctl_req *req, const struct ev_filter *f, int64_t after, bool history)
{
	struct history *h;

	if (!history || ev_base == NULL) {
		follow_live(req, f->min);
		return;
	}
	h = xcalloc(1, sizeof(*h));
	h->req = req;
	h->f = *f;
	h->after = after;
	if ((h->ev = evtimer_new(ev_base, history_page, h)) == NULL) {
		free(h);
		follow_live(req, f->min);
		return;
	}
	history_page(-1, 0, h);
}

/*
 * Where the newest --limit rows start, found backwards a chunk of rows a
 * turn: sqlite steps over an OFFSET row by row, and 100,000 of them were a
 * 10-20 ms step.  The events only in memory are the newest; then the
 * table's, WINDOW_CHUNK at a time.
 */
#define WINDOW_CHUNK	4096

struct window {
	struct ctl_req		*req;
	struct ev_filter	 f;
	long long		 left;		/* rows still to step over */
	int64_t			 below;		/* the oldest id counted so far */
	bool			 follow;
	struct event		*ev;
};

static void
first_page(struct ctl_req *req, const struct ev_filter *f, int64_t after)
{
	char cursor[CURSOR_DIGITS + 1];
	json_t *rows, *res;

	if ((rows = rows_after(f, after, PAGE_EVENTS)) == NULL) {
		ctl_reply_error(req, PERR_INTERNAL, "database error");
		return;
	}
	res = json_pack("{s:o}", "events", rows);
	if (json_array_size(rows) == PAGE_EVENTS) {
		snprintf(cursor, sizeof(cursor), "%0*lld", CURSOR_DIGITS,
		    (long long)last_id(rows, after));
		json_object_set_new(res, "next", json_string(cursor));
	}
	ctl_reply_ok(req, res);
}

static void
window_found(struct window *w, int64_t after)
{
	if (w->follow)
		follow(w->req, &w->f, after, true);
	else
		first_page(w->req, &w->f, after);
	if (w->ev)
		event_free(w->ev);
	free(w);
}

/* One chunk: true when the start is found (answered). */
static bool
window_step(struct window *w)
{
	sqlite3_stmt *s = store_prepare(ev_store, "SELECT id FROM events WHERE id < ? AND "
	    "time_ms >= ? AND severity >= ? ORDER BY id DESC LIMIT 1 OFFSET ?");
	long long chunk = w->left < WINDOW_CHUNK ? w->left : WINDOW_CHUNK;
	bool found = false;

	if (s == NULL) {
		window_found(w, 0);
		return true;
	}
	sqlite3_bind_int64(s, 1, w->below);
	sqlite3_bind_int64(s, 2, w->f.since_ms);
	sqlite3_bind_int(s, 3, w->f.min);
	sqlite3_bind_int64(s, 4, chunk - 1);
	if (sqlite3_step(s) == SQLITE_ROW) {
		w->below = sqlite3_column_int64(s, 0);
		w->left -= chunk;
		found = true;
	}
	sqlite3_reset(s);
	if (!found) {
		window_found(w, 0);		/* fewer rows than asked: all of them */
		return true;
	}
	if (w->left == 0) {
		window_found(w, w->below - 1);
		return true;
	}
	return false;
}

static void
window_turn(evutil_socket_t fd, short what, void *arg)
{
	struct window *w = arg;
	struct timeval zero = { 0, 0 };

	(void)fd;
	(void)what;
	if (ctl_req_gone(w->req)) {
		ctl_reply_ok(w->req, NULL);	/* frees the request; nobody listens */
		event_free(w->ev);
		free(w);
		return;
	}
	if (!window_step(w))
		evtimer_add(w->ev, &zero);
}

static void
window_start(struct ctl_req *req, const struct ev_filter *f, long long limit, bool follow_after)
{
	struct window *w = xcalloc(1, sizeof(*w));
	struct timeval zero = { 0, 0 };
	int64_t stored = max_stored_id();
	long long unwritten = 0;

	w->req = req;
	w->f = *f;
	w->follow = follow_after;
	for (size_t i = q_head; i < q_tail; i++)
		unwritten += queue[i].id > stored && passes(f, queue[i].time_ms, queue[i].sev);
	if (unwritten >= limit) {
		for (size_t i = q_head; i < q_tail; i++)
			if (queue[i].id > stored && passes(f, queue[i].time_ms, queue[i].sev) &&
			    unwritten-- == limit) {
				window_found(w, queue[i].id - 1);
				return;
			}
	}
	w->left = limit - unwritten;
	w->below = stored + 1;
	if (window_step(w))
		return;
	if (ev_base == NULL || (w->ev = evtimer_new(ev_base, window_turn, w)) == NULL) {
		while (!window_step(w))
			;
		return;
	}
	evtimer_add(w->ev, &zero);
}

void
ctl_events(struct ctl_req *req, json_t *args)
{
	const char *since = ctl_arg_str(args, "since"), *sevname = ctl_arg_str(args, "severity");
	struct ev_filter f = { 0, EV_INFO };
	long long limit = 1000;
	int64_t after = 0;
	int paged;

	if (since && event_parse_since(since, &f.since_ms) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "cannot parse --since \"%s\": use "
		    "10m, 2h, 1d, epoch milliseconds or YYYY-MM-DD HH:MM:SS[+HH:MM]", since);
		return;
	}
	if (sevname && event_severity_parse(sevname, &f.min) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "unknown severity \"%s\": expected "
		    "info, warning, error or critical", sevname);
		return;
	}
	if (json_object_get(args, "limit") && (!ctl_arg_int(args, "limit", &limit) ||
	    limit < 1 || limit > 100000)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--limit must be between 1 and 100000");
		return;
	}
	if ((paged = parse_cursor(args, &after)) < 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "after: expected the \"next\" of the "
		    "page before (%d digits)", CURSOR_DIGITS);
		return;
	}
	if (ctl_arg_bool(args, "follow")) {
		/* from now on; with --since or --limit, that history first */
		if (since || json_object_get(args, "limit"))
			window_start(req, &f, limit, true);
		else
			follow(req, &f, 0, false);
		return;
	}
	if (paged)
		first_page(req, &f, after);
	else
		window_start(req, &f, limit, false);
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
