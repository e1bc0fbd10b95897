/*
 * The switch graph's walks that every routing engine shares (routing.c's
 * minhop and updn, routing_ftree*.c's fat tree): breadth-first distances,
 * whether a switch has CAs, and emptying the tables before a run.  Kept
 * apart from routing.c so that the engines and their dispatcher do not
 * call each other (routing_internal.h).
 */
#include <string.h>

#include "fabric/routing_internal.h"

bool
graph_has_ca(const struct graph *g, size_t s)
{
	return g->dst_at[s + 1] - g->dst_at[s] > (g->sw[s]->lid ? 1u : 0u);
}

void
graph_bfs(const struct graph *g, uint32_t d, uint16_t *dist, uint32_t *queue)
{
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < g->ns; s++)
		dist[s] = INF;
	dist[d] = 0;
	queue[tail++] = d;
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
}

void
routing_reset_tables(struct routing_table *t)
{
	for (size_t s = 0; s < t->nswitches; s++) {
		struct routing_lft *l = &t->lfts[s];
		memset(l->port, ROUTING_NO_PORT, (size_t)l->nblocks * ROUTING_BLOCK_SIZE);
		memset(l->routes, 0, ((size_t)l->sw->nports + 1) * sizeof(*l->routes));
	}
	t->unreachable = 0;
}
