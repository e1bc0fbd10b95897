/*
 * Routing engines (fabric/routing.c) on built fabrics: fat trees and seeded
 * random irregular graphs.  Every check is an invariant of the computed
 * tables walked hop by hop (reachability, no loop, shortest or legal
 * up/down paths, balance), never a comparison with stored output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/routing.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLOW 10
#else
#define SLOW 1
#endif

#include "routing_builder.h"

/* ---- tests ---- */

static void
test_fat_tree_minhop_all_pairs(void **state)
{
	struct tfab f;
	struct walk_stats st;

	fat_tree2(&f, 18, 18, 18);
	struct routing_table *t = route(&f, ROUTING_MINHOP);
	assert_int_equal(t->nlids, 324 + 36);
	check_all_pairs(&f, t, 1, &st);
	assert_int_equal(st.pairs, 324 * 324);
	assert_int_equal(st.max_hops, 5);	/* CA, leaf, spine, leaf, CA */
	routing_table_free(t);
	tfab_free(&f);
}

/* Leaf uplinks and spine downlinks carry near-equal numbers of routes. */
static void
test_fat_tree_balance(void **state)
{
	struct tfab f;

	fat_tree2(&f, 18, 18, 9);	/* 2 cables per leaf-spine pair */
	struct routing_table *t = route(&f, ROUTING_MINHOP);
	for (size_t s = 0; s < t->nswitches; s++) {
		const struct routing_lft *l = &t->lfts[s];
		uint32_t lo = UINT32_MAX, hi = 0;
		for (unsigned p = 1; p <= l->sw->nports; p++) {
			struct fabric_port *pt = &l->sw->ports[p];
			if (!pt->peer || pt->peer->node->type != FABRIC_SWITCH)
				continue;
			lo = l->routes[p] < lo ? l->routes[p] : lo;
			hi = l->routes[p] > hi ? l->routes[p] : hi;
		}
		assert_true(lo > 0);
		if (hi * 10 > lo * 12)
			fail_msg("switch %#llx: routes per inter-switch port %u..%u",
			    (unsigned long long)l->sw->guid, lo, hi);
	}
	routing_table_free(t);
	tfab_free(&f);
}

static void
test_fat_tree3_fast(void **state)
{
	struct tfab f;
	struct walk_stats st;

	fat_tree3(&f, 4);
	struct routing_table *t = route(&f, ROUTING_MINHOP);
	assert_int_equal(t->nswitches, 180);
	assert_int_equal(t->nlids, 1296 + 180);
	printf("# minhop 1296 hosts / 180 switches: %.1f ms\n", t->usec / 1000.0);
	if (t->usec > 100000 * SLOW)
		fail_msg("routing took %llu us", (unsigned long long)t->usec);
	check_all_pairs(&f, t, 37, &st);
	assert_int_equal(st.max_hops, 7);	/* CA leaf agg core agg leaf CA */
	routing_table_free(t);

	t = route(&f, ROUTING_UPDN);
	printf("# updn   1296 hosts / 180 switches: %.1f ms\n", t->usec / 1000.0);
	if (t->usec > 100000 * SLOW)
		fail_msg("routing took %llu us", (unsigned long long)t->usec);
	/* the cores, farthest from every CA, are the detected roots */
	for (size_t s = 0; s < t->nswitches; s++)
		assert_int_equal(t->lfts[s].root, t->lfts[s].sw->guid <= 36);
	assert_false(t->updn_fallback);
	check_all_pairs(&f, t, 37, &st);
	assert_int_equal(st.max_hops, 7);
	routing_table_free(t);

	t = route(&f, ROUTING_AUTO);
	printf("# ftree  1296 hosts / 180 switches: %.1f ms\n", t->usec / 1000.0);
	assert_int_equal(t->engine, ROUTING_FTREE);
	assert_non_null(strstr(t->reason, "3-level fat tree: 72 leaves"));
	assert_int_equal(t->unreachable, 0);
	check_all_pairs(&f, t, 37, &st);
	assert_int_equal(st.max_hops, 7);
	routing_table_free(t);
	tfab_free(&f);
}

/* The credit-loop check: minhop on a ring of five switches closes the
 * clockwise cycle of dependencies; ftree on fat trees and updn on the ring
 * and on irregular fabrics have none. */
static void
test_credit_loops(void **state)
{
	struct fabric_node *sw[5];
	struct routing_table *t;
	struct tfab f;
	char where[160];

	memset(&f, 0, sizeof(f));
	f.next_lid = 1;
	for (int i = 0; i < 5; i++)
		sw[i] = add_switch(&f, 8);
	for (int i = 0; i < 5; i++)
		cable(sw[i], sw[(i + 1) % 5]);
	for (int i = 0; i < 5; i++)
		add_hosts(&f, sw[i], 2);
	t = route(&f, ROUTING_MINHOP);
	assert_int_equal(routing_credit_loop(t, where, sizeof(where)), 1);
	assert_non_null(strstr(where, "on or behind a cycle"));
	routing_table_free(t);
	t = route(&f, ROUTING_UPDN);
	assert_int_equal(routing_credit_loop(t, where, sizeof(where)), 0);
	routing_table_free(t);
	tfab_free(&f);

	fat_tree3(&f, 2);
	t = route(&f, ROUTING_FTREE);
	assert_int_equal(t->engine, ROUTING_FTREE);
	assert_int_equal(routing_credit_loop(t, where, sizeof(where)), 0);
	routing_table_free(t);
	tfab_free(&f);

	for (uint32_t seed = 1; seed <= 5; seed++) {
		irregular(&f, seed, 24, 20);
		t = route(&f, ROUTING_UPDN);
		assert_int_equal(routing_credit_loop(t, where, sizeof(where)), 0);
		routing_table_free(t);
		tfab_free(&f);
	}
}

/* A leaf without hosts is a leaf (not a third level), and two leaves
 * cabled together make the fabric no fat tree, said so. */
static void
test_ftree_levels(void **state)
{
	struct routing_table *t;
	struct fabric_node *empty, *a, *b;
	struct walk_stats st;
	struct tfab f;

	fat_tree2(&f, 4, 3, 3);
	empty = add_switch(&f, 36);
	for (size_t i = 0; i < f.n; i++)
		if (f.nodes[i]->type == FABRIC_SWITCH && f.nodes[i]->guid <= 3)
			cable(empty, f.nodes[i]);	/* the spines come first */
	t = route(&f, ROUTING_AUTO);
	assert_int_equal(t->engine, ROUTING_FTREE);
	assert_non_null(strstr(t->reason, "2-level fat tree: 5 leaves"));
	check_all_pairs(&f, t, 1, &st);
	assert_int_equal(st.max_hops, 5);	/* CA leaf spine leaf CA */
	routing_table_free(t);
	tfab_free(&f);

	fat_tree2(&f, 4, 3, 3);
	a = b = NULL;	/* the first two leaves, after the 3 spines */
	for (size_t i = 0; i < f.n && b == NULL; i++) {
		if (f.nodes[i]->type != FABRIC_SWITCH || f.nodes[i]->guid <= 3)
			continue;
		if (a == NULL)
			a = f.nodes[i];
		else
			b = f.nodes[i];
	}
	cable(a, b);
	t = route(&f, ROUTING_AUTO);
	assert_int_equal(t->engine, ROUTING_UPDN);
	assert_non_null(strstr(t->reason, "cabled within level 0 (both have CAs)"));
	routing_table_free(t);
	tfab_free(&f);
}

/* auto on fabrics that are not fat trees: updn, and the reason names a
 * link within a level. */
static void
test_auto_irregular_updn(void **state)
{
	for (uint32_t seed = 1; seed <= 5; seed++) {
		struct tfab f;
		struct walk_stats st;

		irregular(&f, seed, 24, 20);
		struct routing_table *t = route(&f, ROUTING_AUTO);
		assert_int_equal(t->engine, ROUTING_UPDN);
		assert_non_null(strstr(t->reason, "not a fat tree: "));
		assert_non_null(strstr(t->reason, "cabled within level"));
		check_all_pairs(&f, t, 1, &st);
		routing_table_free(t);
		tfab_free(&f);
	}
}

static void
test_irregular_minhop_shortest(void **state)
{
	for (uint32_t seed = 1; seed <= 20; seed++) {
		struct tfab f;
		struct walk_stats st;
		struct routing_hop hops[FABRIC_MAX_HOPS];
		size_t nh;

		irregular(&f, seed, 24, 20);
		struct routing_table *t = route(&f, ROUTING_MINHOP);
		check_all_pairs(&f, t, 1, &st);
		/* switch to switch: as short as a plain BFS says */
		for (size_t i = 0; i < f.n; i++)
			for (size_t j = 0; j < f.n; j++) {
				struct fabric_node *a = f.nodes[i], *b = f.nodes[j];
				if (a->type != FABRIC_SWITCH || b->type != FABRIC_SWITCH)
					continue;
				assert_int_equal(routing_walk(&a->ports[0], b->lid,
				    routing_lookup_table, t, hops, FABRIC_MAX_HOPS, &nh),
				    ROUTING_WALK_OK);
				assert_int_equal(nh - 1, bfs_hops(&f, a, b));
			}
		routing_table_free(t);
		tfab_free(&f);
	}
}

static void
test_irregular_updn_legal(void **state)
{
	for (uint32_t seed = 1; seed <= 30; seed++) {
		struct tfab f;
		struct walk_stats st;

		irregular(&f, seed * 7919, 30, 40);
		struct routing_table *t = route(&f, ROUTING_UPDN);
		check_all_pairs(&f, t, 1, &st);
		routing_table_free(t);
		tfab_free(&f);
	}
}

/* Configured roots are honoured; roots that cannot serve every pair
 * (two leaves of a fat tree) fall back to one central root. */
static void
test_updn_configured_roots(void **state)
{
	struct tfab f;
	struct walk_stats st;
	char err[128];

	fat_tree2(&f, 6, 4, 3);
	uint64_t spine = f.nodes[1]->guid;
	struct routing_params p = { .engine = ROUTING_UPDN, .root_guids = &spine, .nroots = 1 };
	struct routing_table *t = routing_compute(f.nodes, f.n, &p, err, sizeof(err));
	assert_non_null(t);
	assert_true(routing_lft_of(t, spine)->root);
	assert_false(t->updn_fallback);
	assert_int_equal(t->unreachable, 0);
	check_all_pairs(&f, t, 1, &st);
	routing_table_free(t);

	uint64_t leaves[2] = { f.nodes[3]->guid, f.nodes[8]->guid };
	p.root_guids = leaves;
	p.nroots = 2;
	t = routing_compute(f.nodes, f.n, &p, err, sizeof(err));
	assert_non_null(t);
	assert_true(t->updn_fallback);
	assert_int_equal(t->unreachable, 0);
	check_all_pairs(&f, t, 1, &st);
	routing_table_free(t);
	tfab_free(&f);
}

static void
test_lft_diff(void **state)
{
	struct tfab f;
	uint16_t blocks[64];

	fat_tree2(&f, 8, 18, 4);	/* LIDs up to 156: three blocks */
	struct routing_table *t = route(&f, ROUTING_MINHOP);
	const struct routing_lft *l = &t->lfts[0];
	size_t len = (size_t)l->nblocks * ROUTING_BLOCK_SIZE;
	uint8_t *held = malloc(len);

	assert_int_equal(l->nblocks, 3);
	assert_int_equal(l->top, 156);
	assert_int_equal(routing_lft_diff(l, NULL, 0, blocks), 3);
	memcpy(held, l->port, len);
	assert_int_equal(routing_lft_diff(l, held, len, blocks), 0);
	held[70] ^= 1;
	assert_int_equal(routing_lft_diff(l, held, len, blocks), 1);
	assert_int_equal(blocks[0], 1);
	held[70] ^= 1;
	/* a switch holding only two blocks must be sent the third */
	assert_int_equal(routing_lft_diff(l, held, 128, blocks), 1);
	assert_int_equal(blocks[0], 2);
	/* entries past the top are "none" */
	assert_int_equal(l->port[157], ROUTING_NO_PORT);
	assert_int_equal(l->port[0], ROUTING_NO_PORT);
	free(held);
	routing_table_free(t);
	tfab_free(&f);
}

/* The programmed-table lookup reads fabric_node.lft within lft_top. */
static void
test_walk_programmed(void **state)
{
	struct tfab f;
	struct routing_hop hops[16];
	size_t nh;

	fat_tree2(&f, 2, 1, 1);		/* spine, leaf1, leaf2, host a, host b */
	struct routing_table *t = route(&f, ROUTING_MINHOP);
	struct fabric_node *a = f.nodes[3], *b = f.nodes[4];
	for (size_t s = 0; s < t->nswitches; s++) {
		struct fabric_node *sw = (struct fabric_node *)t->lfts[s].sw;
		sw->lft_cap = 64;
		sw->lft_top = t->lfts[s].top;
		sw->lft_len = 64;
		sw->lft_known = true;
		sw->lft = malloc(64);
		memcpy(sw->lft, t->lfts[s].port, 64);
	}
	assert_int_equal(routing_walk(&a->ports[1], b->ports[1].lid,
	    routing_lookup_programmed, NULL, hops, 16, &nh), ROUTING_WALK_OK);
	assert_int_equal(nh, 5);
	/* break the spine's entry: the walk names the failure */
	f.nodes[0]->lft[b->ports[1].lid] = ROUTING_NO_PORT;
	assert_int_equal(routing_walk(&a->ports[1], b->ports[1].lid,
	    routing_lookup_programmed, NULL, hops, 16, &nh), ROUTING_WALK_NO_ENTRY);
	/* point it back at the leaf it came from: a loop */
	f.nodes[0]->lft[b->ports[1].lid] = 1;
	assert_int_equal(routing_walk(&a->ports[1], b->ports[1].lid,
	    routing_lookup_programmed, NULL, hops, 16, &nh), ROUTING_WALK_LOOP);
	f.nodes[0]->lft_top = 1;
	assert_int_equal(routing_walk(&a->ports[1], b->ports[1].lid,
	    routing_lookup_programmed, NULL, hops, 16, &nh), ROUTING_WALK_NO_ENTRY);
	for (size_t i = 0; i < 3; i++)
		free(f.nodes[i]->lft);
	routing_table_free(t);
	tfab_free(&f);
}

static void
test_bad_input(void **state)
{
	struct tfab f;
	char err[128];

	fat_tree2(&f, 2, 2, 1);
	f.nodes[4]->ports[1].lid = f.nodes[3]->ports[1].lid;
	assert_null(routing_compute(f.nodes, f.n, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "held by both"));
	tfab_free(&f);

	memset(&f, 0, sizeof(f));
	add_node(&f, FABRIC_CA, 1);
	assert_null(routing_compute(f.nodes, f.n, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "no switch"));
	tfab_free(&f);

	assert_int_equal(routing_engine_parse("updn"), ROUTING_UPDN);
	assert_int_equal(routing_engine_parse("minhop"), ROUTING_MINHOP);
	assert_int_equal(routing_engine_parse("ftree"), ROUTING_FTREE);
	assert_int_equal(routing_engine_parse("auto"), ROUTING_AUTO);
	assert_int_equal(routing_engine_parse("lash"), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat_tree_minhop_all_pairs),
		cmocka_unit_test(test_fat_tree_balance),
		cmocka_unit_test(test_fat_tree3_fast),
		cmocka_unit_test(test_auto_irregular_updn),
		cmocka_unit_test(test_credit_loops),
		cmocka_unit_test(test_ftree_levels),
		cmocka_unit_test(test_irregular_minhop_shortest),
		cmocka_unit_test(test_irregular_updn_legal),
		cmocka_unit_test(test_updn_configured_roots),
		cmocka_unit_test(test_lft_diff),
		cmocka_unit_test(test_walk_programmed),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
