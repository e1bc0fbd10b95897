/*
 * The fat-tree engine's state, shared by its two files (routing_ftree.c
 * routes, routing_ftree_levels.c finds the levels); fabric/ only.
 */
#ifndef FABRICD_FABRIC_ROUTING_FTREE_H
#define FABRICD_FABRIC_ROUTING_FTREE_H

#include "fabric/routing_internal.h"

#define NONE		UINT32_MAX
#define FTREE_PASSES	2	/* irregular trees: route, then again knowing the loads */

enum state { ST_NONE, ST_MAIN, ST_DOWN, ST_CONV, ST_UP };

/* How a destination weighs in the balance. */
enum mode {
	MODE_MGMT,	/* a switch's own LID: management only, not counted */
	MODE_WHOLE,	/* a CA: every source converges on its main path */
	MODE_SPLIT,	/* a CA whose leaf's shares do not come out even */
};

struct dest {
	uint32_t		 sw;		/* the switch it is cabled to */
	struct dest_lid		 dl;
	enum mode		 mode;
};

struct ftree {
	const struct graph	*g;
	uint16_t		*lvl;		/* 0: leaves; INF: no CA reachable */
	uint16_t		 height;
	uint32_t		*by_lvl;	/* switch indices by level, ascending */
	size_t			*lvl_at;	/* [height + 2] offsets into by_lvl */
	uint32_t		*rev;		/* [nadj] the reverse of each link */
	uint32_t		*dn_load;	/* [nadj] main destinations descending */
	uint64_t		*w_load;	/* [nadj] CA routes crossing each link */
	uint64_t		*chain;		/* [ns] per destination: busiest link
						   of the climb from a switch */
	uint64_t		*flow;		/* [ns] per destination: sources through */
	uint32_t		*ncas;		/* [ns] CA LIDs on each switch */
	uint32_t		*route;		/* [ns] per destination: adj index */
	uint8_t			*state;		/* [ns] per destination: enum state */
	uint8_t			*via_main;	/* [ns] per destination: descends into
						   the main path */
	uint16_t		*plain;		/* [ns] shortest distances, fallback */
	uint32_t		*queue;		/* [ns] */
	uint32_t		*mark;		/* [ns] stamps for neighbour sets */
	uint32_t		 stamp;
	uint32_t		*pending;	/* [ns] climb_whole: switches offered a link */
	size_t			 npending;
	struct dest		*order;		/* CA destinations in routing order */
	uint32_t		*mainrec;	/* [ndest * height] main paths */
	size_t			*p2a_at;	/* [ns + 1] offsets into p2a */
	uint32_t		*p2a;		/* by switch and port: adj index */
};

/* Levels, and whether they make a fat tree (why says what breaks it). */
bool ftree_levels(struct ftree *f, char *why, size_t len);
/* Switches by level (by_lvl, lvl_at); unreached switches are left out. */
void ftree_sort_levels(struct ftree *f);
/* The reverse of every link (rev). */
void ftree_link_reverse(struct ftree *f);
/* Port -> adjacency index of every switch (p2a); -1 out of memory. */
int ftree_port_index(struct ftree *f);

static inline bool
is_up(const struct ftree *f, uint32_t s, size_t k)
{
	return f->lvl[f->g->adj[k].nbr] == f->lvl[s] + 1;
}

#endif
