/*
 * How long the event loop is held by one step.  A heartbeat timer of the
 * highest priority is due every LOOPSTAT_BEAT_MS; whatever runs when it
 * falls due delays it, so its lateness is how long the loop was held: a
 * step of D ms shows as a lag between D - LOOPSTAT_BEAT_MS and D.  The
 * figures are in `status` (loop) and in the metrics.  A lag is also the
 * machine's load: a loop thread waiting for a CPU is late too.  So the
 * kernel's count of that wait (/proc/thread-self/schedstat) is taken off
 * each lag ("unwaited": a step blocked in I/O or on a lock still counts),
 * and the "own" figures keep of that only the time the loop thread ran on
 * a CPU meanwhile: how long fabricd's own work held the loop, apart from
 * a virtual machine that woke the idle thread late (a thread doing only
 * 10 ms sleeps saw 6-11 ms lags on this project's test machines).
 *
 * Those are lags: what a client waits, partly the machine's load.  What
 * fabricd's own work costs is read apart from the loop thread's CPU clock
 * at each beat: the CPU time its callbacks ran since the previous one (a
 * thread waiting for a CPU or the disk spends none).  Callbacks of
 * ordinary priority run one per pass of the loop, each pass looks at the
 * timers, so a span holds one long callback and what ran in the 10 ms
 * before: a loop busy with short ones reads 10-11 ms, one callback of D
 * ms up to D + 10.  The tests gate that figure (tests/lib/common.sh
 * loop_gate), not the lags.
 */
#ifndef FABRICD_LOOPSTAT_H
#define FABRICD_LOOPSTAT_H

#include <event2/event.h>
#include <jansson.h>

#define LOOPSTAT_BEAT_MS	10

int loopstat_start(struct event_base *base);
void loopstat_stop(void);
/* {heartbeat_ms, max_lag_ms, recent_max_lag_ms (last minute), lags_over_10ms,
 *  max_unwaited_lag_ms, unwaited_lags_over_10ms, max_own_lag_ms, recent_max_own_lag_ms, own_lags_over_10ms, cpu_wait_known,
 *  beats, max_beat_cpu_ms, recent_max_beat_cpu_ms, beats_cpu_over_10ms,
 *  beats_cpu_over_ms: {"2": n, "5": n, "10", "20", "40", "80"}} */
json_t *loopstat_status(void);
double loopstat_max_lag_ms(void);

#endif
