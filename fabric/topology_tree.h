/*
 * What the Slurm and grouped dot exports and the cabling-plan diff share:
 * the name a node goes by (a host's hostname, a switch's description) and
 * each switch's level in a tree (0: a leaf, a switch with hosts cabled to
 * it; then hops up from the nearest leaf).  Pure: reads the model.
 */
#ifndef FABRICD_FABRIC_TOPOLOGY_TREE_H
#define FABRICD_FABRIC_TOPOLOGY_TREE_H

#include <stddef.h>

#include "fabric/fabric.h"

#define TOPOLOGY_NAME_LEN	(FABRIC_NODE_DESC_LEN + 1)

/*
 * A CA's first word of its description (the hostname, as Slurm and a
 * cabling plan name it: "host1 HCA-1" is host1), a switch's whole
 * description; the node GUID in hex when the description is empty.
 */
const char *topology_node_name(const struct fabric_node *n, char *buf, size_t len);

/* Each node's level, indexed like fabric_node_at(): switches 0 (leaf) up,
 * -1 for CAs and routers and for switches no leaf reaches.  A new array of
 * fabric_node_count() ints; *max_level gets the highest (-1: no leaf). */
int *topology_levels(const struct fabric *f, int *max_level);

/* The index of n in fabric_node_at() order; SIZE_MAX when not there. */
size_t topology_node_index(const struct fabric *f, const struct fabric_node *n);

#endif
