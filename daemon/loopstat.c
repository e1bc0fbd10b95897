/* The loop's heartbeat: see loopstat.h. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "daemon/control_conn.h"
#include "daemon/loopstat.h"

#define RECENT_MS	60000

static struct event *beat;
static int64_t due_us;
/* One figure's record: its maximum, over the last two minute windows (so
 * that the last minute never reads as empty), and its count over 10 ms. */
struct lag_record {
	double		 max_ms, recent_ms, prev_recent_ms;
	uint64_t	 over_10ms;
};
static struct lag_record wall, unwaited_rec, own_rec;
/* The CPU time the loop thread ran between two beats (its thread CPU
 * clock), and how many such spans took more than each of beat_bounds ms
 * (a test counts them before and after what it gates: a longer one
 * before, bring-up's, does not blind it). */
static struct lag_record beat_cpu;
static uint64_t beats;
static int64_t prev_cpu_ns;
static const unsigned beat_bounds[] = { 2, 5, 10, 20, 40, 80 };
#define NBOUNDS (sizeof(beat_bounds) / sizeof(beat_bounds[0]))
static uint64_t beats_over[NBOUNDS];
static int64_t recent_start_us;
/* The loop thread's times from /proc/thread-self/schedstat (ns): on a
 * CPU (first field) and waiting for one (second).  A lag while waiting is
 * the machine's load; a lag the thread did not spend on a CPU either is a
 * wait in a system call (the disk, a lock) or the machine's own stall (a
 * virtual CPU woken late: an idle thread doing 10 ms sleeps saw 6-11 ms
 * lags with 0.1 ms on a CPU, here). */
static int schedstat_fd = -1;
static int64_t prev_run_ns, prev_wait_ns;

static bool
sched_times(int64_t *run_ns, int64_t *wait_ns)
{
	char buf[96];
	long long run, wait;
	ssize_t n;

	if (schedstat_fd < 0 || (n = pread(schedstat_fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &run, &wait) != 2)
		return false;
	*run_ns = run;
	*wait_ns = wait;
	return true;
}

/* The lag less the CPU wait since the previous beat (*unwaited), and the
 * part of that the loop thread spent on a CPU (*own): a step of fabricd's
 * own runs on it.  Without the kernel's figures both are the lag. */
static void
split_lag(double lag, double *unwaited, double *own)
{
	int64_t run, wait;
	double waited, ran;

	*unwaited = *own = lag;
	if (!sched_times(&run, &wait))
		return;
	waited = (double)(wait - prev_wait_ns) / 1e6;
	ran = (double)(run - prev_run_ns) / 1e6;
	prev_run_ns = run;
	prev_wait_ns = wait;
	*unwaited = lag > waited ? lag - waited : 0;
	*own = *unwaited < ran ? *unwaited : ran;
}

static void
lag_note(struct lag_record *r, double ms, bool new_window)
{
	if (new_window) {
		r->prev_recent_ms = r->recent_ms;
		r->recent_ms = 0;
	}
	if (ms > r->max_ms)
		r->max_ms = ms;
	if (ms > r->recent_ms)
		r->recent_ms = ms;
	if (ms > 10)
		r->over_10ms++;
}

static double
lag_recent(const struct lag_record *r)
{
	return r->recent_ms > r->prev_recent_ms ? r->recent_ms : r->prev_recent_ms;
}

static int64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The span since the previous beat: what the loop's callbacks ran.  The
 * first is the daemon's start-up (the modules start before the loop
 * turns, up to 16 ms here, reading tools and files): not a step of the
 * loop, and not counted. */
static void
beat_cpu_note(bool new_window)
{
	int64_t now = thread_cpu_ns(), cpu = now - prev_cpu_ns;

	prev_cpu_ns = now;
	if (beats++ == 0)	/* the modules' start, before the loop turned */
		return;
	lag_note(&beat_cpu, (double)cpu / 1e6, new_window);
	for (size_t i = 0; i < NBOUNDS && cpu > (int64_t)beat_bounds[i] * 1000000; i++)
		beats_over[i]++;
}

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
	bool new_window = now - recent_start_us >= RECENT_MS * 1000;
	double unwaited, own;

	(void)fd;
	(void)what;
	(void)arg;
	if (new_window)
		recent_start_us = now;
	split_lag(lag, &unwaited, &own);
	lag_note(&wall, lag, new_window);
	lag_note(&unwaited_rec, unwaited, new_window);
	lag_note(&own_rec, own, new_window);
	beat_cpu_note(new_window);
	arm();
}

int
loopstat_start(struct event_base *base)
{
	if ((beat = evtimer_new(base, on_beat, NULL)) == NULL ||
	    event_priority_set(beat, CTL_PRIO_ADMIN) != 0)
		return -1;
	recent_start_us = clock_mono_us();
	prev_cpu_ns = thread_cpu_ns();
	schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (!sched_times(&prev_run_ns, &prev_wait_ns))
		prev_run_ns = prev_wait_ns = 0;
	arm();
	return 0;
}

void
loopstat_stop(void)
{
	if (beat)
		event_free(beat);
	beat = NULL;
	if (schedstat_fd >= 0)
		close(schedstat_fd);
	schedstat_fd = -1;
}

double
loopstat_max_lag_ms(void)
{
	return wall.max_ms;
}

json_t *
loopstat_status(void)
{
	json_t *over = json_object(), *st;
	char key[8];

	for (size_t i = 0; i < NBOUNDS; i++) {
		snprintf(key, sizeof(key), "%u", beat_bounds[i]);
		json_object_set_new(over, key, json_integer((json_int_t)beats_over[i]));
	}
	st = json_pack("{s:i, s:f, s:f, s:I, s:f, s:I, s:f, s:f, s:I, s:b, s:I, s:f, s:f, s:I}",
	    "heartbeat_ms", LOOPSTAT_BEAT_MS,
	    "max_lag_ms", wall.max_ms, "recent_max_lag_ms", lag_recent(&wall),
	    "lags_over_10ms", (json_int_t)wall.over_10ms,
	    "max_unwaited_lag_ms", unwaited_rec.max_ms,
	    "unwaited_lags_over_10ms", (json_int_t)unwaited_rec.over_10ms,
	    "max_own_lag_ms", own_rec.max_ms, "recent_max_own_lag_ms", lag_recent(&own_rec),
	    "own_lags_over_10ms", (json_int_t)own_rec.over_10ms, "cpu_wait_known", schedstat_fd >= 0,
	    "beats", (json_int_t)beats, "max_beat_cpu_ms", beat_cpu.max_ms,
	    "recent_max_beat_cpu_ms", lag_recent(&beat_cpu),
	    "beats_cpu_over_10ms", (json_int_t)beat_cpu.over_10ms);
	if (st)
		json_object_set_new(st, "beats_cpu_over_ms", over);
	else
		json_decref(over);
	return st;
}
