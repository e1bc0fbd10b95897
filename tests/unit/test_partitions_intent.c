/*
 * Crash-safe changes (partitions/intent.c): the intent a change records
 * before its first Set names exactly the ports it is about to write, with
 * what they held; from it a restart builds the plan that puts them back,
 * and running that plan against a fake fabric whose port holds the
 * half-written table restores the old one.  Ports whose node is not in
 * the fabric are left out and their committed tables forgotten.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "partitions/internal.h"
#include "partitions_fixture.h"

struct world {
	char		 dir[64];
	struct store	*st;
	struct fixture	*fx;
	struct fake_mad	 fm;
	struct pt_plan	 plan;
};

static void
port_plan(struct pt_port_plan *pp, struct fabric_node *n, uint8_t port, const uint16_t *have,
    const uint16_t *want)
{
	memset(pp, 0, sizeof(*pp));
	pp->node_guid = n->guid;
	pp->port = port;
	pp->port_guid = n->ports[port].guid;
	snprintf(pp->label, sizeof(pp->label), "%s/%u", n->desc, port);
	pt_plan_port_addr(n, &n->ports[port], &pp->addr);
	pp->cap = 64;
	pp->nblocks = 2;
	pp->want = calloc(64, sizeof(uint16_t));
	pp->have = calloc(64, sizeof(uint16_t));
	memcpy(pp->want, want, 3 * sizeof(uint16_t));
	memcpy(pp->have, have, 3 * sizeof(uint16_t));
}

static const uint16_t before[3] = { 0x7fff, 0x8a01, 0 };
static const uint16_t after[3] = { 0x7fff, 0x8a01, 0x8b01 };

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	snprintf(w->dir, sizeof(w->dir), "/tmp/fabricd-intent.XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	assert_int_equal(store_open(w->dir, &w->st), 0);
	w->fx = fixture_fabric();
	/* a change about to add 0x8b01 to h2; h3 stays as it is */
	w->plan.nports = 2;
	w->plan.ports = calloc(2, sizeof(*w->plan.ports));
	port_plan(&w->plan.ports[0], &w->fx->nodes[FX_H2], 1, before, after);
	port_plan(&w->plan.ports[1], &w->fx->nodes[FX_H3], 1, before, before);
	pt_state.store = w->st;
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;
	char cmd[96];

	pt_plan_free(&w->plan);
	pt_state_free();
	store_close(w->st);
	fixture_free(w->fx);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
	assert_int_equal(system(cmd), 0);
	free(w);
	return 0;
}

static void
on_done(struct pt_plan *plan, const struct pt_apply_report *r, void *arg)
{
	*(bool *)arg = r->ok;
}

static void
records_only_ports_to_write_and_undoes_them(void **state)
{
	struct world *w = *state;
	struct mad_io io = { .smp = fake_smp, .ctx = &w->fm };
	struct pt_plan undo;
	struct fake_port *h2;
	char action[64] = "";
	size_t missing;
	bool ok = false;

	assert_false(pt_intent_pending(w->st, PT_ALL_PLANES, action, sizeof(action)));
	assert_int_equal(pt_intent_record(w->st, &w->plan, "member add"), 0);
	assert_true(pt_intent_pending(w->st, PT_ALL_PLANES, action, sizeof(action)));
	assert_string_equal(action, "member add");

	/* the restart: h2 holds the half-written table */
	assert_int_equal(pt_intent_plan(w->st, 0, w->fx->list, FX_NODES, &undo, &missing), 1);
	assert_int_equal(missing, 0);
	assert_int_equal(undo.ports[0].node_guid, w->fx->nodes[FX_H2].guid);
	assert_null(undo.ports[0].have);		/* read before writing */
	assert_memory_equal(undo.ports[0].want, before, sizeof(before));
	assert_memory_equal(&undo.ports[0].addr, &w->plan.ports[0].addr, sizeof(struct mad_addr));
	fake_mad_init(&w->fm, w->fx);
	h2 = fake_port_of(&w->fm, FX_H2, 0);
	memcpy(h2->table, after, sizeof(after));
	assert_int_equal(pt_apply_start(&undo, &io, on_done, &ok), 0);
	fake_mad_run(&w->fm);
	assert_true(ok);
	assert_memory_equal(h2->table, before, sizeof(before));
	assert_int_equal(h2->sets, 1);			/* only block 0 differed */
	pt_plan_free(&undo);

	assert_int_equal(pt_intent_clear(w->st, PT_ALL_PLANES), 0);
	assert_false(pt_intent_pending(w->st, PT_ALL_PLANES, action, sizeof(action)));
}

static void
missing_node_left_out_and_forgotten(void **state)
{
	struct world *w = *state;
	struct fabric_node *without_h2[FX_NODES];
	struct pt_plan undo;
	char action[64];
	size_t missing, n = 0;

	for (int i = 0; i < FX_NODES; i++)
		if (i != FX_H2)
			without_h2[n++] = w->fx->list[i];
	/* h2's table was committed before the change */
	pt_tables_update(&w->plan);
	assert_non_null(pt_table_find(0, w->fx->nodes[FX_H2].guid, 1));
	assert_int_equal(pt_intent_record(w->st, &w->plan, "delete"), 0);
	assert_int_equal(pt_intent_plan(w->st, 0, without_h2, n, &undo, &missing), 0);
	assert_int_equal(missing, 1);
	pt_intent_forget_missing(w->st, 0, without_h2, n);
	assert_null(pt_table_find(0, w->fx->nodes[FX_H2].guid, 1));	/* read when back */
	assert_non_null(pt_table_find(0, w->fx->nodes[FX_H3].guid, 1));
	pt_intent_clear(w->st, PT_ALL_PLANES);
	assert_false(pt_intent_pending(w->st, PT_ALL_PLANES, action, sizeof(action)));
	pt_plan_free(&undo);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(records_only_ports_to_write_and_undoes_them, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(missing_node_left_out_and_forgotten, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
