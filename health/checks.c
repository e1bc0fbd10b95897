/* Health check decisions: see checks.h. */
#include <stdio.h>

#include "health/checks.h"

void
health_thresholds_default(struct health_thresholds *t)
{
	/* ibcheckerrors' historic thresholds (10 symbol errors, 10 receive
	 * errors, 100 discards) read as per-minute rates, so that a long
	 * uptime never adds up to an alarm on a healthy link. */
	t->symbol_errors_per_min = 10;
	t->link_recoveries_per_hour = 1;
	t->rcv_errors_per_min = 10;
	t->xmit_discards_per_min = 100;
	/* PortXmitWait ticks are vendor-defined; at the common ~64-128 ns
	 * this is a port waiting for credits a third or more of the time. */
	t->xmit_wait_per_sec = 5e6;
	t->flap_count = 3;
	t->flap_window_ms = 10 * 60 * 1000;
	t->clear_after = 3;
	/* IBA specifies links at a bit error rate of 1e-12 or better; UFM's
	 * port isolation acts between 1e-8 and 1e-7: take the stricter end. */
	t->ber_warning = 1e-12;
	t->ber_critical = 1e-8;
	t->ber_window_ms = 10 * 60 * 1000;
}

static void
verdict_rate(struct check_verdict *v, uint64_t delta, uint64_t dt_ms,
    double limit, double per_ms, const char *what, const char *unit,
    enum event_severity sev)
{
	double rate = dt_ms ? (double)delta * per_ms / (double)dt_ms : 0;

	v->failing = delta > 0 && rate > limit;
	v->severity = sev;
	if (v->failing)
		snprintf(v->detail, sizeof(v->detail), "%s +%llu (%.1f %s, limit %.1f)",
		    what, (unsigned long long)delta, rate, unit, limit);
	else
		v->detail[0] = '\0';
}

void
checks_counters(const struct health_thresholds *t, const uint64_t delta[HC_COUNT],
    const bool valid[HC_COUNT], uint64_t dt_ms, struct check_verdict verdict[HCHK_COUNT])
{
	const double per_min = 60e3, per_hour = 3600e3, per_sec = 1e3;

	if (valid[HC_SYMBOL_ERRORS])
		verdict_rate(&verdict[HCHK_SYMBOL_ERRORS], delta[HC_SYMBOL_ERRORS], dt_ms,
		    t->symbol_errors_per_min, per_min, "SymbolErrorCounter", "/min", EV_WARNING);
	if (valid[HC_LINK_RECOVERIES])
		verdict_rate(&verdict[HCHK_LINK_RECOVERIES], delta[HC_LINK_RECOVERIES], dt_ms,
		    t->link_recoveries_per_hour, per_hour, "LinkErrorRecoveryCounter", "/h", EV_WARNING);
	if (valid[HC_RCV_ERRORS])
		verdict_rate(&verdict[HCHK_RCV_ERRORS], delta[HC_RCV_ERRORS], dt_ms,
		    t->rcv_errors_per_min, per_min, "PortRcvErrors", "/min", EV_WARNING);
	if (valid[HC_XMIT_DISCARDS])
		verdict_rate(&verdict[HCHK_XMIT_DISCARDS], delta[HC_XMIT_DISCARDS], dt_ms,
		    t->xmit_discards_per_min, per_min, "PortXmitDiscards", "/min", EV_WARNING);
	if (valid[HC_XMIT_WAIT])
		verdict_rate(&verdict[HCHK_CONGESTION], delta[HC_XMIT_WAIT], dt_ms,
		    t->xmit_wait_per_sec, per_sec, "PortXmitWait", "ticks/s", EV_INFO);
}

unsigned
mask_top(unsigned mask)
{
	unsigned top = 0;
	for (unsigned b = 1; b && b <= mask; b <<= 1)
		if (mask & b)
			top = b;
	return top;
}

/* Width masks are not ordered by bit: 1=1x 16=2x 2=4x 4=8x 8=12x. */
static unsigned
width_lanes(unsigned bit)
{
	switch (bit) {
	case 1: return 1;
	case 16: return 2;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	default: return 0;
	}
}

static unsigned
widest(unsigned mask)
{
	unsigned best = 0;
	for (unsigned b = 1; b <= 16; b <<= 1)
		if ((mask & b) && width_lanes(b) > width_lanes(best))
			best = b;
	return best;
}

const char *
link_width_name(unsigned bit)
{
	switch (bit) {
	case 1: return "1x";
	case 16: return "2x";
	case 2: return "4x";
	case 4: return "8x";
	case 8: return "12x";
	default: return "?";
	}
}

const char *
link_speed_name(unsigned speed_bit, unsigned ext_bit)
{
	switch (ext_bit) {
	case 1: return "FDR";
	case 2: return "EDR";
	case 4: return "HDR";
	case 8: return "NDR";
	}
	switch (speed_bit) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	default: return "?";
	}
}

/* One ordinal for classic and extended speeds: ext bits rank above QDR. */
static unsigned
speed_rank(unsigned speed_bit, unsigned ext_bit)
{
	return ext_bit ? 8 + ext_bit : speed_bit;
}

bool
link_degraded(const struct link_caps *a, const struct link_caps *b, char *why, size_t whylen)
{
	unsigned w_common = widest(a->width_supported & b->width_supported);
	unsigned s_common = mask_top(a->speed_supported & b->speed_supported);
	unsigned e_common = mask_top(a->ext_speed_supported & b->ext_speed_supported);
	unsigned w_act = widest(a->width_active);
	unsigned s_act = mask_top(a->speed_active);
	unsigned e_act = mask_top(a->ext_speed_active);
	bool slow_width = w_common && width_lanes(w_act) < width_lanes(w_common);
	bool slow_speed = speed_rank(s_act, e_act) < speed_rank(s_common, e_common);

	if (why && whylen)
		snprintf(why, whylen, "running %s/%s, both ends support %s/%s",
		    link_width_name(w_act), link_speed_name(s_act, e_act),
		    link_width_name(w_common), link_speed_name(s_common, e_common));
	return slow_width || slow_speed;
}

void
flap_record(struct flap_history *h, int64_t when_ms)
{
	h->down_ms[h->next] = when_ms;
	h->next = (h->next + 1) % FLAP_HISTORY;
	if (h->count < FLAP_HISTORY)
		h->count++;
}

unsigned
flap_recent(const struct flap_history *h, int64_t now_ms, uint64_t window_ms)
{
	unsigned n = 0;
	for (unsigned i = 0; i < h->count; i++)
		if (now_ms - h->down_ms[i] <= (int64_t)window_ms)
			n++;
	return n;
}

/* Per-lane signalling rate in Gb/s (IBA vol. 2; extended speeds win). */
static double
lane_gbps(uint8_t speed, uint8_t ext)
{
	switch (mask_top(ext)) {
	case 1: return 14.0625;		/* FDR */
	case 2: return 25.78125;	/* EDR */
	case 4: return 53.125;		/* HDR */
	case 8: return 106.25;		/* NDR */
	}
	switch (mask_top(speed)) {
	case 1: return 2.5;
	case 2: return 5.0;
	case 4: return 10.0;
	default: return 0;
	}
}

double
link_line_bps(uint8_t width_active, uint8_t speed_active, uint8_t ext_speed_active)
{
	return width_lanes(widest(width_active)) * lane_gbps(speed_active, ext_speed_active) * 1e9;
}

void
ber_window_add(struct ber_window *w, uint64_t window_ms, int64_t now_ms,
    uint64_t errors, uint64_t dt_ms, double line_bps)
{
	int64_t slot_ms = (int64_t)(window_ms / BER_SLOTS ? window_ms / BER_SLOTS : 1);
	int64_t start = now_ms - now_ms % slot_ms;
	size_t i = (size_t)(now_ms / slot_ms) % BER_SLOTS;

	if (w->slot_start[i] != start) {
		w->slot_start[i] = start;
		w->errors[i] = w->ms[i] = 0;
		w->bits[i] = 0;
	}
	w->errors[i] += errors;
	w->ms[i] += dt_ms;
	w->bits[i] += line_bps * (double)dt_ms / 1e3;
}

struct ber_sum
ber_window_sum(const struct ber_window *w, uint64_t window_ms, int64_t now_ms)
{
	struct ber_sum s = { 0, 0, 0, 0 };

	for (size_t i = 0; i < BER_SLOTS; i++) {
		if (w->ms[i] == 0 || w->slot_start[i] <= now_ms - (int64_t)window_ms)
			continue;
		s.errors += w->errors[i];
		s.ms += w->ms[i];
		s.bits += w->bits[i];
	}
	s.ber = s.bits > 0 ? (double)s.errors / s.bits : 0;
	return s;
}

void
checks_ber(const struct health_thresholds *t, const struct ber_sum *s, struct check_verdict *v)
{
	v->failing = s->errors > 0 && s->ber > t->ber_warning;
	v->severity = s->ber > t->ber_critical ? EV_CRITICAL : EV_WARNING;
	v->detail[0] = '\0';
	if (v->failing)
		snprintf(v->detail, sizeof(v->detail), "BER %.2e over %.0f s (%llu symbol errors "
		    "in %.3g bits; %s %.0e)", s->ber, (double)s->ms / 1e3,
		    (unsigned long long)s->errors, s->bits,
		    v->severity == EV_CRITICAL ? "critical" : "warning",
		    v->severity == EV_CRITICAL ? t->ber_critical : t->ber_warning);
}
