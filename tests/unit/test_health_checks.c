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

/* Read back after a restart: no event, the quiet time goes on from the
 * stored last_seen, a cleared one is in the ring for the pre-flight. */
static void
restored_alarms(void **state)
{
	struct notes n = { 0 };
	struct alarm_table *t = alarm_table_new(3, note, &n);
	struct alarm up = { .object = "h:1", .node_guid = 0x10, .port = 1,
	    .check = HCHK_SYMBOL_ERRORS, .severity = EV_WARNING, .first_seen_ms = 1000,
	    .last_seen_ms = 5000, .failures = 4, .detail = "burst" };
	struct alarm gone = up;
	size_t i;
	const struct alarm *a;

	alarm_table_set_quiet(t, 60000);
	gone.object = "h:2";
	gone.port = 2;
	gone.cleared_ms = 9000;
	alarm_restore(t, &up);
	alarm_restore(t, &up);		/* twice: still one */
	alarm_restore(t, &gone);
	assert_int_equal(n.raised + n.cleared, 0);
	assert_int_equal(alarm_count(t), 1);
	assert_non_null(a = alarm_find(t, "h:1", HCHK_SYMBOL_ERRORS));
	assert_int_equal(a->failures, 4);
	assert_string_equal(a->detail, "burst");
	assert_int_equal(alarm_clears_at(t, a), 65000);
	/* passing inside the quiet time keeps it */
	for (int64_t ms = 6000; ms < 65000; ms += 1000)
		assert_non_null(alarm_update(t, "h:1", 0x10, 1, HCHK_SYMBOL_ERRORS, false,
		    EV_WARNING, ms, NULL));
	assert_int_equal(n.cleared, 0);
	i = alarm_recent_count(t);
	assert_non_null(a = alarm_recent_of_port(t, 0x10, 2, &i));
	assert_int_equal(a->cleared_ms, 9000);
	assert_int_equal(hchk_by_name("symbol_errors"), HCHK_SYMBOL_ERRORS);
	assert_int_equal(hchk_by_name("nonsense"), -1);
	alarm_table_free(t);
}

static void
quiet_time_and_recent_ring(void **state)
{
	struct notes n = { 0 };
	struct alarm_table *t = alarm_table_new(3, note, &n);

	alarm_table_set_quiet(t, 60000);
	alarm_update(t, "h:1", 0x10, 1, HCHK_SYMBOL_ERRORS, true, EV_WARNING, 1000, "burst");
	/* Three passes are not enough inside the quiet time... */
	for (int64_t ms = 2000; ms < 60000; ms += 1000)
		assert_non_null(alarm_update(t, "h:1", 0x10, 1, HCHK_SYMBOL_ERRORS, false,
		    EV_WARNING, ms, NULL));
	assert_int_equal(alarm_clears_at(t, alarm_find(t, "h:1", HCHK_SYMBOL_ERRORS)), 61000);
	assert_int_equal(alarm_recent_count(t), 0);
	/* ...a pass after it clears, and the alarm is remembered. */
	assert_null(alarm_update(t, "h:1", 0x10, 1, HCHK_SYMBOL_ERRORS, false, EV_WARNING, 61000, NULL));
	assert_int_equal(n.cleared, 1);
	assert_int_equal(alarm_recent_count(t), 1);
	assert_string_equal(alarm_recent_at(t, 0)->object, "h:1");
	assert_int_equal(alarm_recent_at(t, 0)->last_seen_ms, 1000);
	assert_int_equal(alarm_recent_at(t, 0)->cleared_ms, 61000);
	/* The ring keeps the newest ALARM_RECENT, oldest first. */
	for (int i = 0; i < ALARM_RECENT + 5; i++) {
		alarm_update(t, "h:2", 0x10, 2, HCHK_RCV_ERRORS, true, EV_WARNING, 100000 + i, "x");
		alarm_clear(t, "h:2", HCHK_RCV_ERRORS);
	}
	assert_int_equal(alarm_recent_count(t), ALARM_RECENT);
	assert_int_equal(alarm_recent_at(t, 0)->last_seen_ms, 100005);
	assert_int_equal(alarm_recent_at(t, ALARM_RECENT - 1)->last_seen_ms, 100000 + ALARM_RECENT + 4);
	/* One port's cleared alarms, newest first; h:1's has been pushed out. */
	size_t i = alarm_recent_count(t), k = 0;
	int64_t newer = INT64_MAX;
	const struct alarm *a;
	assert_null(alarm_recent_of_port(t, 0x10, 1, &i));
	i = alarm_recent_count(t);
	while ((a = alarm_recent_of_port(t, 0x10, 2, &i)) != NULL) {
		assert_true(a->last_seen_ms < newer);
		newer = a->last_seen_ms;
		k++;
	}
	assert_int_equal(k, ALARM_RECENT);
	assert_int_equal(newer, 100005);
	/* a port cleared once among them is found */
	alarm_update(t, "h:3", 0x10, 3, HCHK_RCV_ERRORS, true, EV_WARNING, 200000, "y");
	alarm_clear(t, "h:3", HCHK_RCV_ERRORS);
	i = alarm_recent_count(t);
	assert_non_null(a = alarm_recent_of_port(t, 0x10, 3, &i));
	assert_int_equal(a->last_seen_ms, 200000);
	assert_null(alarm_recent_of_port(t, 0x10, 3, &i));
	alarm_table_free(t);
}

static void
ber_window_and_rates(void **state)
{
	struct health_thresholds th;
	struct ber_window w;
	struct check_verdict v;
	struct ber_sum s;
	double hdr = link_line_bps(2, 4, 4), qdr = link_line_bps(2, 4, 0);

	health_thresholds_default(&th);
	assert_true(hdr == 4 * 53.125e9);	/* 4x HDR */
	assert_true(qdr == 4 * 10e9);		/* 4x QDR */
	assert_true(link_line_bps(8, 1, 0) == 12 * 2.5e9);
	assert_true(link_line_bps(2, 4, 8) == 4 * 106.25e9);
	memset(&w, 0, sizeof(w));
	/* 160 s window = 16 slots of 10 s; 100 errors in the first second. */
	ber_window_add(&w, 160000, 1000000, 100, 1000, hdr);
	for (int64_t t = 1001000; t < 1150000; t += 1000)
		ber_window_add(&w, 160000, t, 0, 1000, hdr);
	s = ber_window_sum(&w, 160000, 1149000);
	assert_int_equal(s.errors, 100);
	assert_int_equal(s.ms, 150000);
	assert_true(s.ber > 100 / (hdr * 150) * 0.9999 && s.ber < 100 / (hdr * 150) * 1.0001);
	checks_ber(&th, &s, &v);
	assert_true(v.failing);			/* 1.5e-11 > 1e-12 */
	assert_int_equal(v.severity, EV_WARNING);
	/* The burst slides out of the window. */
	s = ber_window_sum(&w, 160000, 1170000);
	assert_int_equal(s.errors, 0);
	checks_ber(&th, &s, &v);
	assert_false(v.failing);
	/* Critical above 1e-8. */
	s = (struct ber_sum){ 5000, 1000, qdr, 5000 / qdr };
	checks_ber(&th, &s, &v);
	assert_true(v.failing);
	assert_int_equal(v.severity, EV_CRITICAL);
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
		cmocka_unit_test(quiet_time_and_recent_ring),
		cmocka_unit_test(restored_alarms),
		cmocka_unit_test(ber_window_and_rates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
