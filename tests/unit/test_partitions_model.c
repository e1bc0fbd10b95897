/* Partition model and planning: keys, members, indices, capacity, SM access. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "partitions/model.h"
#include "partitions/plan.h"
#include "partitions_fixture.h"

static void
test_pkey_parse(void **state)
{
	struct pt_err e;
	uint16_t k;

	assert_int_equal(pt_pkey_parse("0x0001", &k, &e), 0);
	assert_int_equal(k, 1);
	assert_int_equal(pt_pkey_parse("0x7ffe", &k, &e), 0);
	assert_int_equal(k, 0x7ffe);
	assert_int_equal(pt_pkey_parse("0x0000", &k, &e), -1);
	assert_int_equal(e.code, PERR_INVALID_ARGUMENT);
	assert_int_equal(pt_pkey_parse("0x7fff", &k, &e), -1);	/* default: policy */
	assert_int_equal(pt_pkey_parse("0x8001", &k, &e), -1);	/* membership bit */
	assert_int_equal(pt_pkey_parse("0x10000", &k, &e), -1);
	assert_int_equal(pt_pkey_parse("12", &k, &e), -1);	/* hex only, no guessing */
	assert_int_equal(pt_pkey_parse("0x12g", &k, &e), -1);
	assert_int_equal(pt_pkey_parse("0x", &k, &e), -1);
}

static void
test_member_parse(void **state)
{
	struct pt_member m;
	struct pt_err e;
	char buf[80];

	assert_int_equal(pt_member_parse("0x0002c903000a0b0c", true, &m, &e), 0);
	assert_int_equal(m.kind, PT_MEMBER_GUID);
	assert_true(m.guid == 0x0002c903000a0b0cULL);
	assert_string_equal(pt_member_text(&m, buf, sizeof(buf)), "0x0002c903000a0b0c");
	assert_int_equal(pt_member_parse("all-cas", false, &m, &e), 0);
	assert_int_equal(m.kind, PT_MEMBER_ALL_CAS);
	assert_int_equal(pt_member_parse("switches", false, &m, &e), 0);
	assert_int_equal(m.kind, PT_MEMBER_SWITCHES);
	/* no prefix matching of keywords: "all" is a node name, not all-cas */
	assert_int_equal(pt_member_parse("all", false, &m, &e), 0);
	assert_int_equal(m.kind, PT_MEMBER_NODE);
	pt_member_clear(&m);
	assert_int_equal(pt_member_parse("gpu-node-*", false, &m, &e), 0);
	assert_int_equal(m.kind, PT_MEMBER_NODE);
	pt_member_clear(&m);
	assert_int_equal(pt_member_parse("0xzz", false, &m, &e), -1);
	assert_int_equal(pt_member_parse("0x0", false, &m, &e), -1);
	assert_int_equal(pt_member_parse("", false, &m, &e), -1);
	assert_int_equal(pt_member_parse("a=full", false, &m, &e), -1);
}

static void
test_changes(void **state)
{
	struct pt_config *c = pt_config_new();
	struct pt_err e;

	assert_int_equal(pt_partition_add(c, "a-train", "acme", 0x0101, &e), 0);
	assert_int_equal(pt_partition_add(c, "a-train", "acme", 0x0102, &e), -1);
	assert_int_equal(e.code, PERR_CONFLICT);
	assert_int_equal(pt_partition_add(c, "b-train", "beta", 0x0101, &e), -1);
	assert_int_equal(e.code, PERR_CONFLICT);
	assert_int_equal(pt_partition_add(c, "default", "", 0x0103, &e), -1);
	assert_int_equal(pt_partition_add(c, "bad name", "", 0x0103, &e), -1);
	assert_int_equal(pt_partition_add(c, "zero", "", 0x0000, &e), -1);
	assert_int_equal(pt_partition_add(c, "high", "", 0x8000, &e), -1);
	assert_int_equal(c->nparts, 1);

	assert_int_equal(pt_member_add(c, "a-train", "h2*", true, &e), 0);
	assert_int_equal(pt_member_add(c, "a-train", "h2*", true, &e), -1);
	assert_int_equal(e.code, PERR_CONFLICT);
	assert_int_equal(pt_member_add(c, "a-train", "h2*", false, &e), 0);	/* full -> limited */
	assert_false(pt_find(c, "a-train")->members[0].full);
	assert_int_equal(pt_member_add(c, "nope", "h2", true, &e), -1);
	assert_int_equal(e.code, PERR_NOT_FOUND);
	assert_int_equal(pt_member_remove(c, "a-train", "h3", &e), -1);
	assert_int_equal(pt_member_remove(c, "a-train", "h2*", &e), 0);
	assert_int_equal(pt_find(c, "a-train")->nmembers, 0);

	struct pt_config *d = pt_config_dup(c);
	assert_int_equal(pt_partition_delete(c, "a-train", &e), 0);
	assert_int_equal(pt_partition_delete(c, "a-train", &e), -1);
	assert_non_null(pt_find(d, "a-train"));
	assert_int_equal(pt_config_check(d, &e), 0);
	pt_config_free(c);
	pt_config_free(d);
}

/* Two tenants on the fixture: acme = h1,h2 (full), beta = h3,h4 with h4 limited. */
static struct pt_config *
two_tenants(void)
{
	struct pt_config *c = pt_config_new();
	struct pt_err e;

	assert_int_equal(pt_partition_add(c, "acme-train", "acme", 0x0a01, &e), 0);
	assert_int_equal(pt_partition_add(c, "beta-train", "beta", 0x0b01, &e), 0);
	assert_int_equal(pt_member_add(c, "acme-train", "h1*", true, &e), 0);
	assert_int_equal(pt_member_add(c, "acme-train", "0x1011", true, &e), 0);
	assert_int_equal(pt_member_add(c, "beta-train", "h3 HCA-1", true, &e), 0);
	assert_int_equal(pt_member_add(c, "beta-train", "h4*", false, &e), 0);
	return c;
}

static struct pt_plan_input
input(struct pt_config *c, struct fixture *fx)
{
	struct pt_plan_input in = {
		.config = c, .nodes = fx->list, .nnodes = FX_NODES,
		.sm_port_guid = FX_SM_GUID, .strict_members = true,
	};
	return in;
}

static void
test_plan_two_tenants(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = two_tenants();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p;
	struct pt_err e;
	struct pt_port_plan *h1, *h2, *h3, *h4, *l1p2, *l2p2, *sp0, *spine1;
	int ia, ib;

	assert_int_equal(pt_plan_build(&in, &p, &e), 0);
	h1 = pt_plan_port(&p, 0x1000, 1);
	h2 = pt_plan_port(&p, 0x1010, 1);
	h3 = pt_plan_port(&p, 0x1020, 1);
	h4 = pt_plan_port(&p, 0x1030, 1);
	l1p2 = pt_plan_port(&p, 0x2001, 2);
	l2p2 = pt_plan_port(&p, 0x2002, 2);
	sp0 = pt_plan_port(&p, 0x2000, 0);
	spine1 = pt_plan_port(&p, 0x2000, 1);
	assert_non_null(h1); assert_non_null(h2); assert_non_null(h3); assert_non_null(h4);
	assert_non_null(l1p2); assert_non_null(l2p2); assert_non_null(sp0);
	assert_null(spine1);	/* switch-to-switch links get no enforcement table */

	/* default partition at index 0: SM full, others limited */
	assert_int_equal(h1->want[0], 0xffff);
	assert_int_equal(h2->want[0], 0x7fff);
	assert_int_equal(sp0->want[0], 0x7fff);
	ia = pt_plan_index_of(&p, 0x0a01);
	ib = pt_plan_index_of(&p, 0x0b01);
	assert_true(ia >= 1);
	assert_true(ib >= 1);
	assert_int_equal(h1->want[ia], 0x8a01);
	assert_int_equal(h2->want[ia], 0x8a01);
	assert_int_equal(h3->want[ib], 0x8b01);
	assert_int_equal(h4->want[ib], 0x0b01);	/* limited */
	/* isolation: nobody holds the other tenant's key */
	for (int i = 0; i < 64; i++) {
		assert_true((h1->want[i] & 0x7fff) != 0x0b01);
		assert_true((h3->want[i] & 0x7fff) != 0x0a01);
		if (i < sp0->nblocks * PT_BLOCK)
			assert_true((sp0->want[i] & 0x7fff) != 0x0a01);
	}
	/* the facing switch port holds the same table */
	assert_memory_equal(l1p2->want, h2->want, 64 * sizeof(uint16_t));
	assert_memory_equal(l2p2->want, h4->want, 64 * sizeof(uint16_t));
	assert_true(l1p2->switch_ext);
	assert_int_equal(l1p2->attr_mod_port, 2u << 16);
	/* addressing: h3 through leaf2 port 1 */
	assert_int_equal(h3->addr.hops, 4);
	assert_int_equal(h3->addr.path[4], 1);
	pt_plan_free(&p);
	pt_config_free(c);
	fixture_free(fx);
}

static void
test_index_stable(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = two_tenants();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p1, p2;
	struct pt_err e;
	int before;

	assert_int_equal(pt_plan_build(&in, &p1, &e), 0);
	before = pt_plan_index_of(&p1, 0x0b01);
	/* a new key on h3 must not move beta's index, even though it sorts first */
	assert_int_equal(pt_partition_add(c, "beta-eval", "beta", 0x0001, &e), 0);
	assert_int_equal(pt_member_add(c, "beta-eval", "h3*", true, &e), 0);
	in.prev_index = p1.index;
	in.nprev_index = p1.nindex;
	assert_int_equal(pt_plan_build(&in, &p2, &e), 0);
	assert_int_equal(pt_plan_index_of(&p2, 0x0b01), before);
	assert_int_equal(pt_plan_index_of(&p2, 0x0a01), pt_plan_index_of(&p1, 0x0a01));
	assert_true(pt_plan_index_of(&p2, 0x0001) != before);
	pt_plan_free(&p1);
	pt_plan_free(&p2);
	pt_config_free(c);
	fixture_free(fx);
}

static void
test_unknown_member(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = two_tenants();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p;
	struct pt_err e;

	assert_int_equal(pt_member_add(c, "acme-train", "0x9999", true, &e), 0);
	assert_int_equal(pt_plan_build(&in, &p, &e), -1);
	assert_int_equal(e.code, PERR_NOT_FOUND);
	assert_non_null(strstr(e.msg, "0x0000000000009999"));
	in.strict_members = false;	/* sweeps: absent members are just absent */
	assert_int_equal(pt_plan_build(&in, &p, &e), 0);
	pt_plan_free(&p);
	/* a member already committed that is absent now (a host down) does
	 * not block other changes; only new members must match */
	struct pt_config *committed = pt_config_dup(c);
	in.strict_members = true;
	in.committed = committed;
	assert_int_equal(pt_plan_build(&in, &p, &e), 0);
	pt_plan_free(&p);
	assert_int_equal(pt_member_add(c, "beta-train", "nohost*", true, &e), 0);
	assert_int_equal(pt_plan_build(&in, &p, &e), -1);
	assert_non_null(strstr(e.msg, "nohost*"));
	pt_config_free(committed);
	pt_config_free(c);
	fixture_free(fx);
}

/* More keys than the facing switch port can enforce: refused, never
 * "enforcement off" as OpenSM does. */
static void
test_capacity(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = pt_config_new();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p;
	struct pt_err e;
	char name[16];

	fx->nodes[FX_LEAF2].partition_enforcement_cap = 4;
	for (int i = 1; i <= 3; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		assert_int_equal(pt_partition_add(c, name, "t", (uint16_t)i, &e), 0);
		assert_int_equal(pt_member_add(c, name, "h3*", true, &e), 0);
	}
	assert_int_equal(pt_plan_build(&in, &p, &e), 0);	/* 1 default + 3 = 4 */
	pt_plan_free(&p);
	assert_int_equal(pt_partition_add(c, "p4", "t", 4, &e), 0);
	assert_int_equal(pt_member_add(c, "p4", "h3*", true, &e), 0);
	assert_int_equal(pt_plan_build(&in, &p, &e), -1);
	assert_int_equal(e.code, PERR_CAPACITY);
	assert_non_null(strstr(e.msg, "leaf2:1"));
	assert_non_null(strstr(e.msg, "PartitionEnforcementCap 4"));
	pt_config_free(c);
	fixture_free(fx);
}

/* Each key gets its own index while there is room, so adding a member
 * later never moves a key; disjoint tenants share one only when full. */
static void
test_index_reuse(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = two_tenants();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p;
	struct pt_err e;

	assert_int_equal(pt_plan_build(&in, &p, &e), 0);
	assert_int_not_equal(pt_plan_index_of(&p, 0x0a01), pt_plan_index_of(&p, 0x0b01));
	pt_plan_free(&p);
	for (int i = 0; i < FX_NODES; i++)
		if (fx->nodes[i].type == FABRIC_CA)
			fx->nodes[i].partition_cap = 2;	/* default + one key */
	assert_int_equal(pt_plan_build(&in, &p, &e), 0);
	assert_int_equal(pt_plan_index_of(&p, 0x0a01), 1);
	assert_int_equal(pt_plan_index_of(&p, 0x0b01), 1);
	pt_plan_free(&p);
	pt_config_free(c);
	fixture_free(fx);
}

static void
test_sm_access(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = two_tenants();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p;
	struct pt_err e;

	c->default_policy = PT_DEFAULT_OTHERS_FULL;
	assert_int_equal(pt_plan_build(&in, &p, &e), 0);
	assert_int_equal(pt_plan_port(&p, 0x1030, 1)->want[0], 0xffff);
	pt_plan_free(&p);
	in.sm_port_guid = 0x4242;	/* an SM port the plan cannot see */
	assert_int_equal(pt_plan_build(&in, &p, &e), -1);
	assert_int_equal(e.code, PERR_CHECK_FAILED);
	pt_config_free(c);
	fixture_free(fx);
}

static bool
have_all_default(void *arg, uint64_t node_guid, uint8_t port, uint16_t *t, size_t n)
{
	struct pt_plan *prev = arg;
	struct pt_port_plan *pp = pt_plan_port(prev, node_guid, port);

	if (pp == NULL)
		return false;
	memcpy(t, pp->want, n * sizeof(*t));
	return true;
}

/* Diff against the committed state: adding h4 to acme dirties h4 and leaf2/2 only. */
static void
test_diff_minimal(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = two_tenants();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p1, p2;
	struct pt_err e;

	assert_int_equal(pt_plan_build(&in, &p1, &e), 0);
	in.prev_index = p1.index;
	in.nprev_index = p1.nindex;
	in.have = have_all_default;
	in.have_arg = &p1;
	assert_int_equal(pt_plan_build(&in, &p2, &e), 0);
	assert_int_equal(pt_plan_dirty_blocks(&p2), 0);
	pt_plan_free(&p2);
	assert_int_equal(pt_member_add(c, "acme-train", "h4*", true, &e), 0);
	assert_int_equal(pt_plan_build(&in, &p2, &e), 0);
	assert_int_equal(pt_plan_dirty_blocks(&p2), 2);
	assert_true(pt_block_dirty(pt_plan_port(&p2, 0x1030, 1), 0));
	assert_true(pt_block_dirty(pt_plan_port(&p2, 0x2002, 2), 0));
	assert_false(pt_block_dirty(pt_plan_port(&p2, 0x1030, 1), 1));
	pt_plan_free(&p1);
	pt_plan_free(&p2);
	pt_config_free(c);
	fixture_free(fx);
}

static bool
have_only_h1(void *arg, uint64_t node_guid, uint8_t port, uint16_t *t, size_t n)
{
	if (node_guid != 0x1000)
		return false;
	memset(t, 0, n * sizeof(*t));
	t[0] = 0xffff;
	t[1] = 0x8a01;
	return true;
}

/* An unplannable set: known ports keep their tables, unknown ones get the
 * default partition only, never the factory 0xffff. */
static void
test_quarantine(void **state)
{
	struct fixture *fx = fixture_fabric();
	struct pt_config *c = two_tenants();
	struct pt_plan_input in = input(c, fx);
	struct pt_plan p;
	struct pt_err e;

	fx->nodes[FX_LEAF2].partition_enforcement_cap = 1;	/* nothing fits on h3, h4 */
	in.strict_members = false;
	in.have = have_only_h1;
	assert_int_equal(pt_plan_build(&in, &p, &e), -1);
	assert_int_equal(e.code, PERR_CAPACITY);
	assert_int_equal(pt_plan_quarantine(&in, &p, &e), 0);
	assert_int_equal(pt_plan_port(&p, 0x1000, 1)->want[1], 0x8a01);	/* known: kept */
	assert_int_equal(pt_plan_port(&p, 0x1010, 1)->want[0], 0x7fff);	/* new: limited */
	assert_int_equal(pt_plan_port(&p, 0x1010, 1)->want[1], 0);
	assert_int_equal(pt_plan_port(&p, 0x1030, 1)->want[0], 0x7fff);
	assert_int_equal(pt_plan_port(&p, 0x2002, 2)->want[0], 0x7fff);
	assert_int_equal(p.nindex, 0);
	assert_false(pt_block_dirty(pt_plan_port(&p, 0x1000, 1), 0));
	pt_plan_free(&p);
	pt_config_free(c);
	fixture_free(fx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pkey_parse),
		cmocka_unit_test(test_member_parse),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_plan_two_tenants),
		cmocka_unit_test(test_index_stable),
		cmocka_unit_test(test_unknown_member),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_index_reuse),
		cmocka_unit_test(test_sm_access),
		cmocka_unit_test(test_diff_minimal),
		cmocka_unit_test(test_quarantine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
