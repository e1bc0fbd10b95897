#include <stdio.h>
#include <time.h>

#include "common/clock.h"

uint64_t
clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t
clock_mono_us(void)
{
	return (int64_t)(clock_mono_ns() / 1000);
}

/* The calling thread's CPU time: what a bounded piece of work has spent of
 * its budget, which a busy machine's other work does not stretch. */
int64_t
clock_thread_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t
clock_mono_ms(void)
{
	return (int64_t)(clock_mono_ns() / 1000000);
}

const char *
clock_duration_text(long long ms, char *buf, size_t len)
{
	long long s = ms / 1000;

	if (ms < 1000)	/* a negative one too: as it is */
		snprintf(buf, len, "%lld ms", ms);
	else if (s < 60)
		snprintf(buf, len, "%.1f s", (double)ms / 1000.0);
	else if (s < 3600)
		snprintf(buf, len, "%lldm %02llds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lldh %02lldm", s / 3600, s / 60 % 60);
	else
		snprintf(buf, len, "%lldd %02lldh", s / 86400, s / 3600 % 24);
	return buf;
}
