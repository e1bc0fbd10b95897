/*
 * How busy each inter-switch link is: every CA-to-CA route walked through
 * the tables the switches hold (the fabric model's programmed LFTs, as
 * `route` reads them, not a recomputation), counting the routes that
 * cross each link direction.  The operator view behind `fabricctl routing`
 * (what OpenSM's console calls switchbalance and lidbalance, in routes
 * rather than LIDs).  Pure: reads the model, writes nothing in it.
 */
#ifndef FABRICD_FABRIC_ROUTING_LOADS_H
#define FABRICD_FABRIC_ROUTING_LOADS_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

struct routing_link_load {
	const struct fabric_node *sw;		/* the switch the direction leaves */
	uint8_t			 port;
	const struct fabric_node *peer;
	uint8_t			 peer_port;
	uint16_t		 level, peer_level;	/* hops from the nearest
							   switch with CAs */
	uint64_t		 routes;
};

struct routing_loads {
	struct routing_link_load *links;	/* every inter-switch link direction */
	size_t			 nlinks;
	uint64_t		 pairs;		/* CA pairs whose route arrives */
	uint64_t		 failed;	/* CA pairs whose route does not */
};

/* 0, or -1 when out of memory. */
int routing_loads_compute(const struct fabric *f, struct routing_loads *out);
void routing_loads_free(struct routing_loads *l);

#endif
