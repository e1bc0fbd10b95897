/*
 * Health checks: thresholds, and the pure decisions made from one port's
 * counter increments and link state.  The caller feeds the verdicts to the
 * alarm table (alarms.h).
 */
#ifndef FABRICD_HEALTH_CHECKS_H
#define FABRICD_HEALTH_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "health/alarms.h"
#include "health/counters.h"

struct health_thresholds {
	double		symbol_errors_per_min;		/* default 10 */
	double		link_recoveries_per_hour;	/* default 1: each one costs traffic */
	double		rcv_errors_per_min;		/* default 10 */
	double		xmit_discards_per_min;		/* default 100 */
	double		xmit_wait_per_sec;		/* default 5e6 ticks/s */
	uint32_t	flap_count;			/* link downs in flap_window: default 3 */
	uint64_t	flap_window_ms;			/* default 10 min */
	uint32_t	clear_after;			/* passing rounds to clear: default 3 */
	double		ber_warning;			/* default 1e-12: IBA's ceiling */
	double		ber_critical;			/* default 1e-8: where UFM isolates */
	uint64_t	ber_window_ms;			/* default 10 min */
};

void health_thresholds_default(struct health_thresholds *t);

struct check_verdict {
	bool			failing;
	enum event_severity	severity;
	char			detail[160];
};

/*
 * Counter checks over one polling round: delta[] are the increments over
 * dt_ms, valid[] which counters were read this round.  Fills verdict[] for
 * HCHK_SYMBOL_ERRORS, HCHK_LINK_RECOVERIES, HCHK_RCV_ERRORS,
 * HCHK_XMIT_DISCARDS and HCHK_CONGESTION.
 */
void checks_counters(const struct health_thresholds *t, const uint64_t delta[HC_COUNT],
    const bool valid[HC_COUNT], uint64_t dt_ms, struct check_verdict verdict[HCHK_COUNT]);

/*
 * Bit error rate.  A port carries lanes x the per-lane signalling rate of
 * its active speed (SDR 2.5 .. NDR 106.25 Gb/s); SymbolErrorCounter counts
 * errors on those line bits, so BER = symbol errors / (line rate x time).
 * The window is BER_SLOTS slots of window/BER_SLOTS each, so it slides in
 * steps of a sixteenth and a port costs a few hundred bytes whatever the
 * polling interval.
 */
double link_line_bps(uint8_t width_active, uint8_t speed_active, uint8_t ext_speed_active);

#define BER_SLOTS 16
struct ber_window {
	int64_t		slot_start[BER_SLOTS];
	uint64_t	errors[BER_SLOTS];
	uint64_t	ms[BER_SLOTS];
	double		bits[BER_SLOTS];
};
struct ber_sum {
	uint64_t	errors, ms;	/* in the window, and the time it covers */
	double		bits, ber;
};
void ber_window_add(struct ber_window *w, uint64_t window_ms, int64_t now_ms,
    uint64_t errors, uint64_t dt_ms, double line_bps);
struct ber_sum ber_window_sum(const struct ber_window *w, uint64_t window_ms, int64_t now_ms);
/* The BER check over a window sum: warning or critical, with the figures. */
void checks_ber(const struct health_thresholds *t, const struct ber_sum *s,
    struct check_verdict *v);

/* Highest bit set in mask (0 when none): masks are "this or slower". */
unsigned mask_top(unsigned mask);

/*
 * A link is degraded when it runs below the fastest width or speed that
 * both ends support.  Speeds: the classic mask (SDR/DDR/QDR) and the
 * extended mask (FDR/EDR/HDR/NDR), the extended one counting as faster.
 * why (may be NULL) gets a readable reason such as "1x/SDR, both support
 * 4x/QDR".
 */
struct link_caps {
	uint8_t	width_active, width_supported;
	uint8_t	speed_active, speed_supported;
	uint8_t	ext_speed_active, ext_speed_supported;
};
bool link_degraded(const struct link_caps *a, const struct link_caps *b,
    char *why, size_t whylen);

const char *link_width_name(unsigned width_mask_bit);
const char *link_speed_name(unsigned speed_bit, unsigned ext_speed_bit);

/*
 * Flap tracking: a ring of the times a port went down.  flap_record adds
 * one; flap_recent counts those inside the window ending at now.
 */
#define FLAP_HISTORY 16
struct flap_history {
	int64_t		down_ms[FLAP_HISTORY];
	unsigned	next, count;
};
void flap_record(struct flap_history *h, int64_t when_ms);
unsigned flap_recent(const struct flap_history *h, int64_t now_ms, uint64_t window_ms);

#endif
