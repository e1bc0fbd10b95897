/*
 * Unicast routing engines (see fabric/routing.h).
 *
 * The switch graph is flattened once into index arrays (CSR adjacency), so
 * the per-destination work touches only small integer arrays.  For every
 * destination switch d one breadth-first search gives each switch its
 * distance to d, and from it the egress candidates; every LID that lives
 * on d (d's own LID, the CA ports cabled to it) is then placed on the
 * least-loaded candidate of each switch.  Up/down differs only in which
 * candidates are legal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "fabric/routing_internal.h"

static size_t
ptr_hash(const void *p, size_t mask)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & mask;
}

static void
index_put(struct graph *g, const struct fabric_node *n, uint32_t idx)
{
	size_t h = ptr_hash(n, g->hmask);

	while (g->hkey[h] != NULL)
		h = (h + 1) & g->hmask;
	g->hkey[h] = n;
	g->hval[h] = idx;
}

/* Switch index of n, or -1 when n is not one of the routed switches. */
static long
index_of(const struct graph *g, const struct fabric_node *n)
{
	size_t h = ptr_hash(n, g->hmask);

	while (g->hkey[h] != NULL) {
		if (g->hkey[h] == n)
			return g->hval[h];
		h = (h + 1) & g->hmask;
	}
	return -1;
}

static int
cmp_node_guid(const void *a, const void *b)
{
	const struct fabric_node *x = *(const struct fabric_node *const *)a;
	const struct fabric_node *y = *(const struct fabric_node *const *)b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static void
graph_free(struct graph *g)
{
	free(g->sw);
	free(g->adj_at);
	free(g->adj);
	free(g->dst_at);
	free(g->dst);
	free(g->hkey);
	free(g->hval);
	free(g->rank);
	free(g->order);
}

bool
routing_is_switch(const struct fabric_node *n)
{
	return n != NULL && n->type == FABRIC_SWITCH;
}

/* Claim a LID for one port; two claimants are a configuration the SM must
 * fix before routing, so it is refused rather than guessed at. */
static int
claim_lid(const struct fabric_node **owner, uint16_t lid, const struct fabric_node *n,
    char *err, size_t errlen)
{
	if (lid > FABRIC_MAX_LID) {
		snprintf(err, errlen, "node %#llx has LID %u above %u",
		    (unsigned long long)n->guid, lid, FABRIC_MAX_LID);
		return -1;
	}
	if (owner[lid] != NULL && owner[lid] != n) {
		snprintf(err, errlen, "LID %u held by both %#llx and %#llx", lid,
		    (unsigned long long)owner[lid]->guid, (unsigned long long)n->guid);
		return -1;
	}
	owner[lid] = n;
	return 0;
}

/* Count, then fill, the destination LIDs of every switch. */
static int
graph_collect_lids(struct graph *g, struct fabric_node *const *nodes, size_t n,
    uint16_t *top, char *err, size_t errlen)
{
	const struct fabric_node **owner = calloc(FABRIC_MAX_LID + 1, sizeof(*owner));
	size_t total = 0, *fill;
	int rc = -1;

	g->dst_at = calloc(g->ns + 1, sizeof(*g->dst_at));
	if (owner == NULL || g->dst_at == NULL)
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		fill = pass ? calloc(g->ns, sizeof(*fill)) : NULL;
		if (pass && fill == NULL)
			goto out;
		for (size_t i = 0; i < n; i++) {
			const struct fabric_node *nd = nodes[i];
			long s;

			if (routing_is_switch(nd)) {
				if (nd->lid == 0)
					continue;
				if (!pass && claim_lid(owner, nd->lid, nd, err, errlen) < 0)
					goto out;
				s = index_of(g, nd);
				if (pass) {
					g->dst[g->dst_at[s] + fill[s]++] =
					    (struct dest_lid){ nd->lid, 0 };
				} else {
					g->dst_at[s + 1]++;
					*top = nd->lid > *top ? nd->lid : *top;
				}
				continue;
			}
			for (unsigned p = 1; p <= nd->nports; p++) {
				const struct fabric_port *pt = &nd->ports[p];

				if (pt->lid == 0)
					continue;
				if (!pass && claim_lid(owner, pt->lid, nd, err, errlen) < 0)
					goto out;
				if (pt->peer == NULL || !routing_is_switch(pt->peer->node))
					continue;	/* not reachable through a switch */
				s = index_of(g, pt->peer->node);
				if (s < 0)
					continue;
				if (pass) {
					g->dst[g->dst_at[s] + fill[s]++] =
					    (struct dest_lid){ pt->lid, pt->peer->num };
				} else {
					g->dst_at[s + 1]++;
					*top = pt->lid > *top ? pt->lid : *top;
				}
			}
		}
		if (!pass) {
			for (size_t s = 0; s < g->ns; s++)
				g->dst_at[s + 1] += g->dst_at[s];
			total = g->dst_at[g->ns];
			g->dst = calloc(total ? total : 1, sizeof(*g->dst));
			if (g->dst == NULL)
				goto out;
		} else {
			free(fill);
		}
	}
	rc = 0;
out:
	free(owner);
	return rc;
}

static int
graph_build(struct graph *g, struct fabric_node *const *nodes, size_t n, uint16_t *top,
    char *err, size_t errlen)
{
	size_t nadj = 0, k = 0, hsize = 16;

	memset(g, 0, sizeof(*g));
	g->sw = calloc(n ? n : 1, sizeof(*g->sw));
	if (g->sw == NULL)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		if (routing_is_switch(nodes[i]))
			g->sw[g->ns++] = nodes[i];
	if (g->ns == 0) {
		snprintf(err, errlen, "no switch to route");
		return -1;
	}
	qsort(g->sw, g->ns, sizeof(*g->sw), cmp_node_guid);

	while (hsize < 2 * g->ns)
		hsize <<= 1;
	g->hmask = hsize - 1;
	g->hkey = calloc(hsize, sizeof(*g->hkey));
	g->hval = calloc(hsize, sizeof(*g->hval));
	g->adj_at = calloc(g->ns + 1, sizeof(*g->adj_at));
	if (g->hkey == NULL || g->hval == NULL || g->adj_at == NULL)
		goto nomem;
	for (size_t s = 0; s < g->ns; s++)
		index_put(g, g->sw[s], (uint32_t)s);

	for (size_t s = 0; s < g->ns; s++)
		for (unsigned p = 1; p <= g->sw[s]->nports; p++) {
			const struct fabric_port *pt = &g->sw[s]->ports[p];
			if (pt->peer && index_of(g, pt->peer->node) >= 0)
				nadj++;
		}
	g->adj = calloc(nadj ? nadj : 1, sizeof(*g->adj));
	if (g->adj == NULL)
		goto nomem;
	for (size_t s = 0; s < g->ns; s++) {
		g->adj_at[s] = k;
		for (unsigned p = 1; p <= g->sw[s]->nports; p++) {
			const struct fabric_port *pt = &g->sw[s]->ports[p];
			long nb = pt->peer ? index_of(g, pt->peer->node) : -1;

			if (nb >= 0)
				g->adj[k++] = (struct adj){ (uint32_t)nb, (uint8_t)p };
		}
	}
	g->adj_at[g->ns] = k;
	if (graph_collect_lids(g, nodes, n, top, err, errlen) < 0) {
		if (err[0] == '\0')
			goto nomem;
		return -1;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* ---- up/down ranking ---- */

static int
cmp_rank_guid(const void *a, const void *b, void *arg)
{
	const struct graph *g = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (g->rank[x] != g->rank[y])
		return g->rank[x] < g->rank[y] ? -1 : 1;
	return x < y ? -1 : x > y;	/* indices are in GUID order */
}

/* Ranks = hops from the nearest root; order = position in (rank, guid). */
static int
updn_rank(struct graph *g, const bool *is_root, uint32_t *queue)
{
	size_t head = 0, tail = 0;
	uint32_t *by_order = calloc(g->ns, sizeof(*by_order));

	if (by_order == NULL)
		return -1;
	for (size_t s = 0; s < g->ns; s++) {
		g->rank[s] = is_root[s] ? 0 : INF;
		if (is_root[s])
			queue[tail++] = (uint32_t)s;
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		for (size_t k = g->adj_at[u]; k < g->adj_at[u + 1]; k++) {
			uint32_t v = g->adj[k].nbr;
			if (g->rank[v] == INF) {
				g->rank[v] = g->rank[u] + 1;
				queue[tail++] = v;
			}
		}
	}
	for (size_t s = 0; s < g->ns; s++)
		by_order[s] = (uint32_t)s;
	qsort_r(by_order, g->ns, sizeof(*by_order), cmp_rank_guid, g);
	for (size_t i = 0; i < g->ns; i++)
		g->order[by_order[i]] = (uint32_t)i;
	free(by_order);
	return 0;
}

/* The most central switch: smallest eccentricity, lowest GUID on ties. */
static size_t
central_switch(const struct graph *g, uint16_t *dist, uint32_t *queue)
{
	uint16_t best = INF;
	size_t pick = 0;

	for (size_t s = 0; s < g->ns; s++) {
		uint16_t ecc = 0;
		graph_bfs(g, (uint32_t)s, dist, queue);
		for (size_t t = 0; t < g->ns; t++)
			if (dist[t] != INF && dist[t] > ecc)
				ecc = dist[t];
		if (ecc < best) {
			best = ecc;
			pick = s;
		}
	}
	return pick;
}

/*
 * Detected roots: the switches farthest from any CA (the spines of a fat
 * tree, the cores of a three-level one).  When every switch is equally near
 * a CA (an irregular fabric with hosts everywhere) that says nothing, and
 * the single most central switch is taken instead.
 */
static void
updn_detect_roots(const struct graph *g, bool *is_root, uint16_t *dist, uint32_t *queue)
{
	size_t head = 0, tail = 0, nroots = 0;
	uint16_t far = 0;

	for (size_t s = 0; s < g->ns; s++) {
		dist[s] = graph_has_ca(g, s) ? 0 : INF;
		if (dist[s] == 0)
			queue[tail++] = (uint32_t)s;
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		for (size_t k = g->adj_at[u]; k < g->adj_at[u + 1]; k++) {
			uint32_t v = g->adj[k].nbr;
			if (dist[v] == INF) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
	for (size_t s = 0; s < g->ns; s++)
		if (dist[s] != INF && dist[s] > far)
			far = dist[s];
	for (size_t s = 0; s < g->ns; s++) {
		is_root[s] = far > 0 && dist[s] == far;
		nroots += is_root[s];
	}
	if (nroots == 0)
		is_root[central_switch(g, dist, queue)] = true;
}

/*
 * Candidates at each switch toward d under up/down.  dn[s] = hops from s
 * to d going only down (toward higher order); a switch that can go down
 * does, so a packet that took a down hop never meets an up hop again.
 * Otherwise eff[s] = 1 + the best eff of its up neighbours; computed in
 * increasing order, up neighbours are always done first.
 */
static void
updn_distances(const struct graph *g, uint32_t d, uint16_t *dn, uint16_t *eff,
    uint32_t *queue, const uint32_t *by_order)
{
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < g->ns; s++)
		dn[s] = INF;
	dn[d] = 0;
	queue[tail++] = d;
	while (head < tail) {
		uint32_t u = queue[head++];
		for (size_t k = g->adj_at[u]; k < g->adj_at[u + 1]; k++) {
			uint32_t v = g->adj[k].nbr;
			/* v -> u is a down hop when u is later in the order */
			if (dn[v] == INF && g->order[v] < g->order[u]) {
				dn[v] = dn[u] + 1;
				queue[tail++] = v;
			}
		}
	}
	for (size_t i = 0; i < g->ns; i++) {
		uint32_t s = by_order[i];
		eff[s] = dn[s];
		if (eff[s] != INF)
			continue;
		for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++) {
			uint32_t v = g->adj[k].nbr;
			if (g->order[v] < g->order[s] && eff[v] != INF && eff[v] + 1 < eff[s])
				eff[s] = eff[v] + 1;
		}
	}
}

/* ---- placing LIDs ---- */

struct work {
	uint16_t	*dist, *dist2, *plain;
	uint32_t	*queue;
	uint32_t	*by_order;
	size_t		*cand_at;	/* [ns + 1] */
	uint32_t	*cand;		/* adjacency indices, one list per switch */
};

/* Fill the candidate lists toward d from the distances just computed. */
static void
candidates_minhop(const struct graph *g, struct work *w)
{
	size_t k = 0;

	for (size_t s = 0; s < g->ns; s++) {
		w->cand_at[s] = k;
		if (w->dist[s] == INF || w->dist[s] == 0)
			continue;
		for (size_t a = g->adj_at[s]; a < g->adj_at[s + 1]; a++)
			if (w->dist[g->adj[a].nbr] + 1 == w->dist[s])
				w->cand[k++] = (uint32_t)a;
	}
	w->cand_at[g->ns] = k;
}

/*
 * Up/down cannot express every switch-to-switch path: in a fat tree whose
 * aggregation switches reach disjoint sets of cores, a core reaches an
 * aggregation switch of the other set only down and up again.  No CA
 * traffic ever needs such an entry (a CA's route starts by going up), so
 * those entries take the shortest path instead, for the switch's own
 * management traffic, rather than being left empty.
 */
static void
candidates_updn(const struct graph *g, struct work *w)
{
	const uint16_t *dn = w->dist, *eff = w->dist2, *plain = w->plain;
	size_t k = 0;

	for (size_t s = 0; s < g->ns; s++) {
		w->cand_at[s] = k;
		if (eff[s] == INF) {
			for (size_t a = g->adj_at[s]; plain[s] != INF && a < g->adj_at[s + 1]; a++)
				if (plain[g->adj[a].nbr] + 1 == plain[s])
					w->cand[k++] = (uint32_t)a;
			continue;
		}
		if (eff[s] == 0)
			continue;
		for (size_t a = g->adj_at[s]; a < g->adj_at[s + 1]; a++) {
			uint32_t v = g->adj[a].nbr;
			bool ok = dn[s] != INF ?
			    g->order[v] > g->order[s] && dn[v] + 1 == dn[s] :
			    g->order[v] < g->order[s] && eff[v] + 1 == eff[s];
			if (ok)
				w->cand[k++] = (uint32_t)a;
		}
	}
	w->cand_at[g->ns] = k;
}

/* Route every LID of destination switch d through the candidate lists. */
static void
place_lids(const struct graph *g, struct work *w, struct routing_table *t, uint32_t d)
{
	for (size_t i = g->dst_at[d]; i < g->dst_at[d + 1]; i++) {
		const struct dest_lid *dl = &g->dst[i];

		for (size_t s = 0; s < g->ns; s++) {
			struct routing_lft *l = &t->lfts[s];
			size_t best = SIZE_MAX;
			uint8_t port;

			if (s == d) {
				port = dl->port;
			} else {
				for (size_t c = w->cand_at[s]; c < w->cand_at[s + 1]; c++) {
					uint8_t p = g->adj[w->cand[c]].port;
					if (best == SIZE_MAX || l->routes[p] < l->routes[best])
						best = p;
				}
				if (best == SIZE_MAX) {
					t->unreachable++;
					continue;
				}
				port = (uint8_t)best;
			}
			l->port[dl->lid] = port;
			l->routes[port]++;
		}
	}
}

/* Run one engine over every destination switch.  For updn, returns how
 * many pairs up/down could not serve although a physical path exists. */
static size_t
route_all(const struct graph *g, struct work *w, struct routing_table *t)
{
	size_t lost = 0;

	routing_reset_tables(t);
	for (uint32_t d = 0; d < g->ns; d++) {
		if (g->dst_at[d] == g->dst_at[d + 1])
			continue;
		if (t->engine == ROUTING_UPDN) {
			updn_distances(g, d, w->dist, w->dist2, w->queue, w->by_order);
			graph_bfs(g, d, w->plain, w->queue);
			candidates_updn(g, w);
			for (size_t s = 0; s < g->ns; s++)
				if (w->dist2[s] == INF && graph_has_ca(g, s))
					lost++;
		} else {
			graph_bfs(g, d, w->dist, w->queue);
			candidates_minhop(g, w);
		}
		place_lids(g, w, t, d);
	}
	return lost;
}

static int
apply_roots(struct graph *g, struct work *w, struct routing_table *t, const bool *is_root)
{
	if (updn_rank(g, is_root, w->queue) < 0)
		return -1;
	for (size_t s = 0; s < g->ns; s++) {
		w->by_order[g->order[s]] = (uint32_t)s;
		t->lfts[s].rank = g->rank[s];
		t->lfts[s].root = is_root[s];
	}
	return 0;
}

static int
route_updn(struct graph *g, struct work *w, struct routing_table *t,
    const struct routing_params *p)
{
	bool *is_root = calloc(g->ns, sizeof(*is_root));
	int rc = -1;

	g->rank = calloc(g->ns, sizeof(*g->rank));
	g->order = calloc(g->ns, sizeof(*g->order));
	if (is_root == NULL || g->rank == NULL || g->order == NULL)
		goto out;
	if (p->nroots == 0) {
		updn_detect_roots(g, is_root, w->dist, w->queue);
	} else {
		for (size_t s = 0; s < g->ns; s++)
			for (size_t r = 0; r < p->nroots; r++)
				if (g->sw[s]->guid == p->root_guids[r])
					is_root[s] = true;
	}
	if (apply_roots(g, w, t, is_root) < 0)
		goto out;
	/* Roots joined only through other switches (or configured roots that
	 * do not reach everything) can leave pairs without a legal path.  One
	 * central root cannot: every switch climbs to it and descends from it. */
	if (route_all(g, w, t) > 0) {
		memset(is_root, 0, g->ns * sizeof(*is_root));
		is_root[central_switch(g, w->dist, w->queue)] = true;
		if (apply_roots(g, w, t, is_root) < 0)
			goto out;
		route_all(g, w, t);
		t->updn_fallback = true;
	}
	rc = 0;
out:
	free(is_root);
	return rc;
}

static int
alloc_tables(struct routing_table *t, const struct graph *g, uint16_t top)
{
	t->nswitches = g->ns;
	t->top = top;
	t->lfts = calloc(g->ns, sizeof(*t->lfts));
	if (t->lfts == NULL)
		return -1;
	for (size_t s = 0; s < g->ns; s++) {
		struct routing_lft *l = &t->lfts[s];
		l->sw = g->sw[s];
		l->top = top;
		l->nblocks = (uint16_t)(top / ROUTING_BLOCK_SIZE + 1);
		l->port = malloc((size_t)l->nblocks * ROUTING_BLOCK_SIZE);
		l->routes = calloc((size_t)l->sw->nports + 1, sizeof(*l->routes));
		if (l->port == NULL || l->routes == NULL)
			return -1;
	}
	return 0;
}

struct routing_table *
routing_compute(struct fabric_node *const *nodes, size_t n,
    const struct routing_params *params, char *err, size_t errlen)
{
	static const struct routing_params dflt = { .engine = ROUTING_MINHOP };
	const struct routing_params *p = params ? params : &dflt;
	uint64_t start = (uint64_t)clock_mono_us();
	struct routing_table *t = calloc(1, sizeof(*t));
	struct graph g;
	struct work w = { 0 };
	uint16_t top = 0;
	int rc = -1;

	if (errlen)
		err[0] = '\0';
	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->engine = p->engine;
	if (graph_build(&g, nodes, n, &top, err, errlen) < 0)
		goto out;
	t->nlids = g.dst_at[g.ns];
	w.dist = calloc(g.ns, sizeof(*w.dist));
	w.dist2 = calloc(g.ns, sizeof(*w.dist2));
	w.plain = calloc(g.ns, sizeof(*w.plain));
	w.queue = calloc(g.ns, sizeof(*w.queue));
	w.by_order = calloc(g.ns, sizeof(*w.by_order));
	w.cand_at = calloc(g.ns + 1, sizeof(*w.cand_at));
	w.cand = calloc(g.adj_at[g.ns] ? g.adj_at[g.ns] : 1, sizeof(*w.cand));
	if (!w.dist || !w.dist2 || !w.plain || !w.queue || !w.by_order || !w.cand_at || !w.cand ||
	    alloc_tables(t, &g, top) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (p->engine == ROUTING_FTREE || p->engine == ROUTING_AUTO) {
		int fr = ftree_route(&g, t, t->reason, sizeof(t->reason));
		if (fr < 0) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		/* not a fat tree: up/down is loop-free on anything */
		t->engine = fr ? ROUTING_FTREE : ROUTING_UPDN;
	} else {
		snprintf(t->reason, sizeof(t->reason), "configured");
	}
	if (t->engine == ROUTING_UPDN) {
		if (route_updn(&g, &w, t, p) < 0) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	} else if (t->engine == ROUTING_MINHOP) {
		route_all(&g, &w, t);
	}
	if (routing_repair(&g, t, p) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(w.dist);
	free(w.dist2);
	free(w.plain);
	free(w.queue);
	free(w.by_order);
	free(w.cand_at);
	free(w.cand);
	graph_free(&g);
	if (rc < 0) {
		routing_table_free(t);
		return NULL;
	}
	t->usec = (uint64_t)clock_mono_us() - start;
	return t;
}
