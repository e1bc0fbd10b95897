/*
 * Repair, not recompute (fabric/routing_repair.c), judged from the tables
 * alone: every CA pair is walked before and after a change, and the pairs
 * whose path changed are counted against the pairs whose old path crossed
 * what went away (those had to move).  After the change is undone, the
 * tables must equal the ones before it.  The figures come from these
 * walks, never from the repair's own counters (they are checked against
 * the walks too).
 */
#include "routing_builder.h"

#if defined(__SANITIZE_ADDRESS__)
#define FLAPS 20
#else
#define FLAPS 50
#endif

/* ---- links cut and put back ---- */

struct cut {
	struct fabric_port *a, *b;
};

static struct cut
cut_link(struct fabric_node *n, unsigned port)
{
	struct cut c = { &n->ports[port], n->ports[port].peer };

	assert_non_null(c.b);
	c.a->peer = NULL;
	c.b->peer = NULL;
	return c;
}

static void
mend(struct cut c)
{
	c.a->peer = c.b;
	c.b->peer = c.a;
}

/* Every inter-switch port of a switch, cut. */
static size_t
cut_switch(struct fabric_node *sw, struct cut *cuts)
{
	size_t n = 0;

	for (unsigned p = 1; p <= sw->nports; p++)
		if (sw->ports[p].peer && sw->ports[p].peer->node->type == FABRIC_SWITCH)
			cuts[n++] = cut_link(sw, p);
	return n;
}

/* ---- routing with a memory ---- */

static struct routing_table *
route_mem(struct tfab *f, struct routing_memory *m, enum routing_rebalance rb)
{
	struct routing_params p = { .engine = ROUTING_AUTO, .mem = m, .rebalance = rb };
	char err[256];
	struct routing_table *t = routing_compute(f->nodes, f->n, &p, err, sizeof(err));

	if (t == NULL)
		fail_msg("routing failed: %s", err);
	assert_int_equal(routing_memory_update(m, t), 0);
	return t;
}

/* ---- paths, as the tables give them ---- */

/* The switch ports a CA's route to dlid leaves by, from the leaf it
 * enters (the path is decided by that leaf and the LID), as a string of
 * (GUID, port) pairs; empty when it does not arrive. */
static size_t
path_of(const struct routing_table *t, struct fabric_node *leaf, uint16_t dlid,
    uint64_t *sig, size_t max)
{
	struct fabric_node *x = leaf;
	size_t n = 0;

	while (n < max) {
		const struct routing_lft *l = routing_lft_of(t, x->guid);
		uint8_t p;

		if (l == NULL || dlid > l->top)
			return 0;
		p = l->port[dlid];
		sig[n++] = x->guid << 8 | p;
		if (p == 0 || p > x->nports || x->ports[p].peer == NULL)
			return 0;
		if (x->ports[p].peer->node->type != FABRIC_SWITCH)
			return x->ports[p].peer->lid == dlid ? n : 0;
		x = x->ports[p].peer->node;
	}
	return 0;
}

static bool
crosses(const uint64_t *sig, size_t n, struct cut *cuts, size_t ncuts)
{
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < ncuts; c++) {
			const struct fabric_port *ends[2] = { cuts[c].a, cuts[c].b };

			for (int e = 0; e < 2; e++)
				if (sig[i] == (ends[e]->node->guid << 8 | ends[e]->num))
					return true;
		}
	return false;
}

struct moves {
	size_t pairs, moved, had_to, broken;
};

/* CA ports cabled to switch n. */
static size_t
cas_on(const struct fabric_node *n)
{
	size_t k = 0;

	for (unsigned p = 1; p <= n->nports; p++)
		k += n->ports[p].peer && n->ports[p].peer->node->type == FABRIC_CA;
	return k;
}

/* Walk every CA pair through before and after (before over the cabling
 * as it was: the cuts are put back for that walk).  A pair's path is the
 * one from the leaf its source enters, so each (leaf, LID) is walked once
 * and counts for the leaf's CAs (less the destination itself). */
static struct moves
count_moves(struct tfab *f, const struct routing_table *before,
    const struct routing_table *after, struct cut *cuts, size_t ncuts)
{
	uint64_t a[FABRIC_MAX_HOPS], b[FABRIC_MAX_HOPS];
	struct moves m = { 0 };

	for (size_t i = 0; i < f->n; i++) {
		struct fabric_node *leaf = f->nodes[i];
		size_t ncas;

		if (leaf->type != FABRIC_SWITCH || (ncas = cas_on(leaf)) == 0)
			continue;
		for (size_t j = 0; j < f->n; j++) {
			struct fabric_node *dst = f->nodes[j];
			size_t na, nb, w;

			if (dst->type != FABRIC_CA)
				continue;
			w = ncas - (dst->ports[1].peer->node == leaf);
			for (size_t c = 0; c < ncuts; c++)
				mend(cuts[c]);
			na = path_of(before, leaf, dst->ports[1].lid, a, FABRIC_MAX_HOPS);
			for (size_t c = 0; c < ncuts; c++)
				cut_link(cuts[c].a->node, cuts[c].a->num);
			nb = path_of(after, leaf, dst->ports[1].lid, b, FABRIC_MAX_HOPS);
			assert_true(na > 0);
			m.pairs += w;
			m.broken += nb == 0 ? w : 0;
			m.had_to += crosses(a, na, cuts, ncuts) ? w : 0;
			m.moved += na != nb || memcmp(a, b, na * sizeof(*a)) != 0 ? w : 0;
		}
	}
	return m;
}

/* LFT blocks that differ between two tables of the same switches. */
static size_t
blocks_between(const struct routing_table *x, const struct routing_table *y)
{
	size_t n = 0;

	for (size_t s = 0; s < x->nswitches; s++)
		for (size_t k = 0; k < x->lfts[s].nblocks; k++)
			n += memcmp(x->lfts[s].port + k * ROUTING_BLOCK_SIZE,
			    y->lfts[s].port + k * ROUTING_BLOCK_SIZE, ROUTING_BLOCK_SIZE) != 0;
	return n;
}

static bool
tables_equal(const struct routing_table *x, const struct routing_table *y)
{
	if (x->nswitches != y->nswitches)
		return false;
	for (size_t s = 0; s < x->nswitches; s++) {
		const struct routing_lft *a = &x->lfts[s], *b = &y->lfts[s];

		if (a->sw->guid != b->sw->guid || a->nblocks != b->nblocks ||
		    memcmp(a->port, b->port, (size_t)a->nblocks * ROUTING_BLOCK_SIZE) != 0)
			return false;
	}
	return true;
}

/* The hottest inter-switch link direction in CA routes, and the bound of
 * lftwalk.awk: max over leaves of ceil(L * (N - L) / u). */
#define LINKS_CAP 32768

static void
hottest(struct tfab *f, const struct routing_table *t, uint64_t *max, uint64_t *bound)
{
	uint64_t sig[FABRIC_MAX_HOPS];
	uint64_t *key = calloc(LINKS_CAP, sizeof(*key)), *cnt = calloc(LINKS_CAP, sizeof(*cnt));
	size_t nca = 0;

	for (size_t i = 0; i < f->n; i++)
		nca += f->nodes[i]->type == FABRIC_CA;
	*max = *bound = 0;
	for (size_t i = 0; i < f->n; i++) {
		struct fabric_node *leaf = f->nodes[i];
		uint64_t l, u = 0;

		if (leaf->type != FABRIC_SWITCH || (l = cas_on(leaf)) == 0)
			continue;
		for (unsigned p = 1; p <= leaf->nports; p++)
			u += leaf->ports[p].peer && leaf->ports[p].peer->node->type == FABRIC_SWITCH;
		if (u && (l * (nca - l) + u - 1) / u > *bound)
			*bound = (l * (nca - l) + u - 1) / u;
		for (size_t j = 0; j < f->n; j++) {
			struct fabric_node *dst = f->nodes[j];
			size_t n;

			if (dst->type != FABRIC_CA || dst->ports[1].peer->node == leaf)
				continue;
			n = path_of(t, leaf, dst->ports[1].lid, sig, FABRIC_MAX_HOPS);
			for (size_t h = 0; h + 1 < n; h++) {	/* the last hop is to the CA */
				size_t k = (sig[h] * 0x9E3779B97F4A7C15ULL) >> 49;

				while (key[k] && key[k] != sig[h])
					k = (k + 1) % LINKS_CAP;
				key[k] = sig[h];
				cnt[k] += l;
				*max = cnt[k] > *max ? cnt[k] : *max;
			}
		}
	}
	free(key);
	free(cnt);
}

/* ---- the 1,296-host tree: one failure, then its return ---- */

struct fixture {
	struct tfab		 f;
	struct routing_memory	*m;
	struct routing_table	*t0;
};

static void
fixture_up(struct fixture *x, unsigned pods)
{
	fat_tree3(&x->f, pods);
	x->m = routing_memory_new();
	assert_non_null(x->m);
	x->t0 = route_mem(&x->f, x->m, ROUTING_REPAIR);
	assert_int_equal(x->t0->engine, ROUTING_FTREE);
	assert_false(x->t0->repair.repaired);
	assert_string_equal(x->t0->repair.afresh, "first routing");
}

static void
fixture_down(struct fixture *x)
{
	routing_table_free(x->t0);
	routing_memory_free(x->m);
	tfab_free(&x->f);
}

/* Switch by its place in fat_tree3's build order. */
static struct fabric_node *
core_sw(struct tfab *f, unsigned c)
{
	return f->nodes[c];
}

static struct fabric_node *
agg_sw(struct tfab *f, unsigned pod, unsigned a)
{
	return f->nodes[36 + pod * 36 + a];
}

static struct fabric_node *
leaf_sw(struct tfab *f, unsigned pod, unsigned l)
{
	return f->nodes[36 + pod * 36 + 18 + l];
}

/* Port of a that is cabled to b. */
static unsigned
port_to(struct fabric_node *a, struct fabric_node *b)
{
	for (unsigned p = 1; p <= a->nports; p++)
		if (a->ports[p].peer && a->ports[p].peer->node == b)
			return p;
	fail_msg("no cable");
	return 0;
}

/* Fail `cuts`, route, judge; put them back, route, judge. */
static void
fail_and_return(struct fixture *x, const char *what, struct cut *cuts, size_t ncuts)
{
	struct routing_table *t1, *t2, *tf;
	struct routing_memory *fm;
	struct walk_stats ws;
	struct moves mv;
	uint64_t max, fmax, bound;

	t1 = route_mem(&x->f, x->m, ROUTING_REPAIR);
	assert_true(t1->repair.repaired);
	check_all_pairs(&x->f, t1, 1, &ws);
	mv = count_moves(&x->f, x->t0, t1, cuts, ncuts);
	hottest(&x->f, t1, &max, &bound);
	/* the engine routing the degraded fabric afresh, for its hottest link */
	fm = routing_memory_new();
	tf = route_mem(&x->f, fm, ROUTING_REPAIR);
	hottest(&x->f, tf, &fmax, &bound);
	print_message("%s: %zu of %zu pairs moved, %zu had to; %zu entries rerouted in %zu "
	    "blocks; hottest link %llu (afresh %llu), bound %llu\n", what, mv.moved, mv.pairs,
	    mv.had_to, t1->repair.rerouted, blocks_between(x->t0, t1), (unsigned long long)max,
	    (unsigned long long)fmax, (unsigned long long)bound);
	routing_table_free(tf);
	routing_memory_free(fm);
	assert_int_equal(mv.broken, 0);
	assert_true(mv.had_to > 0);
	assert_true(mv.moved * 10 <= mv.had_to * 11);	/* at most 1.1x */
	assert_true(max * 10 <= bound * 12);	/* at most 1.2x the degraded bound */
	assert_int_equal(t1->repair.illegal, 0);

	/* a routing with nothing changed changes nothing */
	t2 = route_mem(&x->f, x->m, ROUTING_REPAIR);
	assert_true(tables_equal(t2, t1));
	routing_table_free(t2);

	for (size_t c = 0; c < ncuts; c++)
		mend(cuts[c]);
	t2 = route_mem(&x->f, x->m, ROUTING_REPAIR);
	assert_true(t2->repair.repaired);
	assert_true(tables_equal(t2, x->t0));
	assert_int_equal(t2->repair.rerouted, 0);
	routing_table_free(t1);
	routing_table_free(t2);
}

static void
test_leaf_uplink(void **state)
{
	struct fixture x;
	struct fabric_node *leaf;
	struct cut c;

	fixture_up(&x, 4);
	leaf = leaf_sw(&x.f, 0, 0);
	c = cut_link(leaf, port_to(leaf, agg_sw(&x.f, 0, 17)));
	fail_and_return(&x, "leaf uplink", &c, 1);
	fixture_down(&x);
}

static void
test_agg_core_link(void **state)
{
	struct fixture x;
	struct fabric_node *agg;
	struct cut c;

	fixture_up(&x, 4);
	agg = agg_sw(&x.f, 1, 4);
	c = cut_link(agg, port_to(agg, core_sw(&x.f, 3)));
	fail_and_return(&x, "aggregation-core link", &c, 1);
	fixture_down(&x);
}

static void
test_whole_core(void **state)
{
	struct fixture x;
	struct cut cuts[36];
	size_t n;

	fixture_up(&x, 4);
	n = cut_switch(core_sw(&x.f, 20), cuts);
	assert_int_equal(n, 36);
	fail_and_return(&x, "whole core switch", cuts, n);
	fixture_down(&x);
}

/*
 * A core whose ports go down one at a time, the SM routing between them
 * (as it does when the cables of a switch are pulled one by one): the
 * repairs do not compound (each is balanced against the reference, not
 * against the last repair), and the end is as if the core went at once.
 */
static void
test_core_port_by_port(void **state)
{
	struct fixture x;
	struct cut cuts[36];
	struct routing_table *t;
	struct walk_stats ws;
	struct moves mv;
	uint64_t max, bound;
	size_t n = 0;
	struct fabric_node *core;

	fixture_up(&x, 4);
	core = core_sw(&x.f, 9);
	for (unsigned p = 1; p <= core->nports; p++) {
		cuts[n++] = cut_link(core, p);
		if (p % 9 == 0 || p == core->nports) {
			t = route_mem(&x.f, x.m, ROUTING_REPAIR);
			assert_true(t->repair.repaired);
			routing_table_free(t);
		}
	}
	t = route_mem(&x.f, x.m, ROUTING_REPAIR);
	check_all_pairs(&x.f, t, 1, &ws);
	mv = count_moves(&x.f, x.t0, t, cuts, n);
	hottest(&x.f, t, &max, &bound);
	print_message("core port by port: %zu pairs moved, %zu had to; hottest %llu, bound %llu\n",
	    mv.moved, mv.had_to, (unsigned long long)max, (unsigned long long)bound);
	assert_int_equal(mv.broken, 0);
	assert_true(mv.moved * 10 <= mv.had_to * 11);
	assert_true(max * 10 <= bound * 12);
	routing_table_free(t);
	for (size_t c = 0; c < n; c++)
		mend(cuts[c]);
	t = route_mem(&x.f, x.m, ROUTING_REPAIR);
	assert_true(tables_equal(t, x.t0));
	routing_table_free(t);
	fixture_down(&x);
}

/*
 * Random inter-switch links of a 2-level tree fail and return one at a
 * time: at every step every pair arrives, only pairs that crossed the
 * link moved, and after each return the tables are the first ones again.
 */
static void
test_flaps(void **state)
{
	struct tfab f;
	struct routing_memory *m = routing_memory_new();
	struct routing_table *t0, *t;
	struct walk_stats ws;

	fat_tree2(&f, 12, 6, 6);
	t0 = route_mem(&f, m, ROUTING_REPAIR);
	rng_state = 7;
	for (int i = 0; i < FLAPS; i++) {
		struct fabric_node *leaf = f.nodes[6 + rng() % 12];
		struct cut c = cut_link(leaf, 1 + rng() % 6);
		struct moves mv;

		t = route_mem(&f, m, ROUTING_REPAIR);
		check_all_pairs(&f, t, 1, &ws);
		mv = count_moves(&f, t0, t, &c, 1);
		assert_int_equal(mv.broken, 0);
		assert_int_equal(mv.moved, mv.had_to);
		routing_table_free(t);
		mend(c);
		t = route_mem(&f, m, ROUTING_REPAIR);
		assert_true(tables_equal(t, t0));
		routing_table_free(t);
	}
	routing_table_free(t0);
	routing_memory_free(m);
	tfab_free(&f);
}

/*
 * Two links down at once, back in the other order: after the first return
 * the routes of the link still down stay off it, after the second the
 * tables are the first ones.
 */
static void
test_overlapping_failures(void **state)
{
	struct fixture x;
	struct fabric_node *l0;
	struct routing_table *t;
	struct walk_stats ws;
	struct cut a, b;

	fixture_up(&x, 2);
	l0 = leaf_sw(&x.f, 0, 0);
	a = cut_link(l0, port_to(l0, agg_sw(&x.f, 0, 3)));
	t = route_mem(&x.f, x.m, ROUTING_REPAIR);
	routing_table_free(t);
	b = cut_link(agg_sw(&x.f, 1, 2), port_to(agg_sw(&x.f, 1, 2), core_sw(&x.f, 4)));
	t = route_mem(&x.f, x.m, ROUTING_REPAIR);
	check_all_pairs(&x.f, t, 1, &ws);
	routing_table_free(t);
	mend(a);
	t = route_mem(&x.f, x.m, ROUTING_REPAIR);
	check_all_pairs(&x.f, t, 1, &ws);
	assert_int_equal(count_moves(&x.f, x.t0, t, &b, 1).moved,
	    count_moves(&x.f, x.t0, t, &b, 1).had_to);
	routing_table_free(t);
	mend(b);
	t = route_mem(&x.f, x.m, ROUTING_REPAIR);
	assert_true(tables_equal(t, x.t0));
	routing_table_free(t);
	fixture_down(&x);
}

/* A dry rebalance counts what routing afresh then changes: the blocks
 * that differ and the pairs that move, by the walks. */
static void
test_rebalance_dry(void **state)
{
	struct fixture x;
	struct routing_table *t1, *dry, *t2;
	struct fabric_node *agg;
	struct cut c;
	size_t blocks;
	struct moves mv;

	fixture_up(&x, 2);
	agg = agg_sw(&x.f, 0, 5);
	c = cut_link(agg, port_to(agg, core_sw(&x.f, 21)));
	t1 = route_mem(&x.f, x.m, ROUTING_REPAIR);
	dry = route_mem(&x.f, x.m, ROUTING_REBALANCE_DRY);
	assert_true(tables_equal(t1, dry));		/* a dry run changes nothing */
	t2 = route_mem(&x.f, x.m, ROUTING_REBALANCE);
	assert_false(t2->repair.repaired);
	assert_string_equal(t2->repair.afresh, "rebalance asked");
	blocks = blocks_between(t1, t2);
	mv = count_moves(&x.f, t1, t2, NULL, 0);
	print_message("rebalance: %zu blocks, %zu pairs (dry run: %zu, %zu)\n", blocks, mv.moved,
	    dry->repair.dry_blocks, dry->repair.dry_pairs);
	assert_true(blocks > 0);
	assert_int_equal(dry->repair.dry_blocks, blocks);
	assert_int_equal(dry->repair.dry_pairs, mv.moved);
	/* the rebalanced tables are the new reference: the link's return
	 * moves nothing (they are valid), and only the next rebalance puts
	 * the link back to use, as a fresh routing of the whole tree */
	mend(c);
	routing_table_free(t1);
	t1 = route_mem(&x.f, x.m, ROUTING_REPAIR);
	assert_true(tables_equal(t1, t2));
	routing_table_free(t1);
	t1 = route_mem(&x.f, x.m, ROUTING_REBALANCE);
	assert_true(tables_equal(t1, x.t0));
	routing_table_free(t1);
	routing_table_free(dry);
	routing_table_free(t2);
	fixture_down(&x);
}

/* A restarted SM seeds its memory with what the switches hold: nothing
 * valid moves, and an entry that leads nowhere is repaired alone. */
static void
test_seed_from_switches(void **state)
{
	struct fixture x;
	struct routing_memory *m2 = routing_memory_new();
	struct routing_table *t;
	size_t nsw = 0;

	fixture_up(&x, 2);
	for (size_t i = 0; i < x.f.n; i++) {
		struct fabric_node *n = x.f.nodes[i];
		const struct routing_lft *l = routing_lft_of(x.t0, n->guid);

		if (n->type != FABRIC_SWITCH)
			continue;
		n->lft_len = (size_t)l->nblocks * ROUTING_BLOCK_SIZE;
		n->lft = malloc(n->lft_len);
		memcpy(n->lft, l->port, n->lft_len);
		n->lft_known = true;
		nsw++;
	}
	/* one switch lost an entry (a block whose read got no answer) */
	leaf_sw(&x.f, 1, 3)->lft[5] = ROUTING_UNKNOWN_PORT;
	assert_int_equal(routing_memory_seed(m2, x.f.nodes, x.f.n), 0);
	assert_int_equal(m2->n, nsw);
	t = route_mem(&x.f, m2, ROUTING_REPAIR);
	assert_true(t->repair.repaired);
	assert_true(tables_equal(t, x.t0));
	assert_int_equal(t->repair.rerouted, 1);
	assert_int_equal(t->repair.blocks_moved, 1);
	assert_int_equal(t->repair.pairs_moved, 0);	/* the entry was unknown, not wrong */
	routing_table_free(t);
	for (size_t i = 0; i < x.f.n; i++)
		free(x.f.nodes[i]->lft);
	routing_memory_free(m2);
	fixture_down(&x);
}

/* updn on irregular fabrics: random links fail; every pair still
 * arrives by a legal up/down path, and each return restores the tables. */
static void
test_irregular_updn(void **state)
{
	for (uint32_t seed = 1; seed <= 6; seed++) {
		struct tfab f;
		struct routing_memory *m = routing_memory_new();
		struct routing_params p = { .engine = ROUTING_UPDN, .mem = m };
		struct routing_table *t0, *t;
		struct walk_stats ws;
		char err[128];

		irregular(&f, seed, 24, 30);
		t0 = routing_compute(f.nodes, f.n, &p, err, sizeof(err));
		assert_non_null(t0);
		assert_int_equal(routing_memory_update(m, t0), 0);
		for (int i = 0; i < 8; i++) {
			struct fabric_node *sw = f.nodes[rng() % 24];
			unsigned port = 1 + rng() % sw->nports;
			struct cut c;

			if (sw->ports[port].peer == NULL ||
			    sw->ports[port].peer->node->type != FABRIC_SWITCH)
				continue;
			c = cut_link(sw, port);
			t = routing_compute(f.nodes, f.n, &p, err, sizeof(err));
			assert_non_null(t);
			assert_int_equal(routing_memory_update(m, t), 0);
			if (t->repair.repaired && t->unreachable == 0) {
				check_all_pairs(&f, t, 1, &ws);
				assert_int_equal(count_moves(&f, t0, t, &c, 1).moved,
				    count_moves(&f, t0, t, &c, 1).had_to);
			}
			routing_table_free(t);
			mend(c);
			t = routing_compute(f.nodes, f.n, &p, err, sizeof(err));
			assert_non_null(t);
			assert_int_equal(routing_memory_update(m, t), 0);
			if (!tables_equal(t, t0))
				print_message("seed %u cut %d: repaired %d (%s), %zu blocks differ\n",
				    seed, i, t->repair.repaired, t->repair.afresh, blocks_between(t, t0));
			assert_true(tables_equal(t, t0));
			routing_table_free(t);
		}
		routing_table_free(t0);
		routing_memory_free(m);
		tfab_free(&f);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_uplink),
		cmocka_unit_test(test_agg_core_link),
		cmocka_unit_test(test_whole_core),
		cmocka_unit_test(test_core_port_by_port),
		cmocka_unit_test(test_flaps),
		cmocka_unit_test(test_overlapping_failures),
		cmocka_unit_test(test_rebalance_dry),
		cmocka_unit_test(test_seed_from_switches),
		cmocka_unit_test(test_irregular_updn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
