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

int64_t
clock_mono_ms(void)
{
	return (int64_t)(clock_mono_ns() / 1000000);
}
