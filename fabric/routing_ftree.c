/*
 * The fat-tree engine (see fabric/routing.h).
 *
 * Levels come from the CAs: the leaves (level 0) are the switches with CAs,
 * every other switch is as many hops above them as a breadth-first search
 * says.  A switch with no CA that is cabled only to switches one level
 * down and looks like a sibling of a real leaf (its neighbours are a good
 * part of one leaf's) is a leaf without hosts, not a top switch.  The
 * fabric is a fat tree when every inter-switch link joins two adjacent
 * levels; anything else (two leaves cabled together, a link within a
 * level) is refused with the link named, and auto routes it with updn.
 *
 * Routing is per destination LID, destinations taken one CA of every leaf
 * at a time so that every leaf's shares grow together:
 *   1. the main path climbs from the destination's switch, at each level
 *      over the up-link whose way down carries the fewest destinations so
 *      far: that spreads each leaf's destinations over its up-links and
 *      every switch's over its own (D-mod-K, but from the live links, so
 *      a missing link changes only the shares it had);
 *   2. every switch that can reach the destination going only down does
 *      so, by the main path where it passes, else by its least-loaded
 *      down-link: one way down from each switch;
 *   3. every other switch climbs, preferring the main path, then a switch
 *      that climbs into it, then any switch that descends to it; among
 *      equals the up-link that carries the fewest destinations.  So all
 *      sources converge on the main path and the down-links of the main
 *      path carry the destination's whole load, evenly over destinations.
 * Routes only climb and then descend through strictly ordered levels, so
 * the tables have no credit loop.  Entries no CA route needs (a top switch
 * toward another top switch) take the shortest path, for management.
 */
#include <stdio.h>
#include <string.h>

#include "fabric/routing_internal.h"

#define NONE		UINT32_MAX
#define FTREE_PASSES	2	/* route, then route again knowing the loads */

enum state { ST_NONE, ST_MAIN, ST_DOWN, ST_CONV, ST_UP };

/* How a destination weighs in the balance. */
enum mode {
	MODE_MGMT,	/* a switch's own LID: management only, not counted */
	MODE_WHOLE,	/* a CA: every source converges on its main path */
	MODE_SPLIT,	/* a CA whose leaf's shares do not come out even */
};

struct dest {
	uint32_t		 sw;		/* the switch it is cabled to */
	struct dest_lid		 dl;
	enum mode		 mode;
};

struct ftree {
	const struct graph	*g;
	uint16_t		*lvl;		/* 0: leaves; INF: no CA reachable */
	uint16_t		 height;
	uint32_t		*by_lvl;	/* switch indices by level, ascending */
	size_t			*lvl_at;	/* [height + 2] offsets into by_lvl */
	uint32_t		*rev;		/* [nadj] the reverse of each link */
	uint32_t		*dn_load;	/* [nadj] main destinations descending */
	uint64_t		*w_load;	/* [nadj] CA routes crossing each link */
	uint64_t		*chain;		/* [ns] per destination: busiest link
						   of the climb from a switch */
	uint64_t		*flow;		/* [ns] per destination: sources through */
	uint32_t		*ncas;		/* [ns] CA LIDs on each switch */
	uint32_t		*route;		/* [ns] per destination: adj index */
	uint8_t			*state;		/* [ns] per destination: enum state */
	uint16_t		*plain;		/* [ns] shortest distances, fallback */
	uint32_t		*queue;		/* [ns] */
	uint32_t		*mark;		/* [ns] stamps for neighbour sets */
	uint32_t		 stamp;
	struct dest		*order;		/* CA destinations in routing order */
	uint32_t		*mainrec;	/* [ndest * height] main paths */
	size_t			*p2a_at;	/* [ns + 1] offsets into p2a */
	uint32_t		*p2a;		/* by switch and port: adj index */
};

static const char *
sw_name(const struct graph *g, uint32_t s, char *buf, size_t len)
{
	const struct fabric_node *n = g->sw[s];

	if (n->desc[0])
		snprintf(buf, len, "%s", n->desc);
	else
		snprintf(buf, len, "%#llx", (unsigned long long)n->guid);
	return buf;
}

/* Multi-source BFS from the switches whose level is 0. */
static void
level_bfs(struct ftree *f)
{
	const struct graph *g = f->g;
	size_t head = 0, tail = 0;

	for (uint32_t s = 0; s < g->ns; s++)
		if (f->lvl[s] == 0)
			f->queue[tail++] = s;
	while (head < tail) {
		uint32_t u = f->queue[head++];
		for (size_t k = g->adj_at[u]; k < g->adj_at[u + 1]; k++) {
			uint32_t v = g->adj[k].nbr;
			if (f->lvl[v] == INF) {
				f->lvl[v] = f->lvl[u] + 1;
				f->queue[tail++] = v;
			}
		}
	}
}

/* Distinct neighbours of s; marks them with a fresh stamp. */
static size_t
mark_nbrs(struct ftree *f, uint32_t s)
{
	const struct graph *g = f->g;
	size_t n = 0;

	f->stamp++;
	for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++)
		if (f->mark[g->adj[k].nbr] != f->stamp) {
			f->mark[g->adj[k].nbr] = f->stamp;
			n++;
		}
	return n;
}

/* Whether hostless switch s (level 2, all neighbours at level 1) shares at
 * least half of the up-neighbours of some real leaf and has no other. */
static bool
looks_like_leaf(struct ftree *f, uint32_t s)
{
	const struct graph *g = f->g;
	uint32_t y = g->adj[g->adj_at[s]].nbr;
	size_t ks = mark_nbrs(f, s);
	uint32_t st = f->stamp;

	for (size_t k = g->adj_at[y]; k < g->adj_at[y + 1]; k++) {
		uint32_t l = g->adj[k].nbr;
		size_t nl = 0, both = 0;

		if (f->lvl[l] != 0 || !graph_has_ca(g, l))
			continue;
		for (size_t m = g->adj_at[l]; m < g->adj_at[l + 1]; m++) {
			uint32_t v = g->adj[m].nbr;
			bool first = true;
			for (size_t q = g->adj_at[l]; q < m; q++)
				first = first && g->adj[q].nbr != v;
			if (!first)
				continue;
			nl++;
			both += f->mark[v] == st;
		}
		if (both == ks && 2 * ks >= nl)
			return true;
	}
	return false;
}

static bool
only_down_nbrs(const struct ftree *f, uint32_t s)
{
	const struct graph *g = f->g;

	for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++)
		if (f->lvl[g->adj[k].nbr] + 1 != f->lvl[s])
			return false;
	return g->adj_at[s] < g->adj_at[s + 1];
}

/* Levels, and whether they make a fat tree (why says what breaks it). */
static bool
ftree_levels(struct ftree *f, char *why, size_t len)
{
	const struct graph *g = f->g;
	char a[FABRIC_NODE_DESC_LEN + 24], b[FABRIC_NODE_DESC_LEN + 24];
	bool hostless = false;

	for (uint32_t s = 0; s < g->ns; s++)
		f->lvl[s] = graph_has_ca(g, s) ? 0 : INF;
	level_bfs(f);
	for (uint32_t s = 0; s < g->ns; s++)
		if (f->lvl[s] == 2 && only_down_nbrs(f, s) && looks_like_leaf(f, s)) {
			f->lvl[s] = UINT16_MAX - 1;	/* a leaf, once all are found */
			hostless = true;
		}
	if (hostless) {
		for (uint32_t s = 0; s < g->ns; s++)
			f->lvl[s] = graph_has_ca(g, s) || f->lvl[s] == UINT16_MAX - 1 ? 0 : INF;
		level_bfs(f);
	}
	f->height = 0;
	for (uint32_t s = 0; s < g->ns; s++) {
		if (f->lvl[s] == INF)
			continue;
		if (f->lvl[s] > f->height)
			f->height = f->lvl[s];
		for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++) {
			uint32_t v = g->adj[k].nbr;
			if (f->lvl[v] != f->lvl[s])
				continue;
			snprintf(why, len, "not a fat tree: %s and %s are cabled within level %u%s",
			    sw_name(g, s, a, sizeof(a)), sw_name(g, v, b, sizeof(b)), f->lvl[s],
			    f->lvl[s] == 0 ? " (both have CAs)" : "");
			return false;
		}
	}
	if (f->height == 0) {
		snprintf(why, len, "not a fat tree: no switch above the leaves");
		return false;
	}
	return true;
}

/* Switches by level (counting sort); unreached switches are left out. */
static void
sort_levels(struct ftree *f)
{
	const struct graph *g = f->g;

	memset(f->lvl_at, 0, ((size_t)f->height + 2) * sizeof(*f->lvl_at));
	for (uint32_t s = 0; s < g->ns; s++)
		if (f->lvl[s] != INF)
			f->lvl_at[f->lvl[s] + 1]++;
	for (unsigned l = 0; l <= f->height; l++)
		f->lvl_at[l + 1] += f->lvl_at[l];
	size_t *fill = f->lvl_at;	/* reuse: fill, then shift back */
	for (uint32_t s = 0; s < g->ns; s++)
		if (f->lvl[s] != INF)
			f->by_lvl[fill[f->lvl[s]]++] = s;
	for (unsigned l = f->height + 1; l > 0; l--)
		f->lvl_at[l] = f->lvl_at[l - 1];
	f->lvl_at[0] = 0;
}

/* The reverse of every link: the adjacency entry of the peer port. */
static void
link_reverse(struct ftree *f)
{
	const struct graph *g = f->g;

	for (uint32_t s = 0; s < g->ns; s++)
		for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++) {
			uint32_t v = g->adj[k].nbr;
			uint8_t q = g->sw[s]->ports[g->adj[k].port].peer->num;

			f->rev[k] = NONE;
			for (size_t m = g->adj_at[v]; m < g->adj_at[v + 1]; m++)
				if (g->adj[m].nbr == s && g->adj[m].port == q)
					f->rev[k] = (uint32_t)m;
		}
}

static bool
is_up(const struct ftree *f, uint32_t s, size_t k)
{
	return f->lvl[f->g->adj[k].nbr] == f->lvl[s] + 1;
}

/*
 * Step 1: climb from d over the up-links least used on the way down.  rec
 * (height entries) keeps the up-links chosen, so that a second pass over
 * the destination replays its main path rather than choosing anew.
 */
static void
main_path(struct ftree *f, uint32_t d, bool count, uint32_t *rec, bool replay)
{
	const struct graph *g = f->g;
	uint32_t x = d;

	f->state[d] = ST_MAIN;
	f->route[d] = NONE;
	for (unsigned i = 0;; i++) {
		size_t best = NONE;

		if (replay)
			best = i < f->height ? rec[i] : NONE;
		else
			for (size_t k = g->adj_at[x]; k < g->adj_at[x + 1]; k++)
				if (is_up(f, x, k) && f->rev[k] != NONE && (best == NONE ||
				    f->dn_load[f->rev[k]] < f->dn_load[f->rev[best]]))
					best = k;
		if (rec && !replay && i < f->height)
			rec[i] = (uint32_t)best;
		if (best == NONE)
			return;
		x = g->adj[best].nbr;
		f->state[x] = ST_MAIN;
		f->route[x] = f->rev[best];
		if (count && !replay)
			f->dn_load[f->rev[best]]++;
	}
}

/* Step 2: from the level above d up, every switch that reaches d going
 * only down descends. */
static void
down_tree(struct ftree *f, uint32_t d)
{
	const struct graph *g = f->g;

	for (unsigned l = f->lvl[d] + 1u; l <= f->height; l++)
		for (size_t i = f->lvl_at[l]; i < f->lvl_at[l + 1]; i++) {
			uint32_t y = f->by_lvl[i];
			size_t best = NONE;
			bool best_main = false;

			if (f->state[y] != ST_NONE)
				continue;
			for (size_t k = g->adj_at[y]; k < g->adj_at[y + 1]; k++) {
				uint32_t v = g->adj[k].nbr;
				bool m = f->state[v] == ST_MAIN;

				if ((unsigned)f->lvl[v] + 1 != l || (!m && f->state[v] != ST_DOWN))
					continue;
				if (best == NONE || (m && !best_main) ||
				    (m == best_main && f->dn_load[k] < f->dn_load[best])) {
					best = k;
					best_main = m;
				}
			}
			if (best != NONE) {
				f->state[y] = ST_DOWN;
				f->route[y] = (uint32_t)best;
			}
		}
}

/* Preference of climbing into a switch in state st: lower is better. */
static int
climb_class(uint8_t st)
{
	switch (st) {
	case ST_MAIN: return 0;
	case ST_CONV: return 1;
	case ST_DOWN: return 2;
	case ST_UP: return 3;
	default: return 4;
	}
}

/* The busiest link a route entering switch y by link k meets before it
 * starts down: what a source's choice of up-link really loads. */
static uint64_t
climb_cost(const struct ftree *f, size_t k, uint32_t y)
{
	uint64_t c = f->w_load[k];
	bool climbs = f->state[y] == ST_CONV || f->state[y] == ST_UP;

	return climbs ? c + f->chain[y] : c;
}

/* The busiest link from switch y on to the destination, by the routes set
 * so far (the destination's own switch has no route: the walk ends). */
static uint64_t
path_max(const struct ftree *f, uint32_t y)
{
	uint64_t m = 0;

	for (unsigned hops = 0; f->state[y] != ST_NONE && f->route[y] != NONE &&
	    hops <= 2u * f->height; hops++) {
		uint32_t r = f->route[y];
		m = f->w_load[r] > m ? f->w_load[r] : m;
		y = f->g->adj[r].nbr;
	}
	return m;
}

/* Put flow routes on every link from x to the destination. */
static void
charge_path(struct ftree *f, uint32_t x, uint64_t flow)
{
	for (unsigned hops = 0; f->state[x] != ST_NONE && f->route[x] != NONE &&
	    hops <= 2u * f->height; hops++) {
		f->w_load[f->route[x]] += flow;
		x = f->g->adj[f->route[x]].nbr;
	}
}

/* What choosing link k (to y) costs: whole destinations converge on the
 * main path (class first, then the loads of the climb); a split one goes
 * where the busiest link of the whole way is least busy. */
static bool
climb_better(const struct ftree *f, size_t k, int c, uint64_t cost, size_t best, int bc,
    uint64_t bcost, bool split)
{
	if (best == NONE)
		return true;
	if (split && cost != bcost)
		return cost < bcost;
	if (c != bc)
		return c < bc;
	if (cost != bcost)
		return cost < bcost;
	return f->w_load[k] < f->w_load[best];
}

/*
 * Step 3: from the top down, every switch not yet routed climbs.  A split
 * destination (see route_all) charges each source switch's routes as soon
 * as it has chosen, so the next source sees them and goes elsewhere: the
 * destination's load is shared by several ways down.
 */
static void
climb(struct ftree *f, bool split)
{
	const struct graph *g = f->g;

	for (unsigned l = f->height; l-- > 0;)
		for (size_t i = f->lvl_at[l]; i < f->lvl_at[l + 1]; i++) {
			uint32_t x = f->by_lvl[i];
			size_t best = NONE;
			uint64_t bcost = 0;
			int bc = 4;

			if (f->state[x] != ST_NONE)
				continue;
			for (size_t k = g->adj_at[x]; k < g->adj_at[x + 1]; k++) {
				uint32_t y = g->adj[k].nbr;
				uint64_t cost;
				int c;

				if (!is_up(f, x, k) || (c = climb_class(f->state[y])) == 4)
					continue;
				if (split)
					cost = f->w_load[k] + path_max(f, y);
				else
					cost = climb_cost(f, k, y);
				if (climb_better(f, k, c, cost, best, bc, bcost, split)) {
					best = k;
					bc = c;
					bcost = cost;
				}
			}
			if (best == NONE)
				continue;
			f->state[x] = bc <= 1 ? ST_CONV : ST_UP;
			f->route[x] = (uint32_t)best;
			f->chain[x] = bcost;
			if (split && f->ncas[x])
				charge_path(f, x, f->ncas[x]);
		}
}

/*
 * Charge the routes to d to the links they cross: every CA not on d is a
 * source; flows climb level by level, then descend.  These are the counts
 * an all-pairs walk of the tables finds, and what later choices balance.
 */
static void
charge(struct ftree *f, uint32_t d)
{
	const struct graph *g = f->g;
	size_t n = f->lvl_at[f->height + 1];

	for (size_t i = 0; i < n; i++) {
		uint32_t s = f->by_lvl[i];
		f->flow[s] = s == d ? 0 : f->ncas[s];
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = f->by_lvl[i];
		if ((f->state[s] == ST_CONV || f->state[s] == ST_UP) && f->flow[s]) {
			f->w_load[f->route[s]] += f->flow[s];
			f->flow[g->adj[f->route[s]].nbr] += f->flow[s];
		}
	}
	for (size_t i = n; i-- > 0;) {
		uint32_t s = f->by_lvl[i];
		if (s != d && (f->state[s] == ST_MAIN || f->state[s] == ST_DOWN) && f->flow[s]) {
			f->w_load[f->route[s]] += f->flow[s];
			f->flow[g->adj[f->route[s]].nbr] += f->flow[s];
		}
	}
}

/* The shortest way to d, for entries no CA route needs. */
static uint8_t
fallback_port(struct ftree *f, const struct routing_lft *l, uint32_t s)
{
	const struct graph *g = f->g;
	uint8_t best = ROUTING_NO_PORT;

	if (f->plain[s] == INF)
		return best;
	for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++) {
		uint8_t p = g->adj[k].port;
		if (f->plain[g->adj[k].nbr] + 1 == f->plain[s] &&
		    (best == ROUTING_NO_PORT || l->routes[p] < l->routes[best]))
			best = p;
	}
	return best;
}

/* Route one LID of switch d; rec: its main path (see main_path), NULL for
 * management LIDs. */
static void
route_lid(struct ftree *f, struct routing_table *t, uint32_t d, const struct dest_lid *dl,
    enum mode mode, uint32_t *rec, bool replay)
{
	bool count = mode != MODE_MGMT;
	const struct graph *g = f->g;
	bool have_plain = false;

	memset(f->state, ST_NONE, g->ns);
	main_path(f, d, count, rec, replay);
	down_tree(f, d);
	climb(f, mode == MODE_SPLIT);
	if (mode == MODE_WHOLE)
		charge(f, d);
	for (uint32_t s = 0; s < g->ns; s++) {
		struct routing_lft *l = &t->lfts[s];
		uint8_t port;

		if (s == d)
			port = dl->port;
		else if (f->state[s] != ST_NONE)
			port = g->adj[f->route[s]].port;
		else {
			if (!have_plain)
				graph_bfs(g, d, f->plain, f->queue);
			have_plain = true;
			port = fallback_port(f, l, s);
		}
		if (port == ROUTING_NO_PORT) {
			t->unreachable++;
			continue;
		}
		l->port[dl->lid] = port;
	}
}

/* Take the routes to lid (on switch d) off the links, following the table
 * as routed: the first step of routing it again. */
static void
uncharge(struct ftree *f, const struct routing_table *t, uint32_t d, uint16_t lid)
{
	const struct graph *g = f->g;

	for (size_t i = f->lvl_at[0]; i < f->lvl_at[1]; i++) {
		uint32_t src = f->by_lvl[i], x = src;

		if (src == d || f->ncas[src] == 0)
			continue;
		for (unsigned hops = 0; x != d && hops <= 2u * f->height; hops++) {
			uint8_t p = t->lfts[x].port[lid];
			uint32_t a = p == ROUTING_NO_PORT ? NONE : f->p2a[f->p2a_at[x] + p];

			if (a == NONE)
				break;
			/* a fallback entry was never charged */
			f->w_load[a] -= f->w_load[a] < f->ncas[src] ? f->w_load[a] : f->ncas[src];
			x = g->adj[a].nbr;
		}
	}
}

static int
cmp_dest_port(const void *a, const void *b)
{
	const struct dest_lid *x = a, *y = b;

	return x->port - y->port;
}

static size_t
up_links(const struct ftree *f, uint32_t s)
{
	size_t n = 0;

	for (size_t k = f->g->adj_at[s]; k < f->g->adj_at[s + 1]; k++)
		n += is_up(f, s, k);
	return n;
}

/*
 * The CA destinations in routing order, one of every leaf at a time (each
 * leaf's in port order), so that every leaf's destinations take their
 * turns at the shares together.  A leaf with L CAs and u live up-links
 * gives each link floor(L/u) whole destinations; the L mod u left over (a
 * leaf that lost up-links) would put a whole destination more on some
 * links, so their load is split.  Returns how many.
 */
static size_t
dest_order(struct ftree *f, struct dest_lid *tmp)
{
	const struct graph *g = f->g;
	size_t most = 0, n = 0;

	for (uint32_t s = 0; s < g->ns; s++) {
		size_t c = g->dst_at[s + 1] - g->dst_at[s];
		most = c > most ? c : most;
	}
	for (size_t j = 0; j < most; j++)
		for (size_t i = f->lvl_at[0]; i < f->lvl_at[1]; i++) {
			uint32_t s = f->by_lvl[i];
			size_t c = 0, u = up_links(f, s);

			for (size_t k = g->dst_at[s]; k < g->dst_at[s + 1]; k++)
				if (g->dst[k].port != 0)
					tmp[c++] = g->dst[k];
			if (j >= c)
				continue;
			qsort(tmp, c, sizeof(*tmp), cmp_dest_port);
			f->order[n] = (struct dest){ s, tmp[j],
			    u && c % u && j >= c / u * u ? MODE_SPLIT : MODE_WHOLE };
			n++;
		}
	return n;
}

/*
 * Route the CA destinations, then route each again with the others' final
 * loads known: choosing in order, an early destination cannot see what
 * the later ones must take (a link that is some later destination's only
 * way), and the second pass corrects that.  Then the switches' own LIDs,
 * which carry management only and do not count.
 */
static void
route_all(struct ftree *f, struct routing_table *t, struct dest_lid *tmp)
{
	const struct graph *g = f->g;
	size_t n = dest_order(f, tmp);

	for (int pass = 0; pass < FTREE_PASSES; pass++) {
		t->unreachable = 0;
		for (size_t i = 0; i < n; i++) {
			struct dest *o = &f->order[i];

			if (pass)
				uncharge(f, t, o->sw, o->dl.lid);
			route_lid(f, t, o->sw, &o->dl, o->mode, f->mainrec + i * f->height, pass > 0);
		}
	}
	for (uint32_t s = 0; s < g->ns; s++)
		for (size_t k = g->dst_at[s]; k < g->dst_at[s + 1]; k++)
			if (g->dst[k].port == 0)
				route_lid(f, t, s, &g->dst[k], MODE_MGMT, NULL, false);
}

/* Routes per port, for status, from the finished tables. */
static void
count_routes(struct routing_table *t)
{
	for (size_t s = 0; s < t->nswitches; s++) {
		struct routing_lft *l = &t->lfts[s];
		for (size_t lid = 1; lid <= l->top; lid++)
			if (l->port[lid] != ROUTING_NO_PORT)
				l->routes[l->port[lid]]++;
	}
}

static void
ftree_free(struct ftree *f)
{
	free(f->lvl);
	free(f->by_lvl);
	free(f->lvl_at);
	free(f->rev);
	free(f->dn_load);
	free(f->w_load);
	free(f->chain);
	free(f->flow);
	free(f->ncas);
	free(f->route);
	free(f->state);
	free(f->plain);
	free(f->queue);
	free(f->mark);
	free(f->order);
	free(f->mainrec);
	free(f->p2a_at);
	free(f->p2a);
}

/* Port -> adjacency index of every switch, to follow a table's entries. */
static int
port_index(struct ftree *f)
{
	const struct graph *g = f->g;

	f->p2a_at = calloc(g->ns + 1, sizeof(*f->p2a_at));
	if (f->p2a_at == NULL)
		return -1;
	for (size_t s = 0; s < g->ns; s++)
		f->p2a_at[s + 1] = f->p2a_at[s] + g->sw[s]->nports + 1u;
	f->p2a = malloc(f->p2a_at[g->ns] * sizeof(*f->p2a));
	if (f->p2a == NULL)
		return -1;
	memset(f->p2a, 0xff, f->p2a_at[g->ns] * sizeof(*f->p2a));
	for (size_t s = 0; s < g->ns; s++)
		for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++)
			f->p2a[f->p2a_at[s] + g->adj[k].port] = (uint32_t)k;
	return 0;
}

static void
reset_tables(struct routing_table *t)
{
	for (size_t s = 0; s < t->nswitches; s++) {
		struct routing_lft *l = &t->lfts[s];
		memset(l->port, ROUTING_NO_PORT, (size_t)l->nblocks * ROUTING_BLOCK_SIZE);
		memset(l->routes, 0, ((size_t)l->sw->nports + 1) * sizeof(*l->routes));
		l->rank = 0;
		l->root = false;
	}
	t->unreachable = 0;
}

int
ftree_route(const struct graph *g, struct routing_table *t, char *why, size_t whylen)
{
	size_t ns = g->ns, na = g->adj_at[g->ns] ? g->adj_at[g->ns] : 1;
	struct ftree f = { .g = g };
	struct dest_lid *tmp = calloc(g->dst_at[ns] + 1, sizeof(*tmp));
	int rc = -1;

	f.lvl = calloc(ns, sizeof(*f.lvl));
	f.queue = calloc(ns, sizeof(*f.queue));
	f.mark = calloc(ns, sizeof(*f.mark));
	if (!tmp || !f.lvl || !f.queue || !f.mark)
		goto out;
	if (!ftree_levels(&f, why, whylen)) {
		rc = 0;
		goto out;
	}
	f.by_lvl = calloc(ns, sizeof(*f.by_lvl));
	f.lvl_at = calloc((size_t)f.height + 2, sizeof(*f.lvl_at));
	f.rev = calloc(na, sizeof(*f.rev));
	f.dn_load = calloc(na, sizeof(*f.dn_load));
	f.w_load = calloc(na, sizeof(*f.w_load));
	f.chain = calloc(ns, sizeof(*f.chain));
	f.flow = calloc(ns, sizeof(*f.flow));
	f.ncas = calloc(ns, sizeof(*f.ncas));
	f.route = calloc(ns, sizeof(*f.route));
	f.state = calloc(ns, sizeof(*f.state));
	f.plain = calloc(ns, sizeof(*f.plain));
	f.order = calloc(g->dst_at[ns] + 1, sizeof(*f.order));
	f.mainrec = calloc((g->dst_at[ns] + 1) * (f.height + 1u), sizeof(*f.mainrec));
	if (!f.by_lvl || !f.lvl_at || !f.rev || !f.dn_load || !f.w_load || !f.chain ||
	    !f.flow || !f.ncas || !f.route || !f.state || !f.plain || !f.order || !f.mainrec ||
	    port_index(&f) < 0)
		goto out;
	for (size_t s = 0; s < ns; s++)
		for (size_t k = g->dst_at[s]; k < g->dst_at[s + 1]; k++)
			f.ncas[s] += g->dst[k].port != 0;
	sort_levels(&f);
	link_reverse(&f);
	reset_tables(t);
	route_all(&f, t, tmp);
	count_routes(t);
	for (size_t s = 0; s < ns; s++)
		t->lfts[s].rank = f.lvl[s] == INF ? 0 : (uint16_t)(f.height - f.lvl[s]);
	snprintf(why, whylen, "a %u-level fat tree: %zu leaves, %zu switches", f.height + 1u,
	    f.lvl_at[1], ns);
	rc = 1;
out:
	free(tmp);
	ftree_free(&f);
	return rc;
}
