/*
 * `topology diff PLAN`: the live fabric against a cabling plan, the first
 * check on a new cluster (as ibdiagnet -t or UFM's topology compare do).
 * The plan is an ibnetdiscover topology file (what ibnetdiscover printed
 * on a fabric cabled right, or an ibsim net file) or a CSV of
 * "node,port,node,port" lines.  Nodes are matched by name
 * (topology_node_name: a host's hostname, a switch's description), ports
 * by number, so a plan written before the GUIDs were known still works.
 * Pure: parses text, reads the model, builds the reply.
 */
#ifndef FABRICD_FABRIC_TOPOLOGY_DIFF_H
#define FABRICD_FABRIC_TOPOLOGY_DIFF_H

#include <stddef.h>
#include <jansson.h>

#include "fabric/fabric.h"
#include "fabric/topology_tree.h"

struct topology_end {
	char		 node[TOPOLOGY_NAME_LEN];
	unsigned	 port;
};

struct topology_cable {
	struct topology_end	 a, b;	/* a before b (topology_cable_sort) */
};

struct topology_plan {
	struct topology_cable	*cable;
	size_t			 n, cap;
	const char		*format;	/* "ibnetdiscover" or "csv" */
};

/* Parse a plan (the format is told by its content).  -1 with
 * "NAME:LINE:COLUMN: why" in err on a line neither format reads. */
int topology_plan_parse(const char *name, const char *text, struct topology_plan *plan,
    char *err, size_t errlen);
void topology_plan_free(struct topology_plan *plan);

/* The cables of the live model as a plan. */
void topology_plan_of_fabric(const struct fabric *f, struct topology_plan *plan);

/*
 * The reply: {plan_cables, live_cables, matching, missing[], extra[],
 * swapped[], exit_code}; a cable is {"a": "NODE:PORT", "b": "NODE:PORT"},
 * a swap {"plan": [2 cables], "live": [2 cables]}: two planned cables
 * whose far ends were exchanged.  exit_code 1 when anything differs.
 */
json_t *topology_diff(const struct topology_plan *plan, const struct topology_plan *live);

#endif
