/*
 * Multicast forwarding tables: the trees of every group (mcast_tree.c)
 * become each switch's MFT entries, and only the blocks that differ from
 * what the switch holds are written.
 *
 * An MFT block is 32 MLIDs by 16 ports (one "position" of the port mask);
 * a switch with more than 15 ports has several positions per MLID.  What a
 * switch holds is known per block because we wrote it or read it back
 * (the first time the SM meets the switch, and after it was gone from the
 * fabric: a switch that rebooted forgot its tables); a block never seen
 * is read before it is judged, so a restarted SM writes nothing that is
 * already right.  MulticastFDBTop is set to the highest MLID in use.
 *
 * sm_mcast_mft_verify() reads every block in use back and compares it with
 * what the SM believes the switch holds (for an audit): a block that
 * differs is counted and forgotten, so the next pass rewrites it.
 */
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "sm/mcast/mcast.h"
#include "sm/core/sm_internal.h"

#define MFT_BLOCK	32	/* MLIDs per block */
#define MFT_BLOCKS	(MC_MLID_MAX / MFT_BLOCK)
#define MFT_NO_TOP	0xBFFF	/* MulticastFDBTop: no entry valid */

struct mft_switch {
	uint64_t	 guid;
	unsigned	 npos;			/* port mask positions: ports / 16 + 1 */
	uint16_t	*have, *want;		/* [MC_MLID_MAX * npos], host order */
	uint16_t	 known[MFT_BLOCKS];	/* bit per position: have is true */
	unsigned	 used_blocks;		/* blocks that may hold entries */
	uint16_t	 top;			/* MulticastFDBTop written */
	bool		 top_known;
	struct mad_addr	 addr;
	struct fabric_node *node;		/* in the model being programmed */
};

static uint16_t *
entry(uint16_t *tbl, const struct mft_switch *s, unsigned mlid_off, unsigned pos)
{
	return &tbl[(size_t)mlid_off * s->npos + pos];
}

static struct mft_switch *
mft_switch_of(struct sm *sm, struct fabric_node *n)
{
	struct mft_switch *s = guid_map_get(&sm->mft, n->guid);
	unsigned npos = n->nports / 16u + 1;

	if (s == NULL || s->npos != npos) {
		if (s) {
			free(s->have);
			free(s->want);
		} else
			s = xcalloc(1, sizeof(*s));
		memset(s, 0, sizeof(*s));
		s->guid = n->guid;
		s->npos = npos;
		s->have = xcalloc((size_t)MC_MLID_MAX * npos, sizeof(uint16_t));
		s->want = xcalloc((size_t)MC_MLID_MAX * npos, sizeof(uint16_t));
		guid_map_put(&sm->mft, n->guid, s);
	}
	s->node = n;
	sm_path_of(n, &s->addr);
	return s;
}

void
sm_mcast_free(struct sm *sm)
{
	for (size_t i = 0; i < sm->mft.cap; i++) {
		struct mft_switch *s = sm->mft.keys && sm->mft.keys[i] ? sm->mft.vals[i] : NULL;

		if (s) {
			free(s->have);
			free(s->want);
			free(s);
		}
	}
	guid_map_free(&sm->mft);
	mc_db_delete(sm->mc);
	sm->mc = NULL;
}

/* ---- the SM's own groups ---- */

void
sm_set_ipoib_partitions(struct sm *sm, sm_ipoib_fn fn, void *arg)
{
	if (sm == NULL)
		return;
	sm->ipoib_fn = fn;
	sm->ipoib_arg = fn ? arg : NULL;
}

bool
sm_ipoib_partition(const struct sm *sm, size_t i, struct sm_ipoib *out)
{
	return sm->ipoib_fn != NULL && sm->ipoib_fn(i, out, sm->ipoib_arg);
}

/* The IPoIB broadcast group of a partition, created before any host asks:
 * the kernel's first join names only MGID, PortGID, P_Key and JoinState. */
static void
ensure_broadcast(struct sm *sm, const struct sm_ipoib *ip)
{
	uint8_t mgid[16];
	struct mc_params p = {
		.qkey = ip->qkey, .pkey = (uint16_t)(ip->pkey | 0x8000), .mtu = ip->mtu,
		.rate = ip->rate, .sl = ip->sl, .pkt_life = 18, .scope = 2,
	};
	struct mc_group *g;

	mc_ipoib_broadcast_mgid(p.pkey, p.scope, mgid);
	if ((g = mc_find(sm->mc, mgid)) != NULL) {
		g->sm_owned = true;
		return;
	}
	if (mc_create(sm->mc, mgid, &p, true) == NULL)
		log_warnx("sm: no MLID left for the IPoIB group of P_Key 0x%04x", p.pkey);
}

void
sm_mcast_ensure_groups(struct sm *sm)
{
	struct sm_ipoib ip;

	if (sm->cfg.ipoib_default) {
		ip = (struct sm_ipoib){ .pkey = 0x7FFF, .mtu = IB_MTU_LEN_2048,
		    .rate = IB_PATH_RECORD_RATE_10_GBS, .sl = 0, .qkey = 0x0B1B };
		ensure_broadcast(sm, &ip);
	}
	for (size_t i = 0; sm_ipoib_partition(sm, i, &ip); i++)
		ensure_broadcast(sm, &ip);
}

/* ---- programming ---- */

static void
block_data(const struct mft_switch *s, uint16_t *tbl, unsigned block, unsigned pos,
    uint8_t data[IB_SMP_DATA_SIZE])
{
	ib_net16_t *e = (ib_net16_t *)data;

	memset(data, 0, IB_SMP_DATA_SIZE);
	for (unsigned i = 0; i < MFT_BLOCK; i++)
		e[i] = htobe16(*entry(tbl, s, block * MFT_BLOCK + i, pos));
}

static void
take_block(struct mft_switch *s, unsigned block, unsigned pos, const uint8_t *data)
{
	const ib_net16_t *e = (const ib_net16_t *)data;

	for (unsigned i = 0; i < MFT_BLOCK; i++)
		*entry(s->have, s, block * MFT_BLOCK + i, pos) = be16toh(e[i]);
	s->known[block] |= (uint16_t)(1u << pos);
}

static bool
block_differs(const struct mft_switch *s, unsigned block, unsigned pos)
{
	for (unsigned i = 0; i < MFT_BLOCK; i++) {
		unsigned off = block * MFT_BLOCK + i;

		if (s->have[(size_t)off * s->npos + pos] != s->want[(size_t)off * s->npos + pos])
			return true;
	}
	return false;
}

static uint32_t
mft_mod(unsigned block, unsigned pos)
{
	return (uint32_t)pos << 28 | block;
}

static void
on_mft_set(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct mft_switch *s = arg;

	if (mad_reply_ok(res)) {
		const ib_smp_t *smp = (const ib_smp_t *)res->mad;
		uint32_t mod = be32toh(smp->attr_mod);

		take_block(s, mod & 0x1FF, mod >> 28, smp->data);
		return;
	}
	sm_unreachable(sm, "MFT block of %s", s->node ? sm_node_label(s->node, name,
	    sizeof(name)) : "a switch");
}

static void
write_block(struct sm *sm, struct mft_switch *s, unsigned block, unsigned pos)
{
	uint8_t data[IB_SMP_DATA_SIZE] MAD_ALIGNED;

	block_data(s, s->want, block, pos, data);
	s->known[block] &= (uint16_t)~(1u << pos);	/* until the switch says yes */
	sm_send(sm, &s->addr, IB_MAD_METHOD_SET, UMAD_SM_ATTR_MCAST_FT, mft_mod(block, pos), data,
	    on_mft_set, s);
	sm->cur.mft_blocks++;
	sm->mft_blocks_written++;
}

static void
on_mft_get(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct mft_switch *s = arg;
	const ib_smp_t *smp;
	unsigned block, pos;

	if (!mad_reply_ok(res))
		return;		/* stays unknown: judged again next time */
	smp = (const ib_smp_t *)res->mad;
	block = be32toh(smp->attr_mod) & 0x1FF;
	pos = be32toh(smp->attr_mod) >> 28;
	if (block >= MFT_BLOCKS || pos >= s->npos)
		return;
	take_block(s, block, pos, smp->data);
	if (block_differs(s, block, pos))
		write_block(sm, s, block, pos);
}

static void
on_top_set(const struct mad_result *res, void *owner, void *arg)
{
	struct mft_switch *s = arg;

	s->top_known = mad_reply_ok(res);
}

static void
set_top(struct sm *sm, struct mft_switch *s, uint16_t top)
{
	uint8_t data[IB_SMP_DATA_SIZE] MAD_ALIGNED;
	ib_switch_info_t *si = (ib_switch_info_t *)data;

	memcpy(data, s->node->si, sizeof(data));
	si->lin_top = htobe16(s->node->lft_top);
	si->mcast_top = htobe16(top);
	si->life_state &= (uint8_t)~IB_SWITCH_PSC;	/* write-1-to-clear: not ours */
	s->top = top;
	s->top_known = false;
	sm_send(sm, &s->addr, IB_MAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, data, on_top_set, s);
}

/* Blocks holding an MLID in use, and the highest such MLID. */
static unsigned
used_blocks(const struct mc_db *db, uint16_t *top)
{
	unsigned hi = 0;

	*top = MFT_NO_TOP;
	for (size_t i = 0; i < db->ngroups; i++) {
		unsigned off = (unsigned)(db->groups[i]->mlid - MC_MLID_BASE);

		if (off + 1 > hi)
			hi = off + 1;
	}
	if (hi)
		*top = (uint16_t)(MC_MLID_BASE + hi - 1);
	return (hi + MFT_BLOCK - 1) / MFT_BLOCK;
}

/* One group's tree into the switches' wanted tables. */
static void
fill_group(struct sm *sm, struct fabric *f, const struct mc_group *g)
{
	struct fabric_node *n;
	struct mc_tree t;
	size_t i;

	if (mc_tree_compute(f, g, &t))
		FABRIC_FOREACH_NODE(f, i, n) {
			struct mft_switch *s;

			if (n->type != FABRIC_SWITCH || !t.in_tree[i])
				continue;
			s = mft_switch_of(sm, n);
			for (unsigned pos = 0; pos < s->npos; pos++)
				*entry(s->want, s, g->mlid - MC_MLID_BASE, pos) =
				    (uint16_t)(t.ports[i][pos / 4] >> (pos % 4 * 16));
		}
	mc_tree_free(&t);
}

/* A switch new to the model (or back after being gone) may have lost its
 * tables: nothing it holds is known any more. */
static void
forget_if_new(struct sm *sm, struct mft_switch *s)
{
	if (sm->fabric == NULL || sm->fabric == sm->next ||
	    fabric_node_by_guid(sm->fabric, s->guid) == NULL) {
		memset(s->known, 0, sizeof(s->known));
		s->top_known = false;
	}
}

/* A switch's wanted table starts empty (its first sight allocates it). */
static void
clear_want(struct sm *sm, struct fabric_node *n, bool new_model)
{
	struct mft_switch *s = mft_switch_of(sm, n);

	if (new_model)
		forget_if_new(sm, s);
	memset(s->want, 0, (size_t)MC_MLID_MAX * s->npos * sizeof(uint16_t));
}

/* Read what is unknown, write what differs, of one switch. */
static void
program_switch_mft(struct sm *sm, struct fabric_node *n, unsigned nblocks, uint16_t top)
{
	struct mft_switch *s = mft_switch_of(sm, n);
	unsigned upto = nblocks > s->used_blocks ? nblocks : s->used_blocks;

	for (unsigned b = 0; b < upto; b++)
		for (unsigned pos = 0; pos < s->npos; pos++) {
			if (!(s->known[b] & (1u << pos)))
				sm_send(sm, &s->addr, IB_MAD_METHOD_GET, UMAD_SM_ATTR_MCAST_FT,
				    mft_mod(b, pos), NULL, on_mft_get, s);
			else if (block_differs(s, b, pos))
				write_block(sm, s, b, pos);
		}
	s->used_blocks = nblocks;
	if (!s->top_known || s->top != top)
		set_top(sm, s, top);
}

/*
 * The programming runs as a producer of the SM's batch (mad_batch_feed):
 * a switch's table cleared, then a group's tree, then a switch's MADs,
 * per call, so that the batch yields to the loop between them (all of it
 * held the loop 8-20 ms in one step at 180 switches, the first sight of
 * the switches' tables included).  The model does not change under it:
 * the sweep waits for the batch.  Groups that come or go meanwhile bump
 * mc.gen: the next light sweep programs again.
 */
static struct fabric_node *
next_switch(struct sm_mc_feed *c)
{
	while (c->node < fabric_node_count(c->f)) {
		struct fabric_node *n = fabric_node_at(c->f, c->node++);

		if (n->type == FABRIC_SWITCH)
			return n;
	}
	return NULL;
}

static bool
mc_feed(void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_mc_feed *c = arg;
	struct fabric_node *n;

	if (!c->cleared) {
		if ((n = next_switch(c)) != NULL) {
			clear_want(sm, n, c->new_model);
			return true;
		}
		c->cleared = true;
		c->node = 0;
	}
	if (c->group < sm->mc->ngroups) {
		fill_group(sm, c->f, sm->mc->groups[c->group++]);
		return true;
	}
	if ((n = next_switch(c)) == NULL)
		return false;
	program_switch_mft(sm, n, c->nblocks, c->top);
	return true;
}

void
sm_mcast_program(struct sm *sm, struct fabric *f, bool new_model)
{
	struct sm_mc_feed *c = &sm->mc_feed;

	*c = (struct sm_mc_feed){ .f = f, .new_model = new_model };
	c->nblocks = used_blocks(sm->mc, &c->top);
	sm->mc_gen_programmed = sm->mc->gen;
	mad_batch_feed(&sm->batch, sm_feed_cap(sm), mc_feed, c);
}

/* ---- the audit's view (audit_mft.c) ---- */

/* The switch's record, when it is the one of node n as modelled now. */
static struct mft_switch *
mft_record(struct sm *sm, const struct fabric_node *n)
{
	struct mft_switch *s;

	if (n->type != FABRIC_SWITCH || (s = guid_map_get(&sm->mft, n->guid)) == NULL)
		return NULL;
	return s->npos == n->nports / 16u + 1 ? s : NULL;
}

size_t
sm_mcast_mft_items(struct sm *sm, const struct fabric_node *n)
{
	const struct mft_switch *s = mft_record(sm, n);

	return s ? (size_t)s->used_blocks * s->npos : 0;
}

bool
sm_mcast_mft_item(struct sm *sm, const struct fabric_node *n, size_t k, unsigned *block,
    unsigned *pos)
{
	const struct mft_switch *s = mft_record(sm, n);

	if (s == NULL || k >= (size_t)s->used_blocks * s->npos)
		return false;
	*block = (unsigned)(k / s->npos);
	*pos = (unsigned)(k % s->npos);
	return true;
}

bool
sm_mcast_mft_want(struct sm *sm, const struct fabric_node *n, unsigned block, unsigned pos,
    uint8_t data[64])
{
	struct mft_switch *s = mft_record(sm, n);

	/* not known: a read or a write of the block is still under way */
	if (s == NULL || block >= s->used_blocks || pos >= s->npos ||
	    !(s->known[block] & (1u << pos)))
		return false;
	block_data(s, s->want, block, pos, data);
	return true;
}

void
sm_mcast_mft_note_held(struct sm *sm, const struct fabric_node *n, unsigned block, unsigned pos,
    const uint8_t *data)
{
	struct mft_switch *s = mft_record(sm, n);

	if (s != NULL && block < MFT_BLOCKS && pos < s->npos)
		take_block(s, block, pos, data);
}

/* ---- the SA's view (MFTRecord, sa_tables.c) ---- */

/* As OpenSM's max block in use: the blocks up to the last one in which
 * the SM's trees give n an entry. */
unsigned
sm_mcast_mft_sa_blocks(void *arg, const struct fabric_node *n)
{
	struct mft_switch *s = mft_record(arg, n);

	if (s == NULL)
		return 0;
	for (unsigned b = s->used_blocks; b > 0; b--)
		for (unsigned off = (b - 1) * MFT_BLOCK; off < b * MFT_BLOCK; off++)
			for (unsigned pos = 0; pos < s->npos; pos++)
				if (*entry(s->want, s, off, pos))
					return b;
	return 0;
}

/* What the switch holds in that block, as the SM knows it (it wrote the
 * block or read it back). */
bool
sm_mcast_mft_sa_block(void *arg, const struct fabric_node *n, unsigned block, unsigned pos,
    uint16_t ports[SM_MFT_BLOCK_MLIDS])
{
	struct mft_switch *s = mft_record(arg, n);

	if (s == NULL || block >= MFT_BLOCKS || pos >= s->npos || !(s->known[block] & (1u << pos)))
		return false;
	for (unsigned i = 0; i < MFT_BLOCK; i++)
		ports[i] = *entry(s->have, s, block * MFT_BLOCK + i, pos);
	return true;
}

uint32_t
sm_mcast_mft_mod(unsigned block, unsigned pos)
{
	return mft_mod(block, pos);
}

/* ---- read back and compare ---- */

static void
on_verify_get(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct mft_switch *s = arg;
	const ib_smp_t *smp;
	uint8_t want[IB_SMP_DATA_SIZE];
	unsigned block, pos;

	if (!mad_reply_ok(res))
		return;
	smp = (const ib_smp_t *)res->mad;
	block = be32toh(smp->attr_mod) & 0x1FF;
	pos = be32toh(smp->attr_mod) >> 28;
	if (block >= MFT_BLOCKS || pos >= s->npos || !(s->known[block] & (1u << pos)))
		return;
	block_data(s, s->have, block, pos, want);
	if (memcmp(want, smp->data, MFT_BLOCK * 2) != 0) {
		sm->mft_verify_mismatches++;
		s->known[block] &= (uint16_t)~(1u << pos);	/* rewritten next pass */
	}
}

unsigned
sm_mcast_mft_verify(struct sm *sm, struct fabric *f)
{
	struct fabric_node *n;
	unsigned sent = 0;
	size_t i;

	FABRIC_FOREACH_NODE(f, i, n) {
		struct mft_switch *s;

		if (n->type != FABRIC_SWITCH || (s = guid_map_get(&sm->mft, n->guid)) == NULL)
			continue;
		sm_path_of(n, &s->addr);
		s->node = n;
		for (unsigned b = 0; b < s->used_blocks; b++)
			for (unsigned pos = 0; pos < s->npos; pos++)
				if (s->known[b] & (1u << pos)) {
					sm_send(sm, &s->addr, IB_MAD_METHOD_GET, UMAD_SM_ATTR_MCAST_FT,
					    mft_mod(b, pos), NULL, on_verify_get, s);
					sent++;
				}
	}
	return sent;
}
