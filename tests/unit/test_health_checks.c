/* Health checks (thresholds, degraded links, flapping) and the alarm
 * state machine (raise once, dedup, escalate, clear with hysteresis). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "health/alarms.h"
#include "health/checks.h"

struct notes {
	int raised, cleared;
	enum event_severity last_sev;
	char last_object[64];
};

static void
note(const struct alarm *a, bool raised, void *arg)
{
	struct notes *n = arg;
	if (raised)
		n->raised++;
	else
		n->cleared++;
	n->last_sev = a->severity;
	snprintf(n->last_object, sizeof(n->last_object), "%s", a->object);
}

static void
alarm_raises_once_and_clears_after_passes(void **state)
{
	struct notes n = { 0 };
	struct alarm_table *t = alarm_table_new(3, note, &n);
	const struct alarm *a;

	assert_null(alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, false, EV_WARNING, 1000, NULL));
	assert_int_equal(n.raised, 0);
	a = alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, true, EV_WARNING, 2000, "x");
	assert_non_null(a);
	assert_int_equal(n.raised, 1);
	assert_string_equal(n.last_object, "sw1:3");
	for (int i = 0; i < 5; i++)
		alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, true, EV_WARNING, 3000 + i, "x");
	assert_int_equal(n.raised, 1);		/* deduplicated */
	a = alarm_find(t, "sw1:3", HCHK_SYMBOL_ERRORS);
	assert_int_equal(a->first_seen_ms, 2000);
	assert_int_equal(a->last_seen_ms, 3004);
	assert_int_equal(a->failures, 6);
	assert_int_equal(alarm_count_port(t, 0x20, 3), 1);
	assert_int_equal(alarm_count_port(t, 0x20, 4), 0);

	/* Two passes, a failure: the pass streak restarts. */
	alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, false, EV_WARNING, 4000, NULL);
	alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, false, EV_WARNING, 5000, NULL);
	alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, true, EV_WARNING, 6000, "x");
	alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, false, EV_WARNING, 7000, NULL);
	alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, false, EV_WARNING, 8000, NULL);
	assert_int_equal(n.cleared, 0);
	assert_null(alarm_update(t, "sw1:3", 0x20, 3, HCHK_SYMBOL_ERRORS, false, EV_WARNING, 9000, NULL));
	assert_int_equal(n.cleared, 1);
	assert_int_equal(alarm_count(t), 0);
	alarm_table_free(t);
}

static void
alarm_escalates_and_keys_by_check(void **state)
{
	struct notes n = { 0 };
	struct alarm_table *t = alarm_table_new(1, note, &n);

	alarm_update(t, "h1:1", 1, 1, HCHK_LINK_DOWN, true, EV_WARNING, 1, "down");
	alarm_update(t, "h1:1", 1, 1, HCHK_FLAPPING, true, EV_ERROR, 1, "flap");
	assert_int_equal(n.raised, 2);
	alarm_update(t, "h1:1", 1, 1, HCHK_LINK_DOWN, true, EV_CRITICAL, 2, "down");
	assert_int_equal(n.raised, 3);
	assert_int_equal(n.last_sev, EV_CRITICAL);
	alarm_update(t, "h1:1", 1, 1, HCHK_LINK_DOWN, true, EV_WARNING, 3, "down");
	assert_int_equal(n.raised, 3);		/* never de-escalates noisily */
	alarm_clear(t, "h1:1", HCHK_LINK_DOWN);
	assert_int_equal(n.cleared, 1);
	assert_non_null(alarm_find(t, "h1:1", HCHK_FLAPPING));
	assert_string_equal(hchk_name(HCHK_PFC_STORM), "pfc_storm");
	alarm_table_free(t);
}

static void
counter_thresholds(void **state)
{
	struct health_thresholds th;
	struct check_verdict v[HCHK_COUNT];
	uint64_t d[HC_COUNT] = { 0 };
	bool valid[HC_COUNT];

	health_thresholds_default(&th);
	for (int i = 0; i < HC_COUNT; i++)
		valid[i] = true;
	memset(v, 0, sizeof(v));
	checks_counters(&th, d, valid, 10000, v);
	for (int i = 0; i < HCHK_COUNT; i++)
		assert_false(v[i].failing);

	d[HC_SYMBOL_ERRORS] = 1;		/* 6/min: under 10/min */
	d[HC_XMIT_DISCARDS] = 17;		/* 102/min: over 100/min */
	d[HC_LINK_RECOVERIES] = 1;		/* any recovery in 10 s: 360/h */
	checks_counters(&th, d, valid, 10000, v);
	assert_false(v[HCHK_SYMBOL_ERRORS].failing);
	assert_true(v[HCHK_XMIT_DISCARDS].failing);
	assert_true(v[HCHK_LINK_RECOVERIES].failing);
	assert_non_null(strstr(v[HCHK_XMIT_DISCARDS].detail, "PortXmitDiscards +17"));

	d[HC_SYMBOL_ERRORS] = 2;		/* 12/min */
	checks_counters(&th, d, valid, 10000, v);
	assert_true(v[HCHK_SYMBOL_ERRORS].failing);
	assert_int_equal(v[HCHK_SYMBOL_ERRORS].severity, EV_WARNING);

	d[HC_XMIT_WAIT] = 60000000;		/* 6e6 ticks/s */
	checks_counters(&th, d, valid, 10000, v);
	assert_true(v[HCHK_CONGESTION].failing);
}

static void
degraded_links(void **state)
{
	/* ibsim: w=1|2 (1x,4x) s=1|2|4 (SDR..QDR) on both ends. */
	struct link_caps full = { 2, 3, 4, 7, 0, 0 };
	struct link_caps narrow = { 1, 3, 4, 7, 0, 0 };
	struct link_caps slow = { 2, 3, 1, 7, 0, 0 };
	struct link_caps other_end_1x = { 1, 1, 4, 7, 0, 0 };
	struct link_caps edr = { 2, 2, 4, 7, 2, 3 };
	struct link_caps fdr = { 2, 2, 4, 7, 1, 3 };
	struct link_caps qdr_peer = { 2, 2, 4, 7, 0, 0 };
	char why[128];

	assert_false(link_degraded(&full, &full, why, sizeof(why)));
	assert_true(link_degraded(&narrow, &full, why, sizeof(why)));
	assert_string_equal(why, "running 1x/QDR, both ends support 4x/QDR");
	assert_true(link_degraded(&slow, &full, NULL, 0));
	/* The peer only supports 1x: 1x is the best this link can do. */
	assert_false(link_degraded(&narrow, &other_end_1x, NULL, 0));
	assert_false(link_degraded(&edr, &edr, NULL, 0));
	assert_true(link_degraded(&fdr, &edr, why, sizeof(why)));
	assert_string_equal(why, "running 4x/FDR, both ends support 4x/EDR");
	/* No common extended speed: QDR is the best. */
	assert_false(link_degraded(&qdr_peer, &edr, NULL, 0));
	assert_int_equal(mask_top(7), 4);
	assert_int_equal(mask_top(0), 0);
}

static void
flapping_window(void **state)
{
	struct flap_history h = { 0 };
	const uint64_t min10 = 600000;

	flap_record(&h, 0);
	flap_record(&h, 100000);
	assert_int_equal(flap_recent(&h, 100000, min10), 2);
	flap_record(&h, 700000);
	assert_int_equal(flap_recent(&h, 700000, min10), 2);	/* t=0 aged out */
	for (int i = 0; i < 40; i++)
		flap_record(&h, 800000 + i);
	assert_int_equal(flap_recent(&h, 800040, min10), FLAP_HISTORY);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alarm_raises_once_and_clears_after_passes),
		cmocka_unit_test(alarm_escalates_and_keys_by_check),
		cmocka_unit_test(counter_thresholds),
		cmocka_unit_test(degraded_links),
		cmocka_unit_test(flapping_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
