/*
 * The audit's MFT checker: every multicast forwarding table block in use
 * (32 MLIDs by 16 ports of the port mask) of every switch, against what
 * the SM computed from the group trees (mcast_mft.c).  A block whose read
 * or write is still under way is skipped: there is nothing settled to
 * compare with.  The event's "port" is the first port of the mask
 * position (0, 16, 32...), its "block" the MLID block.
 */
#include <stdio.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/audit/audit.h"
#include "sm/mcast/mcast.h"

static size_t
mft_items(struct sm *sm, const struct fabric_node *n)
{
	return sm_mcast_mft_items(sm, n);
}

static size_t
mft_gets(struct sm *sm, const struct fabric_node *n, size_t k, struct audit_get *out)
{
	unsigned block, pos;

	if (!sm_mcast_mft_item(sm, n, k, &block, &pos))
		return 0;
	memset(out, 0, sizeof(*out));
	sm_path_of(n, &out->addr);
	out->attr = UMAD_SM_ATTR_MCAST_FT;
	out->mod = sm_mcast_mft_mod(block, pos);
	out->port = (uint8_t)(pos * 16);
	out->block = (uint16_t)block;
	return 1;
}

enum audit_verdict
audit_mft_compare(const uint8_t *got, const uint8_t *want, unsigned block, unsigned pos,
    char *diff, size_t len)
{
	unsigned i, ndiff = 0, first = 0;
	uint16_t g, w;

	for (i = 0; i < SM_MFT_BLOCK_MLIDS; i++)
		if (memcmp(got + 2 * i, want + 2 * i, 2) != 0 && ndiff++ == 0)
			first = i;
	if (ndiff == 0)
		return AUDIT_SAME;
	memcpy(&g, got + 2 * first, 2);
	memcpy(&w, want + 2 * first, 2);
	snprintf(diff, len, "MLID block %u position %u (ports %u-%u): %u entr%s: MLID 0x%04x goes "
	    "to port mask 0x%04x, the trees say 0x%04x", block, pos, pos * 16, pos * 16 + 15, ndiff,
	    ndiff == 1 ? "y" : "ies", MC_MLID_BASE + block * SM_MFT_BLOCK_MLIDS + first,
	    be16toh(g), be16toh(w));
	return AUDIT_DIFF;
}

static enum audit_verdict
mft_check(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data,
    uint8_t *set, char *diff, size_t len)
{
	uint8_t want[64];
	unsigned block = g->mod & 0x1FF, pos = g->mod >> 28;
	enum audit_verdict v;

	if (!sm_mcast_mft_want(sm, n, block, pos, want))
		return AUDIT_SKIP;
	v = audit_mft_compare(data, want, block, pos, diff, len);
	if (v == AUDIT_DIFF)
		memcpy(set, want, SM_MFT_BLOCK_MLIDS * 2);
	return v;
}

/* The SM's record of what the switch holds follows the repair. */
static void
mft_held(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data)
{
	sm_mcast_mft_note_held(sm, n, g->mod & 0x1FF, g->mod >> 28, data);
}

const struct audit_checker audit_mft_checker = {
	.table = "MFT",
	.items = mft_items,
	.gets = mft_gets,
	.check = mft_check,
	.held = mft_held,
};
