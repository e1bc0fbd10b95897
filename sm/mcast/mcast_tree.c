/*
 * One group's multicast forwarding tree (sm/mcast/mcast.h).
 *
 * A breadth-first tree over the switches from the first member's switch,
 * through ACTIVE switch-to-switch links only, gives every switch one
 * parent; the group's tree is the union of the paths from each member's
 * switch up to that root.  Being part of one BFS tree it cannot hold a
 * loop, whatever the fabric's cabling (a switch reached twice keeps its
 * first parent), and it is no larger than the paths it needs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/xmalloc.h"
#include "fabric/fabric.h"
#include "sm/mcast/mcast.h"

struct walk {
	const struct fabric	*f;
	struct guid_map		 index;		/* node GUID -> index + 1 */
	long			*parent;	/* node index, -1: none */
	uint8_t			*up_port;	/* port towards the parent */
	bool			*member_sw;
	long			*queue;
};

static void
set_port(struct mc_tree *t, size_t node, unsigned port)
{
	t->ports[node][port / 64] |= 1ULL << (port % 64);
}

static long
index_of(const struct walk *w, const struct fabric_node *n)
{
	return (long)(uintptr_t)guid_map_get(&w->index, n->guid) - 1;
}

/* A link packets may cross: both ends up and ACTIVE. */
static bool
active_link(const struct fabric_port *p)
{
	return p->peer && p->linkup && p->peer->linkup && p->state == 4 /* ACTIVE */ &&
	    p->peer->state == 4;
}

/* The switch a member hangs off and the port there that faces it (0 for
 * a switch's own port 0); false when it cannot be reached. */
static bool
member_attach(const struct fabric *f, uint64_t guid, const struct fabric_node **sw,
    unsigned *port)
{
	const struct fabric_port *p = fabric_port_by_guid(f, guid);

	if (p == NULL)
		return false;
	if (p->node->type == FABRIC_SWITCH) {
		*sw = p->node;
		*port = 0;
		return true;
	}
	if (!active_link(p) || p->peer->node->type != FABRIC_SWITCH)
		return false;
	*sw = p->peer->node;
	*port = p->peer->num;
	return true;
}

static void
bfs(struct walk *w, long root)
{
	size_t head = 0, tail = 0;

	w->parent[root] = root;
	w->queue[tail++] = root;
	while (head < tail) {
		const struct fabric_node *n = fabric_node_at(w->f, (size_t)w->queue[head++]);

		for (unsigned j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j];
			long k;

			if (!active_link(p) || p->peer->node->type != FABRIC_SWITCH)
				continue;
			k = index_of(w, p->peer->node);
			if (k < 0 || w->parent[k] != -1)
				continue;
			w->parent[k] = index_of(w, n);
			w->up_port[k] = p->peer->num;
			w->queue[tail++] = k;
		}
	}
}

/* Mark the path from switch s up to the tree (or the root). */
static void
graft(struct mc_tree *t, const struct walk *w, long s)
{
	while (!t->in_tree[s]) {
		long par = w->parent[s];
		const struct fabric_port *up;

		t->in_tree[s] = true;
		t->nswitches++;
		if (par == s)
			return;		/* the root */
		up = &fabric_node_at(w->f, (size_t)s)->ports[w->up_port[s]];
		set_port(t, (size_t)s, up->num);
		set_port(t, (size_t)par, up->peer->num);
		s = par;
	}
}

static void
walk_free(struct walk *w)
{
	guid_map_free(&w->index);
	free(w->parent);
	free(w->up_port);
	free(w->member_sw);
	free(w->queue);
}

bool
mc_tree_compute(const struct fabric *f, const struct mc_group *g, struct mc_tree *t)
{
	struct walk w = { .f = f };
	struct fabric_node *n;
	size_t i, nn = fabric_node_count(f);
	long root = -1;

	memset(t, 0, sizeof(*t));
	t->nnodes = nn;
	t->ports = xcalloc(nn ? nn : 1, sizeof(*t->ports));
	t->in_tree = xcalloc(nn ? nn : 1, sizeof(*t->in_tree));
	w.parent = xcalloc(nn ? nn : 1, sizeof(*w.parent));
	w.up_port = xcalloc(nn ? nn : 1, 1);
	w.member_sw = xcalloc(nn ? nn : 1, sizeof(*w.member_sw));
	w.queue = xcalloc(nn ? nn : 1, sizeof(*w.queue));
	FABRIC_FOREACH_NODE(f, i, n) {
		w.parent[i] = -1;
		guid_map_put(&w.index, n->guid, (void *)(uintptr_t)(i + 1));
	}
	for (i = 0; i < g->nmembers; i++) {
		const struct fabric_node *sw;
		unsigned port;
		long k;

		if (!member_attach(f, g->members[i].port_guid, &sw, &port) ||
		    (k = index_of(&w, sw)) < 0)
			continue;
		w.member_sw[k] = true;
		if (g->members[i].join_state & MC_JOIN_RECEIVES) {
			set_port(t, (size_t)k, port);
			t->nmembers_reached++;
		}
		if (root < 0)
			root = k;
	}
	if (root >= 0) {
		bfs(&w, root);
		for (i = 0; i < nn; i++)
			if (w.member_sw[i] && w.parent[i] != -1)
				graft(t, &w, (long)i);
	}
	walk_free(&w);
	return t->nswitches > 0;
}

void
mc_tree_free(struct mc_tree *t)
{
	free(t->ports);
	free(t->in_tree);
	memset(t, 0, sizeof(*t));
}
