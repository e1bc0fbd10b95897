/*
 * A rebalance: asked by an operator (`routing rebalance`, sm/ctl.c) or by
 * sm.rebalance_window.  Both go through sm_rebalance_ask(): the next heavy
 * sweep routes afresh and its record says what moved.
 *
 * The window: at the end of a sweep inside an occurrence of it, when the
 * tables have drifted (the hottest link above the least the fabric as it
 * is allows: the figures `routing` and the metrics show), a dry rebalance
 * first: routing a degraded fabric afresh does not always lower the
 * hottest link (60 routes repaired, 64 afresh against a bound of 59 on the
 * 64-host tree with a leaf uplink cut), and moving thousands of routes for
 * a worse balance is what the window must not do.  Only when the fresh
 * tables' hottest link is lower does the rebalance follow; either way an
 * event says what was decided, and nothing more happens till the next
 * occurrence: a fabric that cannot do better is not rerouted sweep after
 * sweep.
 */
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

uint64_t
sm_rebalance_ask(struct sm *sm, bool dry)
{
	/* a real rebalance asked beside a dry one serves both */
	if (!dry || sm->rebalance != ROUTING_REBALANCE)
		sm->rebalance = dry ? ROUTING_REBALANCE_DRY : ROUTING_REBALANCE;
	sm->rebalance_seq++;
	sm_sweep_request(sm, true);
	return sm->rebalance_seq;
}

/* The occurrence of the window the local time now is in (-1: none). */
static int64_t
window_now(const struct rebalance_window *w)
{
	time_t now = time(NULL);
	struct tm t;

	if (!w->set || localtime_r(&now, &t) == NULL)
		return -1;
	return rebalance_window_occurrence(w, &t);
}

static bool
drifted(const struct sm *sm)
{
	return sm->rt && sm->rt->repair.bound && sm->rt->repair.hottest > sm->rt->repair.bound;
}

/* The sweep that served the window's rebalance: say what it moved. */
static void
window_served(struct sm *sm)
{
	const struct routing_repair_stats *s = &sm->last.route;

	if (!sm->last.routed || sm->last.rebalance_seq < sm->window_seq)
		return;
	sm->window_seq = 0;
	if (sm->window_dry) {
		sm->window_dry = false;
		if (s->dry_hottest == 0 || s->dry_hottest >= s->hottest) {
			event_post(EV_INFO, sm_source(sm), NULL, "routing: maintenance window (%s): "
			    "a rebalance would not lower the hottest link (%llu routes now, %llu "
			    "afresh, bound %llu; it would move %zu LFT blocks): the tables stay",
			    sm->cfg.rebalance_window.text, (unsigned long long)s->hottest,
			    (unsigned long long)s->dry_hottest, (unsigned long long)s->bound,
			    s->dry_blocks);
			return;
		}
		sm->window_seq = sm_rebalance_ask(sm, false);
		return;
	}
	/* the hottest link before and after: routing a degraded fabric afresh
	 * does not always bring it down (docs/sm.md, Route stability) */
	event_post(EV_INFO, sm_source(sm), NULL, "routing: rebalanced in the maintenance window "
	    "(%s): %zu LFT blocks, %zu CA pairs moved; hottest link %llu routes, now %llu, "
	    "bound %llu", sm->cfg.rebalance_window.text, s->blocks_moved, s->pairs_moved,
	    (unsigned long long)sm->window_hottest,
	    sm->rt ? (unsigned long long)sm->rt->repair.hottest : 0ULL,
	    sm->rt ? (unsigned long long)sm->rt->repair.bound : 0ULL);
}

void
sm_rebalance_window_set(struct sm *sm, const struct rebalance_window *w)
{
	if (strcmp(w->text, sm->cfg.rebalance_window.text) != 0)
		sm->window_done = -1;	/* another window: its occurrence is new */
	sm->cfg.rebalance_window = *w;
}

void
sm_rebalance_window_check(struct sm *sm)
{
	int64_t occ;

	if (sm->state != SM_STATE_MASTER) {
		sm->window_seq = 0;	/* the master that follows decides */
		sm->window_dry = false;
		return;
	}
	if (sm->window_seq) {
		window_served(sm);
		return;
	}
	if (!drifted(sm) || (occ = window_now(&sm->cfg.rebalance_window)) < 0 ||
	    occ == sm->window_done)
		return;
	sm->window_done = occ;
	sm->window_hottest = sm->rt->repair.hottest;
	log_info("sm: maintenance window %s: hottest link %llu routes against a bound of %llu; "
	    "what would a rebalance give", sm->cfg.rebalance_window.text,
	    (unsigned long long)sm->rt->repair.hottest, (unsigned long long)sm->rt->repair.bound);
	sm->window_dry = true;
	sm->window_seq = sm_rebalance_ask(sm, true);
}
