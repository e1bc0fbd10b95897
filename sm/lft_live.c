/*
 * Reading the forwarding tables the switches hold now, for the LIDs a
 * question is about (sm.h, sm_lft_read_live): an observer's pre-flight
 * and its `route`.
 *
 * An observer's copy of the tables is as old as its last read of the SA,
 * and a master may have moved routes since (a cable failed, it repaired
 * them): a pre-flight that walked the copy failed healthy jobs on routes
 * the switches no longer hold.  So the blocks that hold the LIDs asked
 * about are read from every switch of the view, one SMP Get
 * (LinearForwardingTable, LID-routed: a Get, which any node may send,
 * never a Set) per switch and block, and written into the view: what the
 * switch answered is newer than anything the SA said.  A switch that does
 * not answer keeps its copy and is counted.
 */
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sm.h>

#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

#define LFT_BLOCK	64

struct lft_get {
	uint64_t	 guid;		/* the switch */
	uint16_t	 lid;
	uint16_t	 block;
};

struct lft_read {
	struct sm		*sm;
	struct mad_batch	 batch;
	struct lft_get		*get;
	size_t			 n, next;
	struct sm_lft_live	 res;
	sm_lft_done_fn		 done;
	void			*arg;
};

/* The block into the switch as the view has it now (a read of the SA may
 * have replaced the model meanwhile: the switch is found by its GUID). */
static void
take_block(struct lft_read *r, const struct lft_get *g, const uint8_t *data)
{
	struct fabric *f = r->sm->fabric;
	struct fabric_node *sw = f ? fabric_node_by_guid(f, g->guid) : NULL;
	size_t base = (size_t)g->block * LFT_BLOCK;
	bool was_known;

	if (sw == NULL || sw->type != FABRIC_SWITCH)
		return;
	was_known = sw->lft_known && sw->lft != NULL;
	fabric_lft_reserve(sw, base + LFT_BLOCK);
	for (size_t i = 0; i < LFT_BLOCK; i++) {
		if (sw->lft[base + i] != data[i])
			r->res.entries_changed += was_known;
		sw->lft[base + i] = data[i];
		/* a LID routed beyond the top the SA gave is routed all the same */
		if (data[i] != 0xFF && base + i > sw->lft_top)
			sw->lft_top = (uint16_t)(base + i);
	}
	sw->lft_known = true;
}

static void
on_reply(const struct mad_result *res, void *owner, void *arg)
{
	struct lft_read *r = owner;
	const struct lft_get *g = arg;

	if (!mad_reply_ok(res)) {
		r->res.blocks_failed++;
		if (r->res.unread_guid == 0)
			r->res.unread_guid = g->guid;
		return;
	}
	r->res.blocks_read++;
	take_block(r, g, ((const ib_smp_t *)res->mad)->data);
}

static void
finished(void *owner)
{
	struct lft_read *r = owner;

	r->res.read_ms = event_now_ms();
	r->sm->lft_live_ms = r->res.read_ms;
	r->done(&r->res, r->arg);
	mad_batch_free(&r->batch);
	free(r->get);
	free(r);
}

/* One Get a call while the window has room (mad_batch_feed). */
static bool
feed(void *owner, void *arg)
{
	struct lft_read *r = owner;
	struct mad_addr a = { 0 };
	struct lft_get *g;

	(void)arg;
	if (r->next == r->n)
		return false;
	g = &r->get[r->next++];
	a.dlid = g->lid;
	mad_batch_smp(&r->batch, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_LINEAR_FT, g->block, NULL,
	    on_reply, g);
	return true;
}

static int
u16_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* The distinct blocks of lids, sorted, into blocks[]; how many. */
static size_t
blocks_of(const uint16_t *lids, size_t n, uint16_t *blocks)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (lids[i] != 0)
			blocks[k++] = (uint16_t)(lids[i] / LFT_BLOCK);
	qsort(blocks, k, sizeof(*blocks), u16_cmp);
	n = k;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || blocks[k - 1] != blocks[i])
			blocks[k++] = blocks[i];
	return k;
}

int
sm_lft_read_live(struct sm *sm, const uint16_t *lids, size_t nlids, sm_lft_done_fn done,
    void *arg)
{
	struct fabric_node *sw;
	struct lft_read *r;
	uint16_t *blocks;
	size_t nb, nsw = 0, i;

	if (sm == NULL || sm->fabric == NULL || nlids == 0)
		return -1;
	blocks = xcalloc(nlids, sizeof(*blocks));
	if ((nb = blocks_of(lids, nlids, blocks)) == 0) {
		free(blocks);
		return -1;
	}
	FABRIC_FOREACH_NODE(sm->fabric, i, sw)
		nsw += sw->type == FABRIC_SWITCH && sw->lid != 0;
	r = xcalloc(1, sizeof(*r));
	r->sm = sm;
	r->get = xcalloc(nsw * nb + 1, sizeof(*r->get));
	FABRIC_FOREACH_NODE(sm->fabric, i, sw) {
		if (sw->type != FABRIC_SWITCH || sw->lid == 0)
			continue;
		for (size_t b = 0; b < nb; b++)
			r->get[r->n++] = (struct lft_get){ sw->guid, sw->lid, blocks[b] };
	}
	free(blocks);
	r->res.switches = nsw;
	r->res.blocks = nb;
	r->done = done;
	r->arg = arg;
	mad_batch_init(&r->batch, &sm->batch.io, r);
	mad_batch_set_base(&r->batch, sm->fd ? sm->fd->base : NULL);
	mad_batch_feed(&r->batch, sm_feed_cap(sm), feed, NULL);
	mad_batch_wait(&r->batch, finished);
	return 0;
}

int64_t
sm_lft_live_ms(const struct sm *sm)
{
	return sm ? sm->lft_live_ms : 0;
}
