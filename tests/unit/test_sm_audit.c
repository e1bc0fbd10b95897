/*
 * The audit's checkers (sm/audit_*.c) on a model built by hand: each
 * compares what a port answered with what fabricd programmed, says SAME
 * when they agree, and otherwise names the difference and fills the Set
 * that puts back only what fabricd owns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <endian.h>
#include <cmocka.h>

#include "sm/audit/audit.h"
#include "fabric_route_fixture.h"

struct afix {
	struct rfix	 r;
	struct sm	 sm;
	struct sm_audit	 audit;
};

static int
afix_setup(void **state)
{
	struct afix *x = calloc(1, sizeof(*x));
	struct routing_params params = { .engine = ROUTING_MINHOP };
	char err[128];

	rfix_build(&x->r);
	x->sm.fabric = x->r.f;
	x->sm.rt = routing_compute_fabric(x->r.f, &params, err, sizeof(err));
	assert_non_null(x->sm.rt);
	x->sm.own_lid = 1;
	x->sm.cfg.subnet_prefix = 0xfe80000000000000ull;
	x->sm.sweeping = true;		/* a heavy sweep asked for is only noted */
	x->sm.state = SM_STATE_MASTER;
	x->sm.audit = &x->audit;	/* the audit's state, as sm_audit_start() gives it */
	*state = x;
	return 0;
}

static int
afix_teardown(void **state)
{
	struct afix *x = *state;

	routing_table_free(x->sm.rt);
	guid_map_free(&x->audit.enforce_seen);
	fabric_free(x->r.f);
	free(x);
	return 0;
}

static void
lft_block(void **state)
{
	struct afix *x = *state;
	const struct routing_lft *want = routing_lft_of(x->sm.rt, x->r.sw1->guid);
	struct audit_get g;
	uint8_t data[64], set[64];
	char diff[AUDIT_DIFF_LEN];

	assert_int_equal(audit_lft_checker.items(&x->sm, x->r.sw1), want->nblocks);
	assert_int_equal(audit_lft_checker.items(&x->sm, x->r.h1), 0);
	assert_int_equal(audit_lft_checker.gets(&x->sm, x->r.sw1, 0, &g), 1);
	assert_int_equal(g.attr, 0x0019);
	assert_int_equal(g.mod, 0);
	memcpy(data, want->port, 64);
	memcpy(set, data, 64);
	assert_int_equal(audit_lft_checker.check(&x->sm, x->r.sw1, &g, data, set, diff,
	    sizeof(diff)), AUDIT_SAME);
	/* another host points LID 2 at port 1 */
	data[2] = 1;
	assert_int_equal(audit_lft_checker.check(&x->sm, x->r.sw1, &g, data, set, diff,
	    sizeof(diff)), AUDIT_DIFF);
	assert_non_null(strstr(diff, "LID 2 goes out of port 1"));
	assert_memory_equal(set, want->port, 64);
}

/* A block whose write got no answer is unknown in the model's copy
 * (sm/core/lft.c); the audit's read of it, the same as the routes or not, is
 * what the copy holds from then on: the next sweep diffs against that. */
static void
lft_read_refreshes_copy(void **state)
{
	struct afix *x = *state;
	struct fabric_node *sw = x->r.sw1;
	const struct routing_lft *want = routing_lft_of(x->sm.rt, sw->guid);
	struct audit_get g;
	uint8_t data[64];

	assert_int_equal(audit_lft_checker.gets(&x->sm, sw, 0, &g), 1);
	sm_lft_mark_unknown(sw, 0);
	sw->lft_known = true;
	assert_int_equal(routing_lookup_programmed(sw, 2, NULL), ROUTING_UNKNOWN_PORT);
	memcpy(data, want->port, 64);
	audit_lft_checker.held(&x->sm, sw, &g, data);	/* read back: SAME */
	assert_memory_equal(sw->lft, want->port, 64);
	data[2] = 1;					/* read back: tampered */
	audit_lft_checker.held(&x->sm, sw, &g, data);
	assert_int_equal(routing_lookup_programmed(sw, 2, NULL), 1);
}

/* The committed tables, as the partitions module would hand them over. */
static int
expect(uint64_t node_guid, uint8_t port, uint16_t *entries, size_t max, bool *ext, void *arg)
{
	static const uint16_t h2[] = { 0x7fff, 0x8a01, 0, 0 };

	if (node_guid != 0x110 || port != 1 || max < 4)
		return -1;
	memcpy(entries, h2, sizeof(h2));
	*ext = false;
	return 4;
}

/* What partitions registers is the instance's: a second SM (another
 * subnet's) has no committed tables, its audit reads none. */
static void
pkey_expect_per_instance(void **state)
{
	struct afix *x = *state;
	struct sm *other = calloc(1, sizeof(*other));
	struct audit_get g[AUDIT_MAX_GETS];

	assert_non_null(other);
	sm_set_pkey_expect(&x->sm, expect, NULL);
	assert_int_equal(audit_pkey_checker.items(&x->sm, x->r.h2), x->r.h2->nports + 1);
	assert_int_equal(audit_pkey_checker.items(other, x->r.h2), 0);
	assert_int_equal(audit_pkey_checker.gets(&x->sm, x->r.h2, 1, g), 1);
	sm_set_pkey_expect(other, expect, NULL);
	sm_set_pkey_expect(&x->sm, NULL, NULL);
	assert_int_equal(audit_pkey_checker.items(&x->sm, x->r.h2), 0);
	assert_int_equal(audit_pkey_checker.items(other, x->r.h2), x->r.h2->nports + 1);
	sm_set_pkey_expect(NULL, expect, NULL);	/* no SM: nothing kept, no crash */
	free(other);
}

static void
pkey_block(void **state)
{
	struct afix *x = *state;
	struct audit_get g[AUDIT_MAX_GETS];
	uint8_t data[64] = { 0x7f, 0xff, 0x8a, 0x01 }, set[64];
	char diff[AUDIT_DIFF_LEN];

	assert_int_equal(audit_pkey_checker.items(&x->sm, x->r.h2), 0);	/* nothing registered */
	sm_set_pkey_expect(&x->sm, expect, NULL);
	assert_int_equal(audit_pkey_checker.gets(&x->sm, x->r.h2, 1, g), 1);
	assert_int_equal(audit_pkey_checker.gets(&x->sm, x->r.h3, 2, g), 0);	/* unknown table */
	audit_pkey_checker.gets(&x->sm, x->r.h2, 1, g);
	memcpy(set, data, 64);
	assert_int_equal(audit_pkey_checker.check(&x->sm, x->r.h2, &g[0], data, set, diff,
	    sizeof(diff)), AUDIT_SAME);
	/* made a full member of 0x0b01 at index 2, and index 5 (beyond the
	 * committed entries) scribbled on: only the committed entries are
	 * put back */
	data[4] = 0x8b;
	data[5] = 0x01;
	data[10] = 0x12;
	memcpy(set, data, 64);
	assert_int_equal(audit_pkey_checker.check(&x->sm, x->r.h2, &g[0], data, set, diff,
	    sizeof(diff)), AUDIT_DIFF);
	assert_non_null(strstr(diff, "index 2 holds 0x8b01, committed 0x0000"));
	assert_int_equal(set[4], 0);
	assert_int_equal(set[5], 0);
	assert_int_equal(set[10], 0x12);
}

static void
portinfo_fields(void **state)
{
	struct afix *x = *state;
	struct fabric_port *p = &x->r.h2->ports[1];
	struct audit_get g;
	ib_port_info_t pi, set;
	char diff[AUDIT_DIFF_LEN];

	p->lid = 2;
	assert_int_equal(audit_portinfo_checker.gets(&x->sm, x->r.h2, 1, &g), 1);
	memset(&pi, 0, sizeof(pi));
	pi.base_lid = htobe16(2);
	pi.master_sm_base_lid = htobe16(1);
	pi.subnet_prefix = htobe64(0xfe80000000000000ull);
	ib_port_info_set_port_state(&pi, IB_LINK_ACTIVE);
	ib_port_info_set_port_phys_state(5, &pi);
	memcpy(&set, &pi, sizeof(set));
	assert_int_equal(audit_portinfo_checker.check(&x->sm, x->r.h2, &g, (uint8_t *)&pi,
	    (uint8_t *)&set, diff, sizeof(diff)), AUDIT_SAME);
	/* another SM's LID put in: back to ours, nothing else moves */
	pi.master_sm_base_lid = htobe16(9);
	memcpy(&set, &pi, sizeof(set));
	assert_int_equal(audit_portinfo_checker.check(&x->sm, x->r.h2, &g, (uint8_t *)&pi,
	    (uint8_t *)&set, diff, sizeof(diff)), AUDIT_DIFF);
	assert_non_null(strstr(diff, "SM LID 9"));
	assert_int_equal(be16toh(set.master_sm_base_lid), 1);
	assert_int_equal(ib_port_info_get_port_state(&set), IB_LINK_NO_CHANGE);
	assert_int_equal(ib_port_info_get_port_phys_state(&set), 0);
	assert_int_equal(set.link_width_enabled, 0);
	/* a link that left ACTIVE: told, and a heavy sweep asked for */
	pi.master_sm_base_lid = htobe16(1);
	ib_port_info_set_port_state(&pi, IB_LINK_INIT);
	assert_int_equal(audit_portinfo_checker.check(&x->sm, x->r.h2, &g, (uint8_t *)&pi,
	    (uint8_t *)&set, diff, sizeof(diff)), AUDIT_REPORT);
	assert_true(x->sm.again_heavy);
}

/* One MFT block: equal says SAME; one entry another host changed is named
 * by its MLID, the mask it holds and the one the trees give. */
static void
mft_compare(void **state)
{
	uint8_t want[64] = { 0 }, got[64];
	char diff[AUDIT_DIFF_LEN];

	want[2 * 3] = 0x00;
	want[2 * 3 + 1] = 0x06;		/* MLID 0xC023 (block 1, entry 3): ports 1, 2 */
	memcpy(got, want, 64);
	assert_int_equal(audit_mft_compare(got, want, 1, 0, diff, sizeof(diff)), AUDIT_SAME);
	got[2 * 3] = 0x7f;
	got[2 * 3 + 1] = 0xfe;
	assert_int_equal(audit_mft_compare(got, want, 1, 0, diff, sizeof(diff)), AUDIT_DIFF);
	assert_non_null(strstr(diff, "MLID block 1 position 0 (ports 0-15): 1 entry: "
	    "MLID 0xc023 goes to port mask 0x7ffe, the trees say 0x0006"));
	/* two entries at position 2: the first is named, both counted */
	got[2 * 31 + 1] = 0x01;
	assert_int_equal(audit_mft_compare(got, want, 1, 2, diff, sizeof(diff)), AUDIT_DIFF);
	assert_non_null(strstr(diff, "position 2 (ports 32-47): 2 entries: MLID 0xc023"));
	/* the bytes after the 32 entries are not the table's */
	memcpy(got, want, 64);
	assert_int_equal(audit_mft_compare(got, want, 0, 0, diff, sizeof(diff)), AUDIT_SAME);
}

/* A switch the SM has no MFT record of: nothing to read, nothing to judge. */
static void
mft_unknown(void **state)
{
	struct afix *x = *state;
	struct audit_get g = { .attr = 0x001B, .mod = 0 };
	uint8_t data[64] = { 0 }, set[64];
	char diff[AUDIT_DIFF_LEN];

	assert_int_equal(audit_mft_checker.items(&x->sm, x->r.sw1), 0);
	assert_int_equal(audit_mft_checker.items(&x->sm, x->r.h1), 0);
	assert_int_equal(audit_mft_checker.gets(&x->sm, x->r.sw1, 0, &g), 0);
	assert_int_equal(audit_mft_checker.check(&x->sm, x->r.sw1, &g, data, set, diff,
	    sizeof(diff)), AUDIT_SKIP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lft_block, afix_setup, afix_teardown),
		cmocka_unit_test_setup_teardown(lft_read_refreshes_copy, afix_setup, afix_teardown),
		cmocka_unit_test_setup_teardown(pkey_block, afix_setup, afix_teardown),
		cmocka_unit_test_setup_teardown(pkey_expect_per_instance, afix_setup, afix_teardown),
		cmocka_unit_test_setup_teardown(portinfo_fields, afix_setup, afix_teardown),
		cmocka_unit_test(mft_compare),
		cmocka_unit_test_setup_teardown(mft_unknown, afix_setup, afix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
