/*
 * The monotonic clock: what a slice of work, a deadline or a timer's
 * lateness is measured by (the wall clock jumps; this does not), and the
 * one conversion of a duration to the struct timeval libevent takes.
 */
#ifndef FABRICD_CLOCK_H
#define FABRICD_CLOCK_H

#include <stdint.h>
#include <sys/time.h>

int64_t clock_mono_us(void);
int64_t clock_mono_ms(void);
uint64_t clock_mono_ns(void);
int64_t clock_thread_cpu_us(void);	/* the calling thread's CPU time */

/* A duration for people (docs/cli.md): "350 ms", "4.2 s", "4m 05s",
 * "3h 07m", "2d 05h"; the daemon's messages and fabricctl's tables. */
#include <stddef.h>
const char *clock_duration_text(long long ms, char *buf, size_t len);

/* A duration in milliseconds (or microseconds) as a struct timeval. */
static inline struct timeval
clock_tv_ms(uint64_t ms)
{
	return (struct timeval){ (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
}

static inline struct timeval
clock_tv_us(uint64_t us)
{
	return (struct timeval){ (time_t)(us / 1000000), (suseconds_t)(us % 1000000) };
}

#endif
