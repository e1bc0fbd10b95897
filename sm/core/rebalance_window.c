/*
 * sm.rebalance_window's text and its occurrences (rebalance_window.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sm/core/rebalance_window.h"

#define DAY_MINUTES	1440
#define EVERY_DAY	0x7f

static const char *const day_names[7] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };

/* A day name at *p (three letters, any case): its tm_wday, or -1. */
static int
day_at(const char **p)
{
	for (int d = 0; d < 7; d++)
		if (strncasecmp(*p, day_names[d], 3) == 0 && !isalpha((unsigned char)(*p)[3])) {
			*p += 3;
			return d;
		}
	return -1;
}

/* "Sat,Sun" or "Mon-Fri" or "Fri-Mon" (a range wraps over the week's end),
 * up to end. */
static bool
days_parse(const char *p, const char *end, uint8_t *days, char *err, size_t len)
{
	*days = 0;
	for (;;) {
		int from = day_at(&p), to;

		if (from < 0)
			break;
		to = from;
		if (*p == '-' && (p++, (to = day_at(&p)) < 0))
			break;
		for (int d = from;; d = (d + 1) % 7) {
			*days |= (uint8_t)(1u << d);
			if (d == to)
				break;
		}
		if (p == end)
			return true;
		if (*p++ != ',')
			break;
	}
	snprintf(err, len, "expected days such as \"Sat,Sun\" or \"Mon-Fri\" (Sun Mon Tue Wed Thu "
	    "Fri Sat) before the times");
	return false;
}

/* "HH:MM" at *p, 00:00..23:59, or 24:00 where allowed (an end). */
static bool
clock_at(const char **p, bool end, uint16_t *min)
{
	unsigned h, m;
	int n = 0;

	if (!isdigit((unsigned char)**p) || sscanf(*p, "%2u:%2u%n", &h, &m, &n) != 2 || n < 4)
		return false;
	if (m > 59 || h > 24 || (h == 24 && (!end || m != 0)))
		return false;
	*p += n;
	*min = (uint16_t)(h * 60 + m);
	return true;
}

bool
rebalance_window_parse(const char *s, struct rebalance_window *w, char *err, size_t len)
{
	const char *space = strrchr(s, ' '), *p = space ? space + 1 : s;

	memset(w, 0, sizeof(*w));
	if (strlen(s) >= sizeof(w->text)) {
		snprintf(err, len, "at most %d characters", REBALANCE_WINDOW_TEXT - 1);
		return false;
	}
	w->days = EVERY_DAY;
	if (space && !days_parse(s, space, &w->days, err, len))
		return false;
	if (!clock_at(&p, false, &w->start_min) || *p++ != '-' ||
	    !clock_at(&p, true, &w->end_min) || *p != '\0') {
		snprintf(err, len, "expected \"[DAYS ]HH:MM-HH:MM\" (local time), such as "
		    "\"Sat,Sun 02:00-04:00\" or \"02:00-04:00\" (every day)");
		return false;
	}
	if (w->start_min == w->end_min) {
		snprintf(err, len, "the window starts and ends at the same time: it would be empty");
		return false;
	}
	snprintf(w->text, sizeof(w->text), "%s", s);
	w->set = true;
	return true;
}

/* Days from 1970-01-01 to the civil date (H. Hinnant's days_from_civil):
 * no time zone and no clock, only the calendar. */
static int64_t
day_number(int64_t y, unsigned mon, unsigned mday)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= mon <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (mon > 2 ? mon - 3 : mon + 9) + 2) / 5 + mday - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static bool
starts_on(const struct rebalance_window *w, int wday)
{
	return w->days & (1u << ((wday + 7) % 7));
}

int64_t
rebalance_window_occurrence(const struct rebalance_window *w, const struct tm *t)
{
	int64_t today = day_number((int64_t)t->tm_year + 1900, (unsigned)t->tm_mon + 1,
	    (unsigned)t->tm_mday);
	unsigned now = (unsigned)(t->tm_hour * 60 + t->tm_min);

	if (w == NULL || !w->set)
		return -1;
	if (w->start_min < w->end_min)
		return now >= w->start_min && now < w->end_min && starts_on(w, t->tm_wday) ?
		    today : -1;
	/* past midnight: the evening part is today's, the morning yesterday's */
	if (now >= w->start_min && starts_on(w, t->tm_wday))
		return today;
	if (now < w->end_min && starts_on(w, t->tm_wday - 1))
		return today - 1;
	return -1;
}
