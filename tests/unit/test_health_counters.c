/* Counter accumulation: 64-bit totals, resets, saturation, rates. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "health/counters.h"

static void
first_reading_is_a_baseline(void **state)
{
	struct hc_counter_state s = { 0 };
	enum hc_outcome o;

	/* A port seen for the first time may carry years of counts. */
	assert_int_equal(hc_accumulate(&s, 5000, 16, &o), 0);
	assert_int_equal(o, HC_FIRST);
	assert_int_equal(s.total, 0);
	assert_int_equal(hc_accumulate(&s, 5007, 16, &o), 7);
	assert_int_equal(o, HC_NORMAL);
	assert_int_equal(s.total, 7);
}

static void
reset_is_never_a_spike(void **state)
{
	struct hc_counter_state s = { 0 };
	enum hc_outcome o;

	hc_accumulate(&s, 100, 16, NULL);
	hc_accumulate(&s, 60000, 16, NULL);		/* +59900 */
	/* perfquery -R: the counter restarts; 3 new counts since. A wrap
	 * reading would have been 65535-60000+3: a fake spike. */
	assert_int_equal(hc_accumulate(&s, 3, 16, &o), 3);
	assert_int_equal(o, HC_RESET);
	assert_int_equal(s.total, 59903);
	assert_int_equal(hc_accumulate(&s, 0, 16, &o), 0);
	assert_int_equal(o, HC_RESET);
	assert_int_equal(s.total, 59903);
}

static void
saturated_counter_is_flagged(void **state)
{
	struct hc_counter_state s = { 0 };
	enum hc_outcome o;

	hc_accumulate(&s, 250, 8, NULL);
	assert_int_equal(hc_accumulate(&s, 255, 8, &o), 5);
	assert_int_equal(o, HC_SATURATED);
	/* Still stuck at the top: nothing known to add, still saturated. */
	assert_int_equal(hc_accumulate(&s, 255, 8, &o), 0);
	assert_int_equal(o, HC_SATURATED);
	/* After our clear the hardware starts at 0 again. */
	hc_cleared(&s);
	assert_int_equal(hc_accumulate(&s, 4, 8, &o), 4);
	assert_int_equal(o, HC_NORMAL);
	assert_int_equal(s.total, 9);
}

static void
garbled_reading_is_clamped(void **state)
{
	struct hc_counter_state s = { 0 };
	hc_accumulate(&s, 0, 4, NULL);
	assert_int_equal(hc_accumulate(&s, 1000, 4, NULL), 15);
}

static void
sixty_four_bit_totals(void **state)
{
	struct hc_counter_state s = { 0 };
	enum hc_outcome o;

	hc_accumulate(&s, UINT64_C(0xFFFFFFFF00000000), 64, NULL);
	assert_true(hc_accumulate(&s, UINT64_C(0xFFFFFFFF80000000), 64, &o) == UINT64_C(0x80000000));
	assert_int_equal(o, HC_NORMAL);
	assert_false(hc_near_saturation(UINT64_MAX, 64));
}

static void
near_saturation_threshold(void **state)
{
	assert_false(hc_near_saturation(49150, 16));
	assert_true(hc_near_saturation(49152, 16));
	assert_true(hc_near_saturation(65535, 16));
	assert_false(hc_near_saturation(11, 4));
	assert_true(hc_near_saturation(12, 4));
	assert_true(hc_near_saturation(UINT32_MAX - UINT32_MAX / 4, 32));
	assert_int_equal(hc_max(4), 15);
	assert_int_equal(hc_max(32), UINT32_MAX);
}

static void
counter_select_masks(void **state)
{
	/* IBA PortCounters CounterSelect: bit 0 SymbolError, 2 LinkDowned,
	 * 6 XmitDiscards, 15 RcvPkts; XmitWait is CounterSelect2 bit 0. */
	uint32_t which = 1u << HC_SYMBOL_ERRORS | 1u << HC_LINK_DOWNED |
	    1u << HC_XMIT_DISCARDS | 1u << HC_RCV_PKTS | 1u << HC_XMIT_WAIT;
	assert_int_equal(hc_counter_select(which), 0x8045);
	assert_int_equal(hc_counter_select2(which), 0x01);
	assert_int_equal(hc_counter_select((1u << HC_COUNT) - 1), 0xFFFF);
}

static void
rates_and_lookup(void **state)
{
	assert_true(hc_rate(50, 10000) == 5.0);
	assert_true(hc_rate(50, 0) == 0.0);
	assert_int_equal(hc_lookup("SymbolErrorCounter"), HC_SYMBOL_ERRORS);
	assert_int_equal(hc_lookup("portxmitwait"), HC_XMIT_WAIT);
	assert_int_equal(hc_lookup("rcv_errors"), HC_RCV_ERRORS);
	assert_int_equal(hc_lookup("nope"), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_reading_is_a_baseline),
		cmocka_unit_test(reset_is_never_a_spike),
		cmocka_unit_test(saturated_counter_is_flagged),
		cmocka_unit_test(garbled_reading_is_clamped),
		cmocka_unit_test(sixty_four_bit_totals),
		cmocka_unit_test(near_saturation_threshold),
		cmocka_unit_test(counter_select_masks),
		cmocka_unit_test(rates_and_lookup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
