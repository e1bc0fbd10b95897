/*
 * The SA's attribute table (sm/sa/sa_attrs.def): one row per attribute, and
 * the rows agree with IBA and with what the answer needs.  Each ID is
 * found at its own row, names and IDs are unique, a record size is a
 * whole number of 8-byte words that fits a MAD (AttributeOffset counts
 * words; IBA 15.2.5 pads every record so), an attribute with Set or
 * Delete has a change and one without has none, only P_KeyTableRecord
 * wants the SA key, and an ID not in the table is "other".  The sizes
 * of the records whose layout IBA gives (15.2.5) are checked against the
 * figures there, not against ib_types.h's structs the table takes them
 * from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/sa/sa.h"

static void
every_row_sound(void **state)
{
	(void)state;
	assert_true(SA_NATTR > 10);
	for (unsigned i = 0; i + 1 < SA_NATTR; i++) {
		uint16_t id = sa_attr_id(i);
		const struct sa_attr *a = sa_attr_of(id);

		assert_non_null(a);
		assert_int_equal(sa_attr_index(id), i);
		assert_int_equal(be16toh(a->id), id);
		assert_string_equal(a->name, sa_attr_name(i));
		assert_true(a->rec_size > 0 && a->rec_size % 8 == 0 && a->rec_size <= IB_SA_DATA_SIZE);
		assert_int_equal(sa_record_size(id), a->rec_size);
		assert_true(a->methods != 0);
		assert_non_null(a->build);
		assert_int_equal((a->methods & (SA_M_SET | SA_M_DELETE)) != 0, a->change != sa_no_change);
		assert_int_equal(a->needs_key, id == 0x0033);
		for (unsigned j = 0; j < i; j++) {
			assert_int_not_equal(sa_attr_id(j), id);
			assert_string_not_equal(sa_attr_name(j), a->name);
		}
	}
}

static void
other_is_last(void **state)
{
	(void)state;
	assert_null(sa_attr_of(0x9999));
	assert_int_equal(sa_attr_index(0x9999), SA_NATTR - 1);
	assert_string_equal(sa_attr_name(SA_NATTR - 1), "other");
	assert_int_equal(sa_attr_id(SA_NATTR - 1), 0);
	assert_int_equal(sa_record_size(0x9999), 0);
}

/* IBA 15.2.5's record lengths, rounded up to 8 bytes as AttributeOffset
 * requires: NodeRecord 108 (LID, reserved, NodeInfo 40, NodeDescription
 * 64), PortInfoRecord 72 (an 8-byte RID, PortInfo 64), SMInfoRecord 25,
 * LinkRecord 8, MCMemberRecord 52, SwitchInfoRecord 24 (SwitchInfo 20),
 * the table records an 8-byte RID and 64 bytes of table (SL2VL: 8). */
static void
sizes_as_iba_gives(void **state)
{
	static const struct { uint16_t id; size_t bytes; } iba[] = {
		{ 0x0011, 112 }, { 0x0012, 72 }, { 0x0018, 32 }, { 0x0020, 8 }, { 0x0035, 64 },
		{ 0x0038, 56 }, { 0x0031, 176 }, { 0x0014, 24 }, { 0x0015, 72 }, { 0x0017, 72 },
		{ 0x0030, 72 }, { 0x0013, 16 }, { 0x0036, 72 }, { 0x0033, 72 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(iba) / sizeof(iba[0]); i++) {
		size_t got = sa_record_size(iba[i].id);
		if (got != iba[i].bytes)
			fail_msg("attribute 0x%04x: %zu bytes, IBA says %zu", iba[i].id, got,
			    iba[i].bytes);
	}
}

static void
methods_as_iba_says(void **state)
{
	(void)state;
	/* ClassPortInfo: Get alone; MultiPathRecord: GetMulti alone */
	assert_int_equal(sa_attr_of(0x0001)->methods, SA_M_GET);
	assert_int_equal(sa_attr_of(0x003A)->methods, SA_M_GETMULTI);
	/* joins and leaves, registrations and deletions, subscriptions */
	assert_true(sa_attr_of(0x0038)->methods & SA_M_DELETE);
	assert_true(sa_attr_of(0x0031)->methods & SA_M_DELETE);
	assert_true(sa_attr_of(0x0003)->methods & SA_M_SET);
	assert_int_equal(sa_method_bit(IB_MAD_METHOD_GETTABLE), SA_M_GETTABLE);
	assert_int_equal(sa_method_bit(0x7F), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_sound),
		cmocka_unit_test(other_is_last),
		cmocka_unit_test(sizes_as_iba_gives),
		cmocka_unit_test(methods_as_iba_says),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
