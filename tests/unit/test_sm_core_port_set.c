/*
 * The PortInfo Set of `port disable|enable` and of the audit's repair
 * (port_phys_set_build) against what `ibportstate LID PORT disable|enable`
 * sends: ibportstate reads the PortInfo and writes it back with
 * PortPhysicalState 3 (disable) or 2 (enable) and PortState 0 (NOP).  The
 * expected bytes are made that way here with libibmad's field table (the
 * one ibportstate uses), independent of the iba/ib_types.h accessors the
 * code uses.  fabricd differs in four fields on purpose, each to its
 * "no change" encoding: LinkWidthEnabled, LinkSpeedEnabled and
 * LinkSpeedExtEnabled 0 (writing back what was read re-trains a link on
 * ibsim), and ClientReregister 0 (never echoed).  Also the PerfMgt clears
 * of `port reset-counters` against `perfquery -R` (CounterSelect every
 * bit, PortXmitWait through CounterSelect2) and `perfquery -x -R`.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "health/pma.h"
#include "sm/core/port_admin.h"

/* A PortInfo as a port might answer: every byte set, so a field the
 * builder touched by mistake shows. */
static void
read_back(uint8_t pi[64])
{
	for (int i = 0; i < 64; i++)
		pi[i] = (uint8_t)(0x5a ^ (i * 37));
	mad_set_field(pi, 0, IB_PORT_STATE_F, 4);		/* Active */
	mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, 5);		/* LinkUp */
	mad_set_field(pi, 0, IB_PORT_CLIENT_REREG_F, 1);
}

static void
check_phys(uint8_t phys)
{
	uint8_t last[64], want[64], got[64];

	read_back(last);
	memcpy(want, last, sizeof(want));
	mad_set_field(want, 0, IB_PORT_PHYS_STATE_F, phys);	/* what ibportstate writes */
	mad_set_field(want, 0, IB_PORT_STATE_F, 0);
	mad_set_field(want, 0, IB_PORT_LINK_WIDTH_ENABLED_F, 0);	/* fabricd's no-change */
	mad_set_field(want, 0, IB_PORT_LINK_SPEED_ENABLED_F, 0);
	mad_set_field(want, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 0);
	mad_set_field(want, 0, IB_PORT_CLIENT_REREG_F, 0);
	/* iba/ib_types.h writes LinkSpeedExtEnabled as the whole last byte:
	 * its three reserved bits go out 0 (what the IBA asks of a sender),
	 * where ibportstate echoes what it read. */
	want[63] &= 0x1f;
	port_phys_set_build(last, phys, got);
	assert_memory_equal(got, want, 64);
	assert_int_equal(mad_get_field(got, 0, IB_PORT_PHYS_STATE_F), phys);
	/* the M_Key, LID, SM LID, LMC and the rest as read */
	assert_memory_equal(got, last, 29);
}

static void
disable_as_ibportstate(void **state)
{
	(void)state;
	check_phys(PORT_PHYS_DISABLED);
	assert_int_equal(PORT_PHYS_DISABLED, 3);
}

static void
enable_as_ibportstate(void **state)
{
	(void)state;
	check_phys(PORT_PHYS_POLLING);
	assert_int_equal(PORT_PHYS_POLLING, 2);
}

static void
reset_as_perfquery(void **state)
{
	uint8_t got[PMA_DATA_LEN], want[PMA_DATA_LEN] = { 0 };

	(void)state;
	/* perfquery -R LID 7: PortSelect 7, every CounterSelect bit, and
	 * CounterSelect2 for PortXmitWait */
	pma_encode_clear(got, 7, (1u << HC_COUNT) - 1);
	mad_set_field(want, 0, IB_PC_PORT_SELECT_F, 7);
	mad_set_field(want, 0, IB_PC_COUNTER_SELECT_F, 0xffff);
	mad_set_field(want, 0, IB_PC_COUNTER_SELECT2_F, 1);
	assert_memory_equal(got, want, PMA_DATA_LEN);
	/* perfquery -x -R LID 7: the eight 64-bit counters */
	memset(want, 0, sizeof(want));
	pma_encode_clear_extended(got, 7);
	mad_set_field(want, 0, IB_PC_EXT_PORT_SELECT_F, 7);
	mad_set_field(want, 0, IB_PC_EXT_COUNTER_SELECT_F, 0xff);
	assert_memory_equal(got, want, PMA_DATA_LEN);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(disable_as_ibportstate),
		cmocka_unit_test(enable_as_ibportstate),
		cmocka_unit_test(reset_as_perfquery),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
