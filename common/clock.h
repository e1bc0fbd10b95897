/*
 * The monotonic clock in microseconds: what a slice of work or a timer's
 * lateness is measured by (the wall clock jumps; this does not).
 */
#ifndef FABRICD_CLOCK_H
#define FABRICD_CLOCK_H

#include <stdint.h>

int64_t clock_mono_us(void);

#endif
