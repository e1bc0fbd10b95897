/*
 * The fabric as Graphviz dot, drawn as a tree an operator can read at any
 * size: switches ranked by level (topology_levels: spines on top, leaves
 * at the bottom), the hosts of each leaf collapsed into one box named by
 * their hostlist, and the parallel cables between two switches drawn as
 * one edge that says how many ("9 x 4xQDR").  Faults are in colour: an
 * edge with a degraded cable is red and says how many of its cables are,
 * and so is the box of a switch that holds one.  A 1,296-host fat tree is
 * then 252 boxes in a 7,375 x 481 pt SVG instead of a 32,767-pixel strip.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "fabric/topology_formats.h"
#include "fabric/topology_tree.h"

struct bundle {
	size_t			 cables, degraded;
	const struct fabric_port *first;
};

static void
edge(FILE *out, const char *tail, const char *head, const struct bundle *b)
{
	/* xlabel: placed after the layout, so that thousands of labelled
	 * edges do not widen the ranks (a 1,296-host tree: 7,375 pt wide
	 * instead of 88,149) */
	fprintf(out, "\t\"%s\" -- \"%s\" [xlabel=\"%zu x %s%s", tail, head, b->cables,
	    fabric_width_name(b->first->width_active), fabric_speed_name(b->first));
	if (b->degraded)
		fprintf(out, ", %zu degraded\", color=red, fontcolor=red, penwidth=2];\n",
		    b->degraded);
	else
		fprintf(out, "\"];\n");
}

static bool
port_degraded(const struct fabric_port *p)
{
	return p->degraded || (p->peer && p->peer->degraded);
}

static bool
node_degraded(const struct fabric_node *n)
{
	for (unsigned j = 1; j <= n->nports; j++)
		if (n->ports[j].peer && port_degraded(&n->ports[j]))
			return true;
	return false;
}

static void
dot_node(FILE *out, const struct fabric_node *n, int level)
{
	char desc[FABRIC_NODE_DESC_LEN + 1];
	bool bad = node_degraded(n);

	topology_clean_desc(n->desc, desc, sizeof(desc));
	if (n->type == FABRIC_SWITCH)
		fprintf(out, "\t\"%016llx\" [label=\"%s\\nlid %u%s\", shape=box, style=filled, "
		    "fillcolor=\"%s\"%s];\n", (unsigned long long)n->guid, desc, n->lid,
		    level > 0 ? "" : level == 0 ? "\\nleaf" : "\\nno hosts below",
		    level > 0 ? "lightsteelblue" : "lightgrey", bad ? ", color=red, penwidth=2" : "");
	else
		fprintf(out, "\t\"%016llx\" [label=\"%s\\n%s lid %u\", shape=ellipse%s];\n",
		    (unsigned long long)n->guid, desc, fabric_node_type_name(n->type), n->lid,
		    bad ? ", color=red" : "");
}

/* The hosts of leaf s: one box, one edge for all their cables. */
static void
host_group(FILE *out, const struct fabric_node *s)
{
	char (*names)[TOPOLOGY_NAME_LEN] = xcalloc(s->nports + 1u, sizeof(*names));
	const char **v = xcalloc(s->nports + 1u, sizeof(*v));
	struct bundle b = { 0 };
	char tail[20], head[32], *list, label[256];

	for (unsigned j = 1; j <= s->nports; j++) {
		const struct fabric_port *q = s->ports[j].peer;
		if (q == NULL || q->node->type != FABRIC_CA)
			continue;
		v[b.cables] = topology_node_name(q->node, names[b.cables], sizeof(names[0]));
		b.first = b.first ? b.first : &s->ports[j];
		b.degraded += port_degraded(&s->ports[j]);
		b.cables++;
	}
	list = hostlist_compress(v, b.cables);
	snprintf(tail, sizeof(tail), "%016llx", (unsigned long long)s->guid);
	snprintf(head, sizeof(head), "hosts-%016llx", (unsigned long long)s->guid);
	fprintf(out, "\t\"%s\" [label=\"%s\\n%zu host port%s\", shape=folder%s];\n", head,
	    topology_clean_desc(list ? list : "?", label, sizeof(label)), b.cables, b.cables == 1 ? "" : "s", b.degraded ? ", color=red" : "");
	edge(out, tail, head, &b);
	free(list);
	free(v);
	free(names);
}

/* One edge per pair of nodes from n: its cables to each peer bundled.
 * The hosts of a leaf are drawn by host_group, not here. */
static void
bundles_from(FILE *out, const struct fabric *f, const int *level, const struct fabric_node *n,
    struct topology_counts *c)
{
	int mine = level[topology_node_index(f, n)];
	bool only_switches = n->type == FABRIC_SWITCH && mine == 0;

	for (unsigned j = 1; j <= n->nports; j++) {
		const struct fabric_port *p = &n->ports[j];
		struct bundle b = { 0 };
		char tail[20], head[20];
		bool seen = false;

		if (!topology_link_first_end(p) || (only_switches && p->peer->node->type != FABRIC_SWITCH))
			continue;
		for (unsigned k = 1; k < j && !seen; k++)
			seen = topology_link_first_end(&n->ports[k]) &&
			    n->ports[k].peer->node == p->peer->node;
		if (seen)
			continue;
		b.first = p;
		for (unsigned k = j; k <= n->nports; k++) {
			if (!topology_link_first_end(&n->ports[k]) || n->ports[k].peer->node != p->peer->node)
				continue;
			b.cables++;
			b.degraded += port_degraded(&n->ports[k]);
		}
		snprintf(tail, sizeof(tail), "%016llx", (unsigned long long)n->guid);
		snprintf(head, sizeof(head), "%016llx", (unsigned long long)p->peer->node->guid);
		/* tail on the higher level, so that dot ranks spines on top */
		if (level[topology_node_index(f, p->peer->node)] > mine)
			edge(out, head, tail, &b);
		else
			edge(out, tail, head, &b);
		c->links += b.cables;
		c->degraded += b.degraded;
	}
}

static void
count_host_cables(const struct fabric_node *s, struct topology_counts *c)
{
	for (unsigned j = 1; j <= s->nports; j++)
		if (s->ports[j].peer && s->ports[j].peer->node->type == FABRIC_CA) {
			c->links++;
			c->degraded += port_degraded(&s->ports[j]);
		}
}

/* A node drawn on its own: a switch, or a host not cabled to a leaf. */
static bool
drawn_alone(const struct fabric_node *n)
{
	if (n->type == FABRIC_SWITCH)
		return true;
	for (unsigned j = 1; j <= n->nports; j++)
		if (n->ports[j].peer && n->ports[j].peer->node->type == FABRIC_SWITCH)
			return false;
	return true;
}

void
topology_dot_write(const struct fabric *f, FILE *out, struct topology_counts *c)
{
	int max_level, *level = topology_levels(f, &max_level);
	struct fabric_node *n;
	size_t i;

	fprintf(out, "graph fabric {\n\tgraph [ranksep=1.5, nodesep=0.2, splines=line];\n"
	    "\tnode [fontsize=10];\n\tedge [fontsize=8];\n");
	FABRIC_FOREACH_NODE(f, i, n) {
		c->nodes++;
		if (drawn_alone(n))
			dot_node(out, n, level[i]);
	}
	/* top level first: the edges below run from a higher level down */
	for (int l = max_level; l >= 0; l--) {
		fprintf(out, "\t{ rank=same;");
		FABRIC_FOREACH_NODE(f, i, n)
			if (level[i] == l)
				fprintf(out, " \"%016llx\";", (unsigned long long)n->guid);
		fprintf(out, " }\n");
	}
	FABRIC_FOREACH_NODE(f, i, n) {
		if (n->type == FABRIC_SWITCH && level[i] == 0) {
			host_group(out, n);
			count_host_cables(n, c);
		}
		if (drawn_alone(n))
			bundles_from(out, f, level, n, c);
	}
	fprintf(out, "}\n");
	free(level);
}
