/* Node names and tree levels for the exports (see topology_tree.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fabric/topology_tree.h"

const char *
topology_node_name(const struct fabric_node *n, char *buf, size_t len)
{
	const char *d = n->desc;
	size_t w;

	while (*d == ' ' || *d == '\t' || *d == '\r' || *d == '\n')
		d++;
	w = n->type == FABRIC_CA ? strcspn(d, " \t\r\n") : strlen(d);
	while (w > 0 && (d[w - 1] == ' ' || d[w - 1] == '\t'))
		w--;
	if (w == 0)
		snprintf(buf, len, "0x%016llx", (unsigned long long)n->guid);
	else
		snprintf(buf, len, "%.*s", (int)w, d);
	return buf;
}

/* The model keeps nodes sorted by GUID (fabric_sort): a binary search. */
size_t
topology_node_index(const struct fabric *f, const struct fabric_node *n)
{
	size_t lo = 0, hi = fabric_node_count(f);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fabric_node *m = fabric_node_at(f, mid);
		if (m == n)
			return mid;
		if (m->guid < n->guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = 0; i < fabric_node_count(f); i++)	/* not sorted yet */
		if (fabric_node_at(f, i) == n)
			return i;
	return SIZE_MAX;
}

static bool
has_host(const struct fabric_node *n)
{
	for (unsigned j = 1; j <= n->nports; j++)
		if (n->ports[j].peer && n->ports[j].peer->node->type == FABRIC_CA)
			return true;
	return false;
}

/* Breadth first from every leaf at once, over switch-to-switch cables. */
int *
topology_levels(const struct fabric *f, int *max_level)
{
	size_t count = fabric_node_count(f), head = 0, tail = 0, i;
	int *level = xcalloc(count ? count : 1, sizeof(*level));
	size_t *queue = xcalloc(count ? count : 1, sizeof(*queue));
	struct fabric_node *n;

	*max_level = -1;
	FABRIC_FOREACH_NODE(f, i, n) {
		level[i] = n->type == FABRIC_SWITCH && has_host(n) ? 0 : -1;
		if (level[i] == 0)
			queue[tail++] = i;
	}
	while (head < tail) {
		size_t at = queue[head++];
		const struct fabric_node *s = fabric_node_at(f, at);

		if (level[at] > *max_level)
			*max_level = level[at];
		for (unsigned j = 1; j <= s->nports; j++) {
			const struct fabric_port *q = s->ports[j].peer;
			size_t k;
			if (q == NULL || q->node->type != FABRIC_SWITCH)
				continue;
			k = topology_node_index(f, q->node);
			if (k != SIZE_MAX && level[k] < 0) {
				level[k] = level[at] + 1;
				queue[tail++] = k;
			}
		}
	}
	free(queue);
	return level;
}
