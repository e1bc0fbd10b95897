/*
 * sm.rebalance_window: the maintenance window in which the SM may undo the
 * drift repairs leave (one `routing rebalance` per occurrence).  Pure: the
 * text parsed, and a broken-down local time placed in an occurrence; the
 * clock is the caller's (rebalance_sched.c), so a unit test gives its own.
 */
#ifndef FABRICD_SM_REBALANCE_WINDOW_H
#define FABRICD_SM_REBALANCE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define REBALANCE_WINDOW_TEXT	48

/* "Sat,Sun 02:00-04:00", "Mon-Fri 22:00-01:00" or "02:00-04:00" (every
 * day).  A window whose end is not after its start runs past midnight and
 * belongs to the day it starts on. */
struct rebalance_window {
	bool		 set;		/* unset: no automatic rebalance */
	uint8_t		 days;		/* bit tm_wday (0: Sunday) per day it starts on */
	uint16_t	 start_min;	/* minutes after local midnight */
	uint16_t	 end_min;	/* 1..1440 */
	char		 text[REBALANCE_WINDOW_TEXT];	/* as written, for events */
};

/* Parse s into *w; false with a sentence in err (no position: the caller
 * knows where s came from). */
bool rebalance_window_parse(const char *s, struct rebalance_window *w, char *err, size_t len);

/* The occurrence of w that local time t falls in, as the number of days
 * from 1970-01-01 to the day it started; -1 when t is outside every one
 * (or w is unset).  Only t's date, weekday, hour and minute are read. */
int64_t rebalance_window_occurrence(const struct rebalance_window *w, const struct tm *t);

#endif
