/*
 * Port counters: raw PerfMgt readings turned into 64-bit totals.
 *
 * The hardware counters are 4 to 64 bits wide, they saturate instead of
 * wrapping, and anyone may clear them (perfquery -R, another PerfMgr).  A
 * reading below the previous one is therefore a reset, never a wrap: the
 * counts since the reset are added, so a reset never looks like a spike.
 * A counter at its maximum has lost counts; one close to it is cleared
 * with a PortCounters Set before it saturates (hc_clear_mask()).
 */
#ifndef FABRICD_HEALTH_COUNTERS_H
#define FABRICD_HEALTH_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

enum hc_counter {
	HC_SYMBOL_ERRORS,
	HC_LINK_RECOVERIES,
	HC_LINK_DOWNED,
	HC_RCV_ERRORS,
	HC_RCV_REMOTE_PHYS_ERRORS,
	HC_RCV_SWITCH_RELAY_ERRORS,
	HC_XMIT_DISCARDS,
	HC_XMIT_CONSTRAINT_ERRORS,
	HC_RCV_CONSTRAINT_ERRORS,
	HC_LOCAL_LINK_INTEGRITY_ERRORS,
	HC_EXCESSIVE_BUFFER_OVERRUNS,
	HC_VL15_DROPPED,
	HC_XMIT_WAIT,
	HC_XMIT_DATA,		/* 4-byte words */
	HC_RCV_DATA,
	HC_XMIT_PKTS,
	HC_RCV_PKTS,
	HC_COUNT
};

/* The first counter that only PortCountersExtended carries 64 bits wide. */
#define HC_FIRST_TRAFFIC	HC_XMIT_DATA

struct hc_info {
	const char	*perfquery;	/* perfquery's / ibsim's field name */
	const char	*metric;	/* snake_case, used in SQL and metrics */
	uint8_t		 bits;		/* width in PortCounters */
	uint16_t	 select;	/* PortCounters CounterSelect bit, 0: CounterSelect2 */
	uint8_t		 select2;	/* CounterSelect2 bit (PortXmitWait) */
};

extern const struct hc_info hc_info[HC_COUNT];

/* Accumulation state of one counter of one port. */
struct hc_counter_state {
	uint64_t	total;		/* counts since fabricd first saw the port */
	uint64_t	last;		/* last raw reading */
	bool		have_last;
};

enum hc_outcome {
	HC_FIRST,	/* baseline taken, no delta */
	HC_NORMAL,
	HC_RESET,	/* reading went down: counts since the reset were added */
	HC_SATURATED,	/* reading at its maximum: delta is a lower bound */
};

/* Largest value a counter of this width can hold. */
uint64_t hc_max(unsigned bits);

/*
 * Feed one raw reading of a counter `bits` wide.  Returns the increment
 * added to the total (0 on the first reading) and the outcome.
 */
uint64_t hc_accumulate(struct hc_counter_state *s, uint64_t raw, unsigned bits,
    enum hc_outcome *outcome);

/* True when a reading is close enough to saturation (>= 3/4 of the maximum)
 * that it should be cleared now. */
bool hc_near_saturation(uint64_t raw, unsigned bits);

/* After a successful clear the hardware counter restarts from zero. */
void hc_cleared(struct hc_counter_state *s);

/* PortCounters CounterSelect / CounterSelect2 masks for a set of counters
 * (bit i of `which` = enum hc_counter i). */
uint16_t hc_counter_select(uint32_t which);
uint8_t hc_counter_select2(uint32_t which);

/* Per second over dt_ms; 0 when dt_ms is 0. */
double hc_rate(uint64_t delta, uint64_t dt_ms);

/* Index by perfquery spelling (case-insensitive) or metric name; -1 if none. */
int hc_lookup(const char *name);

#endif
