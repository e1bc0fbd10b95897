/*
 * Levels of a fat tree (see fabric/routing_ftree.c).
 *
 * Levels come from the CAs: the leaves (level 0) are the switches with CAs,
 * every other switch is as many hops above them as a breadth-first search
 * says.  A switch with no CA that is cabled only to switches one level
 * down and looks like a sibling of a real leaf (its neighbours are a good
 * part of one leaf's) is a leaf without hosts, not a top switch.  The
 * fabric is a fat tree when every inter-switch link joins two adjacent
 * levels; anything else (two leaves cabled together, a link within a
 * level) is refused with the link named, and auto routes it with updn.
 */
#include <stdio.h>
#include <string.h>

#include "fabric/routing_ftree.h"

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
bool
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
void
ftree_sort_levels(struct ftree *f)
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
void
ftree_link_reverse(struct ftree *f)
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

/* Port -> adjacency index of every switch, to follow a table's entries. */
int
ftree_port_index(struct ftree *f)
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
