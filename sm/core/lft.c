/*
 * Linear forwarding tables: learn what each switch holds, compute what it
 * should hold (fabric/routing.h), write only the 64-entry blocks that differ.
 *
 * What a switch holds is known because we wrote it (carried from the
 * previous model while LinearFDBTop is unchanged) or because we read it
 * back on first sight.  Reading back costs Gets but no Sets, so a daemon
 * restart on a routed fabric writes no LFT block at all.
 *
 * A block being read or written is UNKNOWN (ROUTING_UNKNOWN_PORT) in the
 * copy until a reply says what the switch holds: a Set that gets no answer
 * may or may not have landed, so it is never assumed either way.  The next
 * heavy sweep's diff writes an unknown block again, and so does every light
 * sweep (sm_lft_mend), so that a fabric that lost MADs is mended without a
 * topology change to start a heavy sweep.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

#define BLOCK ROUTING_BLOCK_SIZE

static void
on_lft_get(const struct mad_result *res, void *owner, void *arg)
{
	struct fabric_node *n = arg;

	if (mad_reply_ok(res)) {
		const ib_smp_t *smp = (const ib_smp_t *)res->mad;
		uint32_t block = be32toh(smp->attr_mod);

		if ((block + 1) * BLOCK <= n->lft_len)
			memcpy(n->lft + block * BLOCK, smp->data, BLOCK);
	}
	/* On failure the block stays unknown, which differs from any
	 * route: it will be written. */
}

/* Take over what the previous model knew about this switch's table. */
static bool
carry_over(struct sm *sm, struct fabric_node *n)
{
	struct fabric_node *old;

	if (sm->fabric == NULL || (old = fabric_node_by_guid(sm->fabric, n->guid)) == NULL)
		return false;
	if (!old->lft_known || old->lft_top != n->lft_top || old->lft == NULL)
		return false;
	free(n->lft);
	n->lft = old->lft;
	n->lft_len = old->lft_len;
	old->lft = NULL;
	old->lft_len = 0;
	old->lft_known = false;
	n->lft_known = true;
	return true;
}

void
sm_lft_readback(struct sm *sm)
{
	struct fabric_node *n;
	struct mad_addr a;
	size_t i;
	unsigned b;

	FABRIC_FOREACH_NODE(sm->next, i, n) {
		if (n->type != FABRIC_SWITCH || carry_over(sm, n))
			continue;
		n->lft_known = true;
		fabric_lft_reserve(n, (size_t)n->lft_top + 1);
		if (n->lft_top == 0)
			continue;	/* nothing routed yet: all 0xFF */
		memset(n->lft, ROUTING_UNKNOWN_PORT, n->lft_len);
		sm_path_of(n, &a);
		for (b = 0; b <= n->lft_top / BLOCK; b++)
			sm_send(sm, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_LINEAR_FT, b, NULL, on_lft_get, n);
	}
}

/* The reply is what the switch holds now; without one the block stays
 * unknown (lft_send_block marked it). */
static void
on_lft_set(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_node *n = arg;

	if (sm->lft_inflight)
		sm->lft_inflight--;
	if (mad_reply_ok(res)) {
		const ib_smp_t *smp = (const ib_smp_t *)res->mad;
		uint32_t block = be32toh(smp->attr_mod);

		fabric_lft_reserve(n, (block + 1) * BLOCK);
		memcpy(n->lft + block * BLOCK, smp->data, BLOCK);
	} else
		sm_unreachable(sm, "LFT block of %s", sm_node_label(n, name, sizeof(name)));
}

void
sm_lft_mark_unknown(struct fabric_node *n, unsigned block)
{
	fabric_lft_reserve(n, ((size_t)block + 1) * BLOCK);
	memset(n->lft + (size_t)block * BLOCK, ROUTING_UNKNOWN_PORT, BLOCK);
}

/* One block's Set of these 64 entries: unknown in the copy until its
 * reply comes. */
static void
lft_send(struct sm *sm, struct fabric_node *n, const struct mad_addr *a, uint16_t block,
    const uint8_t *entries)
{
	sm_lft_mark_unknown(n, block);
	sm->lft_inflight++;
	sm_send(sm, a, IB_MAD_METHOD_SET, UMAD_SM_ATTR_LINEAR_FT, block, entries, on_lft_set, n);
	sm->cur.lft_blocks++;
}

static void
lft_send_block(struct sm *sm, struct fabric_node *n, const struct mad_addr *a,
    const struct routing_lft *want, uint16_t block)
{
	lft_send(sm, n, a, block, want->port + (size_t)block * BLOCK);
}

/* Queue the blocks of n that differ from want (unknown ones included);
 * returns how many. */
static size_t
lft_write_diff(struct sm *sm, struct fabric_node *n, const struct mad_addr *a,
    const struct routing_lft *want)
{
	uint16_t *blocks = xcalloc(want->nblocks ? want->nblocks : 1, sizeof(*blocks));
	size_t nb, k;

	nb = routing_lft_diff(want, n->lft_known ? n->lft : NULL, n->lft_len, blocks);
	for (k = 0; k < nb; k++)
		lft_send_block(sm, n, a, want, blocks[k]);
	free(blocks);
	return nb;
}

/*
 * Light sweep: every block of the published model's switches that differs
 * from the routes (unknown after a lost reply, or found otherwise by the
 * audit's reads) is written again.  On a fabric whose copy is whole this
 * sends nothing.
 */
size_t
sm_lft_mend(struct sm *sm)
{
	const struct routing_lft *want;
	struct fabric_node *n;
	struct mad_addr a;
	size_t i, nb = 0;

	if (sm->fabric == NULL || sm->rt == NULL || sm->state != SM_STATE_MASTER)
		return 0;
	FABRIC_FOREACH_NODE(sm->fabric, i, n) {
		/* the unreachable are probed (recover.c), not written blind */
		if (n->type != FABRIC_SWITCH || n->unreachable || !n->lft_known ||
		    (want = routing_lft_of(sm->rt, n->guid)) == NULL)
			continue;
		sm_path_of(n, &a);
		nb += lft_write_diff(sm, n, &a, want);
	}
	return nb;
}

static void
on_top_set(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_node *n = arg;

	if (mad_reply_ok(res)) {
		const ib_switch_info_t *si = (const ib_switch_info_t *)((const ib_smp_t *)res->mad)->data;
		n->lft_top = be16toh(si->lin_top);
		fabric_lft_reserve(n, (size_t)n->lft_top + 1);
	} else
		sm_unreachable(sm, "LinearFDBTop of %s", sm_node_label(n, name, sizeof(name)));
}

/*
 * Block b of switch n as stage k writes it: the entries whose new way is
 * k hops or fewer from their LID (or that change at once: stage 0, or an
 * entry the SM does not know) take the new port; the others keep what the
 * switch holds.  False when that is what it holds already.
 */
static bool
stage_block(const struct fabric_node *n, const struct routing_lft *want, unsigned b,
    unsigned k, uint8_t *out)
{
	bool differs = false;

	for (unsigned i = 0; i < BLOCK; i++) {
		size_t e = (size_t)b * BLOCK + i;
		uint8_t held = n->lft_known && e < n->lft_len ? n->lft[e] : ROUTING_UNKNOWN_PORT;
		uint8_t st = want->stage ? want->stage[e] : 0;

		out[i] = held == ROUTING_UNKNOWN_PORT || st <= k ? want->port[e] : held;
		differs |= out[i] != held;
	}
	return differs;
}

/* Stage k of a switch's table (the caller has waited for stage k - 1's
 * replies): the blocks whose stage-k content differs from what it holds. */
static void
program_switch(struct sm *sm, struct fabric_node *n, const struct routing_lft *want,
    unsigned k)
{
	uint8_t out[IB_SMP_DATA_SIZE] MAD_ALIGNED;
	struct mad_addr a;

	sm_path_of(n, &a);
	if (k > 1) {
		for (unsigned b = 0; b < want->nblocks; b++)
			if (stage_block(n, want, b, k, out))
				lft_send(sm, n, &a, (uint16_t)b, out);
		return;
	}
	if (want->top != n->lft_top) {
		uint8_t data[IB_SMP_DATA_SIZE] MAD_ALIGNED;	/* a whole SMP payload */
		ib_switch_info_t *si = (ib_switch_info_t *)data;

		memcpy(data, n->si, sizeof(data));
		si->lin_top = htobe16(want->top);
		/* PortStateChange is write-1-to-clear: leave it for the
		 * sweep that reads the ports. */
		si->life_state &= (uint8_t)~IB_SWITCH_PSC;
		sm_send(sm, &a, IB_MAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, data, on_top_set, n);
	}
	if (want->stage == NULL) {
		lft_write_diff(sm, n, &a, want);
		return;
	}
	for (unsigned b = 0; b < want->nblocks; b++)
		if (stage_block(n, want, b, 1, out))
			lft_send(sm, n, &a, (uint16_t)b, out);
}

/* Configured updn roots that are not switches of this fabric: a typo or a
 * switch that is gone.  Operators hear of it once, not every sweep. */
static void
check_roots(struct sm *sm)
{
	char missing[160] = "";
	size_t len = 0, nmissing = 0, r;

	for (r = 0; r < sm->cfg.nupdn_roots; r++) {
		const struct fabric_node *n = fabric_node_by_guid(sm->next, sm->cfg.updn_roots[r]);

		if (n && n->type == FABRIC_SWITCH)
			continue;
		nmissing++;
		if (len + 20 < sizeof(missing))
			len += snprintf(missing + len, sizeof(missing) - len, "%s" GUID_FMT,
			    len ? ", " : "", sm->cfg.updn_roots[r]);
	}
	if (nmissing && !sm->roots_warned) {
		event_post(EV_WARNING, sm_source(sm), NULL, "updn: %zu configured root%s not a switch "
		    "of the fabric: %s", nmissing, nmissing > 1 ? "s are" : " is", missing);
		sm->roots_warned = true;
	}
}

/* Which engine routed and why, as an event whenever that changes (the
 * first routing, auto finding the fabric is no longer a fat tree...). */
static void
say_engine(struct sm *sm)
{
	char said[sizeof(sm->routing_said)];
	bool refused = sm->cfg.routing == ROUTING_FTREE && sm->rt->engine != ROUTING_FTREE;

	snprintf(said, sizeof(said), "%s: %s", routing_engine_name(sm->rt->engine),
	    sm->rt->reason);
	if (strcmp(said, sm->routing_said) == 0)
		return;
	memcpy(sm->routing_said, said, sizeof(said));
	if (refused)
		event_post(EV_WARNING, sm_source(sm), NULL, "routing: ftree refused (%s); routed with updn",
		    sm->rt->reason);
	else
		event_post(EV_INFO, sm_source(sm), NULL, "routing: %s engine (%s%s)",
		    routing_engine_name(sm->rt->engine),
		    sm->cfg.routing == ROUTING_AUTO ? "auto: " : "", sm->rt->reason);
}

/* minhop has no guard against credit loops: look for one in what it
 * computed, and warn once each time the tables come to have one.  ftree
 * and updn cannot have one, so their tables are not searched. */
static void
check_loops(struct sm *sm)
{
	char where[160];
	int rc;

	if (sm->rt->engine != ROUTING_MINHOP) {
		sm->loop_warned = false;
		return;
	}
	rc = routing_credit_loop(sm->rt, where, sizeof(where));
	if (rc == 1 && !sm->loop_warned)
		event_post(EV_WARNING, sm_source(sm), NULL, "routing: the minhop tables have a credit loop "
		    "(%s); updn or ftree route without one", where);
	sm->loop_warned = rc == 1;
}

/*
 * The blocks that differ go out a switch at a time as the window frees
 * (mad_batch_feed), not all at once: queueing a storm's 3,770 LFT Sets in
 * the routing job's callback held the loop 6 ms at 1,296 hosts.  The
 * sweep's next phase wait (sm_phase_wait) waits for the producer.
 *
 * Downstream first: entries that change are written in stages by the
 * hops of their new way (routing_repair.c's stages), each stage once the
 * previous one's Sets have all answered, so a route moves at a switch only
 * when its whole new way downstream is in place.  A fabric routed for the
 * first time (nothing known held) is one stage.
 */
static bool
lft_feed(void *owner, void *arg)
{
	struct sm *sm = owner;
	const struct routing_lft *want;
	struct fabric_node *n;

	(void)arg;
	if (sm->next == NULL || sm->rt == NULL)
		return false;
	for (;;) {
		if (sm->lft_node >= fabric_node_count(sm->next)) {
			if (sm->lft_stage >= sm->rt->stages)
				return false;
			if (sm->lft_inflight > 0)
				return true;	/* called again as they answer */
			sm->lft_stage++;
			sm->lft_node = 0;
			continue;
		}
		n = fabric_node_at(sm->next, sm->lft_node++);
		if (n->type == FABRIC_SWITCH && (want = routing_lft_of(sm->rt, n->guid)) != NULL) {
			program_switch(sm, n, want, sm->lft_stage);
			return true;
		}
	}
}

/* The tables just computed become the memory the next routing repairs
 * from; what was kept and moved goes on the sweep's record and, when a
 * repair moved routes, into the log. */
static void
remember_routes(struct sm *sm, int kept)
{
	const struct routing_repair_stats *r = &sm->rt->repair;

	sm->cur.routed = true;
	sm->cur.route = *r;
	if (kept < 0) {
		/* the old memory stays whole: a repair from it is still valid,
		 * only less exact */
		log_warnx("sm: out of memory keeping the routes for the next repair");
	}
	if (r->repaired && (r->rerouted || r->reverted))
		log_info("sm: routes repaired: %zu entries rerouted, %zu put back, %zu kept; "
		    "%zu CA pairs and %zu LFT blocks move", r->rerouted, r->reverted, r->kept,
		    r->pairs_moved, r->blocks_moved);
	else if (!r->repaired && sm->published)
		log_info("sm: routed afresh (%s): %zu CA pairs and %zu LFT blocks move",
		    r->afresh, r->pairs_moved, r->blocks_moved);
}

/* The tables are computed (on the job's thread, or here): check them,
 * start the blocks that differ, and let the sweep go on. */
static void
routes_ready(struct sm *sm, struct routing_table *rt, const char *err, int kept)
{
	routing_exclude_restore(sm->route_cut, sm->route_ncut);
	sm->route_cut = NULL;
	sm->route_ncut = 0;
	routing_table_free(sm->rt);
	sm->rt = rt;
	if (sm->rt == NULL) {
		log_warnx("sm: routing failed: %s", err);
		sm->cur.ok = false;
		return;
	}
	remember_routes(sm, kept);
	log_debug("sm: routes for %zu LIDs on %zu switches in %llu us", sm->rt->nlids,
	    sm->rt->nswitches, (unsigned long long)sm->rt->usec);
	say_engine(sm);
	check_loops(sm);
	if (sm->rt->updn_fallback && !sm->roots_warned) {
		event_post(EV_WARNING, sm_source(sm), NULL, "updn: the %s roots left switch pairs without "
		    "a legal path; routed from one central root instead",
		    sm->cfg.nupdn_roots ? "configured" : "detected");
		sm->roots_warned = true;
	}
	sm->lft_node = 0;
	sm->lft_stage = 1;
	sm->lft_inflight = 0;
	mad_batch_feed(&sm->batch, sm_feed_cap(sm), lft_feed, NULL);
}

static void
job_done(struct routing_table *rt, const char *err, int kept, void *arg)
{
	struct sm *sm = arg;
	void (*then)(struct sm *) = sm->route_then;

	sm->route_job = NULL;
	sm->route_then = NULL;
	routes_ready(sm, rt, err, kept);
	then(sm);
}

/*
 * The memory repairs start from.  A fresh SM (a start, a restart, a
 * standby taking over) seeds it with what the switches hold, read back by
 * the sweep: the routes they hold stay where they still lead somewhere,
 * and nothing is rebalanced unless an operator asks.  Switches that hold
 * nothing yet (a fabric never routed) get the engine's fresh tables.
 */
static bool
routing_memory_ready(struct sm *sm)
{
	size_t n = fabric_node_count(sm->next);
	struct fabric_node **nodes;
	bool ok;

	if (sm->route_mem != NULL)
		return true;
	if ((sm->route_mem = routing_memory_new()) == NULL)
		return false;
	nodes = xcalloc(n ? n : 1, sizeof(*nodes));
	for (size_t i = 0; i < n; i++)
		nodes[i] = fabric_node_at(sm->next, i);
	ok = routing_memory_seed(sm->route_mem, nodes, n) == 0;
	free(nodes);
	return ok;
}

void
sm_lft_program(struct sm *sm, void (*then)(struct sm *))
{
	struct routing_params params = {
		.engine = sm->cfg.routing,
		.root_guids = sm->cfg.updn_roots,
		.nroots = sm->cfg.nupdn_roots,
	};
	struct routing_table *rt;
	char err[256] = "";

	if (params.engine == ROUTING_UPDN)
		check_roots(sm);
	if (!routing_memory_ready(sm)) {
		sm->cur.ok = false;
		log_warnx("sm: out of memory for the route memory; routing afresh");
	}
	params.mem = sm->route_mem;
	params.rebalance = sm->rebalance;
	sm->cur.rebalance = sm->rebalance;
	sm->cur.rebalance_seq = sm->rebalance != ROUTING_REPAIR ? sm->rebalance_seq : 0;
	sm->rebalance = ROUTING_REPAIR;
	sm->route_ncut = routing_exclude_cut(sm->next, &sm->route_cut);
	if (sm->route_ncut)
		log_info("sm: routed around %zu link(s) isolated by health", sm->route_ncut);
	sm->route_then = then;
	sm->route_job = route_job_start(sm->fd ? sm->fd->base : NULL, sm->next, &params,
	    sm->route_mem, job_done, sm);
	if (sm->route_job != NULL)
		return;
	/* No thread: route here. */
	sm->route_then = NULL;
	rt = routing_compute_fabric(sm->next, &params, err, sizeof(err));
	routes_ready(sm, rt, err, rt && sm->route_mem ? routing_memory_update(sm->route_mem, rt) : -1);
	then(sm);
}

void
sm_lft_abandon(struct sm *sm)
{
	if (sm->route_job == NULL)
		return;
	route_job_abandon(sm->route_job);
	sm->route_job = NULL;
	sm->route_then = NULL;
	routing_exclude_restore(sm->route_cut, sm->route_ncut);
	sm->route_cut = NULL;
	sm->route_ncut = 0;
}
