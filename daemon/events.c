/*
 * The event log: written to sqlite, pushed live to `events --follow`
 * clients.  A failure to store an event is logged and otherwise ignored:
 * losing a history row must never stop the fabric work that caused it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

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

void
event_post(enum event_severity sev, const char *source, const char *object, const char *fmt, ...)
{
	int64_t now = event_now_ms(), id = 0;
	sqlite3_stmt *s;
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		fatal("event_post");
	va_end(ap);
	log_notice("event [%s] %s%s%s: %s", event_severity_name(sev), source,
	    object ? " " : "", object ? object : "", msg);
	if (fabricd && fabricd->store &&
	    (s = store_prepare(fabricd->store, "INSERT INTO events(time_ms, severity, source, "
	    "object, message) VALUES (?, ?, ?, ?, ?)")) != NULL) {
		sqlite3_bind_int64(s, 1, now);
		sqlite3_bind_int(s, 2, sev);
		sqlite3_bind_text(s, 3, source, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, object, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, msg, -1, SQLITE_STATIC);
		if (store_step_done(fabricd->store, s) == 0)
			id = sqlite3_last_insert_rowid(store_db(fabricd->store));
	}
	if (followers) {
		json_t *ev = event_json(id, now, sev, source, object, msg);
		notify_followers(ev, sev);
		json_decref(ev);
	}
	free(msg);
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
	while (followers) {
		struct follower *f = followers;
		followers = f->next;
		ctl_reply_ok(f->req, json_pack("{s:s}", "end", "daemon shutting down"));
		free(f);
	}
}
