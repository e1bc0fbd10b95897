/*
 * Reading forwarding tables: which blocks differ from what a switch holds,
 * and walking a route hop by hop (see fabric/routing.h).  The walk trusts
 * nothing: every entry is checked against the cabling it names.
 */
#include <string.h>

#include "fabric/routing.h"

static bool
is_switch(const struct fabric_node *n)
{
	return n != NULL && n->type == FABRIC_SWITCH;
}

size_t
routing_lft_diff(const struct routing_lft *want, const uint8_t *held, size_t held_len,
    uint16_t *blocks)
{
	size_t n = 0;

	for (uint16_t b = 0; b < want->nblocks; b++) {
		size_t off = (size_t)b * ROUTING_BLOCK_SIZE;
		if (held == NULL || off + ROUTING_BLOCK_SIZE > held_len ||
		    memcmp(want->port + off, held + off, ROUTING_BLOCK_SIZE) != 0)
			blocks[n++] = b;
	}
	return n;
}

/*
 * Only what the model really holds: a table it does not mirror, a LID
 * above LinearFDBTop (the switch drops it) or beyond the entries
 * allocated (lft_top can run ahead of lft_len in a model built by hand or
 * between a top Set and its blocks) is no entry.
 */
uint8_t
routing_lookup_programmed(const struct fabric_node *sw, uint16_t dlid, void *arg)
{
	(void)arg;
	if (sw->lft == NULL || !sw->lft_known || dlid > sw->lft_top || dlid >= sw->lft_len)
		return ROUTING_NO_PORT;
	return sw->lft[dlid];
}

uint8_t
routing_lookup_table(const struct fabric_node *sw, uint16_t dlid, void *table)
{
	const struct routing_lft *l = routing_lft_of(table, sw->guid);

	if (l == NULL || dlid > l->top)
		return ROUTING_NO_PORT;
	return l->port[dlid];
}

static bool
visited(const struct routing_hop *hops, size_t n, const struct fabric_node *node)
{
	for (size_t i = 0; i < n; i++)
		if (hops[i].node == node)
			return true;
	return false;
}

enum routing_walk_status
routing_walk(const struct fabric_port *src, uint16_t dlid, routing_lookup_fn lookup,
    void *arg, struct routing_hop *hops, size_t max, size_t *nhops)
{
	const struct fabric_node *cur = src->node;
	uint8_t in = 0;

	*nhops = 0;
	if (!is_switch(cur)) {
		if (max == 0)
			return ROUTING_WALK_TOO_LONG;
		hops[(*nhops)++] = (struct routing_hop){ cur, 0, src->num };
		if (src->lid == dlid) {
			hops[0].out_port = 0;
			return ROUTING_WALK_OK;
		}
		if (src->peer == NULL)
			return ROUTING_WALK_BAD_PORT;
		cur = src->peer->node;
		in = src->peer->num;
	}
	for (;;) {
		uint8_t out;

		if (*nhops >= max)
			return ROUTING_WALK_TOO_LONG;
		if (!is_switch(cur)) {
			const struct fabric_port *pt = &cur->ports[in];
			hops[(*nhops)++] = (struct routing_hop){ cur, in, 0 };
			return pt->lid == dlid ? ROUTING_WALK_OK : ROUTING_WALK_DEAD_END;
		}
		if (visited(hops, *nhops, cur))
			return ROUTING_WALK_LOOP;
		if (cur->lid == dlid) {
			hops[(*nhops)++] = (struct routing_hop){ cur, in, 0 };
			return ROUTING_WALK_OK;
		}
		out = lookup(cur, dlid, arg);
		hops[(*nhops)++] = (struct routing_hop){ cur, in, out };
		if (out == ROUTING_UNKNOWN_PORT)
			return ROUTING_WALK_UNKNOWN;
		if (out == ROUTING_NO_PORT || out == 0)
			return ROUTING_WALK_NO_ENTRY;
		if (out > cur->nports || cur->ports[out].peer == NULL)
			return ROUTING_WALK_BAD_PORT;
		in = cur->ports[out].peer->num;
		cur = cur->ports[out].peer->node;
	}
}

const char *
routing_walk_status_str(enum routing_walk_status s)
{
	switch (s) {
	case ROUTING_WALK_OK:		return "ok";
	case ROUTING_WALK_NO_ENTRY:	return "no forwarding entry";
	case ROUTING_WALK_BAD_PORT:	return "forwarded to an uncabled port";
	case ROUTING_WALK_LOOP:		return "forwarding loop";
	case ROUTING_WALK_DEAD_END:	return "reached a node that does not hold the LID";
	case ROUTING_WALK_TOO_LONG:	return "path too long";
	case ROUTING_WALK_UNKNOWN:	return "a switch's entry is not known (its write got no answer)";
	}
	return "unknown";
}

const char *
routing_walk_status_code(enum routing_walk_status s)
{
	switch (s) {
	case ROUTING_WALK_OK:		return "ok";
	case ROUTING_WALK_NO_ENTRY:	return "no_entry";
	case ROUTING_WALK_BAD_PORT:	return "bad_port";
	case ROUTING_WALK_LOOP:		return "loop";
	case ROUTING_WALK_DEAD_END:	return "dead_end";
	case ROUTING_WALK_TOO_LONG:	return "too_long";
	case ROUTING_WALK_UNKNOWN:	return "unknown_entry";
	}
	return "unknown";
}
