/*
 * The repair's state, shared by its two files (fabric/ only):
 * routing_repair.c keeps what still leads somewhere and gives the rest a
 * way; routing_repair_flow.c places the flow that had to move.
 */
#ifndef FABRICD_FABRIC_ROUTING_REPAIR_H
#define FABRICD_FABRIC_ROUTING_REPAIR_H

#include "fabric/routing_internal.h"

#define NO_NBR		UINT32_MAX

enum { W_UNKNOWN, W_VISITING, W_ALIVE, W_DEAD };
#define FL_DOWN		1	/* the way goes only down */
#define FL_LEGAL	2	/* up hops, then down hops only */

struct repair {
	const struct graph	*g;
	struct routing_table	*t;
	uint8_t			**fresh;	/* [ns] F's rows (the engine's) */
	uint8_t			**out;		/* [ns] the result's rows */
	const struct routing_memory_sw **mem;	/* [ns] memory row, NULL none */
	size_t			*p2n_at;	/* [ns + 1] */
	uint32_t		*p2n;		/* by switch and port: neighbour */
	bool			 updn;		/* up/down rules (ftree, updn) */
	/* per destination LID */
	uint8_t			*e;		/* [ns] the entries being walked */
	uint8_t			*st, *fl, *bgood, *off_port;
	uint8_t			*pin;		/* [ns] per LID: on the way of a source
						   the reference cannot serve: stays */
	uint16_t		*len, *off_len;
	uint32_t		*stack, *broken;
	size_t			 nbroken;
	/* the balance of what moves */
	uint64_t		*w;		/* [nadj] CA pairs crossing each link */
	uint32_t		*ncas;		/* [ns] CA LIDs cabled to each switch */
	uint32_t		*p2k;		/* by switch and port: adjacency index */
	uint64_t		*flow;		/* [ns] per LID: CA sources through it */
	uint8_t			*fixed;		/* [ns] per LID: carries flow: stays */
	uint32_t		*order;		/* [ns] scratch: switches by hops */
	size_t			*cnt;		/* [ns + 2] scratch: counting sort */
	uint64_t		*memo;		/* [ns] best_cost() for this stamp */
	uint32_t		*memo_at, stamp;
	uint64_t		 slack;		/* a way may stay while its busiest
						   link is below this (flow.c) */
};

/* The switch port p of s leads to, NO_NBR when none. */
static inline uint32_t
next_of(const struct repair *r, size_t s, uint8_t p)
{
	if (p == 0 || p > r->g->sw[s]->nports)
		return NO_NBR;
	return r->p2n[r->p2n_at[s] + p];
}

/* The adjacency index of s's port p, NO_NBR when not a switch link. */
static inline uint32_t
link_of(const struct repair *r, size_t s, uint8_t p)
{
	if (p == 0 || p > r->g->sw[s]->nports)
		return NO_NBR;
	return r->p2k[r->p2n_at[s] + p];
}

/* Up in the order the engine ranked: lower rank, then lower GUID. */
static inline bool
is_up_hop(const struct repair *r, size_t s, uint32_t v)
{
	const struct routing_lft *l = r->t->lfts;

	return l[v].rank != l[s].rank ? l[v].rank < l[s].rank : v < s;
}

/* Whether s may take a way through settled neighbour v in this phase
 * (1: down to a way only down, 2: up to a legal way, 3: any). */
static inline bool
phase_allows(const struct repair *r, int phase, size_t s, uint32_t v)
{
	bool up;

	if (r->st[v] != W_ALIVE)
		return false;
	if (!r->updn || phase == 3)
		return true;
	up = is_up_hop(r, s, v);
	return phase == 1 ? !up && (r->fl[v] & FL_DOWN) : up && (r->fl[v] & FL_LEGAL);
}

/* routing_repair_flow.c */
void column_flows(struct repair *r, uint32_t d, uint64_t *charge);
void place_moved_flow(struct repair *r, uint32_t d, uint16_t lid);

#endif
