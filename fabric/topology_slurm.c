/*
 * The fabric as Slurm's tree topology: topology.conf (SwitchName= with
 * Nodes= for a leaf, Switches= above it) or the topology.yaml of Slurm
 * 23.11 and later (the same tree as switches: with nodes:/children:).
 * A leaf is a switch with hosts; a switch one level up lists the switches
 * of the level below it that it is cabled to (topology_levels), which is
 * what the tree plugin needs to place a job under the fewest switches.
 * Hosts are named as Slurm names them: the first word of the description.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "fabric/topology_formats.h"
#include "fabric/topology_tree.h"

/* Slurm splits its lines on blanks, '=' and ','; anything else odd goes
 * (and a quote would end the YAML string). */
static const char *
slurm_name(const struct fabric_node *n, char *buf, size_t len)
{
	topology_node_name(n, buf, len);
	for (char *p = buf; *p; p++)
		if (!(*p == '-' || *p == '_' || *p == '.' || (*p >= '0' && *p <= '9') ||
		    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			*p = '_';
	return buf;
}

/* The hosts cabled to a leaf, or the switches one level below s, as one
 * hostlist expression; NULL when none. */
static char *
below(const struct fabric *f, const struct fabric_node *s, const int *level, int want)
{
	char (*names)[TOPOLOGY_NAME_LEN] = xcalloc(s->nports + 1u, sizeof(*names));
	const char **v = xcalloc(s->nports + 1u, sizeof(*v));
	size_t n = 0;
	char *text;

	for (unsigned j = 1; j <= s->nports; j++) {
		const struct fabric_port *q = s->ports[j].peer;
		if (q == NULL)
			continue;
		if (want < 0 ? q->node->type != FABRIC_CA :
		    q->node->type != FABRIC_SWITCH || level[topology_node_index(f, q->node)] != want)
			continue;
		slurm_name(q->node, names[n], sizeof(names[n]));
		v[n] = names[n];
		n++;
	}
	text = n ? hostlist_compress(v, n) : NULL;
	free(v);
	free(names);
	return text;
}

static void
write_switch(FILE *out, bool yaml, const char *name, bool leaf, const char *list)
{
	if (yaml)
		fprintf(out, "      - switch: \"%s\"\n        %s: \"%s\"\n", name,
		    leaf ? "nodes" : "children", list);
	else
		fprintf(out, "SwitchName=%s %s=%s\n", name, leaf ? "Nodes" : "Switches", list);
}

void
topology_slurm_write(const struct fabric *f, bool yaml, FILE *out, struct topology_counts *c)
{
	int max_level, *level = topology_levels(f, &max_level);
	struct fabric_node *n;
	size_t i;

	fprintf(out, "# Slurm %s written by fabricd from its fabric model\n",
	    yaml ? "topology.yaml (Slurm 23.11 and later)" : "topology.conf (TopologyPlugin=topology/tree)");
	if (yaml)
		fprintf(out, "---\n- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n");
	/* leaves first, then each level up */
	for (int l = 0; l <= max_level; l++) {
		FABRIC_FOREACH_NODE(f, i, n) {
			char name[TOPOLOGY_NAME_LEN], *list;
			if (level[i] != l || (list = below(f, n, level, l - 1)) == NULL)
				continue;
			write_switch(out, yaml, slurm_name(n, name, sizeof(name)), l == 0, list);
			free(list);
			c->nodes++;
		}
	}
	FABRIC_FOREACH_NODE(f, i, n)
		for (unsigned j = 1; j <= n->nports; j++)
			if (topology_link_first_end(&n->ports[j])) {
				c->links++;
				c->degraded += n->ports[j].degraded || n->ports[j].peer->degraded;
			}
	free(level);
}
