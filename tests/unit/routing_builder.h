/*
 * Fabrics built by hand for the routing unit tests (header-only: each test
 * program is one .c file): fat trees of two and three levels, seeded random
 * irregular graphs, and the all-pairs walk every routing test judges by
 * (reachability, no loop, up/down legality for ftree and updn).
 */
#ifndef ROUTING_BUILDER_H
#define ROUTING_BUILDER_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/routing.h"

/* ---- a tiny fabric builder: nodes and cables only ---- */

struct tfab {
	struct fabric_node	**nodes;
	size_t			  n, cap;
	uint16_t		  next_lid;
	uint64_t		  next_guid;
};

static inline struct fabric_node *
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

static inline struct fabric_node *
add_switch(struct tfab *f, unsigned nports)
{
	struct fabric_node *sw = add_node(f, FABRIC_SWITCH, nports);

	sw->lid = f->next_lid++;
	return sw;
}

/* Next free port of a node, 0 when full. */
static inline unsigned
free_port(struct fabric_node *nd)
{
	for (unsigned p = 1; p <= nd->nports; p++)
		if (nd->ports[p].peer == NULL)
			return p;
	return 0;
}

static inline void
cable(struct fabric_node *a, struct fabric_node *b)
{
	unsigned pa = free_port(a), pb = free_port(b);

	assert_true(pa && pb);
	a->ports[pa].peer = &b->ports[pb];
	b->ports[pb].peer = &a->ports[pa];
}

static inline void
add_hosts(struct tfab *f, struct fabric_node *sw, unsigned n)
{
	for (unsigned h = 0; h < n; h++) {
		struct fabric_node *ca = add_node(f, FABRIC_CA, 1);
		ca->ports[1].lid = f->next_lid++;
		ca->lid = ca->ports[1].lid;
		cable(ca, sw);
	}
}

static inline void
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
static inline void
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
static inline int
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
static inline void
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
			if (t->engine == ROUTING_MINHOP)
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
static inline unsigned
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

static inline struct routing_table *
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

#endif
