/* The loop's heartbeat: see loopstat.h. */
#include <stdint.h>
#include <time.h>

#include "common/clock.h"
#include "daemon/control_conn.h"
#include "daemon/loopstat.h"

#define RECENT_MS	60000

static struct event *beat;
static int64_t due_us;
static double max_lag_ms, recent_max_ms, prev_recent_ms;
static int64_t recent_start_us;
static uint64_t over_10ms;

static void
arm(void)
{
	struct timeval tv = { 0, LOOPSTAT_BEAT_MS * 1000 };

	due_us = clock_mono_us() + LOOPSTAT_BEAT_MS * 1000;
	evtimer_add(beat, &tv);
}

static void
on_beat(evutil_socket_t fd, short what, void *arg)
{
	int64_t now = clock_mono_us();
	double lag = now > due_us ? (double)(now - due_us) / 1000.0 : 0;

	(void)fd;
	(void)what;
	(void)arg;
	if (now - recent_start_us >= RECENT_MS * 1000) {
		/* Two windows, so the last minute never reads as empty. */
		prev_recent_ms = recent_max_ms;
		recent_max_ms = 0;
		recent_start_us = now;
	}
	if (lag > max_lag_ms)
		max_lag_ms = lag;
	if (lag > recent_max_ms)
		recent_max_ms = lag;
	if (lag > 10)
		over_10ms++;
	arm();
}

int
loopstat_start(struct event_base *base)
{
	if ((beat = evtimer_new(base, on_beat, NULL)) == NULL ||
	    event_priority_set(beat, CTL_PRIO_ADMIN) != 0)
		return -1;
	recent_start_us = clock_mono_us();
	arm();
	return 0;
}

void
loopstat_stop(void)
{
	if (beat)
		event_free(beat);
	beat = NULL;
}

double
loopstat_max_lag_ms(void)
{
	return max_lag_ms;
}

json_t *
loopstat_status(void)
{
	double recent = recent_max_ms > prev_recent_ms ? recent_max_ms : prev_recent_ms;

	return json_pack("{s:i, s:f, s:f, s:I}", "heartbeat_ms", LOOPSTAT_BEAT_MS,
	    "max_lag_ms", max_lag_ms, "recent_max_lag_ms", recent,
	    "lags_over_10ms", (json_int_t)over_10ms);
}
