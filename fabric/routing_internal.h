/*
 * What the routing engines share inside fabric/ (not for other modules):
 * the switch graph flattened into index arrays (CSR adjacency), built once
 * per computation by routing.c, and read by every engine.
 */
#ifndef FABRICD_FABRIC_ROUTING_INTERNAL_H
#define FABRICD_FABRIC_ROUTING_INTERNAL_H

#include "fabric/routing.h"

#define INF	UINT16_MAX

struct adj {
	uint32_t	 nbr;		/* neighbouring switch index */
	uint8_t		 port;		/* egress port on this switch */
};

struct dest_lid {
	uint16_t	 lid;
	uint8_t		 port;		/* on the destination switch (0: itself) */
};

struct graph {
	size_t			 ns;
	const struct fabric_node **sw;	/* by index, sorted by GUID */
	size_t			*adj_at;	/* [ns + 1] CSR offsets into adj */
	struct adj		*adj;
	size_t			*dst_at;	/* [ns + 1] CSR offsets into dst */
	struct dest_lid		*dst;
	/* pointer -> index hash, open addressing */
	const struct fabric_node **hkey;
	uint32_t		*hval;
	size_t			 hmask;
	/* updn: (rank, guid) order; lower is "up" */
	uint16_t		*rank;
	uint32_t		*order;		/* position in the (rank, guid) order */
};

bool routing_is_switch(const struct fabric_node *n);
/* Whether CAs are cabled to switch s (its LIDs beyond its own). */
bool graph_has_ca(const struct graph *g, size_t s);
/* Plain breadth-first distances (in switch hops) from d. */
void graph_bfs(const struct graph *g, uint32_t d, uint16_t *dist, uint32_t *queue);
/* Every table entry to ROUTING_NO_PORT, every route count to 0. */
void routing_reset_tables(struct routing_table *t);

/*
 * The fat-tree engine (routing_ftree.c).  Returns 1 when it routed t, 0
 * when the fabric is not a fat tree (why says so, t untouched), -1 when
 * out of memory.
 */
int ftree_route(const struct graph *g, struct routing_table *t, char *why, size_t whylen);

/*
 * Repair (routing_repair.c): t holds the engine's fresh tables; with a
 * route memory in p, they become the repair of it (or stay, saying why in
 * t->repair.afresh), and t->repair counts what moves.  -1 out of memory.
 */
int routing_repair(const struct graph *g, struct routing_table *t,
    const struct routing_params *p);

#endif
