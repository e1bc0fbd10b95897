/*
 * Sweeps: the SM's one activity.  A light sweep reads every switch's
 * SwitchInfo and looks at PortStateChange; anything changed (or a trap 128,
 * or an operator's `sweep --heavy`) makes it a heavy sweep:
 *
 *   discover -> read back unknown LFTs -> assign LIDs -> program LFTs
 *   while the before_activate hooks run -> ARMED -> ACTIVE -> publish the
 *   model, events, store -> after_sweep hooks -> done
 *
 * Only one sweep runs at a time; requests during a sweep are folded into
 * one more sweep after it.
 */
#include <stdarg.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "daemon/events.h"
#include "sm/sa.h"
#include "sm/sm_internal.h"

struct sm *the_sm;

static void sweep_finish(struct sm *sm);
static void after_discover(struct sm *sm);

/* ---- phase plumbing ---- */

void
sm_phase_wait(struct sm *sm, void (*next)(struct sm *))
{
	sm->next_phase = next;
	if (sm->pending == 0) {
		sm->next_phase = NULL;
		next(sm);
	}
}

void
sm_mad_done(struct sm *sm)
{
	void (*next)(struct sm *);

	if (--sm->pending > 0 || (next = sm->next_phase) == NULL)
		return;
	sm->next_phase = NULL;
	next(sm);
}

void
sm_unreachable(struct sm *sm, const char *fmt, ...)
{
	size_t len = strlen(sm->cur.unreachable_text);
	va_list ap;

	sm->cur.unreachable++;
	if (len + 4 >= sizeof(sm->cur.unreachable_text))
		return;
	if (len)
		strcpy(sm->cur.unreachable_text + len++, ";");
	va_start(ap, fmt);
	vsnprintf(sm->cur.unreachable_text + len, sizeof(sm->cur.unreachable_text) - len, fmt, ap);
	va_end(ap);
}

const char *
sm_node_label(const struct fabric_node *n, char *buf, size_t len)
{
	if (n->desc[0])
		snprintf(buf, len, "%s", n->desc);
	else
		snprintf(buf, len, "0x%016llx", (unsigned long long)n->guid);
	return buf;
}

/* ---- hooks ---- */

/* Kept outside struct sm: modules may register before or after it starts. */
static struct sm_hook hooks[2][SM_MAX_HOOKS];
static size_t nhooks[2];

static void run_hook(struct sm *sm);
static void (*hooks_then)(struct sm *);

static void
hook_done(void *token)
{
	struct sm *sm = token;

	sm->hook_next++;
	run_hook(sm);
}

static void
run_hook(struct sm *sm)
{
	enum sm_hook_point pt = sm->hook_point;
	struct sm_hook *h;

	if (sm->hook_next >= nhooks[pt]) {
		hooks_then(sm);
		return;
	}
	h = &hooks[pt][sm->hook_next];
	h->fn(sm->hook_point == SM_HOOK_BEFORE_ACTIVATE ? sm->next : sm->fabric,
	    sm->topology_changed, hook_done, sm, h->arg);
}

static void
run_hooks(struct sm *sm, enum sm_hook_point pt, void (*then)(struct sm *))
{
	sm->hook_point = pt;
	sm->hook_next = 0;
	hooks_then = then;
	run_hook(sm);
}

void
sm_add_hook(enum sm_hook_point point, sm_hook_fn fn, void *arg)
{
	size_t i;

	if (nhooks[point] >= SM_MAX_HOOKS) {
		log_warnx("sm: too many hooks");
		return;
	}
	for (i = 0; i < nhooks[point]; i++)
		if (hooks[point][i].fn == fn && hooks[point][i].arg == arg)
			return;		/* a module restarted: already there */
	hooks[point][nhooks[point]].fn = fn;
	hooks[point][nhooks[point]++].arg = arg;
}

/* ---- the heavy sweep's phases ---- */

static bool
all_links_active(const struct fabric *f, unsigned *active)
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
			else
				ok = false;
		}
	*active /= 2;
	return ok;
}

static void
publish(struct sm *sm)
{
	struct fabric *old = sm->fabric;
	unsigned active = 0;

	sm->cur.ok = sm->rt != NULL && all_links_active(sm->next, &active) &&
	    sm->cur.unreachable == 0;
	sm->cur.changes += sm_diff_events(old, sm->next);
	sm->topology_changed = old == NULL || sm->cur.changes > 0;
	sm->fabric = sm->next;
	sm->next = NULL;
	fabric_free(old);
	if (sm->cur.ok && !sm->subnet_up) {
		sm->subnet_up = true;
		event_post(EV_INFO, "sm", NULL, "subnet up: %zu nodes, %u active links, %lld ms",
		    fabric_node_count(sm->fabric), active,
		    (long long)(event_now_ms() - sm->cur.start_ms));
	}
	sweep_finish(sm);
}

static void
after_active(struct sm *sm)
{
	publish(sm);
}

static void
after_arm(struct sm *sm)
{
	sm_activate_active(sm, after_active);
}

static void
after_lft(struct sm *sm)
{
	sm_activate_arm(sm, after_arm);
}

static void
after_before_hooks(struct sm *sm)
{
	sm_phase_wait(sm, after_lft);
}

static void
after_readback(struct sm *sm)
{
	struct fabric_node *own = NULL, *n;
	size_t i;

	sm_lids_assign(sm, sm->next);
	FABRIC_FOREACH_NODE(sm->next, i, n)
		if (n->hops == 0)
			own = n;
	if (own) {
		sm->own_port = own->path_port;
		sm->own_lid = own->ports[own->path_port].lid;
	}
	/* The forwarding tables do not depend on what the hooks do (P_Key
	 * tables), so their MADs go out while the hooks plan theirs: the
	 * simulator (or the fabric) is not left idle in between.  Ports are
	 * armed only once both are done. */
	sm_lft_program(sm);
	run_hooks(sm, SM_HOOK_BEFORE_ACTIVATE, after_before_hooks);
}

static void
after_discover(struct sm *sm)
{
	bool was_master;

	if (fabric_node_count(sm->next) == 0) {
		log_warnx("sm: own port not answering; sweep abandoned");
		sm->cur.ok = false;
		fabric_free(sm->next);
		sm->next = NULL;
		sweep_finish(sm);
		return;
	}
	was_master = sm->state == SM_STATE_MASTER;
	if (!sm_standby_decide(sm)) {
		/* Another SM is master (or about to be): it programs the
		 * fabric, we only watch it. */
		sm->cur.ok = sm->cur.unreachable == 0;
		fabric_free(sm->next);
		sm->next = NULL;
		sweep_finish(sm);
		return;
	}
	fabric_sort(sm->next);
	sm_mark_degraded(sm->next);
	if (!was_master)
		sm_clear_state_changes(sm);
	sm_lft_readback(sm, after_readback);
}

static void
after_light(struct sm *sm)
{
	if (sm->light_found_change) {
		sm->cur.kind = SWEEP_HEAVY;
		sm_discover(sm, after_discover);
		return;
	}
	sm->cur.ok = true;
	sweep_finish(sm);
}

/* ---- start and finish ---- */

static void
sweep_begin(struct sm *sm, bool heavy)
{
	sm->sweeping = true;
	memset(&sm->cur, 0, sizeof(sm->cur));
	sm->cur.start_ms = event_now_ms();
	sm->mad_at_start = *mad_engine_counters(sm->me);
	if (heavy || sm->fabric == NULL || !sm->subnet_up) {
		sm->cur.kind = SWEEP_HEAVY;
		sm_discover(sm, after_discover);
	} else {
		sm->cur.kind = SWEEP_LIGHT;
		sm_light_probe(sm, after_light);
	}
}

static void
sweep_end(struct sm *sm)
{
	bool again = sm->again, heavy = sm->again_heavy;

	sm->sweeping = false;
	sm->again = sm->again_heavy = false;
	sm_ctl_sweep_finished(sm);
	if (again)
		sm_sweep_request(sm, heavy);
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
		event_post(EV_WARNING, "sm", NULL, "sweep: %u probes failed: %s",
		    sm->cur.unreachable, sm->cur.unreachable_text);
	sm->last = sm->cur;
	if (sm->cur.kind == SWEEP_HEAVY || sm->cur.changes)
		log_info("sm: %s sweep %s in %lld ms: %llu MADs, %llu retries, %u changes, "
		    "%u LFT blocks, %u port sets", sm->cur.kind == SWEEP_HEAVY ? "heavy" : "light",
		    sm->cur.ok ? "ok" : "incomplete", (long long)sm->cur.duration_ms,
		    (unsigned long long)sm->cur.mads, (unsigned long long)sm->cur.retries,
		    sm->cur.changes, sm->cur.lft_blocks, sm->cur.port_sets);
	sm_store_sweep(sm, sm->cur.kind == SWEEP_HEAVY && sm->state == SM_STATE_MASTER);
	if (sm->cur.kind == SWEEP_HEAVY && sm->fabric && sm->state == SM_STATE_MASTER)
		run_hooks(sm, SM_HOOK_AFTER_SWEEP, sweep_end);
	else
		sweep_end(sm);
}

static void
kick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	bool heavy = sm->again_heavy;

	sm->again = sm->again_heavy = false;
	sweep_begin(sm, heavy);
}

void
sm_sweep_request(struct sm *sm, bool heavy)
{
	/* A standby SM leaves the fabric to the master; it polls instead. */
	if (sm->state == SM_STATE_STANDBY || sm->state == SM_STATE_NOTACTIVE)
		return;
	if (sm->sweeping) {
		sm->again = true;
		sm->again_heavy |= heavy;
		return;
	}
	/* From the loop, not from inside whatever asked (a MAD callback,
	 * a control handler). */
	sm->again_heavy |= heavy;
	if (sm->kick == NULL)
		sm->kick = evtimer_new(sm->fd->base, kick_cb, sm);
	if (!evtimer_pending(sm->kick, NULL)) {
		struct timeval now = { 0, 0 };
		evtimer_add(sm->kick, &now);
	}
}

static void
periodic_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	/* A higher SM was still discovering: see where it settled. */
	sm_sweep_request(sm, sm->recheck);
}

void
sm_sweep_start_timer(struct sm *sm)
{
	struct timeval tv = {
		.tv_sec = sm->cfg.sweep_interval_ms / 1000,
		.tv_usec = (sm->cfg.sweep_interval_ms % 1000) * 1000,
	};

	if (sm->sweep_timer)
		event_free(sm->sweep_timer);
	sm->sweep_timer = event_new(sm->fd->base, -1, EV_PERSIST, periodic_cb, sm);
	event_add(sm->sweep_timer, &tv);
}

/* ---- MADs addressed to us ---- */

static void
answer_trap(struct sm *sm, const struct mad_in *in)
{
	const ib_smp_t *smp = (const ib_smp_t *)in->mad;
	const ib_mad_notice_attr_t *n = (const ib_mad_notice_attr_t *)smp->data;
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	uint16_t trap = be16toh(n->g_or_v.generic.trap_num);

	/* Repress it (ibsim drops the repress; hardware needs it). */
	memcpy(mad, in->mad, MAD_SIZE);
	((ib_smp_t *)mad)->method = IB_MAD_METHOD_TRAP_REPRESS;
	mad_respond(sm->me, in, mad, MAD_SIZE);
	log_info("sm: trap %u from LID %u", trap, be16toh(n->issuer_lid));
	if (trap == 128)	/* link state change: look now, not at the next tick */
		sm_sweep_request(sm, true);
	/* Capabilities changed, IsSM among them: another SM may have come
	 * (or settled in STANDBY and want a handover).  Our own port's trap
	 * at start-up is not news: the first sweep is running anyway. */
	if (trap == 144 && sm->sweeps > 0 && be16toh(n->issuer_lid) != sm->own_lid)
		sm_sweep_request(sm, true);
}

static void
answer_unsupported(struct sm *sm, const struct mad_in *in)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_mad_t *hdr = (ib_mad_t *)mad;

	memcpy(mad, in->mad, MAD_SIZE);
	hdr->method |= IB_MAD_METHOD_RESP_MASK;	/* GetResp, GetTableResp... */
	hdr->status = htobe16(0x000C);	/* method/attribute combination unsupported */
	mad_respond(sm->me, in, mad, in->len < MAD_SIZE ? in->len : MAD_SIZE);
}

void
sm_handle_mad(struct mad_engine *me, const struct mad_in *in, void *arg)
{
	struct sm *sm = arg;
	const ib_mad_t *hdr = (const ib_mad_t *)in->mad;
	bool smp = hdr->mgmt_class == IB_MCLASS_SUBN_LID || hdr->mgmt_class == IB_MCLASS_SUBN_DIR;

	if (hdr->mgmt_class == IB_MCLASS_SUBN_ADM)
		sa_handle_mad(sm, in);
	else if (smp && hdr->attr_id == IB_MAD_ATTR_SM_INFO &&
	    (hdr->method == IB_MAD_METHOD_GET || hdr->method == IB_MAD_METHOD_SET))
		sm_sminfo_request(sm, in);
	else if (smp && hdr->method == IB_MAD_METHOD_TRAP && hdr->attr_id == IB_MAD_ATTR_NOTICE)
		answer_trap(sm, in);
	else if (hdr->method != IB_MAD_METHOD_TRAP && hdr->method != IB_MAD_METHOD_REPORT &&
	    hdr->method != IB_MAD_METHOD_SEND && hdr->method != IB_MAD_METHOD_TRAP_REPRESS)
		answer_unsupported(sm, in);	/* a requester waits for an answer */
	else
		log_debug("sm: ignored MAD class 0x%02x method 0x%02x attr 0x%04x",
		    hdr->mgmt_class, hdr->method, be16toh(hdr->attr_id));
}
