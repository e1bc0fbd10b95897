/*
 * Unicast routing: pure logic over the fabric model.  Given the discovered
 * nodes (with LIDs assigned), compute the linear forwarding table every
 * switch should hold, and tell which 64-entry blocks differ from what a
 * switch holds now, so that the SM sends only those.
 *
 * Engines:
 *   minhop  shortest paths; among equal-hop egress ports, the one carrying
 *           the fewest routes so far (balances a fat tree's uplinks).
 *   updn    up/down: switches are ranked by distance from the root
 *           switches (configured by GUID, or detected as the switches
 *           farthest from the CAs); a route never turns from a down hop to
 *           an up hop, which makes it loop- and deadlock-free on any
 *           topology.  Balanced like minhop.
 *   ftree   fat trees (routing_ftree.c): levels counted from the leaves
 *           (the switches with CAs), routes climb then descend, each
 *           destination has one way down and every up-port carries an
 *           equal share of the destinations (D-mod-K style).  Refuses a
 *           fabric that is not a fat tree, saying why.
 *   auto    ftree when the fabric is a fat tree, else updn; the table's
 *           engine and reason say which ran and why.
 *
 * Cost: one breadth-first search per destination *switch*, not per LID;
 * a CA's LID reuses the distances of the switch it is cabled to.
 *
 * The input is a plain array of nodes so that the engine does not depend
 * on how the fabric model stores them (routing_compute_fabric() adapts).
 * Only nodes' type, guid, lid, nports and ports[] (num, lid, peer) are read;
 * nothing is written.  A port counts as cabled when it has a peer; callers
 * that want to route around links that are not up leave peer NULL or pass
 * a filtered view.
 */
#ifndef FABRICD_FABRIC_ROUTING_H
#define FABRICD_FABRIC_ROUTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fabric/fabric.h"

#define ROUTING_BLOCK_SIZE	64	/* LFT entries per LinearForwardingTable MAD */
#define ROUTING_NO_PORT		0xFF
/* In a model's copy of a switch's table (fabric_node.lft): an entry the SM
 * does not know, because a read or a write of its block got no answer (the
 * write may or may not have landed).  No switch has a port 254. */
#define ROUTING_UNKNOWN_PORT	0xFE

enum routing_engine { ROUTING_MINHOP, ROUTING_UPDN, ROUTING_FTREE, ROUTING_AUTO };

/*
 * Route memory (routing_memory.c): the tables a repair starts from, kept by
 * switch GUID so that they outlive the fabric model they were routed on.
 *   base  the balanced reference: what the engine computed when it last
 *         routed afresh (the first routing, a rebalance), with the routes
 *         to LIDs and through switches that came later added to it;
 *   cur   what the last routing gave each switch.
 * A repair keeps cur where it still leads to its LID, goes back to base
 * wherever base leads there again, and reroutes only what is left: so a
 * link that fails moves only the routes that crossed it, and its return
 * puts back the tables from before.  The caller owns it; routing_compute
 * only reads it.
 */
struct routing_memory_sw {
	uint64_t		 guid;
	uint16_t		 rank;		/* the up/down rank it was routed with:
						   the engine's when routed afresh, kept
						   through repairs */
	bool			 ranked;	/* rank known: not when read off a switch */
	size_t			 len;		/* entries in base and cur */
	uint8_t			*base, *cur;	/* egress per LID, 0xFF none */
};

struct routing_memory {
	int			 engine;	/* enum routing_engine; -1: read off the switches */
	size_t			 n;
	struct routing_memory_sw *sw;		/* sorted by GUID */
};

enum routing_rebalance {
	ROUTING_REPAIR,			/* repair from the memory (when there is one) */
	ROUTING_REBALANCE_DRY,		/* repair, and count what afresh would move */
	ROUTING_REBALANCE,		/* route afresh: a new balanced reference */
};

struct routing_params {
	enum routing_engine	 engine;
	const uint64_t		*root_guids;	/* updn: root switch node GUIDs */
	size_t			 nroots;	/* 0: detect the roots */
	const struct routing_memory *mem;	/* repair from it; NULL: route afresh */
	enum routing_rebalance	 rebalance;
};

/* What a routing kept, moved and would move (counted by routing_repair.c). */
struct routing_repair_stats {
	bool			 repaired;	/* a repair of the memory, not afresh */
	bool			 rebased;	/* afresh, and the new reference (not
						   when afresh only to avoid a credit loop) */
	char			 afresh[96];	/* when not: why ("first routing"...) */
	size_t			 kept;		/* (switch, LID) entries as they were */
	size_t			 reverted;	/* put back to the balanced reference */
	size_t			 rerouted;	/* given a new way: what failed under them */
	size_t			 new_lids;	/* LIDs routed for the first time */
	size_t			 illegal;	/* CA entries with no up/down way left:
						   shortest path instead (then checked for
						   credit loops) */
	/* against the tables the switches hold (fabric_node.lft, lft_known) */
	size_t			 pairs_moved;	/* CA-to-CA pairs whose path changes */
	size_t			 blocks_moved;	/* LFT blocks that differ */
	/* ROUTING_REBALANCE_DRY: what routing afresh would change against the
	 * tables this routing gives */
	size_t			 dry_pairs, dry_blocks;
	uint64_t		 dry_hottest;	/* the hottest link afresh (0: unknown) */
	/* the balance of the tables given: CA routes on the busiest link
	 * direction, and the least any routing could put there (the busiest
	 * leaf's ceil(L(N-L)/u): L its CAs, u its live uplinks, N all CAs) */
	uint64_t		 hottest, bound;
};

/* What one switch should hold. */
struct routing_lft {
	const struct fabric_node *sw;
	uint16_t		 top;		/* LinearFDBTop to program */
	uint16_t		 nblocks;	/* blocks 0..nblocks-1 cover LIDs 0..top */
	uint8_t			*port;		/* [nblocks * 64]: egress per LID, 0xFF none */
	uint32_t		*routes;	/* [nports + 1]: LIDs routed out of each port */
	uint16_t		 rank;		/* updn: hops from the nearest root */
	bool			 root;		/* updn: a root switch */
	uint8_t			*stage;		/* [nblocks * 64] or NULL: for an entry
						   that differs from what the switch holds
						   (known), the hops of its new way to the
						   LID (0: write at once); see stages */
};

struct routing_table {
	enum routing_engine	 engine;	/* the engine that ran (never auto) */
	char			 reason[160];	/* ftree/auto: why this engine */
	size_t			 nswitches;
	struct routing_lft	*lfts;		/* sorted by switch node GUID */
	uint16_t		 top;		/* highest LID routed */
	size_t			 nlids;		/* destination LIDs routed */
	size_t			 unreachable;	/* (switch, LID) pairs left without a route */
	uint64_t		 usec;		/* time the computation took */
	uint8_t			 stages;	/* the largest stage: writing the
						   entries stage by stage, each stage's
						   replies awaited, changes every route
						   downstream first */
	bool			 updn_fallback;	/* roots left pairs unroutable: one
						   central root was used instead */
	struct routing_repair_stats repair;
};

/*
 * Compute the tables.  Returns NULL with a message in err on bad input
 * (two ports claiming one LID, no switch at all) or allocation failure.
 * LIDs of 0 are skipped; a LID above FABRIC_MAX_LID is an error.
 */
struct routing_table *routing_compute(struct fabric_node *const *nodes, size_t n,
    const struct routing_params *params, char *err, size_t errlen);
void routing_table_free(struct routing_table *t);

/*
 * Whether the CA-to-CA routes of t have a credit loop: a cycle in the
 * channel dependency graph (routing_cdg.c).  1 with a description in
 * where, 0 none, -1 out of memory.  ftree and updn tables never have one;
 * minhop's can, on fabrics with cycles (a ring of five switches).
 */
int routing_credit_loop(const struct routing_table *t, char *where, size_t len);

/* The table of one switch (by node GUID), NULL if it is not a switch of t. */
const struct routing_lft *routing_lft_of(const struct routing_table *t, uint64_t sw_guid);

/*
 * The blocks of `want` that differ from what the switch holds.  held is
 * the switch's current table (held_len entries from LID 0; NULL when not
 * known: every block differs).  blocks[] must have room for want->nblocks;
 * returns how many block numbers were written, in increasing order.
 */
size_t routing_lft_diff(const struct routing_lft *want, const uint8_t *held,
    size_t held_len, uint16_t *blocks);

/*
 * Walking a route hop by hop through forwarding tables, for `route` and for
 * tests.  The lookup callback answers "where does switch sw send dlid"
 * (0xFF: no entry); two ready-made lookups read the programmed tables held
 * in the fabric model (fabric_node.lft within lft_len and lft_top, only
 * when lft_known) or a computed table.
 */
typedef uint8_t (*routing_lookup_fn)(const struct fabric_node *sw, uint16_t dlid, void *arg);
uint8_t routing_lookup_programmed(const struct fabric_node *sw, uint16_t dlid, void *arg);
uint8_t routing_lookup_table(const struct fabric_node *sw, uint16_t dlid, void *table);

enum routing_walk_status {
	ROUTING_WALK_OK,		/* reached the port holding dlid */
	ROUTING_WALK_NO_ENTRY,		/* a switch has no entry (0xFF or above top) */
	ROUTING_WALK_BAD_PORT,		/* entry names a port that is not cabled */
	ROUTING_WALK_LOOP,		/* a switch was visited twice */
	ROUTING_WALK_DEAD_END,		/* reached a CA that does not hold dlid */
	ROUTING_WALK_TOO_LONG,		/* more hops than hops[] can hold */
	ROUTING_WALK_UNKNOWN,		/* an entry the model does not know */
};

struct routing_hop {
	const struct fabric_node *node;
	uint8_t			 in_port;	/* 0 at the source */
	uint8_t			 out_port;	/* 0 at the destination */
};

/*
 * Walk from src (a CA port, or port 0 of a switch) to dlid.  hops[] gets
 * every node visited, source and destination included; *nhops how many.
 */
enum routing_walk_status routing_walk(const struct fabric_port *src, uint16_t dlid,
    routing_lookup_fn lookup, void *arg, struct routing_hop *hops, size_t max,
    size_t *nhops);
const char *routing_walk_status_str(enum routing_walk_status s);
/* The same as a stable token for JSON: "ok", "no_entry", "bad_port"... */
const char *routing_walk_status_code(enum routing_walk_status s);

/* The route memory (routing_memory.c).  seed: what the switches hold
 * (lft_known tables), so that a restarted SM keeps valid routes where they
 * are; update: after a routing, cur = its tables, and base = them too when
 * it routed afresh, else base gains only the entries it lacked.  -1 when
 * out of memory (the memory is then as it was or empty, never torn). */
struct routing_memory *routing_memory_new(void);
void routing_memory_free(struct routing_memory *m);
int routing_memory_seed(struct routing_memory *m, struct fabric_node *const *nodes, size_t n);
int routing_memory_update(struct routing_memory *m, const struct routing_table *t);
const struct routing_memory_sw *routing_memory_find(const struct routing_memory *m,
    uint64_t guid);

const char *routing_engine_name(enum routing_engine e);
/* "minhop" / "updn" / "ftree" / "auto" -> engine; -1 when unknown. */
int routing_engine_parse(const char *name);

/*
 * Ports the engines route around (health isolation; route_exclude.c): both
 * ends of such a link look uncabled to routing_compute_fabric() alone.
 */
void routing_exclude_set(const uint64_t *guids, const uint8_t *ports, size_t n);
bool routing_excluded(uint64_t node_guid, uint8_t port);
size_t routing_exclude_cut(struct fabric *f, struct fabric_port ***cut);
void routing_exclude_restore(struct fabric_port **cut, size_t n);

/* Adapter for the fabric model: routes every node of f. */
static inline struct routing_table *
routing_compute_fabric(const struct fabric *f, const struct routing_params *params,
    char *err, size_t errlen)
{
	size_t n = fabric_node_count(f);
	struct fabric_node **nodes = n ? calloc(n, sizeof(*nodes)) : NULL;
	struct routing_table *t;

	if (n && nodes == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		nodes[i] = fabric_node_at(f, i);
	t = routing_compute(nodes, n, params, err, errlen);
	free(nodes);
	return t;
}

#endif
