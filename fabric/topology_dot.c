/*
 * The fabric as Graphviz dot, drawn as a tree a person can read at 1,296
 * and 5,184 hosts: switches ranked by level (topology_levels: spines on
 * top, leaves at the bottom), each rank in name order (natural order,
 * held by an invisible chain: dot keeps a flat edge's tail left of its
 * head), the hosts of each leaf one box that says how many cables, and
 * the cables from one level up to the next drawn by group
 * (topology_bundle.h): a group of switches cabled alike to the same
 * switches above is one small box in between ("324 x 4xQDR / 18 x 18
 * switches") with one line to each member and each upper switch, instead
 * of a line per pair.  A 1,296-host 3-level tree is then 324 lines, not
 * 2,664.  Every count sits in a node or a real edge label (dot lays those
 * out as nodes): nothing is placed after the layout, so no text can land
 * on other text.  Faults are in colour: a degraded cable's lines, its
 * group's box and its switches are red, and the box says how many.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "fabric/topology_bundle.h"
#include "fabric/topology_formats.h"

#define RED	", color=red, fontcolor=red, penwidth=2"

static void
cables_text(FILE *out, size_t cables, const struct fabric_port *first, size_t degraded)
{
	fprintf(out, "%zu x %s%s", cables, fabric_width_name(first->width_active),
	    fabric_speed_name(first));
	if (degraded)
		fprintf(out, ", %zu degraded", degraded);
}

/* A bundle of cables between two nodes, drawn as one labelled edge. */
static void
pair_edge(FILE *out, uint64_t tail, uint64_t head, size_t cables, const struct fabric_port *first,
    size_t degraded)
{
	fprintf(out, "\t\"%016llx\" -- \"%016llx\" [label=\"", (unsigned long long)tail,
	    (unsigned long long)head);
	cables_text(out, cables, first, degraded);
	fprintf(out, "\"%s];\n", degraded ? RED : "");
}

static bool
node_degraded(const struct fabric_node *n)
{
	for (unsigned j = 1; j <= n->nports; j++)
		if (n->ports[j].peer && topology_port_degraded(&n->ports[j]))
			return true;
	return false;
}

static void
switch_box(FILE *out, const struct tb_switch *s)
{
	char desc[FABRIC_NODE_DESC_LEN + 1];
	const struct fabric_node *n = s->node;

	topology_clean_desc(s->name, desc, sizeof(desc));
	fprintf(out, "\t\"%016llx\" [label=\"%s\\nlid %u%s\", shape=box, style=filled, "
	    "fillcolor=\"%s\"%s];\n", (unsigned long long)n->guid, desc, n->lid,
	    s->level > 0 ? "" : s->level == 0 ? "\\nleaf" : "\\nno hosts below",
	    s->level > 0 ? "lightsteelblue" : "lightgrey",
	    node_degraded(n) ? ", color=red, penwidth=2" : "");
}

static void
lone_node(FILE *out, const struct fabric_node *n)
{
	char desc[FABRIC_NODE_DESC_LEN + 1];

	topology_clean_desc(n->desc, desc, sizeof(desc));
	fprintf(out, "\t\"%016llx\" [label=\"%s\\n%s lid %u\", shape=ellipse%s];\n",
	    (unsigned long long)n->guid, desc, fabric_node_type_name(n->type), n->lid,
	    node_degraded(n) ? ", color=red" : "");
}

/* One rank per level, its switches left to right in name order. */
static void
ranks(FILE *out, const struct topology_bundles *b)
{
	for (int l = b->max_level; l >= 0; l--) {
		size_t first = SIZE_MAX, last = SIZE_MAX;

		fprintf(out, "\t{ rank=same;");
		for (size_t i = 0; i < b->nsw; i++)
			if (b->sw[i].level == l) {
				fprintf(out, " \"%016llx\";", (unsigned long long)b->sw[i].node->guid);
				first = first == SIZE_MAX ? i : first;
				last = i;
			}
		fprintf(out, " }\n");
		if (first == last)
			continue;
		fprintf(out, "\t");
		for (size_t i = first; i <= last; i++)
			if (b->sw[i].level == l)
				fprintf(out, "%s\"%016llx\"", i == first ? "" : " -- ",
				    (unsigned long long)b->sw[i].node->guid);
		fprintf(out, " [style=invis];\n");
	}
}

/* The hosts of leaf s: one box that counts their cables, one line to it. */
static void
host_group(FILE *out, const struct fabric_node *s, struct topology_counts *c)
{
	char (*names)[TOPOLOGY_NAME_LEN] = xcalloc(s->nports + 1u, sizeof(*names));
	const char **v = xcalloc(s->nports + 1u, sizeof(*v));
	const struct fabric_port *first = NULL;
	size_t cables = 0, degraded = 0;
	char *list, label[256];

	for (unsigned j = 1; j <= s->nports; j++) {
		const struct fabric_port *q = s->ports[j].peer;
		if (q == NULL || q->node->type != FABRIC_CA)
			continue;
		v[cables] = topology_node_name(q->node, names[cables], sizeof(names[0]));
		first = first ? first : &s->ports[j];
		degraded += topology_port_degraded(&s->ports[j]);
		cables++;
	}
	if (cables) {
		list = hostlist_compress(v, cables);
		fprintf(out, "\t\"hosts-%016llx\" [label=\"%s\\n", (unsigned long long)s->guid,
		    topology_clean_desc(list ? list : "?", label, sizeof(label)));
		cables_text(out, cables, first, degraded);
		fprintf(out, "\", shape=folder, fontsize=8%s];\n", degraded ? RED : "");
		fprintf(out, "\t\"%016llx\" -- \"hosts-%016llx\"%s;\n", (unsigned long long)s->guid,
		    (unsigned long long)s->guid, degraded ? " [color=red, penwidth=2]" : "");
		free(list);
	}
	c->links += cables;
	c->degraded += degraded;
	free(v);
	free(names);
}

/* The degraded cables of g's members in one block (SIZE_MAX: all). */
static size_t
members_degraded(const struct topology_bundles *b, size_t g, size_t block)
{
	size_t d = 0;

	for (size_t i = 0; i < b->nsw; i++)
		if (b->sw[i].group == g && (block == SIZE_MAX || b->sw[i].block == block))
			for (size_t k = 0; k < b->sw[i].nups; k++)
				d += b->sw[i].ups[k].degraded;
	return d;
}

/* How many blocks (pods) the members of g come from; 0 when splitting by
 * them would not shorten a line (one block, or one member per block). */
static size_t
member_blocks(const struct topology_bundles *b, size_t g)
{
	size_t blocks = 0;

	for (size_t i = 0; i < b->nsw; i++) {
		bool seen = false;
		if (b->sw[i].group != g || b->sw[i].block == SIZE_MAX)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = b->sw[k].group == g && b->sw[k].block == b->sw[i].block;
		blocks += !seen;
	}
	return blocks >= 2 && blocks < b->groups[g].members ? blocks : 0;
}

/* The members of g in one block (the aggregation switches of one pod in a
 * group spread over every pod): a box of theirs above them, so that one
 * line per pod runs the width of the picture, not one per switch. */
static void
block_box(FILE *out, const struct topology_bundles *b, size_t g, size_t block,
    const struct tb_switch *m0)
{
	size_t members = 0, degraded = members_degraded(b, g, block);

	for (size_t i = 0; i < b->nsw; i++)
		members += b->sw[i].group == g && b->sw[i].block == block;
	fprintf(out, "\t\"group-%zu-%zu\" [label=\"", g, block);
	cables_text(out, b->groups[g].cables / b->groups[g].members * members, m0->ups[0].first,
	    degraded);
	fprintf(out, "\\n%zu switches\", shape=box, style=rounded, fontsize=8, height=0.3, "
	    "margin=\"0.04,0.02\"%s];\n", members, degraded ? RED : "");
	/* grey and thin: where every pod meets every group of cores, these
	 * lines cross the whole picture and would be a black band */
	fprintf(out, "\t\"group-%zu\" -- \"group-%zu-%zu\" [%s];\n", g, g, block,
	    degraded ? "color=red, penwidth=2" : "color=gray55, penwidth=0.6");
}

/* Group g: one box between the levels, a line from each upper switch
 * down to it and from it down to each member (or to the box of the
 * member's block, and from there to the member). */
static void
group_box(FILE *out, const struct topology_bundles *b, size_t g, const struct tb_switch *m0)
{
	const struct tb_group *gr = &b->groups[g];
	bool split = member_blocks(b, g) > 0;

	fprintf(out, "\t\"group-%zu\" [label=\"", g);
	cables_text(out, gr->cables, m0->ups[0].first, gr->degraded);
	fprintf(out, "\\n%zu x %zu switches", gr->members, m0->nups);
	if (gr->cables != gr->members * m0->nups)
		fprintf(out, ", %zu cables each", gr->cables / (gr->members * m0->nups));
	fprintf(out, "\", shape=box, style=rounded, fontsize=8, height=0.3, margin=\"0.04,0.02\"%s];\n",
	    gr->degraded ? RED : "");
	for (size_t k = 0; k < m0->nups; k++) {
		size_t degraded = 0;
		for (size_t i = 0; i < b->nsw; i++)
			if (b->sw[i].group == g)
				degraded += b->sw[i].ups[k].degraded;
		fprintf(out, "\t\"%016llx\" -- \"group-%zu\"%s;\n",
		    (unsigned long long)b->sw[m0->ups[k].up].node->guid, g,
		    degraded ? " [color=red, penwidth=2]" : "");
	}
	for (size_t i = 0; i < b->nsw; i++) {
		const struct tb_switch *m = &b->sw[i];
		size_t degraded = 0;
		bool first_of_block = true;

		if (m->group != g)
			continue;
		for (size_t k = 0; k < m->nups; k++)
			degraded += m->ups[k].degraded;
		if (!split || m->block == SIZE_MAX) {
			fprintf(out, "\t\"group-%zu\" -- \"%016llx\"%s;\n", g,
			    (unsigned long long)m->node->guid, degraded ? " [color=red, penwidth=2]" : "");
			continue;
		}
		for (size_t k = 0; k < i && first_of_block; k++)
			first_of_block = !(b->sw[k].group == g && b->sw[k].block == m->block);
		if (first_of_block)
			block_box(out, b, g, m->block, m0);
		fprintf(out, "\t\"group-%zu-%zu\" -- \"%016llx\"%s;\n", g, m->block,
		    (unsigned long long)m->node->guid, degraded ? " [color=red, penwidth=2]" : "");
	}
}

/* The cables of each switch to the level above: its group's box (drawn
 * at the group's first member), or, for a group of one switch or of one
 * upper switch, a labelled line per pair. */
static void
vertical_cables(FILE *out, const struct topology_bundles *b, struct topology_counts *c)
{
	for (size_t i = 0; i < b->nsw; i++) {
		const struct tb_switch *s = &b->sw[i];
		const struct tb_group *g;
		bool first_member = true;

		if (s->group == SIZE_MAX)
			continue;
		g = &b->groups[s->group];
		for (size_t k = 0; k < i && first_member; k++)
			first_member = b->sw[k].group != s->group;
		if (g->members >= 2 && s->nups >= 2) {
			if (first_member)
				group_box(out, b, s->group, s);
		} else {
			for (size_t k = 0; k < s->nups; k++)
				pair_edge(out, b->sw[s->ups[k].up].node->guid, s->node->guid,
				    s->ups[k].cables, s->ups[k].first, s->ups[k].degraded);
		}
		for (size_t k = 0; k < s->nups; k++) {
			c->links += s->ups[k].cables;
			c->degraded += s->ups[k].degraded;
		}
	}
}

/* The other cables from n, one labelled line per pair of nodes: between
 * switches of one level or levels apart, and of nodes no leaf holds.
 * The hosts of a leaf and the cables one level up are drawn above. */
static void
other_cables(FILE *out, const struct fabric *f, const struct topology_bundles *b,
    const struct fabric_node *n, struct topology_counts *c)
{
	size_t mine = topology_bundles_index(b, f, n);

	for (unsigned j = 1; j <= n->nports; j++) {
		const struct fabric_port *p = &n->ports[j];
		const struct fabric_node *peer;
		size_t theirs, cables = 0, degraded = 0;
		bool seen = false;

		if (!topology_link_first_end(p))
			continue;
		peer = p->peer->node;
		theirs = topology_bundles_index(b, f, peer);
		if (topology_bundles_vertical(b, mine, theirs) ||
		    (peer->type == FABRIC_CA && mine != SIZE_MAX && b->sw[mine].level == 0) ||
		    (n->type == FABRIC_CA && theirs != SIZE_MAX && b->sw[theirs].level == 0))
			continue;
		for (unsigned k = 1; k < j && !seen; k++)
			seen = topology_link_first_end(&n->ports[k]) && n->ports[k].peer->node == peer;
		if (seen)
			continue;
		for (unsigned k = j; k <= n->nports; k++) {
			if (!topology_link_first_end(&n->ports[k]) || n->ports[k].peer->node != peer)
				continue;
			cables++;
			degraded += topology_port_degraded(&n->ports[k]);
		}
		/* tail on the higher level (dot ranks it above), else the
		 * earlier name (left of the head, as the rank's order) */
		if (theirs != SIZE_MAX && (mine == SIZE_MAX || theirs < mine))
			pair_edge(out, peer->guid, n->guid, cables, p, degraded);
		else
			pair_edge(out, n->guid, peer->guid, cables, p, degraded);
		c->links += cables;
		c->degraded += degraded;
	}
}

/* A node drawn on its own: a switch, or a host not cabled to a leaf. */
static bool
drawn_alone(const struct topology_bundles *b, const struct fabric *f, const struct fabric_node *n)
{
	if (n->type == FABRIC_SWITCH)
		return true;
	for (unsigned j = 1; j <= n->nports; j++) {
		const struct fabric_port *q = n->ports[j].peer;
		size_t s = q ? topology_bundles_index(b, f, q->node) : SIZE_MAX;
		if (s != SIZE_MAX && b->sw[s].level == 0)
			return false;
	}
	return true;
}

void
topology_dot_write(const struct fabric *f, FILE *out, struct topology_counts *c)
{
	struct topology_bundles *b = topology_bundles_new(f);
	struct fabric_node *n;
	size_t i;

	fprintf(out, "graph fabric {\n\tgraph [ranksep=0.8, nodesep=0.12, "
	    "outputorder=edgesfirst];\n\tnode [fontsize=10, margin=\"0.05,0.03\"];\n"
	    "\tedge [fontsize=8];\n");
	for (i = 0; i < b->nsw; i++)
		switch_box(out, &b->sw[i]);
	FABRIC_FOREACH_NODE(f, i, n) {
		c->nodes++;
		if (n->type != FABRIC_SWITCH && drawn_alone(b, f, n))
			lone_node(out, n);
	}
	ranks(out, b);
	for (i = 0; i < b->nsw; i++)
		if (b->sw[i].level == 0)
			host_group(out, b->sw[i].node, c);
	vertical_cables(out, b, c);
	FABRIC_FOREACH_NODE(f, i, n)
		if (drawn_alone(b, f, n))
			other_cables(out, f, b, n, c);
	fprintf(out, "}\n");
	topology_bundles_free(b);
}
