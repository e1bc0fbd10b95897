/*
 * The SA's switch and port table records, from the published model:
 * SwitchInfoRecord (the SwitchInfo last read, LinearFDBTop as
 * programmed), LFTRecord (the 64-entry blocks the SM knows the switch
 * holds: written or read back), MFTRecord (the 32-MLID blocks of the
 * multicast trees, every port mask position of each, as OpenSM's
 * osm_sa_mft_record.c: blocks 0 up to the switch's last one that holds an
 * entry, none for a switch in no tree) and GUIDInfoRecord (block 0: the
 * port GUID; no alias GUIDs are assigned).  As with NodeRecords, a
 * requester sees only the switches and ports it shares a partition with.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/sa/sa.h"

#define LFT_BLOCK	64

static bool
visible(const struct sa_ctx *ctx, const struct fabric_port *p)
{
	const struct fabric_port *req = sa_requester(ctx);

	return req == NULL || sa_ports_share_partition(ctx, req, p);
}

static bool
mask_lid(const struct sa_query *q, ib_net64_t bit, uint16_t lid)
{
	return !(q->mask & bit) || be16toh(*(const ib_net16_t *)q->tmpl) == lid;
}

uint16_t
sa_switchinfo_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(ctx->f, i, n) {
		ib_switch_info_record_t r;

		if (n->type != FABRIC_SWITCH || n->lid == 0 || !visible(ctx, &n->ports[0]) ||
		    !mask_lid(q, IB_SWIR_COMPMASK_LID, n->lid))
			continue;
		memset(&r, 0, sizeof(r));
		r.lid = htobe16(n->lid);
		memcpy(&r.switch_info, n->si, sizeof(r.switch_info));
		r.switch_info.lin_top = htobe16(n->lft_top);
		if (!sa_sink_put(out, &r))
			return 0;
	}
	return 0;
}

uint16_t
sa_lft_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_lft_record_t *t = (const ib_lft_record_t *)q->tmpl;
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(ctx->f, i, n) {
		if (n->type != FABRIC_SWITCH || n->lid == 0 || !n->lft_known || n->lft == NULL ||
		    !visible(ctx, &n->ports[0]) || !mask_lid(q, IB_LFTR_COMPMASK_LID, n->lid))
			continue;
		for (size_t b = 0; b <= n->lft_top / LFT_BLOCK; b++) {
			ib_lft_record_t r;

			if ((b + 1) * LFT_BLOCK > n->lft_len)
				break;
			if ((q->mask & IB_LFTR_COMPMASK_BLOCK) && be16toh(t->block_num) != b)
				continue;
			memset(&r, 0, sizeof(r));
			r.lid = htobe16(n->lid);
			r.block_num = htobe16((uint16_t)b);
			memcpy(r.lft, n->lft + b * LFT_BLOCK, LFT_BLOCK);
			if (!sa_sink_put(out, &r))
				return 0;
		}
	}
	return 0;
}

/* MFTRecord PositionBlockNum: position in the top 4 bits, block in the low 9. */
#define MFT_POS(pbn)	((unsigned)(pbn) >> 12)
#define MFT_BLOCK(pbn)	((unsigned)(pbn) & IB_MCAST_BLOCK_ID_MASK_HO)

static bool
put_mft(const struct sa_ctx *ctx, const struct fabric_node *n, unsigned block, unsigned pos,
    struct sa_sink *out)
{
	uint16_t ports[IB_MCAST_BLOCK_SIZE];
	ib_mft_record_t r;

	if (!ctx->mft_block(ctx->mft_arg, n, block, pos, ports))
		return true;	/* not known now: left out rather than guessed */
	memset(&r, 0, sizeof(r));
	r.lid = htobe16(n->lid);
	r.position_block_num = htobe16((uint16_t)(pos << 12 | block));
	for (unsigned i = 0; i < IB_MCAST_BLOCK_SIZE; i++)
		r.mft[i] = htobe16(ports[i]);
	return sa_sink_put(out, &r);
}

/* The blocks and positions of switch n a query names: BlockNum and
 * Position narrow them, one beyond the switch's answers nothing. */
static bool
node_mft(const struct sa_ctx *ctx, const struct fabric_node *n, const struct sa_query *q,
    struct sa_sink *out)
{
	unsigned pbn = be16toh(((const ib_mft_record_t *)q->tmpl)->position_block_num);
	unsigned nblocks = ctx->mft_blocks(ctx->mft_arg, n), npos = n->nports / 16u + 1;
	unsigned b_lo = 0, b_hi = nblocks, p_lo = 0, p_hi = npos;

	if (q->mask & IB_MFTR_COMPMASK_BLOCK) {
		b_lo = MFT_BLOCK(pbn);
		b_hi = b_lo + 1 < nblocks ? b_lo + 1 : nblocks;
	}
	if (q->mask & IB_MFTR_COMPMASK_POSITION) {
		p_lo = MFT_POS(pbn);
		p_hi = p_lo + 1 < npos ? p_lo + 1 : npos;
	}
	for (unsigned b = b_lo; b < b_hi; b++)
		for (unsigned pos = p_lo; pos < p_hi; pos++)
			if (!put_mft(ctx, n, b, pos, out))
				return false;
	return true;
}

uint16_t
sa_mft_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	struct fabric_node *n;
	size_t i;

	if (ctx->mft_blocks == NULL || ctx->mft_block == NULL)
		return 0;
	FABRIC_FOREACH_NODE(ctx->f, i, n)
		if (n->type == FABRIC_SWITCH && n->lid != 0 && visible(ctx, &n->ports[0]) &&
		    mask_lid(q, IB_MFTR_COMPMASK_LID, n->lid) && !node_mft(ctx, n, q, out))
			return 0;
	return 0;
}

static bool
put_guidinfo(const struct sa_ctx *ctx, const struct fabric_port *p, uint16_t lid,
    const struct sa_query *q, struct sa_sink *out)
{
	const ib_guidinfo_record_t *t = (const ib_guidinfo_record_t *)q->tmpl;
	ib_guidinfo_record_t r;

	if (lid == 0 || !visible(ctx, p) || !mask_lid(q, IB_GIR_COMPMASK_LID, lid) ||
	    ((q->mask & IB_GIR_COMPMASK_BLOCKNUM) && t->block_num != 0))
		return true;
	memset(&r, 0, sizeof(r));
	r.lid = htobe16(lid);
	r.guid_info.guid[0] = htobe64(p->guid);
	return sa_sink_put(out, &r);
}

uint16_t
sa_guidinfo_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(ctx->f, i, n) {
		if (n->type == FABRIC_SWITCH) {
			if (!put_guidinfo(ctx, &n->ports[0], n->lid, q, out))
				return 0;
			continue;
		}
		for (unsigned j = 1; j <= n->nports; j++)
			if (n->ports[j].guid && !put_guidinfo(ctx, &n->ports[j], n->ports[j].lid, q, out))
				return 0;
	}
	return 0;
}
