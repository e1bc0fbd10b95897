/*
 * The balance of what moves (see routing_repair.c): the CA pairs each
 * link carries, and the sources that had to move placed one at a time
 * where the busiest link of their way is least busy, so that a moved
 * destination's flow is shared over several ways down rather than
 * following where its old way converged.
 */
#include <string.h>

#include "fabric/routing_repair.h"

/*
 * The CA sources whose way to the LID of destination switch d passes each
 * switch that has a way (st ALIVE, entries e[]): a switch's own CAs, plus
 * what the switches that send to it bring, summed from the farthest in.
 * Unless charge is NULL, each way's flow is added to its link's there.
 */
void
column_flows(struct repair *r, uint32_t d, uint64_t *charge)
{
	size_t ns = r->g->ns, n = 0, top = 0;

	for (size_t s = 0; s < ns; s++) {
		r->flow[s] = 0;
		if (r->st[s] == W_ALIVE && r->len[s] > top)
			top = r->len[s] < ns ? r->len[s] : ns;
	}
	memset(r->cnt, 0, (top + 2) * sizeof(*r->cnt));
	for (size_t s = 0; s < ns; s++) {
		if (r->st[s] != W_ALIVE)
			continue;
		r->flow[s] = r->ncas[s] - (s == d);
		r->cnt[r->len[s] < ns ? r->len[s] : ns]++;
	}
	/* counting sort, farthest first */
	for (size_t l = top + 1; l-- > 0;) {
		size_t c = r->cnt[l];

		r->cnt[l] = n;
		n += c;
	}
	for (size_t s = 0; s < ns; s++)
		if (r->st[s] == W_ALIVE)
			r->order[r->cnt[r->len[s] < ns ? r->len[s] : ns]++] = (uint32_t)s;
	for (size_t i = 0; i < n; i++) {
		uint32_t s = r->order[i], k;

		if (s == d || (k = link_of(r, s, r->e[s])) == NO_NBR)
			continue;
		r->flow[r->g->adj[k].nbr] += r->flow[s];
		if (charge)
			charge[k] += r->flow[s];
	}
}

/* The busiest link on x's way to d, by the entries so far. */
static uint64_t
way_max(const struct repair *r, uint32_t x, uint32_t d, uint16_t lid)
{
	uint64_t m = 0;

	for (size_t hops = 0; x != d && hops < r->g->ns; hops++) {
		uint32_t k = link_of(r, x, r->out[x][lid]);

		if (k == NO_NBR)
			break;
		m = r->w[k] > m ? r->w[k] : m;
		x = r->g->adj[k].nbr;
	}
	return m;
}

/* Whether x may take link k instead of its way: a way as short and of the
 * same kind (down only, up then down, any), so no loop and no credit loop
 * can form. */
static bool
alternative(const struct repair *r, uint32_t x, size_t k)
{
	int kind = !r->updn ? 3 : (r->fl[x] & FL_DOWN) ? 1 : (r->fl[x] & FL_LEGAL) ? 2 : 3;
	uint32_t v = r->g->adj[k].nbr;

	return phase_allows(r, kind, x, v) && r->len[v] + 1 == r->len[x];
}

/* The least busy "busiest link" x can reach d by: its way when it carries
 * flow (fixed), else the best of its alternatives, remembered for the
 * source being placed (r->stamp). */
static uint64_t
best_cost(struct repair *r, uint32_t x, uint32_t d, uint16_t lid)
{
	const struct graph *g = r->g;
	uint64_t m = UINT64_MAX;

	if (x == d)
		return 0;
	if (r->fixed[x])
		return way_max(r, x, d, lid);
	if (r->memo_at[x] == r->stamp)
		return r->memo[x];
	for (size_t k = g->adj_at[x]; k < g->adj_at[x + 1]; k++) {
		uint64_t c;

		if (!alternative(r, x, k))
			continue;
		c = best_cost(r, g->adj[k].nbr, d, lid);
		c = r->w[k] > c ? r->w[k] : c;
		m = c < m ? c : m;
	}
	if (m == UINT64_MAX)
		m = way_max(r, x, d, lid);
	r->memo[x] = m;
	r->memo_at[x] = r->stamp;
	return m;
}

/*
 * x carries no flow yet (a switch whose way crossed the failure, or one no
 * source used): give it the alternative whose way's busiest link is least
 * busy, each neighbour judged by the best it can do itself; among equals
 * the way it has, then the port with the fewest LIDs.  The way it has
 * stays while its busiest link stays under r->slack: every entry changed
 * is a block to write, and balance within a tenth of the least the
 * fabric allows is as good as a repair needs (a rebalance does the rest).
 */
static void
choose_for_flow(struct repair *r, uint32_t x, uint64_t f, uint32_t d, uint16_t lid)
{
	const struct graph *g = r->g;
	uint32_t *routes = r->t->lfts[x].routes;
	uint8_t now = r->out[x][lid], bp = ROUTING_NO_PORT;
	uint64_t bc = 0, now_cost = 0;
	bool now_ok = false;

	for (size_t k = g->adj_at[x]; k < g->adj_at[x + 1]; k++) {
		uint8_t p = g->adj[k].port;
		uint64_t c;

		if (!alternative(r, x, k))
			continue;
		c = best_cost(r, g->adj[k].nbr, d, lid);
		c = r->w[k] > c ? r->w[k] : c;
		if (p == now) {
			now_ok = true;
			now_cost = c + f;
		}
		if (bp == ROUTING_NO_PORT || c < bc || (c == bc && bp != now &&
		    (p == now || routes[p] < routes[bp] || (routes[p] == routes[bp] && p < bp)))) {
			bp = p;
			bc = c;
		}
	}
	if (bp == ROUTING_NO_PORT || bp == now)
		return;
	if (now_ok && now_cost <= r->slack)
		return;		/* good enough: no block to write for it */
	if (now != ROUTING_NO_PORT)
		routes[now]--;
	routes[bp]++;
	r->out[x][lid] = bp;
	r->t->repair.rerouted++;
}

/*
 * The sources that must move, farthest first, each as a whole: its way is
 * chosen switch by switch down to the first switch that already carries
 * flow (whose way stays), then its CAs load every link of it.  So the
 * next source sees them and goes elsewhere, and a moved destination's
 * flow is shared by several ways down (as ftree's split destinations),
 * instead of following where its old way converged.
 */
void
place_moved_flow(struct repair *r, uint32_t d, uint16_t lid)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nbroken; i++) {
		uint32_t s = r->broken[i];

		if (r->st[s] == W_ALIVE && r->ncas[s] && s != d)
			r->order[n++] = s;
	}
	for (size_t i = 1; i < n; i++)		/* farthest first */
		for (size_t j = i; j > 0 && r->len[r->order[j]] > r->len[r->order[j - 1]]; j--) {
			uint32_t t = r->order[j];

			r->order[j] = r->order[j - 1];
			r->order[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = r->order[i], x = s, k;
		uint64_t f = r->ncas[s];

		r->stamp++;	/* the loads changed: costs anew */
		for (size_t hops = 0; x != d && !r->fixed[x] && hops < r->g->ns; hops++) {
			choose_for_flow(r, x, f, d, lid);
			r->fixed[x] = 1;
			if ((k = link_of(r, x, r->out[x][lid])) == NO_NBR)
				break;
			x = r->g->adj[k].nbr;
		}
		for (size_t hops = 0; s != d && hops < r->g->ns; hops++) {
			if ((k = link_of(r, s, r->out[s][lid])) == NO_NBR)
				break;
			r->w[k] += f;
			s = r->g->adj[k].nbr;
		}
	}
}

