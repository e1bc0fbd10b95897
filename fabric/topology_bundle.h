/*
 * The switches of a tree as the dot export draws them (topology_dot.c):
 * in name order within each level (natural order: sw-s2 before sw-s11),
 * and the cables from each level to the next one up gathered into groups.
 * A group is the switches of one level cabled alike (the same number of
 * cables to each of the same switches a level up): in a fat tree, a pod's
 * leaves under its aggregation switches, or every odd aggregation switch
 * under the same half of the cores.  One group is a complete bipartite
 * bundle, drawn as one box with its count instead of members x uppers
 * lines.  Internal to fabric/; pure: reads the model.
 */
#ifndef FABRICD_FABRIC_TOPOLOGY_BUNDLE_H
#define FABRICD_FABRIC_TOPOLOGY_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "fabric/topology_tree.h"

/* The cables from one switch to one switch a level up. */
struct tb_up {
	size_t			 up;		/* the upper switch, an index into sw[] */
	size_t			 cables, degraded;
	const struct fabric_port *first;	/* one of them: its width and speed */
};

struct tb_switch {
	const struct fabric_node *node;
	int			 level;		/* topology_levels(); -1: no leaf below */
	char			 name[TOPOLOGY_NAME_LEN];
	struct tb_up		*ups;		/* ordered by up */
	size_t			 nups;
	size_t			 group;		/* index into groups[]; SIZE_MAX: none */
	size_t			 block;		/* the first group this switch is an upper of
						 * (a pod, for its aggregation switches) */
};

struct tb_group {
	size_t			 members;	/* switches whose group is this one */
	size_t			 cables, degraded;
};

struct topology_bundles {
	struct tb_switch	*sw;		/* level descending, then natural name order */
	size_t			 nsw;
	size_t			*at;		/* fabric_node_at() index -> sw[] index or SIZE_MAX */
	int			*level;		/* topology_levels() */
	int			 max_level;
	struct tb_group		*groups;
	size_t			 ngroups;
};

struct topology_bundles *topology_bundles_new(const struct fabric *f);
void topology_bundles_free(struct topology_bundles *b);

/* Whether the cables between switches x and y belong to a group (x one
 * level above or below y, both at a level): drawn through the groups. */
bool topology_bundles_vertical(const struct topology_bundles *b, size_t x, size_t y);

/* A cable is degraded when either end runs below what both support. */
bool topology_port_degraded(const struct fabric_port *p);

/* The sw[] index of a node, SIZE_MAX for a CA or router. */
size_t topology_bundles_index(const struct topology_bundles *b, const struct fabric *f,
    const struct fabric_node *n);

#endif
