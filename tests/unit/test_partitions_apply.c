/*
 * The apply/verify/rollback engine against the fake MAD engine: only
 * differing blocks are written, written blocks are read back, and any
 * failure puts every written port back as it was.  The fake's tables are
 * the independent truth here, never the engine's own report.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "partitions/apply.h"
#include "partitions/plan.h"
#include "partitions_fixture.h"

struct outcome {
	bool	 free_plan;	/* free the (heap) plan inside done(), as the sweep hook does */
	bool	 called;
	bool	 ok, rolled_back;
	size_t	 sets, nfailed, nunrestored;
	char	 failed[4][256];
};

static void
on_done(struct pt_plan *plan, const struct pt_apply_report *r, void *arg)
{
	struct outcome *o = arg;

	o->called = true;
	o->ok = r->ok;
	o->rolled_back = r->rolled_back;
	o->sets = r->sets;
	o->nfailed = r->nfailed;
	o->nunrestored = r->nunrestored;
	for (size_t i = 0; i < r->nfailed && i < 4; i++)
		snprintf(o->failed[i], sizeof(o->failed[i]), "%s", r->failed[i]);
	if (o->free_plan) {
		pt_plan_free(plan);
		free(plan);
	}
}

struct world {
	struct fixture		*fx;
	struct fake_mad		 fm;
	struct pt_config	*c;
	struct pt_plan		 committed;	/* what the last good apply left */
	bool			 have_committed;
};

static bool
have_committed(void *arg, uint64_t node_guid, uint8_t port, uint16_t *t, size_t n)
{
	struct world *w = arg;
	struct pt_port_plan *pp;

	if (!w->have_committed || (pp = pt_plan_port(&w->committed, node_guid, port)) == NULL ||
	    pp->have == NULL)
		return false;
	memcpy(t, pp->have, n * sizeof(*t));
	return true;
}

/* Plan the world's config against what was committed, apply, run the fake. */
static struct outcome
apply(struct world *w, struct pt_plan *p)
{
	struct pt_plan_input in = {
		.config = w->c, .nodes = w->fx->list, .nnodes = FX_NODES,
		.sm_port_guid = FX_SM_GUID, .strict_members = true,
		.have = have_committed, .have_arg = w,
		.prev_index = w->have_committed ? w->committed.index : NULL,
		.nprev_index = w->have_committed ? w->committed.nindex : 0,
	};
	struct mad_io io = { .smp = fake_smp, .ctx = &w->fm };
	struct outcome o = { 0 };
	struct pt_err e;

	assert_int_equal(pt_plan_build(&in, p, &e), 0);
	assert_int_equal(pt_apply_start(p, &io, on_done, &o), 0);
	fake_mad_run(&w->fm);
	assert_true(o.called);
	return o;
}

static void
commit(struct world *w, struct pt_plan *p)
{
	if (w->have_committed)
		pt_plan_free(&w->committed);
	w->committed = *p;
	w->have_committed = true;
}

static struct world *
world_new(void)
{
	struct world *w = calloc(1, sizeof(*w));
	struct pt_err e;

	w->fx = fixture_fabric();
	fake_mad_init(&w->fm, w->fx);
	w->c = pt_config_new();
	assert_int_equal(pt_partition_add(w->c, "acme", "acme", 0x0a01, &e), 0);
	assert_int_equal(pt_partition_add(w->c, "beta", "beta", 0x0b01, &e), 0);
	assert_int_equal(pt_member_add(w->c, "acme", "h1*", true, &e), 0);
	assert_int_equal(pt_member_add(w->c, "acme", "h2*", true, &e), 0);
	assert_int_equal(pt_member_add(w->c, "beta", "h3*", true, &e), 0);
	assert_int_equal(pt_member_add(w->c, "beta", "h4*", false, &e), 0);
	return w;
}

static void
world_free(struct world *w)
{
	if (w->have_committed)
		pt_plan_free(&w->committed);
	pt_config_free(w->c);
	fixture_free(w->fx);
	free(w);
}

/* Every fake port holds exactly what the plan wants (within its cap). */
static void
assert_fabric_holds(struct world *w, const struct pt_plan *p)
{
	for (size_t i = 0; i < p->nports; i++) {
		const struct pt_port_plan *pp = &p->ports[i];
		const struct fabric_node *n = NULL;
		int node = -1;

		for (int k = 0; k < FX_NODES; k++)
			if (w->fx->nodes[k].guid == pp->node_guid)
				node = k, n = &w->fx->nodes[k];
		assert_non_null(n);
		struct fake_port *fp = fake_port_of(&w->fm, node,
		    n->type == FABRIC_SWITCH ? pp->port : 0);
		assert_non_null(fp);
		for (unsigned k = 0; k < fp->cap; k++)
			if (fp->table[k] != pp->want[k])
				fail_msg("%s index %u holds 0x%04x, plan 0x%04x", pp->label, k,
				    fp->table[k], pp->want[k]);
	}
}

static void
test_first_apply_and_resweep(void **state)
{
	struct world *w = world_new();
	struct pt_plan p;
	struct outcome o;

	o = apply(w, &p);
	assert_true(o.ok);
	assert_fabric_holds(w, &p);
	/* every port's table was unknown: block 0 differs on all 4 hosts,
	 * their 4 switch ports and the 3 switch port 0s; block 1 is zero */
	assert_int_equal(w->fm.sets, 11);
	/* the four switch ports facing hosts enforce, set with PortState NOP */
	assert_int_equal(w->fm.pi_sets, 4);
	for (int n = FX_LEAF1; n <= FX_LEAF2; n++)
		for (uint8_t port = 1; port <= 2; port++) {
			struct fake_port *fp = fake_port_of(&w->fm, n, port);

			assert_int_equal(fp->pi[43] & PT_ENFORCE_BITS, PT_ENFORCE_BITS);
			assert_int_equal(fp->pi[43] & 0xf0, 0x40);	/* VLs kept */
			assert_int_equal(fp->pi_set_state, 0);
		}
	assert_int_equal(fake_port_of(&w->fm, FX_LEAF1, 3)->pi_sets, 0);	/* ISL */
	commit(w, &p);

	/* an unchanged fabric sends no P_Key MADs at all */
	fake_mad_reset_counts(&w->fm);
	o = apply(w, &p);
	assert_true(o.ok);
	assert_int_equal(w->fm.sets + w->fm.gets + w->fm.pi_sets + w->fm.pi_gets, 0);
	commit(w, &p);
	world_free(w);
}

static void
test_add_member_touches_two_ports(void **state)
{
	struct world *w = world_new();
	struct pt_plan p;
	struct pt_err e;
	struct outcome o;

	o = apply(w, &p);
	commit(w, &p);
	fake_mad_reset_counts(&w->fm);
	assert_int_equal(pt_member_add(w->c, "acme", "h4*", true, &e), 0);
	o = apply(w, &p);
	assert_true(o.ok);
	assert_int_equal(w->fm.sets, 2);
	assert_int_equal(fake_port_of(&w->fm, FX_H4, 0)->sets, 1);
	assert_int_equal(fake_port_of(&w->fm, FX_LEAF2, 2)->sets, 1);
	assert_int_equal(w->fm.gets, 2);	/* the two read-backs */
	assert_int_equal(w->fm.pi_gets, 1);	/* leaf2:2 already enforces: no Set */
	assert_int_equal(w->fm.pi_sets, 0);
	assert_fabric_holds(w, &p);
	commit(w, &p);
	world_free(w);
}

static void
snapshot(struct fake_mad *fm, uint16_t (*out)[128])
{
	memset(out, 0, FAKE_MAX_PORTS * sizeof(out[0]));
	for (size_t i = 0; i < fm->nports; i++)
		memcpy(out[i], fm->ports[i].table, sizeof(out[i]));
}

static void
test_drop_rolls_back(void **state)
{
	struct world *w = world_new();
	struct pt_plan p;
	struct pt_err e;
	struct outcome o;
	uint16_t before[FAKE_MAX_PORTS][128], after[FAKE_MAX_PORTS][128];

	o = apply(w, &p);
	commit(w, &p);
	snapshot(&w->fm, before);
	/* a change that writes both halves of the fabric; leaf2 drops everything */
	assert_int_equal(pt_partition_add(w->c, "shared", "ops", 0x0c01, &e), 0);
	assert_int_equal(pt_member_add(w->c, "shared", "all-cas", false, &e), 0);
	w->fm.drop_node = FX_LEAF2;
	o = apply(w, &p);
	assert_false(o.ok);
	assert_true(o.rolled_back);
	assert_int_equal(o.nfailed, 2);	/* leaf2:1 and leaf2:2 */
	assert_non_null(strstr(o.failed[0], "leaf2:"));
	assert_non_null(strstr(o.failed[0], "timeout"));
	assert_int_equal(o.nunrestored, 2);	/* leaf2 cannot be reached to restore */
	snapshot(&w->fm, after);
	assert_memory_equal(before, after, sizeof(before));
	/* leaf2's ports could not be put back: their tables are unknown now */
	assert_null(pt_plan_port(&p, 0x2002, 1)->have);
	assert_null(pt_plan_port(&p, 0x2002, 2)->have);
	assert_non_null(pt_plan_port(&p, 0x1000, 1)->have);
	/* the others' have[] tables describe the old state again */
	for (size_t i = 0; i < p.nports; i++)
		assert_false(p.ports[i].have != NULL &&
		    pt_plan_port(&w->committed, p.ports[i].node_guid, p.ports[i].port)->have[0] !=
		    p.ports[i].have[0]);
	pt_plan_free(&p);
	world_free(w);
}

static void
test_verify_mismatch_rolls_back(void **state)
{
	struct world *w = world_new();
	struct pt_plan p;
	struct pt_err e;
	struct outcome o;
	uint16_t before[FAKE_MAX_PORTS][128], after[FAKE_MAX_PORTS][128];

	o = apply(w, &p);
	commit(w, &p);
	snapshot(&w->fm, before);
	assert_int_equal(pt_member_add(w->c, "acme", "h3*", true, &e), 0);
	fake_port_of(&w->fm, FX_LEAF2, 1)->stuck = true;
	o = apply(w, &p);
	assert_false(o.ok);
	assert_int_equal(o.nfailed, 1);
	assert_non_null(strstr(o.failed[0], "leaf2:1: block 0 index"));
	assert_int_equal(o.nunrestored, 0);
	snapshot(&w->fm, after);
	assert_memory_equal(before, after, sizeof(before));
	pt_plan_free(&p);
	world_free(w);
}

/* A port that cannot be read is never written: nothing changes anywhere. */
/* done() may free the plan (the sweep hook does): the engine must not
 * touch it afterwards (ASan catches it if it does). */
static void
test_done_frees_plan(void **state)
{
	struct world *w = world_new();
	struct pt_plan_input in = {
		.config = w->c, .nodes = w->fx->list, .nnodes = FX_NODES,
		.sm_port_guid = FX_SM_GUID, .strict_members = true,
	};
	struct mad_io io = { .smp = fake_smp, .ctx = &w->fm };
	struct outcome o = { .free_plan = true };
	struct pt_plan *p = calloc(1, sizeof(*p));
	struct pt_err e;

	assert_int_equal(pt_plan_build(&in, p, &e), 0);
	assert_int_equal(pt_apply_start(p, &io, on_done, &o), 0);
	fake_mad_run(&w->fm);
	assert_true(o.called);
	assert_true(o.ok);
	world_free(w);
}

static void
test_unreadable_port_writes_nothing(void **state)
{
	struct world *w = world_new();
	struct pt_plan p;
	struct outcome o;
	uint16_t before[FAKE_MAX_PORTS][128], after[FAKE_MAX_PORTS][128];

	snapshot(&w->fm, before);
	w->fm.drop_node = FX_H3;
	o = apply(w, &p);
	assert_false(o.ok);
	assert_false(o.rolled_back);
	assert_int_equal(w->fm.sets, 0);
	snapshot(&w->fm, after);
	assert_memory_equal(before, after, sizeof(before));
	pt_plan_free(&p);
	world_free(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_apply_and_resweep),
		cmocka_unit_test(test_add_member_touches_two_ports),
		cmocka_unit_test(test_drop_rolls_back),
		cmocka_unit_test(test_verify_mismatch_rolls_back),
		cmocka_unit_test(test_unreadable_port_writes_nothing),
		cmocka_unit_test(test_done_frees_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
