/*
 * The audit's LFT checker: every block of every switch's linear
 * forwarding table, against the routes of the published model
 * (sm->rt), which are what the last sweep wrote.
 */
#include <stdio.h>
#include <string.h>

#include <iba/ib_types.h>

#include "sm/audit/audit.h"

#define BLOCK ROUTING_BLOCK_SIZE

static const struct routing_lft *
want_of(struct sm *sm, const struct fabric_node *n)
{
	return n->type == FABRIC_SWITCH ? routing_lft_of(sm->rt, n->guid) : NULL;
}

static size_t
lft_items(struct sm *sm, const struct fabric_node *n)
{
	const struct routing_lft *want = want_of(sm, n);

	return want ? want->nblocks : 0;
}

static size_t
lft_gets(struct sm *sm, const struct fabric_node *n, size_t k, struct audit_get *out)
{
	memset(out, 0, sizeof(*out));
	sm_path_of(n, &out->addr);
	out->attr = UMAD_SM_ATTR_LINEAR_FT;
	out->mod = (uint32_t)k;
	out->block = (uint16_t)k;
	return 1;
}

static enum audit_verdict
lft_check(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data,
    uint8_t *set, char *diff, size_t len)
{
	const struct routing_lft *want = want_of(sm, n);
	const uint8_t *w;
	unsigned i, ndiff = 0, first = 0;

	if (want == NULL || g->block >= want->nblocks)
		return AUDIT_SKIP;
	w = want->port + (size_t)g->block * BLOCK;
	for (i = 0; i < BLOCK; i++)
		if (data[i] != w[i] && ndiff++ == 0)
			first = i;
	if (ndiff == 0)
		return AUDIT_SAME;
	snprintf(diff, len, "%u entr%s: LID %u goes out of port %u, routed to port %u",
	    ndiff, ndiff == 1 ? "y" : "ies", g->block * BLOCK + first, data[first], w[first]);
	memcpy(set, w, BLOCK);
	return AUDIT_DIFF;
}

/* The model's copy of the table follows what the switch holds again. */
static void
lft_held(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data)
{
	if ((size_t)(g->block + 1) * BLOCK <= n->lft_len)
		memcpy(n->lft + (size_t)g->block * BLOCK, data, BLOCK);
}

const struct audit_checker audit_lft_checker = {
	.table = "LFT",
	.items = lft_items,
	.gets = lft_gets,
	.check = lft_check,
	.held = lft_held,
};
