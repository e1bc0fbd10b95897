/*
 * Repair, not recompute (see fabric/routing.h, the route memory).
 *
 * The engine has just routed the fabric afresh (F, in the table's rows).
 * When a memory of earlier tables is given, the result is instead built
 * from it, destination LID by destination LID:
 *
 *   1. where the balanced reference (base) still leads to the LID over
 *      live links, it is used: a link that came back gets its routes back;
 *   2. elsewhere, what the switch was last given (cur), where that still
 *      leads to the LID: a route that nothing failed under stays put; so
 *      do the ways of the sources the reference cannot serve yet, down to
 *      the destination (pin_displaced: a sweep with nothing changed then
 *      changes nothing);
 *   3. the switches left (their way crossed what went away) get a new
 *      way, nearest to the destination first, each onto a neighbour that
 *      already has one: a way down where one exists, else a way up (the
 *      up/down rules of ftree and updn, with the ranks the engine gave),
 *      else for switch-to-switch management any way; among the shortest,
 *      the port the switch already uses, then the port carrying the
 *      fewest LIDs.
 *
 * A LID no memory row routes (a new host) takes F's column whole.  The
 * up/down ranks are those the memory was routed with (its entries are
 * legal in them), the engine's only for switches it lacks.  When the
 * engine changed, or a rebalance is asked, F is the result (routed
 * afresh) and says why.  Then the sources that had to move are placed
 * where the links are least busy (routing_repair_flow.c).
 *
 * Every way is checked by walking it: a switch's entry is good only when
 * following entries from it reaches the LID's switch over links of this
 * fabric without a loop.  So entries of a memory are never trusted, only
 * reused; the result has no loop by construction.  Entries with no up/down
 * way for a CA (rare: a shortest-path last resort) make the whole table
 * checked for credit loops, and a table with one is routed afresh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/routing_repair.h"

static uint8_t
row_at(const uint8_t *row, size_t len, uint16_t lid)
{
	return row && lid < len ? row[lid] : ROUTING_NO_PORT;
}

static uint8_t
base_of(const struct repair *r, size_t s, uint16_t lid)
{
	return r->mem[s] ? row_at(r->mem[s]->base, r->mem[s]->len, lid) : ROUTING_NO_PORT;
}

static uint8_t
cur_of(const struct repair *r, size_t s, uint16_t lid)
{
	return r->mem[s] ? row_at(r->mem[s]->cur, r->mem[s]->len, lid) : ROUTING_NO_PORT;
}

static uint8_t
hop_flags(const struct repair *r, size_t s, uint32_t v, uint8_t fv)
{
	bool up;

	if (!r->updn)
		return FL_LEGAL;
	up = is_up_hop(r, s, v);
	return (uint8_t)((!up && (fv & FL_DOWN) ? FL_DOWN : 0) |
	    ((fv & FL_LEGAL) && (up || (fv & FL_DOWN)) ? FL_LEGAL : 0));
}

/*
 * Where the entries e[] lead toward destination switch d: st ALIVE (with
 * len hops and flags) for a switch whose entries reach d over live links,
 * DEAD otherwise.  Each chain is followed once and remembered, so the walk
 * costs one step per switch.
 */
static void
walk_entries(struct repair *r, uint32_t d)
{
	size_t ns = r->g->ns;

	memset(r->st, W_UNKNOWN, ns);
	r->st[d] = W_ALIVE;
	r->len[d] = 0;
	r->fl[d] = FL_DOWN | FL_LEGAL;
	for (size_t s = 0; s < ns; s++) {
		size_t top = 0;
		uint32_t x = (uint32_t)s;

		while (r->st[x] == W_UNKNOWN) {
			uint32_t v = next_of(r, x, r->e[x]);

			r->st[x] = W_VISITING;
			r->stack[top++] = x;
			if (v == NO_NBR)
				break;
			x = v;
		}
		while (top > 0) {
			uint32_t y = r->stack[--top], v = next_of(r, y, r->e[y]);

			if (v == NO_NBR || r->st[v] != W_ALIVE) {
				r->st[y] = W_DEAD;
				continue;
			}
			r->st[y] = W_ALIVE;
			r->len[y] = (uint16_t)(r->len[v] + 1);
			r->fl[y] = hop_flags(r, y, v, r->fl[v]);
		}
	}
}

/* Whether any memory row routes lid (else it is new: F's column). */
static bool
lid_remembered(const struct repair *r, uint16_t lid)
{
	for (size_t s = 0; s < r->g->ns; s++)
		if (base_of(r, s, lid) != ROUTING_NO_PORT || cur_of(r, s, lid) != ROUTING_NO_PORT)
			return true;
	return false;
}

static void
put(struct repair *r, size_t s, uint16_t lid, uint8_t port)
{
	r->out[s][lid] = port;
	if (port != ROUTING_NO_PORT)
		r->t->lfts[s].routes[port]++;
}

/*
 * The sources the reference cannot serve yet (their way by it is still
 * dead) keep the ways they were given, down to the destination: the
 * switches on them are pinned to their last entries, even where the
 * reference leads there again.  So a sweep with nothing changed changes
 * nothing (the balance a repair found stays), and a source goes back to
 * the reference only once its own way by it is whole (the link returned).
 */
static void
pin_displaced(struct repair *r, uint32_t d, uint16_t lid)
{
	size_t ns = r->g->ns;
	bool any = false;

	memset(r->pin, 0, ns);
	for (size_t s = 0; s < ns && !any; s++)
		any = !r->bgood[s] && r->ncas[s] > (s == d);
	if (!any)
		return;
	for (size_t s = 0; s < ns; s++)
		r->e[s] = s == d ? r->e[s] : cur_of(r, s, lid);
	walk_entries(r, d);
	for (size_t s = 0; s < ns; s++) {
		uint32_t x = (uint32_t)s;

		if (r->bgood[s] || r->ncas[s] <= (s == d) || r->st[s] != W_ALIVE)
			continue;
		for (size_t hops = 0; x != d && !r->pin[x] && hops < ns; hops++) {
			r->pin[x] = 1;
			x = next_of(r, x, r->e[x]);
			if (x == NO_NBR)
				break;
		}
	}
	for (size_t s = 0; s < ns; s++)		/* back to the reference's */
		r->e[s] = s == d ? r->e[s] : base_of(r, s, lid);
}

/* Steps 1 and 2 for one LID: keep what still leads there; the switches
 * left go to r->broken. */
static void
keep_column(struct repair *r, uint32_t d, const struct dest_lid *dl)
{
	size_t ns = r->g->ns;
	uint16_t lid = dl->lid;

	r->nbroken = 0;
	if (!lid_remembered(r, lid)) {
		for (size_t s = 0; s < ns; s++)
			put(r, s, lid, r->fresh[s][lid]);
		r->t->repair.new_lids++;
		return;
	}
	bool same = true;

	for (size_t s = 0; s < ns; s++)
		r->e[s] = s == d ? dl->port : base_of(r, s, lid);
	walk_entries(r, d);
	for (size_t s = 0; s < ns; s++)
		r->bgood[s] = r->st[s] == W_ALIVE;
	pin_displaced(r, d, lid);
	for (size_t s = 0; s < ns; s++)
		if (s != d && (!r->bgood[s] || r->pin[s]) && r->e[s] != cur_of(r, s, lid)) {
			r->e[s] = cur_of(r, s, lid);
			same = false;
		}
	if (!same)	/* else the walk of the reference stands */
		walk_entries(r, d);
	for (size_t s = 0; s < ns; s++) {
		if (r->st[s] != W_ALIVE) {
			r->broken[r->nbroken++] = (uint32_t)s;
			continue;
		}
		put(r, s, lid, r->e[s]);
		if (s == d)
			continue;
		if (r->e[s] == cur_of(r, s, lid))
			r->t->repair.kept++;
		else
			r->t->repair.reverted++;
	}
	if (dl->port != 0)
		column_flows(r, d, r->w);	/* what stays loads the links */
}

/* Rank of port p among a broken switch's ways of equal length: the port
 * it used (its next switch has a way again: no block to write), then the
 * engine's fresh choice for the fabric as it is now, then none.  The
 * balance of what moves is placed after (routing_repair_flow.c). */
static int
pref(uint8_t p, uint8_t fresh, uint8_t now)
{
	return p == now ? 0 : p == fresh ? 1 : 2;
}

/* The best way for broken switch s in this phase: the shortest, then by
 * pref(), then the fewest LIDs, then the lowest port. */
static void
best_offer(struct repair *r, int phase, uint32_t s, uint16_t lid)
{
	const struct graph *g = r->g;
	const uint32_t *routes = r->t->lfts[s].routes;
	uint8_t now = cur_of(r, s, lid), fresh = r->fresh[s][lid], bp = ROUTING_NO_PORT;
	uint16_t bl = INF;

	for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++) {
		uint32_t v = g->adj[k].nbr;
		uint8_t p = g->adj[k].port;
		uint16_t l;

		if (!phase_allows(r, phase, s, v))
			continue;
		l = (uint16_t)(r->len[v] + 1);
		if (bp == ROUTING_NO_PORT || l < bl || (l == bl &&
		    (pref(p, fresh, now) != pref(bp, fresh, now) ?
		    pref(p, fresh, now) < pref(bp, fresh, now) :
		    routes[p] != routes[bp] ? routes[p] < routes[bp] : p < bp))) {
			bp = p;
			bl = l;
		}
	}
	r->off_port[s] = bp;
	r->off_len[s] = bl;
}

/* Settle, round by round, the broken switches a phase can give a way:
 * each round those whose best way is the shortest left, so a way is only
 * ever built onto one already settled. */
static void
settle_phase(struct repair *r, int phase, const struct dest_lid *dl)
{
	for (;;) {
		uint16_t min = INF;

		for (size_t i = 0; i < r->nbroken; i++) {
			uint32_t s = r->broken[i];

			if (r->st[s] == W_ALIVE)
				continue;
			best_offer(r, phase, s, dl->lid);
			if (r->off_len[s] < min)
				min = r->off_len[s];
		}
		if (min == INF)
			return;
		for (size_t i = 0; i < r->nbroken; i++) {
			uint32_t s = r->broken[i], v;

			if (r->st[s] == W_ALIVE || r->off_len[s] != min)
				continue;
			v = next_of(r, s, r->off_port[s]);
			r->st[s] = W_ALIVE;
			r->len[s] = min;
			r->fl[s] = hop_flags(r, s, v, r->fl[v]);
			put(r, s, dl->lid, r->off_port[s]);
			r->t->repair.rerouted++;
			if (r->updn && phase == 3 && dl->port != 0)
				r->t->repair.illegal++;
		}
	}
}

/* Step 3 for one LID whose column keep_column left broken switches in. */
static void
reroute_column(struct repair *r, uint32_t d, const struct dest_lid *dl)
{
	size_t ns = r->g->ns;

	for (size_t s = 0; s < ns; s++)
		r->e[s] = r->out[s][dl->lid];
	walk_entries(r, d);
	if (dl->port != 0) {
		/* the switches that carry flow keep their way; the others
		 * (no source passes them) may be given another */
		column_flows(r, d, NULL);
		for (size_t s = 0; s < ns; s++)
			r->fixed[s] = r->st[s] == W_ALIVE && (r->flow[s] > 0 || s == d);
	}
	for (int phase = r->updn ? 1 : 3; phase <= 3; phase++)
		settle_phase(r, phase, dl);
	for (size_t i = 0; i < r->nbroken; i++)
		if (r->st[r->broken[i]] != W_ALIVE)
			r->t->unreachable++;
	if (dl->port != 0)
		place_moved_flow(r, d, dl->lid);
}

/* Whether any switch's entry for lid differs between rows a and b. */
static bool
column_differs(const struct repair *r, const uint8_t *const *a, const size_t *alen,
    uint8_t *const *b, uint16_t lid)
{
	for (size_t s = 0; s < r->g->ns; s++)
		if (row_at(a[s], alen[s], lid) != b[s][lid])
			return true;
	return false;
}

/*
 * CA-to-CA pairs whose path differs between two sets of rows, a and b
 * (rows of the switches by index; NULL: nothing known, every path through
 * it counts as moved).  A pair's path is decided by the switch its source
 * enters and the LID, so per LID each switch is looked at once: its path
 * moved when its entry differs or the path on from its next switch moved.
 */
static size_t
pairs_between(struct repair *r, const uint8_t *const *a, const size_t *alen,
    uint8_t *const *b)
{
	const uint32_t *ncas = r->ncas;
	const struct graph *g = r->g;
	size_t ns = g->ns, pairs = 0;

	for (uint32_t d = 0; d < ns; d++)
		for (size_t i = g->dst_at[d]; i < g->dst_at[d + 1]; i++) {
			uint16_t lid = g->dst[i].lid;

			if (g->dst[i].port == 0 || !column_differs(r, a, alen, b, lid))
				continue;	/* no entry differs: no path moved */
			/* st: UNKNOWN, VISITING, ALIVE = same way, DEAD = moved */
			memset(r->st, W_UNKNOWN, ns);
			for (size_t s = 0; s < ns; s++) {
				size_t top = 0;
				uint32_t x = (uint32_t)s;

				while (r->st[x] == W_UNKNOWN) {
					uint32_t v = x == d ? NO_NBR : next_of(r, x, b[x][lid]);

					r->st[x] = W_VISITING;
					r->stack[top++] = x;
					if (v == NO_NBR || row_at(a[x], alen[x], lid) != b[x][lid])
						break;
					x = v;
				}
				while (top > 0) {
					uint32_t y = r->stack[--top];
					uint32_t v = y == d ? NO_NBR : next_of(r, y, b[y][lid]);
					bool same = row_at(a[y], alen[y], lid) == b[y][lid] &&
					    (y == d || (v != NO_NBR && r->st[v] == W_ALIVE));

					r->st[y] = same ? W_ALIVE : W_DEAD;
				}
				if (ncas[s] && r->st[s] == W_DEAD)
					pairs += ncas[s] - (s == d);
			}
		}
	return pairs;
}

static size_t
blocks_between(const struct routing_table *t, const uint8_t *const *a, const size_t *alen,
    uint8_t *const *b)
{
	size_t n = 0;

	for (size_t s = 0; s < t->nswitches; s++)
		for (size_t k = 0; k < t->lfts[s].nblocks; k++) {
			size_t lo = k * ROUTING_BLOCK_SIZE;

			if (a[s] == NULL || alen[s] < lo + ROUTING_BLOCK_SIZE ||
			    memcmp(a[s] + lo, b[s] + lo, ROUTING_BLOCK_SIZE) != 0)
				n++;
		}
	return n;
}

/* The least any routing can put on the busiest link of this fabric: the
 * busiest leaf's ceil(L(N-L)/u), L its CAs, u its switch links, N all. */
static uint64_t
balance_bound(const struct repair *r)
{
	const struct graph *g = r->g;
	uint64_t n = 0, bound = 0;

	for (size_t s = 0; s < g->ns; s++)
		n += r->ncas[s];
	for (size_t s = 0; s < g->ns; s++) {
		uint64_t l = r->ncas[s], u = g->adj_at[s + 1] - g->adj_at[s], b;

		if (l == 0 || u == 0)
			continue;
		b = (l * (n - l) + u - 1) / u;
		bound = b > bound ? b : bound;
	}
	return bound;
}

/*
 * The stage of each entry that differs from what its switch holds (known):
 * the hops of its new way to the LID.  Written stage by stage, nearest
 * first, a route changes at a switch only once every switch on its new
 * way downstream holds it (no moved flow meets a half-written path).
 */
static int
set_stages(struct repair *r, uint8_t *const *res, uint32_t d, uint16_t lid)
{
	struct routing_table *t = r->t;

	for (size_t s = 0; s < r->g->ns; s++) {
		const struct fabric_node *n = r->g->sw[s];
		struct routing_lft *l = &t->lfts[s];
		uint8_t held, st;

		if (s == d || !n->lft_known || n->lft == NULL || lid >= n->lft_len ||
		    (held = n->lft[lid]) == ROUTING_UNKNOWN_PORT || held == res[s][lid])
			continue;
		if (l->stage == NULL &&
		    (l->stage = calloc((size_t)l->nblocks * ROUTING_BLOCK_SIZE, 1)) == NULL)
			return -1;
		st = r->st[s] == W_ALIVE ? (uint8_t)(r->len[s] < 255 ? r->len[s] : 255) : 1;
		l->stage[lid] = st;
		t->stages = st > t->stages ? st : t->stages;
	}
	return 0;
}

/* The balance of the tables given (res): every CA route walked, per LID
 * once (column_flows), into the loads of the links; the bound; and the
 * stages of the entries that change. */
static int
measure_balance(struct repair *r, uint8_t *const *res, const uint8_t *const *held,
    const size_t *hlen)
{
	const struct graph *g = r->g;
	bool loads = !r->t->repair.repaired;	/* a repair counted them as it went */

	if (loads)
		memset(r->w, 0, g->adj_at[g->ns] * sizeof(*r->w));
	for (uint32_t d = 0; d < g->ns; d++)
		for (size_t i = g->dst_at[d]; i < g->dst_at[d + 1]; i++) {
			uint16_t lid = g->dst[i].lid;
			bool stages = column_differs(r, held, hlen, res, lid);

			if (!stages && !(loads && g->dst[i].port != 0))
				continue;
			for (size_t s = 0; s < g->ns; s++)
				r->e[s] = res[s][lid];
			walk_entries(r, d);
			if (stages && set_stages(r, res, d, lid) < 0)
				return -1;
			if (loads && g->dst[i].port != 0)
				column_flows(r, d, r->w);
		}
	for (size_t k = 0; k < g->adj_at[g->ns]; k++)
		r->t->repair.hottest = r->w[k] > r->t->repair.hottest ? r->w[k] : r->t->repair.hottest;
	r->t->repair.bound = balance_bound(r);
	return 0;
}

/*
 * The hottest link the fresh tables (a rebalance) would give.  Routing a
 * degraded fabric afresh does not always lower it (60 routes repaired, 64
 * afresh, against a bound of 59 on the 64-host tree with a leaf uplink
 * cut): a dry run says it, so that a rebalance that would not help is not
 * made (sm.rebalance_window).  0 when it cannot be counted.
 */
static uint64_t
fresh_hottest(struct repair *r)
{
	const struct graph *g = r->g;
	size_t nw = g->adj_at[g->ns];
	uint64_t *w = calloc(nw ? nw : 1, sizeof(*w)), hot = 0;

	if (w == NULL)
		return 0;
	for (uint32_t d = 0; d < g->ns; d++)
		for (size_t i = g->dst_at[d]; i < g->dst_at[d + 1]; i++) {
			uint16_t lid = g->dst[i].lid;

			if (g->dst[i].port == 0)
				continue;
			for (size_t s = 0; s < g->ns; s++)
				r->e[s] = r->fresh[s][lid];
			walk_entries(r, d);
			column_flows(r, d, w);
		}
	for (size_t k = 0; k < nw; k++)
		hot = w[k] > hot ? w[k] : hot;
	free(w);
	return hot;
}

/* The counts against what the switches hold, and for a dry rebalance
 * against F; then the balance and the stages. */
static int
count_moves(struct repair *r, const struct routing_params *p, uint8_t *const *res)
{
	const struct graph *g = r->g;
	size_t ns = g->ns;
	const uint8_t **held = calloc(ns, sizeof(*held));
	size_t *hlen = calloc(ns, sizeof(*hlen)), *flen = calloc(ns, sizeof(*flen));
	int rc = -1;

	if (!held || !hlen || !flen)
		goto out;
	for (size_t s = 0; s < ns; s++) {
		const struct fabric_node *n = g->sw[s];

		if (n->lft_known && n->lft) {
			held[s] = n->lft;
			hlen[s] = n->lft_len;
		}
		flen[s] = (size_t)r->t->lfts[s].nblocks * ROUTING_BLOCK_SIZE;
	}
	r->t->repair.pairs_moved = pairs_between(r, held, hlen, res);
	r->t->repair.blocks_moved = blocks_between(r->t, held, hlen, res);
	if (p->rebalance == ROUTING_REBALANCE_DRY && r->t->repair.repaired) {
		r->t->repair.dry_pairs = pairs_between(r, (const uint8_t *const *)res, flen,
		    r->fresh);
		r->t->repair.dry_blocks = blocks_between(r->t, (const uint8_t *const *)res,
		    flen, r->fresh);
		r->t->repair.dry_hottest = fresh_hottest(r);
	}
	rc = measure_balance(r, res, held, hlen);
out:
	free(held);
	free(hlen);
	free(flen);
	return rc;
}

/* Why the memory cannot be repaired from (NULL: it can). */
static const char *
why_afresh(const struct repair *r, const struct routing_params *p)
{
	const struct routing_memory *m = p->mem;

	if (m == NULL || m->n == 0)
		return "first routing";
	if (p->rebalance == ROUTING_REBALANCE)
		return "rebalance asked";
	if (m->engine >= 0 && m->engine != (int)r->t->engine)
		return "the engine changed";
	return NULL;
}

static int
repair_alloc(struct repair *r)
{
	const struct graph *g = r->g;
	size_t ns = g->ns, np = 0;

	r->fresh = calloc(ns, sizeof(*r->fresh));
	r->out = calloc(ns, sizeof(*r->out));
	r->mem = calloc(ns, sizeof(*r->mem));
	r->p2n_at = calloc(ns + 1, sizeof(*r->p2n_at));
	r->e = calloc(ns, 1);
	r->st = calloc(ns, 1);
	r->fl = calloc(ns, 1);
	r->bgood = calloc(ns, 1);
	r->pin = calloc(ns, 1);
	r->off_port = calloc(ns, 1);
	r->len = calloc(ns, sizeof(*r->len));
	r->off_len = calloc(ns, sizeof(*r->off_len));
	r->stack = calloc(ns, sizeof(*r->stack));
	r->broken = calloc(ns, sizeof(*r->broken));
	r->w = calloc(g->adj_at[ns] ? g->adj_at[ns] : 1, sizeof(*r->w));
	r->ncas = calloc(ns, sizeof(*r->ncas));
	r->flow = calloc(ns, sizeof(*r->flow));
	r->fixed = calloc(ns, 1);
	r->order = calloc(ns, sizeof(*r->order));
	r->cnt = calloc(ns + 2, sizeof(*r->cnt));
	r->memo = calloc(ns, sizeof(*r->memo));
	r->memo_at = calloc(ns, sizeof(*r->memo_at));
	if (!r->memo || !r->memo_at ||
	    !r->fresh || !r->out || !r->mem || !r->p2n_at || !r->e || !r->st || !r->fl ||
	    !r->bgood || !r->pin || !r->off_port || !r->len || !r->off_len || !r->stack || !r->broken ||
	    !r->w || !r->ncas || !r->flow || !r->fixed || !r->order || !r->cnt)
		return -1;
	for (size_t s = 0; s < ns; s++)
		for (size_t i = g->dst_at[s]; i < g->dst_at[s + 1]; i++)
			r->ncas[s] += g->dst[i].port != 0;
	for (size_t s = 0; s < ns; s++) {
		r->p2n_at[s] = np;
		np += (size_t)g->sw[s]->nports + 1;
	}
	r->p2n_at[ns] = np;
	r->p2n = malloc(np * sizeof(*r->p2n));
	r->p2k = malloc(np * sizeof(*r->p2k));
	if (r->p2n == NULL || r->p2k == NULL)
		return -1;
	for (size_t i = 0; i < np; i++)
		r->p2n[i] = r->p2k[i] = NO_NBR;
	for (size_t s = 0; s < ns; s++)
		for (size_t k = g->adj_at[s]; k < g->adj_at[s + 1]; k++) {
			r->p2n[r->p2n_at[s] + g->adj[k].port] = g->adj[k].nbr;
			r->p2k[r->p2n_at[s] + g->adj[k].port] = (uint32_t)k;
		}
	return 0;
}

static void
repair_free(struct repair *r)
{
	for (size_t s = 0; r->out && s < r->g->ns; s++)
		free(r->out[s]);
	free(r->fresh);
	free(r->out);
	free(r->mem);
	free(r->p2n_at);
	free(r->p2n);
	free(r->e);
	free(r->st);
	free(r->fl);
	free(r->bgood);
	free(r->pin);
	free(r->off_port);
	free(r->len);
	free(r->off_len);
	free(r->stack);
	free(r->broken);
	free(r->w);
	free(r->ncas);
	free(r->p2k);
	free(r->flow);
	free(r->fixed);
	free(r->order);
	free(r->cnt);
	free(r->memo);
	free(r->memo_at);
}

/* Swap the table's rows with r->out (the result in, or F back), and count
 * the LIDs out of each port anew. */
static void
swap_rows(struct repair *r)
{
	struct routing_table *t = r->t;

	for (size_t s = 0; s < t->nswitches; s++) {
		struct routing_lft *l = &t->lfts[s];
		uint8_t *tmp = l->port;
		size_t n = (size_t)l->nblocks * ROUTING_BLOCK_SIZE;

		l->port = r->out[s];
		r->out[s] = tmp;
		memset(l->routes, 0, ((size_t)l->sw->nports + 1) * sizeof(*l->routes));
		for (size_t i = 0; i < n; i++)
			if (l->port[i] != ROUTING_NO_PORT)
				l->routes[l->port[i]]++;
	}
}

/* Build the result from the memory (steps 1-3) into r->out. */
static void
repair_all(struct repair *r)
{
	const struct graph *g = r->g;
	struct routing_table *t = r->t;

	t->unreachable = 0;
	for (size_t s = 0; s < g->ns; s++) {
		memset(r->out[s], ROUTING_NO_PORT, (size_t)t->lfts[s].nblocks * ROUTING_BLOCK_SIZE);
		memset(t->lfts[s].routes, 0, ((size_t)g->sw[s]->nports + 1) * sizeof(uint32_t));
	}
	/* every kept entry counts in the loads before any way is chosen */
	for (uint32_t d = 0; d < g->ns; d++)
		for (size_t i = g->dst_at[d]; i < g->dst_at[d + 1]; i++) {
			keep_column(r, d, &g->dst[i]);
			for (size_t k = 0; k < r->nbroken; k++)
				r->out[r->broken[k]][g->dst[i].lid] = ROUTING_UNKNOWN_PORT;
		}
	/* the least the busiest link can carry on the fabric as it is, and a
	 * tenth more: the slack (not the last tables' hottest link: repairs
	 * would compound) */
	r->slack = balance_bound(r);
	r->slack += r->slack / 10;
	for (uint32_t d = 0; d < g->ns; d++)
		for (size_t i = g->dst_at[d]; i < g->dst_at[d + 1]; i++) {
			uint16_t lid = g->dst[i].lid;

			r->nbroken = 0;
			for (size_t s = 0; s < g->ns; s++)
				if (r->out[s][lid] == ROUTING_UNKNOWN_PORT) {
					r->out[s][lid] = ROUTING_NO_PORT;
					r->broken[r->nbroken++] = (uint32_t)s;
				}
			if (r->nbroken)
				reroute_column(r, d, &g->dst[i]);
		}
}

int
routing_repair(const struct graph *g, struct routing_table *t, const struct routing_params *p)
{
	struct repair r = { .g = g, .t = t };
	size_t unreachable_fresh = t->unreachable;
	uint8_t **res = calloc(g->ns ? g->ns : 1, sizeof(*res));
	uint16_t *fresh_rank = calloc(g->ns ? g->ns : 1, sizeof(*fresh_rank));
	char where[160];
	const char *why;
	int rc = -1;

	memset(&t->repair, 0, sizeof(t->repair));
	if (res == NULL || fresh_rank == NULL || repair_alloc(&r) < 0)
		goto out;
	r.updn = t->engine != ROUTING_MINHOP;
	for (size_t s = 0; s < g->ns; s++) {
		r.fresh[s] = t->lfts[s].port;
		r.mem[s] = routing_memory_find(p->mem, g->sw[s]->guid);
	}
	if ((why = why_afresh(&r, p)) != NULL) {
		snprintf(t->repair.afresh, sizeof(t->repair.afresh), "%s", why);
		t->repair.rebased = true;
		rc = count_moves(&r, p, r.fresh);
		goto out;
	}
	for (size_t s = 0; s < g->ns; s++)
		if ((r.out[s] = malloc((size_t)t->lfts[s].nblocks * ROUTING_BLOCK_SIZE)) == NULL)
			goto out;
	t->repair.repaired = true;
	/* The up/down order stays the memory's: its entries are legal in it
	 * (the engine's ranks for the fabric as it is now can differ: a core
	 * left with the links of one pod).  Switches it lacks take the
	 * engine's. */
	for (size_t s = 0; s < g->ns; s++) {
		fresh_rank[s] = t->lfts[s].rank;
		if (r.mem[s] && r.mem[s]->ranked)
			t->lfts[s].rank = r.mem[s]->rank;
	}
	repair_all(&r);
	swap_rows(&r);		/* the repair in t, F in r.out (== r.fresh) */
	if (t->repair.illegal && routing_credit_loop(t, where, sizeof(where)) != 0) {
		/* a last-resort way closed a credit loop (or there was no
		 * memory to tell): the engine's own tables have none */
		swap_rows(&r);
		for (size_t s = 0; s < g->ns; s++)
			t->lfts[s].rank = fresh_rank[s];
		memset(&t->repair, 0, sizeof(t->repair));
		snprintf(t->repair.afresh, sizeof(t->repair.afresh),
		    "a repair would close a credit loop");
		t->unreachable = unreachable_fresh;
		for (size_t s = 0; s < g->ns; s++)
			r.fresh[s] = t->lfts[s].port;
	}
	for (size_t s = 0; s < g->ns; s++)
		res[s] = t->lfts[s].port;
	rc = count_moves(&r, p, res);
out:
	free(res);
	free(fresh_rank);
	repair_free(&r);	/* r.out: the rows the table does not keep */
	return rc;
}
