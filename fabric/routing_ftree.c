/*
 * The fat-tree engine (see fabric/routing.h); its levels are found by
 * routing_ftree_levels.c.
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

#include "fabric/routing_ftree.h"


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

/* Whether down-link a (into a main switch when into_main) beats y's
 * current one: the main path first, then the fewest destinations, then
 * the lower port. */
static bool
down_better(const struct ftree *f, uint32_t y, uint32_t a, bool into_main)
{
	uint32_t cur = f->route[y];

	if (into_main != (bool)f->via_main[y])
		return into_main;
	if (f->dn_load[a] != f->dn_load[cur])
		return f->dn_load[a] < f->dn_load[cur];
	return a < cur;
}

/*
 * Step 2: every switch that reaches d going only down descends.  Those are
 * the switches d reaches going only up, so a breadth-first climb from d
 * finds them, level by level, and each link it climbs is a way down for
 * the switch it reaches: nothing else is looked at.
 */
static void
down_tree(struct ftree *f, uint32_t d)
{
	const struct graph *g = f->g;
	size_t head = 0, tail = 0;

	f->stamp++;
	f->mark[d] = f->stamp;
	f->queue[tail++] = d;
	while (head < tail) {
		uint32_t x = f->queue[head++];
		bool xm = f->state[x] == ST_MAIN;

		for (size_t k = g->adj_at[x]; k < g->adj_at[x + 1]; k++) {
			uint32_t y = g->adj[k].nbr, a = f->rev[k];

			if (!is_up(f, x, k) || a == NONE)
				continue;
			if (f->mark[y] != f->stamp) {
				f->mark[y] = f->stamp;
				f->queue[tail++] = y;
				if (f->state[y] == ST_NONE) {
					f->state[y] = ST_DOWN;
					f->route[y] = a;
					f->via_main[y] = xm;
					continue;
				}
			}
			if (f->state[y] == ST_DOWN && down_better(f, y, a, xm)) {
				f->route[y] = a;
				f->via_main[y] = xm;
			}
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

/* ---- the climb of a whole destination, by pushes ---- */

/* Choose x's up-link by looking at all of them (recursing into up
 * neighbours not routed yet), as climb() does: the full comparison. */
static void
pull(struct ftree *f, uint32_t x)
{
	const struct graph *g = f->g;
	size_t best = NONE;
	uint64_t bcost = 0;
	int bc = 4;

	for (size_t k = g->adj_at[x]; k < g->adj_at[x + 1]; k++) {
		uint32_t y = g->adj[k].nbr;
		uint64_t cost;
		int c;

		if (!is_up(f, x, k))
			continue;
		if (f->state[y] == ST_NONE)
			pull(f, y);
		if ((c = climb_class(f->state[y])) == 4)
			continue;
		cost = climb_cost(f, k, y);
		if (climb_better(f, k, c, cost, best, bc, bcost, false)) {
			best = k;
			bc = c;
			bcost = cost;
		}
	}
	if (best == NONE)
		return;
	f->state[x] = bc <= 1 ? ST_CONV : ST_UP;
	f->route[x] = (uint32_t)best;
	f->chain[x] = bcost;
}

/* Offer x the link up to y (k is x's adjacency index), of class c. */
static void
offer(struct ftree *f, uint32_t x, size_t k, uint32_t y, int c)
{
	uint64_t cost = climb_cost(f, k, y);

	if (f->mark[x] != f->stamp) {
		f->mark[x] = f->stamp;
		f->pending[f->npending++] = x;
		f->route[x] = (uint32_t)k;
		f->chain[x] = cost;
		return;
	}
	if (climb_better(f, k, c, cost, f->route[x], c, f->chain[x], false)) {
		f->route[x] = (uint32_t)k;
		f->chain[x] = cost;
	}
}

/* Every switch below y that is not routed yet is offered its link to y. */
static void
push_down(struct ftree *f, uint32_t y, int c)
{
	const struct graph *g = f->g;

	for (size_t a = g->adj_at[y]; a < g->adj_at[y + 1]; a++) {
		uint32_t x = g->adj[a].nbr, k = f->rev[a];

		if (f->lvl[x] + 1 == f->lvl[y] && f->state[x] == ST_NONE && k != NONE)
			offer(f, x, k, y, c);
	}
}

/* The switches offered a link of one class take their best offer. */
static void
commit(struct ftree *f, size_t from)
{
	for (size_t i = from; i < f->npending; i++)
		f->state[f->pending[i]] = ST_CONV;
}

/*
 * Step 3 for a whole destination, the same choices as climb() where it
 * matters, at a fraction of the cost: level by level from the top, the
 * main switch above offers its link to every switch below it, then the
 * switches that climb into it offer theirs; a switch offered one of those
 * takes the best and needs no look at its other up-links.  Leaves left
 * over compare all their up-links (recursing where a switch above is not
 * routed yet).  Switches no leaf climbed into carry no route to d and
 * take their first up-link that leads somewhere, for their own traffic.
 */
static void
climb_whole(struct ftree *f)
{
	const struct graph *g = f->g;
	size_t conv_from = 0, conv_to = 0;	/* CONV switches of the level above */

	f->npending = 0;
	f->stamp++;
	for (unsigned l = f->height; l-- > 0;) {
		size_t start = f->npending;

		for (size_t i = f->lvl_at[l + 1]; i < f->lvl_at[l + 2]; i++)
			if (f->state[f->by_lvl[i]] == ST_MAIN && f->lvl[f->by_lvl[i]] == l + 1)
				push_down(f, f->by_lvl[i], 0);
		commit(f, start);
		start = f->npending;
		for (size_t i = conv_from; i < conv_to; i++)
			push_down(f, f->pending[i], 1);
		commit(f, start);
		conv_from = conv_to;
		conv_to = f->npending;
	}
	for (size_t i = f->lvl_at[0]; i < f->lvl_at[1]; i++)
		if (f->state[f->by_lvl[i]] == ST_NONE)
			pull(f, f->by_lvl[i]);
	for (unsigned l = f->height; l-- > 1;)
		for (size_t i = f->lvl_at[l]; i < f->lvl_at[l + 1]; i++) {
			uint32_t x = f->by_lvl[i];

			for (size_t k = g->adj_at[x];
			    f->state[x] == ST_NONE && k < g->adj_at[x + 1]; k++)
				if (is_up(f, x, k) && f->state[g->adj[k].nbr] != ST_NONE) {
					f->state[x] = ST_UP;
					f->route[x] = (uint32_t)k;
				}
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
	if (mode == MODE_WHOLE)
		climb_whole(f);
	else
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
 * Whether every switch of a level has as many up-links and as many
 * down-links as every other of that level, and no leaf's destinations are
 * split: then the shares come out even in one pass.
 */
static bool
regular(const struct ftree *f, size_t ndest)
{
	for (size_t i = 0; i < ndest; i++)
		if (f->order[i].mode != MODE_WHOLE)
			return false;
	for (unsigned l = 0; l <= f->height; l++) {
		size_t up0 = 0, all0 = 0;
		for (size_t i = f->lvl_at[l]; i < f->lvl_at[l + 1]; i++) {
			uint32_t s = f->by_lvl[i];
			size_t up = up_links(f, s), all = f->g->adj_at[s + 1] - f->g->adj_at[s];

			if (i == f->lvl_at[l]) {
				up0 = up;
				all0 = all;
			} else if (up != up0 || all != all0 ||
			    (l == 0 && f->ncas[s] != f->ncas[f->by_lvl[f->lvl_at[0]]])) {
				return false;
			}
		}
	}
	return true;
}

/*
 * Route the CA destinations; on an irregular tree route each again with
 * the others' final loads known: choosing in order, an early destination
 * cannot see what the later ones must take (a link that is some later
 * destination's only way), and the second pass corrects that.  Then the
 * switches' own LIDs, which carry management only and do not count.
 */
static void
route_all(struct ftree *f, struct routing_table *t, struct dest_lid *tmp)
{
	const struct graph *g = f->g;
	size_t n = dest_order(f, tmp);
	int passes = regular(f, n) ? 1 : FTREE_PASSES;

	for (int pass = 0; pass < passes; pass++) {
		t->unreachable = 0;
		for (size_t i = 0; i < n; i++) {
			struct dest *o = &f->order[i];

			if (pass)
				uncharge(f, t, o->sw, o->dl.lid);
			route_lid(f, t, o->sw, &o->dl, o->mode, f->mainrec + i * f->height,
			    pass > 0);
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
	free(f->via_main);
	free(f->pending);
	free(f->plain);
	free(f->queue);
	free(f->mark);
	free(f->order);
	free(f->mainrec);
	free(f->p2a_at);
	free(f->p2a);
}


/* The engines' common reset, and ftree's own marks (levels, roots). */
static void
reset_tables(struct routing_table *t)
{
	routing_reset_tables(t);
	for (size_t s = 0; s < t->nswitches; s++) {
		t->lfts[s].rank = 0;
		t->lfts[s].root = false;
	}
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
	f.via_main = calloc(ns, sizeof(*f.via_main));
	f.pending = calloc(ns, sizeof(*f.pending));
	f.plain = calloc(ns, sizeof(*f.plain));
	f.order = calloc(g->dst_at[ns] + 1, sizeof(*f.order));
	f.mainrec = calloc((g->dst_at[ns] + 1) * (f.height + 1u), sizeof(*f.mainrec));
	if (!f.by_lvl || !f.lvl_at || !f.rev || !f.dn_load || !f.w_load || !f.chain ||
	    !f.flow || !f.ncas || !f.route || !f.state || !f.via_main || !f.pending ||
	    !f.plain || !f.order || !f.mainrec ||
	    ftree_port_index(&f) < 0)
		goto out;
	for (size_t s = 0; s < ns; s++)
		for (size_t k = g->dst_at[s]; k < g->dst_at[s + 1]; k++)
			f.ncas[s] += g->dst[k].port != 0;
	ftree_sort_levels(&f);
	ftree_link_reverse(&f);
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
