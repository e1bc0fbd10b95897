/* Switches in name order and their cables up in groups (topology_bundle.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fabric/topology_bundle.h"

bool
topology_port_degraded(const struct fabric_port *p)
{
	return p->degraded || (p->peer && p->peer->degraded);
}

/* Spines first, as dot ranks them; within a level the names as a person
 * counts (strverscmp: digits compared as numbers), then GUIDs. */
static int
by_level_name(const void *a, const void *b)
{
	const struct tb_switch *x = a, *y = b;
	int c;

	if (x->level != y->level)
		return x->level > y->level ? -1 : 1;
	c = strverscmp(x->name, y->name);
	if (c)
		return c;
	return x->node->guid < y->node->guid ? -1 : x->node->guid > y->node->guid;
}

static int
by_up(const void *a, const void *b)
{
	const struct tb_up *x = a, *y = b;

	return x->up < y->up ? -1 : x->up > y->up;
}

size_t
topology_bundles_index(const struct topology_bundles *b, const struct fabric *f,
    const struct fabric_node *n)
{
	size_t i = topology_node_index(f, n);

	return i == SIZE_MAX ? SIZE_MAX : b->at[i];
}

/* Every cable of s to a switch one level up, gathered per upper switch. */
static void
collect_ups(struct topology_bundles *b, const struct fabric *f, struct tb_switch *s)
{
	const struct fabric_node *n = s->node;

	s->ups = xcalloc(n->nports + 1u, sizeof(*s->ups));
	for (unsigned j = 1; j <= n->nports; j++) {
		const struct fabric_port *q = n->ports[j].peer;
		size_t u, k;

		if (q == NULL || q->node->type != FABRIC_SWITCH)
			continue;
		u = topology_bundles_index(b, f, q->node);
		if (u == SIZE_MAX || b->sw[u].level != s->level + 1)
			continue;
		for (k = 0; k < s->nups && s->ups[k].up != u; k++)
			;
		if (k == s->nups)
			s->ups[s->nups++] = (struct tb_up){ .up = u, .first = &n->ports[j] };
		s->ups[k].cables++;
		s->ups[k].degraded += topology_port_degraded(&n->ports[j]);
	}
	qsort(s->ups, s->nups, sizeof(*s->ups), by_up);
}

static bool
cabled_alike(const struct tb_switch *x, const struct tb_switch *y)
{
	if (x->level != y->level || x->nups != y->nups)
		return false;
	for (size_t k = 0; k < x->nups; k++)
		if (x->ups[k].up != y->ups[k].up || x->ups[k].cables != y->ups[k].cables)
			return false;
	return true;
}

/* Each switch not yet in a group opens one; the later switches of its
 * level cabled alike join it.  Quadratic in one level's switches (288
 * leaves at 5,184 hosts: a few hundred thousand comparisons). */
static void
form_groups(struct topology_bundles *b)
{
	b->groups = xcalloc(b->nsw + 1, sizeof(*b->groups));
	for (size_t i = 0; i < b->nsw; i++) {
		struct tb_switch *s = &b->sw[i];

		if (s->nups == 0 || s->group != SIZE_MAX)
			continue;
		s->group = b->ngroups++;
		for (size_t k = i + 1; k < b->nsw && b->sw[k].level == s->level; k++)
			if (b->sw[k].group == SIZE_MAX && cabled_alike(s, &b->sw[k]))
				b->sw[k].group = s->group;
	}
	for (size_t i = 0; i < b->nsw; i++) {
		struct tb_switch *s = &b->sw[i];
		for (size_t k = 0; s->group != SIZE_MAX && k < s->nups; k++)
			if (b->sw[s->ups[k].up].block == SIZE_MAX ||
			    b->sw[s->ups[k].up].block > s->group)
				b->sw[s->ups[k].up].block = s->group;
	}
	for (size_t i = 0; i < b->nsw; i++) {
		struct tb_group *g;

		if (b->sw[i].group == SIZE_MAX)
			continue;
		g = &b->groups[b->sw[i].group];
		g->members++;
		for (size_t k = 0; k < b->sw[i].nups; k++) {
			g->cables += b->sw[i].ups[k].cables;
			g->degraded += b->sw[i].ups[k].degraded;
		}
	}
}

struct topology_bundles *
topology_bundles_new(const struct fabric *f)
{
	struct topology_bundles *b = xcalloc(1, sizeof(*b));
	size_t i, nodes = fabric_node_count(f);
	struct fabric_node *n;

	b->level = topology_levels(f, &b->max_level);
	b->sw = xcalloc(nodes + 1, sizeof(*b->sw));
	b->at = xcalloc(nodes + 1, sizeof(*b->at));
	FABRIC_FOREACH_NODE(f, i, n) {
		b->at[i] = SIZE_MAX;
		if (n->type != FABRIC_SWITCH)
			continue;
		b->sw[b->nsw] = (struct tb_switch){ .node = n, .level = b->level[i],
		    .group = SIZE_MAX, .block = SIZE_MAX };
		topology_node_name(n, b->sw[b->nsw].name, sizeof(b->sw[0].name));
		b->nsw++;
	}
	qsort(b->sw, b->nsw, sizeof(*b->sw), by_level_name);
	for (i = 0; i < b->nsw; i++)
		b->at[topology_node_index(f, b->sw[i].node)] = i;
	for (i = 0; i < b->nsw; i++)
		if (b->sw[i].level >= 0)
			collect_ups(b, f, &b->sw[i]);
	form_groups(b);
	return b;
}

void
topology_bundles_free(struct topology_bundles *b)
{
	if (b == NULL)
		return;
	for (size_t i = 0; i < b->nsw; i++)
		free(b->sw[i].ups);
	free(b->sw);
	free(b->at);
	free(b->level);
	free(b->groups);
	free(b);
}

bool
topology_bundles_vertical(const struct topology_bundles *b, size_t x, size_t y)
{
	int lx, ly;

	if (x == SIZE_MAX || y == SIZE_MAX)
		return false;
	lx = b->sw[x].level;
	ly = b->sw[y].level;
	return lx >= 0 && ly >= 0 && (lx == ly + 1 || ly == lx + 1);
}
