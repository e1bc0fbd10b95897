/*
 * Sweeps: the SM's one activity.  A light sweep reads every switch's
 * SwitchInfo and looks at PortStateChange; anything changed (or a trap 128,
 * or an operator's `sweep --heavy`) makes it a heavy sweep.  Both are lists
 * of steps (light_sweep[], heavy_sweep[] below), run top to bottom:
 *
 *   discover -> decide -> read back unknown LFTs -> assign LIDs, program
 *   LFTs while the before_activate hooks run -> ARMED -> ACTIVE -> publish
 *   the model and events; then store -> after_sweep hooks -> done
 *
 * Only one sweep runs at a time; requests during a sweep are folded into
 * one more sweep after it.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/events.h"
#include "sm/mcast/mcast.h"
#include "sm/core/sm_internal.h"

/*
 * A sweep is a list of steps run top to bottom (as OpenSM's state manager
 * reads).  A step starts its work and says how the sweep goes on.
 */
enum step_end {
	STEP_WAIT,	/* next step once this phase's MADs have all answered */
	STEP_GO,	/* next step now: its MADs fly beside the next one's */
	STEP_ASYNC,	/* the step goes on by itself (hooks, another list) */
	STEP_END,	/* the sweep is over */
};

struct sweep_step {
	const char	*name;
	enum step_end	(*run)(struct sm *sm);
};

static enum step_end step_light_probe(struct sm *sm);
static enum step_end step_light_verdict(struct sm *sm);
static enum step_end step_discover(struct sm *sm);
static enum step_end step_decide(struct sm *sm);
static enum step_end step_lft_readback(struct sm *sm);
static enum step_end step_qos_readback(struct sm *sm);
static enum step_end step_lids_and_lfts(struct sm *sm);
static enum step_end step_before_activate(struct sm *sm);
static enum step_end step_arm(struct sm *sm);
static enum step_end step_qos(struct sm *sm);
static enum step_end step_activate(struct sm *sm);
static enum step_end step_publish(struct sm *sm);
static enum step_end step_multicast(struct sm *sm);
static enum step_end step_multicast_changes(struct sm *sm);
static enum step_end step_lft_mend(struct sm *sm);
static enum step_end step_light_end(struct sm *sm);

/* ---- the lists: what a sweep does, in order (the last step of each
 * always ends the sweep or hands it on) ---- */

static const struct sweep_step light_sweep[] = {
	{ "light probe",	step_light_probe },	/* SwitchInfo of every switch */
	{ "light verdict",	step_light_verdict },	/* a change: the heavy list */
	{ "lft mend",		step_lft_mend },	/* blocks a lost reply left unknown */
	{ "multicast",		step_multicast_changes },	/* groups joined or left */
	{ "end",		step_light_end },
};

static const struct sweep_step heavy_sweep[] = {
	{ "discover",		step_discover },	/* directed-route NodeInfo outwards */
	{ "decide",		step_decide },		/* master, standby, or no fabric */
	{ "lft readback",	step_lft_readback },	/* tables we do not know yet */
	{ "qos readback",	step_qos_readback },	/* the same for SL2VL and VLArb */
	{ "lids and lfts",	step_lids_and_lfts },	/* LIDs, then the blocks that differ */
	{ "before activate",	step_before_activate },	/* hooks (P_Key tables) */
	{ "arm",		step_arm },		/* LIDs, SM LID, VLs, INIT -> ARMED */
	{ "qos",		step_qos },		/* SL2VL and VLArb tables that differ */
	{ "activate",		step_activate },	/* ARMED -> ACTIVE */
	{ "multicast",		step_multicast },	/* trees, MFT blocks that differ */
	{ "publish",		step_publish },		/* the model, events */
};

static void sweep_finish(struct sm *sm);
static void sweep_end(struct sm *sm);
static void sweep_run(struct sm *sm, const struct sweep_step *steps);

/* ---- the light sweep ---- */

/* Has any switch seen a port change, or another SM moved? */
static enum step_end
step_light_probe(struct sm *sm)
{
	sm_light_probe(sm);
	return STEP_WAIT;
}

static enum step_end
step_light_verdict(struct sm *sm)
{
	if (!sm->light_found_change) {
		sm->cur.ok = true;
		return STEP_GO;
	}
	sm->cur.kind = SWEEP_HEAVY;
	sweep_run(sm, heavy_sweep);
	return STEP_ASYNC;
}

/* LFT blocks whose write got no answer (or that the audit read as
 * differing) are written again: nothing else would, short of a topology
 * change.  On a whole copy this sends nothing. */
static enum step_end
step_lft_mend(struct sm *sm)
{
	return sm_lft_mend(sm) ? STEP_WAIT : STEP_GO;
}

/* Joins and leaves since the MFTs were computed: new trees. */
static enum step_end
step_multicast_changes(struct sm *sm)
{
	if (sm->state != SM_STATE_MASTER || sm->fabric == NULL ||
	    sm->mc->gen == sm->mc_gen_programmed)
		return STEP_GO;
	sm_mcast_program(sm, sm->fabric, false);
	return STEP_WAIT;
}

static enum step_end
step_light_end(struct sm *sm)
{
	return STEP_END;
}

/* ---- the heavy sweep ---- */

static enum step_end
step_discover(struct sm *sm)
{
	sm_tell_heavy_started(sm);	/* the audit's MADs point into the model we replace */
	sm_discover(sm);
	return STEP_WAIT;
}

/* Only a master goes on to program the fabric. */
/* A standby assigns no LID: its own is the one the master gave its port,
 * as discovery read it (it said 0). */
static void
own_lid_as_found(struct sm *sm)
{
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(sm->next, i, n)
		if (n->hops == 0 && n->path_port <= n->nports) {
			const ib_port_info_t *pi = (const ib_port_info_t *)n->ports[n->path_port].pi;

			sm->own_port = n->path_port;
			sm->own_lid = be16toh(pi->base_lid);
		}
}

/* Elected master: may it write?  With ha, not before it holds the
 * writer lease and has read the intent (fence.c); the lease is asked for
 * now, and the fence starts a heavy sweep once it is held. */
static bool
entitled(struct sm *sm)
{
	char why[160];

	if (sm_write_refusal(sm, why, sizeof(why)) == NULL) {
		sm->fence.unprogrammed = false;
		return true;
	}
	if (!sm->fence.unprogrammed)
		event_post(EV_INFO, sm_source(sm), NULL, "elected master; it writes nothing until it may: %s",
		    why);
	sm->fence.unprogrammed = true;
	if (sm->fd && sm->fd->ha)
		ha_claim(sm->fd->ha, sm->own_guid, NULL, NULL, NULL);
	return false;
}

static enum step_end
step_decide(struct sm *sm)
{
	bool was_master;

	if (fabric_node_count(sm->next) == 0) {
		log_warnx("sm: own port not answering; sweep abandoned");
		sm->cur.ok = false;
		fabric_free(sm->next);
		sm->next = NULL;
		return STEP_END;
	}
	sm->fence.resuming = false;	/* the sweep the fence asked for has come */
	/* a master that never wrote (it waited for the lease) takes over now */
	was_master = sm->state == SM_STATE_MASTER && !sm->fence.unprogrammed;
	if (!sm_standby_decide(sm) || !entitled(sm)) {
		/* Another SM is master (or about to be): it programs the
		 * fabric, we only watch it.  Or we are master without the
		 * right to write yet: the fence resumes us when we have it. */
		sm->cur.ok = sm->cur.unreachable == 0;
		own_lid_as_found(sm);
		/* another SM writes the tables now: when this one writes again,
		 * it starts from what the switches hold then */
		routing_memory_free(sm->route_mem);
		sm->route_mem = NULL;
		fabric_free(sm->next);
		sm->next = NULL;
		return STEP_END;
	}
	fabric_sort(sm->next);
	sm_mark_degraded(sm->next);
	if (!was_master) {
		sm_clear_state_changes(sm);
		sm->client_rereg = true;	/* taking over: hosts must rejoin */
	}
	return STEP_GO;
}

static enum step_end
step_lft_readback(struct sm *sm)
{
	sm_lft_readback(sm);
	return STEP_WAIT;
}

/* The QoS tables of a port depend on the VLs it operates, which ARMED
 * may have changed: read on first sight, then write what differs, before
 * any link carries data. */
static enum step_end
step_qos_readback(struct sm *sm)
{
	sm_qos_readback(sm);
	return STEP_WAIT;
}

static enum step_end
step_lids_and_lfts(struct sm *sm)
{
	struct fabric_node *own = NULL, *n;
	size_t i;

	sm->cur.changes += sm_lids_assign(&sm->lids, sm->next, sm_source(sm));
	FABRIC_FOREACH_NODE(sm->next, i, n)
		if (n->hops == 0)
			own = n;
	if (own) {
		sm->own_port = own->path_port;
		sm->own_lid = own->ports[own->path_port].lid;
	}
	sm_lft_program(sm, sm_sweep_next);
	return STEP_ASYNC;
}

static void
step_next_when_answered(struct sm *sm)
{
	sm_phase_wait(sm, sm_sweep_next);
}

/* The forwarding tables do not depend on what the hooks do (P_Key
 * tables), so their MADs go out while the hooks plan theirs: the
 * simulator (or the fabric) is not left idle in between.  Ports are
 * armed only once both are done. */
static enum step_end
step_before_activate(struct sm *sm)
{
	sm_run_hooks(sm, SM_HOOK_BEFORE_ACTIVATE, step_next_when_answered);
	return STEP_ASYNC;
}

static enum step_end
step_arm(struct sm *sm)
{
	sm_activate_arm(sm);
	return STEP_WAIT;
}

static enum step_end
step_qos(struct sm *sm)
{
	sm_qos_program(sm);
	return STEP_WAIT;
}

static enum step_end
step_activate(struct sm *sm)
{
	sm_activate_active(sm);
	return STEP_WAIT;
}

/* Links are ACTIVE now: the trees can use them. */
static enum step_end
step_multicast(struct sm *sm)
{
	sm_mcast_ensure_groups(sm);
	sm_mcast_program(sm, sm->next, true);
	return STEP_WAIT;
}

/* A link with an end an operator disabled (ctl_port.c) is left short of
 * ACTIVE on purpose: it does not keep the subnet from being up (nor the
 * audit, which runs once it is up, from disabling it again). */
static bool
all_links_active(const struct sm *sm, const struct fabric *f, unsigned *active)
{
	struct fabric_node *n;
	bool ok = true;
	size_t i;
	unsigned j;

	*active = 0;
	FABRIC_FOREACH_NODE(f, i, n)
		for (j = 1; j <= n->nports; j++) {
			struct fabric_port *p = &n->ports[j];
			if (p->peer == NULL || !p->linkup)
				continue;
			if (p->state == IB_LINK_ACTIVE)
				(*active)++;
			else if (!sm_port_disabled(sm, p) && !sm_port_disabled(sm, p->peer))
				ok = false;
		}
	*active /= 2;
	return ok;
}

/* The new model replaces the old one; what changed becomes events. */
static enum step_end
step_publish(struct sm *sm)
{
	struct fabric *old = sm->fabric;
	unsigned active = 0;

	sm->cur.ok = sm->rt != NULL && all_links_active(sm, sm->next, &active) &&
	    sm->cur.unreachable == 0;
	sm->cur.changes += sm_diff_events(old, sm->next, sm_source(sm));
	sm_report_gid_changes(sm, old, sm->next);
	sm->topology_changed = old == NULL || sm->cur.changes > 0;
	sm->fabric = sm->next;
	sm->next = NULL;
	sm->published++;
	sm_ports_seen_note(sm, sm->fabric);
	fabric_free(old);
	if (sm->cur.ok && !sm->subnet_up) {
		sm->subnet_up = true;
		event_post(EV_INFO, sm_source(sm), NULL, "subnet up: %zu nodes, %u active links, %lld ms",
		    fabric_node_count(sm->fabric), active,
		    (long long)(event_now_ms() - sm->cur.start_ms));
	}
	return STEP_END;
}

/* ---- running a list ---- */

static void
step_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sm_sweep_next(arg);
}

/* The next step on the loop's next turn, not inside this one: steps that
 * each take a few ms held the loop for 20 ms and more when chained in one
 * callback, while status requests and traps waited. */
static void
step_later(struct sm *sm)
{
	struct timeval zero = { 0, 0 };

	if (sm->step_ev == NULL && sm->fd && sm->fd->base)
		sm->step_ev = evtimer_new(sm->fd->base, step_cb, sm);
	if (sm->step_ev == NULL) {
		sm_sweep_next(sm);
		return;
	}
	evtimer_add(sm->step_ev, &zero);
}

static void
step_run(struct sm *sm)
{
	const struct sweep_step *s = &sm->steps[sm->step];

	log_debug("sm: sweep step %s", s->name);
	switch (s->run(sm)) {
	case STEP_WAIT:
		/* the phase's last reply ends it: the next step then runs
		 * on a turn of its own, not inside that reply's callback */
		sm_phase_wait(sm, step_later);
		break;
	case STEP_GO:
		step_later(sm);
		break;
	case STEP_ASYNC:
		break;
	case STEP_END:
		sweep_finish(sm);
		break;
	}
}

const char *
sm_sweep_step_name(const struct sm *sm)
{
	return sm->sweeping && sm->steps ? sm->steps[sm->step].name : NULL;
}

void
sm_sweep_next(struct sm *sm)
{
	sm->step++;
	step_run(sm);
}

static void
sweep_run(struct sm *sm, const struct sweep_step *steps)
{
	sm->steps = steps;
	sm->step = 0;
	step_run(sm);
}

/* ---- start and finish ---- */

static void
sweep_begin(struct sm *sm, bool heavy)
{
	sm->sweeping = true;
	memset(&sm->cur, 0, sizeof(sm->cur));
	sm->cur.start_ms = event_now_ms();
	sm->cur.periodic = sm->asked_by_timer && !sm->asked_by_event;
	sm->asked_by_timer = sm->asked_by_event = false;	/* now for the next one */
	sm->mad_at_start = *mad_engine_counters(sm->me);
	qos_tables_build(&sm->cfg.qos, sm->qos_tables);	/* the policy may have been reloaded */
	if (heavy || sm->fabric == NULL || !sm->subnet_up) {
		sm->cur.kind = SWEEP_HEAVY;
		sweep_run(sm, heavy_sweep);
	} else {
		sm->cur.kind = SWEEP_LIGHT;
		sweep_run(sm, light_sweep);
	}
}

/*
 * A PortInfo Set nobody answered, after its retries, may or may not have
 * taken: the port's state is not known, and nothing else would look
 * again (a port left in INIT raises no PortStateChange).  So a heavy
 * sweep follows at once and reads every port again, arming and
 * activating what is still to be, as OpenSM sweeps again after an
 * initialization error; at most SM_UNANSWERED_RESWEEPS in a row, so that
 * a port that never answers does not keep the SM sweeping.
 */
#define SM_UNANSWERED_RESWEEPS	3

static void
resweep_unanswered(struct sm *sm)
{
	if (sm->cur.kind != SWEEP_HEAVY || sm->state != SM_STATE_MASTER)
		return;
	if (sm->cur.port_sets_unanswered == 0) {
		sm->unanswered_resweeps = 0;
		return;
	}
	if (sm->unanswered_resweeps >= SM_UNANSWERED_RESWEEPS)
		return;
	sm->unanswered_resweeps++;
	log_info("sm: %u PortInfo Sets got no answer: the ports are read again (heavy sweep %u of %d)",
	    sm->cur.port_sets_unanswered, sm->unanswered_resweeps, SM_UNANSWERED_RESWEEPS);
	sm->again = true;
	sm->again_heavy = true;
	sm->asked_by_event = true;
}

static void
sweep_finish(struct sm *sm)
{
	const struct mad_counters *c = mad_engine_counters(sm->me);

	sm->cur.duration_ms = event_now_ms() - sm->cur.start_ms;
	sm->cur.mads = c->sent - sm->mad_at_start.sent;
	sm->cur.retries = c->retries - sm->mad_at_start.retries;
	sm->cur.timeouts = c->timeouts - sm->mad_at_start.timeouts;
	sm->sweeps++;
	if (sm->cur.unreachable)
		event_post(EV_WARNING, sm_source(sm), NULL, "sweep: %u probes failed: %s",
		    sm->cur.unreachable, sm->cur.unreachable_text);
	sm->last = sm->cur;
	sm_recover_sweep_done(sm);
	resweep_unanswered(sm);
	if (sm->cur.kind == SWEEP_HEAVY || sm->cur.changes)
		log_info("sm: %s sweep %s in %lld ms: %llu MADs, %llu retries, %u changes, "
		    "%u LFT blocks, %u port sets, %u qos sets", sm->cur.kind == SWEEP_HEAVY ? "heavy" : "light",
		    sm->cur.ok ? "ok" : "incomplete", (long long)sm->cur.duration_ms,
		    (unsigned long long)sm->cur.mads, (unsigned long long)sm->cur.retries,
		    sm->cur.changes, sm->cur.lft_blocks, sm->cur.port_sets, sm->cur.qos_sets);
	sm_store_sweep(sm, sm->cur.kind == SWEEP_HEAVY && sm->state == SM_STATE_MASTER);
	if (sm->cur.kind == SWEEP_HEAVY && sm->fabric && sm->state == SM_STATE_MASTER)
		sm_run_hooks(sm, SM_HOOK_AFTER_SWEEP, sweep_end);
	else
		sweep_end(sm);
}

static void
sweep_end(struct sm *sm)
{
	bool again = sm->again, heavy = sm->again_heavy;

	sm->sweeping = false;
	sm->again = sm->again_heavy = false;
	sm_rebalance_window_check(sm);	/* its event before `sweep` answers */
	sm_tell_sweep_finished(sm);	/* sweep --wait */
	if (again && sm->asked_by_event)
		sm_sweep_request(sm, heavy);
	else if (again)
		sm_sweep_request_periodic(sm, heavy);
	else
		sm_tell_sweeps_idle(sm);	/* the audit's targeted checks of traps */
}

/* sm_sweep_request() (phase.c) fires this from the loop. */
static void
kick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	bool heavy = sm->again_heavy;

	sm->again = sm->again_heavy = false;
	sweep_begin(sm, heavy);
}

static void
periodic_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	/* A higher SM was still discovering: see where it settled. */
	sm_sweep_request_periodic(sm, sm->recheck);
}

void
sm_sweep_start_timer(struct sm *sm)
{
	struct timeval tv = clock_tv_ms(sm->cfg.sweep_interval_ms);

	if (sm->kick == NULL)
		sm->kick = evtimer_new(sm->fd->base, kick_cb, sm);
	if (sm->sweep_timer)
		event_free(sm->sweep_timer);
	sm->sweep_timer = event_new(sm->fd->base, -1, EV_PERSIST, periodic_cb, sm);
	event_add(sm->sweep_timer, &tv);
}
