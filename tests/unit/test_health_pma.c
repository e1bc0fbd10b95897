/* PerfMgt payloads: byte positions checked against the IBA layout of
 * PortCounters and PortCountersExtended, written out here by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "health/pma.h"

static void
decode_port_counters(void **state)
{
	uint8_t d[PMA_DATA_LEN] = { 0 };
	uint64_t v[HC_COUNT];

	d[4] = 0x12; d[5] = 0x34;		/* SymbolErrorCounter */
	d[6] = 7;				/* LinkErrorRecoveryCounter */
	d[7] = 9;				/* LinkDownedCounter */
	d[8] = 0x01; d[9] = 0x02;		/* PortRcvErrors */
	d[14] = 0xff; d[15] = 0xfe;		/* PortXmitDiscards */
	d[19] = 0xa5;				/* LocalLinkIntegrity 0xa, ExcessiveBufferOverrun 5 */
	d[22] = 0; d[23] = 3;			/* VL15Dropped */
	d[24] = 0xde; d[25] = 0xad; d[26] = 0xbe; d[27] = 0xef;	/* PortXmitData */
	d[40] = 0; d[41] = 1; d[42] = 0; d[43] = 0;		/* PortXmitWait */
	pma_decode_counters(d, v);
	assert_int_equal(v[HC_SYMBOL_ERRORS], 0x1234);
	assert_int_equal(v[HC_LINK_RECOVERIES], 7);
	assert_int_equal(v[HC_LINK_DOWNED], 9);
	assert_int_equal(v[HC_RCV_ERRORS], 0x0102);
	assert_int_equal(v[HC_XMIT_DISCARDS], 0xfffe);
	assert_int_equal(v[HC_LOCAL_LINK_INTEGRITY_ERRORS], 0xa);
	assert_int_equal(v[HC_EXCESSIVE_BUFFER_OVERRUNS], 5);
	assert_int_equal(v[HC_VL15_DROPPED], 3);
	assert_int_equal(v[HC_XMIT_DATA], 0xdeadbeef);
	assert_int_equal(v[HC_XMIT_WAIT], 0x10000);
	assert_int_equal(v[HC_RCV_PKTS], 0);
}

static void
decode_extended(void **state)
{
	uint8_t d[PMA_DATA_LEN] = { 0 };
	uint64_t v[HC_COUNT];

	memset(v, 0xee, sizeof(v));
	d[8] = 0x01; d[15] = 0x02;		/* PortXmitData (64-bit) */
	d[39] = 42;				/* PortRcvPkts */
	pma_decode_extended(d, v);
	assert_true(v[HC_XMIT_DATA] == 0x0100000000000002ULL);
	assert_int_equal(v[HC_RCV_PKTS], 42);
	assert_true(v[HC_SYMBOL_ERRORS] == 0xeeeeeeeeeeeeeeeeULL);	/* untouched */
}

static void
encode_select_and_clear(void **state)
{
	uint8_t d[PMA_DATA_LEN];

	pma_encode_select(d, PMA_ALL_PORTS);
	assert_int_equal(d[1], 0xff);
	assert_int_equal(d[2] | d[3], 0);
	pma_encode_clear(d, 3, 1u << HC_SYMBOL_ERRORS | 1u << HC_LINK_DOWNED | 1u << HC_XMIT_WAIT);
	assert_int_equal(d[1], 3);
	assert_int_equal(d[2], 0x00);
	assert_int_equal(d[3], 0x05);		/* bits 0 and 2 */
	assert_int_equal(d[18], 0x01);		/* CounterSelect2: PortXmitWait */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_port_counters),
		cmocka_unit_test(decode_extended),
		cmocka_unit_test(encode_select_and_clear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
