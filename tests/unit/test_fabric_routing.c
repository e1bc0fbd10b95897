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

/* ---- a tiny fabric builder: nodes and cables only ---- */

struct tfab {
	struct fabric_node	**nodes;
	size_t			  n, cap;
	uint16_t		  next_lid;
	uint64_t		  next_guid;
};

static struct fabric_node *
add_node(struct tfab *f, enum fabric_node_type type, unsigned nports)
{
	struct fabric_node *nd = calloc(1, sizeof(*nd));

	assert_non_null(nd);
	nd->type = type;
	nd->nports = (uint8_t)nports;
	nd->guid = ++f->next_guid;
	nd->ports = calloc(nports + 1, sizeof(*nd->ports));
	assert_non_null(nd->ports);
	for (unsigned p = 0; p <= nports; p++) {
		nd->ports[p].node = nd;
		nd->ports[p].num = (uint8_t)p;
		nd->ports[p].guid = nd->guid;
	}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->nodes = realloc(f->nodes, f->cap * sizeof(*f->nodes));
		assert_non_null(f->nodes);
	}
	f->nodes[f->n++] = nd;
	return nd;
}

static struct fabric_node *
add_switch(struct tfab *f, unsigned nports)
{
	struct fabric_node *sw = add_node(f, FABRIC_SWITCH, nports);

	sw->lid = f->next_lid++;
	return sw;
}

/* Next free port of a node, 0 when full. */
static unsigned
free_port(struct fabric_node *nd)
{
	for (unsigned p = 1; p <= nd->nports; p++)
		if (nd->ports[p].peer == NULL)
			return p;
	return 0;
}

static void
cable(struct fabric_node *a, struct fabric_node *b)
{
	unsigned pa = free_port(a), pb = free_port(b);

	assert_true(pa && pb);
	a->ports[pa].peer = &b->ports[pb];
	b->ports[pb].peer = &a->ports[pa];
}

static void
add_hosts(struct tfab *f, struct fabric_node *sw, unsigned n)
{
	for (unsigned h = 0; h < n; h++) {
		struct fabric_node *ca = add_node(f, FABRIC_CA, 1);
		ca->ports[1].lid = f->next_lid++;
		ca->lid = ca->ports[1].lid;
		cable(ca, sw);
	}
}

static void
tfab_free(struct tfab *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->nodes[i]->ports);
		free(f->nodes[i]);
	}
	free(f->nodes);
}

/* 2-level fat tree: leaves x hosts, every leaf cabled to every spine. */
static void
fat_tree2(struct tfab *f, unsigned leaves, unsigned hosts, unsigned spines)
{
	struct fabric_node *sp[64], *lf[64];

	memset(f, 0, sizeof(*f));
	f->next_lid = 1;
	for (unsigned s = 0; s < spines; s++)
		sp[s] = add_switch(f, 36);
	for (unsigned l = 0; l < leaves; l++) {
		lf[l] = add_switch(f, 36);
		for (unsigned s = 0; s < spines; s++)
			cable(lf[l], sp[s]);
	}
	for (unsigned l = 0; l < leaves; l++)
		add_hosts(f, lf[l], hosts);
}

/* 3-level radix-36 fat tree of `pods` pods (at most 4): 18 leaves x 18
 * hosts and 18 aggregation switches per pod; 36 cores, each aggregation
 * switch cabled to the 18 cores of its parity.  4 pods: 1296 hosts, 180
 * switches. */
static void
fat_tree3(struct tfab *f, unsigned pods)
{
	struct fabric_node *core[36], *agg[4][18], *leaf[4][18];

	memset(f, 0, sizeof(*f));
	f->next_lid = 1;
	for (unsigned c = 0; c < 36; c++)
		core[c] = add_switch(f, 36);
	for (unsigned p = 0; p < pods; p++) {
		for (unsigned a = 0; a < 18; a++) {
			agg[p][a] = add_switch(f, 36);
			for (unsigned k = 0; k < 18; k++)
				cable(agg[p][a], core[(a % 2) * 18 + k]);
		}
		for (unsigned l = 0; l < 18; l++) {
			leaf[p][l] = add_switch(f, 36);
			for (unsigned a = 0; a < 18; a++)
				cable(leaf[p][l], agg[p][a]);
		}
	}
	for (unsigned p = 0; p < pods; p++)
		for (unsigned l = 0; l < 18; l++)
			add_hosts(f, leaf[p][l], 18);
}

static uint32_t rng_state;

static uint32_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* Random connected irregular fabric: a random spanning tree plus extra
 * random cables (parallel ones allowed), hosts on some switches only. */
static void
irregular(struct tfab *f, uint32_t seed, unsigned nsw, unsigned extra)
{
	struct fabric_node *sw[64];

	memset(f, 0, sizeof(*f));
	f->next_lid = 1;
	rng_state = seed;
	for (unsigned s = 0; s < nsw; s++) {
		sw[s] = add_switch(f, 16);
		if (s > 0)
			cable(sw[s], sw[rng() % s]);
	}
	for (unsigned e = 0; e < extra; e++) {
		unsigned a = rng() % nsw, b = rng() % nsw;
		if (a != b && free_port(sw[a]) && free_port(sw[b]))
			cable(sw[a], sw[b]);
	}
	for (unsigned s = 0; s < nsw; s++) {
		unsigned h = rng() % 4;
		while (h-- && free_port(sw[s]))
			add_hosts(f, sw[s], 1);
	}
}

/* ---- checks ---- */

struct walk_stats {
	size_t pairs, max_hops;
};

/* The position of a switch in the up/down order (rank, then GUID). */
static int
updn_before(const struct routing_table *t, const struct fabric_node *a,
    const struct fabric_node *b)
{
	const struct routing_lft *la = routing_lft_of(t, a->guid);
	const struct routing_lft *lb = routing_lft_of(t, b->guid);

	if (la->rank != lb->rank)
		return la->rank < lb->rank;
	return a->guid < b->guid;
}

/* Walk every CA pair (sources every `step`-th CA); fail on anything but
 * OK, and for updn on any up hop after a down hop. */
static void
check_all_pairs(struct tfab *f, struct routing_table *t, size_t step, struct walk_stats *st)
{
	struct routing_hop hops[FABRIC_MAX_HOPS];
	size_t nh, ca_seen = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < f->n; i++) {
		struct fabric_node *s = f->nodes[i];
		if (s->type != FABRIC_CA || ca_seen++ % step)
			continue;
		for (size_t j = 0; j < f->n; j++) {
			struct fabric_node *d = f->nodes[j];
			enum routing_walk_status ws;
			if (d->type != FABRIC_CA)
				continue;
			ws = routing_walk(&s->ports[1], d->ports[1].lid, routing_lookup_table,
			    t, hops, FABRIC_MAX_HOPS, &nh);
			if (ws != ROUTING_WALK_OK)
				fail_msg("%#llx -> LID %u: %s", (unsigned long long)s->guid,
				    d->ports[1].lid, routing_walk_status_str(ws));
			assert_ptr_equal(hops[nh - 1].node, d);
			st->pairs++;
			if (nh > st->max_hops)
				st->max_hops = nh;
			if (t->engine != ROUTING_UPDN)
				continue;
			bool went_down = false;
			for (size_t k = 1; k + 2 < nh; k++) {
				bool up = updn_before(t, hops[k + 1].node, hops[k].node);
				if (up && went_down)
					fail_msg("down->up turn at %#llx",
					    (unsigned long long)hops[k].node->guid);
				went_down |= !up;
			}
		}
	}
}

/* Shortest switch-to-switch distance by a plain BFS over the built fabric. */
static unsigned
bfs_hops(struct tfab *f, struct fabric_node *from, struct fabric_node *to)
{
	struct fabric_node **q = calloc(f->n, sizeof(*q));
	unsigned *dist = calloc(f->n, sizeof(*dist)), r = 0;
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < f->n; i++)
		dist[i] = ~0u;
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i] == from)
			dist[i] = 0;
	q[tail++] = from;
	while (head < tail) {
		struct fabric_node *u = q[head++];
		size_t ui = 0;
		while (f->nodes[ui] != u)
			ui++;
		if (u == to) {
			r = dist[ui];
			break;
		}
		for (unsigned p = 1; p <= u->nports; p++) {
			struct fabric_port *pt = &u->ports[p];
			if (!pt->peer || (pt->peer->node->type != FABRIC_SWITCH && pt->peer->node != to))
				continue;
			size_t vi = 0;
			while (f->nodes[vi] != pt->peer->node)
				vi++;
			if (dist[vi] == ~0u) {
				dist[vi] = dist[ui] + 1;
				q[tail++] = pt->peer->node;
			}
		}
	}
	free(q);
	free(dist);
	return r;
}

static struct routing_table *
route(struct tfab *f, enum routing_engine e)
{
	struct routing_params p = { .engine = e };
	char err[256];
	struct routing_table *t = routing_compute(f->nodes, f->n, &p, err, sizeof(err));

	if (t == NULL)
		fail_msg("routing failed: %s", err);
	assert_int_equal(t->unreachable, 0);
	return t;
}

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
