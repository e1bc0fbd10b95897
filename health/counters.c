/* Port counter accumulation: see counters.h for the rules. */
#include <string.h>
#include <strings.h>

#include "health/counters.h"

/* Widths and CounterSelect bits from the PortCounters attribute (IBA
 * 16.1.3.5).  The traffic counters are 32 bits here; PortCountersExtended
 * carries them 64 bits wide, and the poller feeds those when it has them. */
const struct hc_info hc_info[HC_COUNT] = {
	[HC_SYMBOL_ERRORS]		= { "SymbolErrorCounter", "symbol_errors", 16, 1u << 0, 0 },
	[HC_LINK_RECOVERIES]		= { "LinkErrorRecoveryCounter", "link_error_recoveries", 8, 1u << 1, 0 },
	[HC_LINK_DOWNED]		= { "LinkDownedCounter", "link_downed", 8, 1u << 2, 0 },
	[HC_RCV_ERRORS]			= { "PortRcvErrors", "rcv_errors", 16, 1u << 3, 0 },
	[HC_RCV_REMOTE_PHYS_ERRORS]	= { "PortRcvRemotePhysicalErrors", "rcv_remote_physical_errors", 16, 1u << 4, 0 },
	[HC_RCV_SWITCH_RELAY_ERRORS]	= { "PortRcvSwitchRelayErrors", "rcv_switch_relay_errors", 16, 1u << 5, 0 },
	[HC_XMIT_DISCARDS]		= { "PortXmitDiscards", "xmit_discards", 16, 1u << 6, 0 },
	[HC_XMIT_CONSTRAINT_ERRORS]	= { "PortXmitConstraintErrors", "xmit_constraint_errors", 8, 1u << 7, 0 },
	[HC_RCV_CONSTRAINT_ERRORS]	= { "PortRcvConstraintErrors", "rcv_constraint_errors", 8, 1u << 8, 0 },
	[HC_LOCAL_LINK_INTEGRITY_ERRORS] = { "LocalLinkIntegrityErrors", "local_link_integrity_errors", 4, 1u << 9, 0 },
	[HC_EXCESSIVE_BUFFER_OVERRUNS]	= { "ExcessiveBufferOverrunErrors", "excessive_buffer_overruns", 4, 1u << 10, 0 },
	[HC_VL15_DROPPED]		= { "VL15Dropped", "vl15_dropped", 16, 1u << 11, 0 },
	[HC_XMIT_WAIT]			= { "PortXmitWait", "xmit_wait", 32, 0, 1u << 0 },
	[HC_XMIT_DATA]			= { "PortXmitData", "xmit_data_words", 32, 1u << 12, 0 },
	[HC_RCV_DATA]			= { "PortRcvData", "rcv_data_words", 32, 1u << 13, 0 },
	[HC_XMIT_PKTS]			= { "PortXmitPkts", "xmit_packets", 32, 1u << 14, 0 },
	[HC_RCV_PKTS]			= { "PortRcvPkts", "rcv_packets", 32, 1u << 15, 0 },
};

uint64_t
hc_max(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

uint64_t
hc_accumulate(struct hc_counter_state *s, uint64_t raw, unsigned bits,
    enum hc_outcome *outcome)
{
	uint64_t delta;
	enum hc_outcome o;

	if (bits < 64 && raw > hc_max(bits))
		raw = hc_max(bits);		/* a garbled reading: clamp */
	if (!s->have_last) {
		o = HC_FIRST;
		delta = 0;
	} else if (raw < s->last) {
		/* Counters saturate, they never wrap: lower means cleared. */
		o = HC_RESET;
		delta = raw;
	} else {
		delta = raw - s->last;
		o = (bits < 64 && raw == hc_max(bits)) ? HC_SATURATED : HC_NORMAL;
	}
	s->last = raw;
	s->have_last = true;
	s->total += delta;
	if (outcome)
		*outcome = o;
	return delta;
}

bool
hc_near_saturation(uint64_t raw, unsigned bits)
{
	if (bits >= 64)
		return false;
	return raw >= hc_max(bits) - hc_max(bits) / 4;
}

void
hc_cleared(struct hc_counter_state *s)
{
	s->last = 0;
	s->have_last = true;
}

uint16_t
hc_counter_select(uint32_t which)
{
	uint16_t m = 0;
	for (int i = 0; i < HC_COUNT; i++)
		if (which & (1u << i))
			m |= hc_info[i].select;
	return m;
}

uint8_t
hc_counter_select2(uint32_t which)
{
	uint8_t m = 0;
	for (int i = 0; i < HC_COUNT; i++)
		if (which & (1u << i))
			m |= hc_info[i].select2;
	return m;
}

double
hc_rate(uint64_t delta, uint64_t dt_ms)
{
	return dt_ms ? (double)delta * 1000.0 / (double)dt_ms : 0.0;
}

int
hc_lookup(const char *name)
{
	for (int i = 0; i < HC_COUNT; i++)
		if (!strcasecmp(name, hc_info[i].perfquery) || !strcmp(name, hc_info[i].metric))
			return i;
	return -1;
}
