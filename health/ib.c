/*
 * InfiniBand side of health: PerfMgt polling through the daemon's MAD engine,
 * and link checks from the SM's after-sweep hook.
 *
 * A polling round visits every monitored port once, spread over the
 * interval so the fabric never sees a burst, with at most max_outstanding
 * PerfMgt MADs in flight so that the SM's own MADs (same engine, same
 * window) are never held up.  Cost per round:
 *   - each switch: one PortCounters with AllPortSelect (0xFF): the sum of
 *     the error counters of all its ports.  Only when that sum moved (or
 *     is saturated, or is the first reading) are its ports read one by one;
 *   - each linked port: one PortCountersExtended (64-bit traffic);
 *   - each CA port: one PortCounters (no AllPortSelect on CAs).
 * A healthy round is therefore switches + ports + CA ports MADs, well under
 * ports x 2 (health/README.md has the measured figure).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "health/hstate.h"
#include "health/pma.h"
#include "mad/batch.h"
#include "sm/sm.h"

#define TICK_MS		100
#define PERF_GET	0x01
#define PERF_SET	0x02
#define ALL_PORTS	PMA_ALL_PORTS

enum item_kind { IT_SWITCH_SUM, IT_PC, IT_PCX, IT_CLEAR };

struct item {
	enum item_kind	kind;
	uint64_t	guid;
	uint8_t		port;
	uint16_t	lid;
	uint32_t	clear;		/* IT_CLEAR: counters (bit = enum hc_counter) */
	bool		urgent;		/* a reaction (drill-down, clear): not paced */
};

/* Per switch: the last AllPortSelect error sums. */
struct swsum {
	uint64_t	guid;
	uint64_t	sum[HC_FIRST_TRAFFIC];
	bool		have, no_allport;
};

struct hpoll {
	struct event	*tick;
	struct mad_batch batch;		/* PerfMgt MADs in flight; owner: this poller */
	struct item	*fly;		/* what each MAD in flight is for, by slot */
	size_t		*fly_free;	/* free slots of fly[] */
	size_t		 nfly, nfly_free;
	bool		 dispatching;	/* a reply inside dispatch() waits for it */
	struct item	*q;		/* queue: q[head..tail) */
	size_t		 head, tail, cap;
	int64_t		 round_start_ms, first_send_ms, prev_round_ms;
	size_t		 round_total;	/* items planned for the round so far */
	size_t		 round_sent;	/* of those, sent */
	uint64_t	 round_mads;
	struct swsum	*sw;
	size_t		 nsw;
	bool		 in_round;
	/* an observer's round: only the ports of its scope (in_scope) */
	bool		 observing;
	uint64_t	 local_guid;	/* the node this daemon runs on */
	/* planning a round, in slices (plan_slice) */
	struct event	*plan_ev;
	bool		 planning;
	size_t		 plan_node;
	/* the end of a round, evaluated and recorded in slices */
	struct event	*finish_ev;
	bool		 finishing;
	size_t		 fin_bucket, fin_ports;
	int64_t		 fin_now;
	uint64_t	 fin_dt;
	uint64_t	 fin_batch;	/* the store writer's number of the last slice's rows */
	/* the link checks after a sweep, in slices (sweep_slice) */
	struct event	*sweep_ev;
	const struct fabric *sw_f;	/* the SM's model: it waits for sw_done */
	void		(*sw_done)(void *token);
	void		*sw_token;
	size_t		 sw_node, sw_bucket;
	int64_t		 sw_now;
};

/* Work per slice of a round's end: a few ms, then the loop runs again. */
#define FINISH_SLICE_US	1000

/* ---- items in flight: a slot each, its index the MAD's callback argument ---- */

static void *
fly_put(struct hpoll *hp, const struct item *it)
{
	size_t slot;

	if (hp->nfly_free > 0)
		slot = hp->fly_free[--hp->nfly_free];
	else {
		slot = hp->nfly++;
		hp->fly = xreallocarray(hp->fly, hp->nfly, sizeof(*hp->fly));
		hp->fly_free = xreallocarray(hp->fly_free, hp->nfly, sizeof(*hp->fly_free));
	}
	hp->fly[slot] = *it;
	return (void *)(uintptr_t)slot;
}

static struct item
fly_take(struct hpoll *hp, void *arg)
{
	size_t slot = (size_t)(uintptr_t)arg;

	hp->fly_free[hp->nfly_free++] = slot;
	return hp->fly[slot];
}

/* ---- queue ---- */

static void
q_push(struct hpoll *hp, const struct item *itp, bool front)
{
	struct item copy = *itp, *it = &copy;

	copy.urgent = front;
	if (front && hp->head > 0) {
		hp->q[--hp->head] = *it;
		return;
	}
	if (hp->tail == hp->cap) {
		/* Compact first; grow only if really full. */
		if (hp->head > 0) {
			memmove(hp->q, hp->q + hp->head, (hp->tail - hp->head) * sizeof(*hp->q));
			hp->tail -= hp->head;
			hp->head = 0;
		}
		if (hp->tail == hp->cap) {
			hp->cap = hp->cap ? hp->cap * 2 : 256;
			hp->q = xreallocarray(hp->q, hp->cap, sizeof(*hp->q));
		}
	}
	if (front) {
		memmove(hp->q + hp->head + 1, hp->q + hp->head, (hp->tail - hp->head) * sizeof(*hp->q));
		hp->q[hp->head] = *it;
	} else {
		hp->q[hp->tail] = *it;
	}
	hp->tail++;
}

static struct swsum *
swsum_get(struct hpoll *hp, uint64_t guid)
{
	for (size_t i = 0; i < hp->nsw; i++)
		if (hp->sw[i].guid == guid)
			return &hp->sw[i];
	hp->sw = xreallocarray(hp->sw, hp->nsw + 1, sizeof(*hp->sw));
	memset(&hp->sw[hp->nsw], 0, sizeof(hp->sw[0]));
	hp->sw[hp->nsw].guid = guid;
	return &hp->sw[hp->nsw++];
}

static void dispatch(struct hpoll *hp);

/* ---- planning a round ---- */

static bool
port_polled(const struct fabric_node *n, const struct fabric_port *p)
{
	if (n->type == FABRIC_SWITCH)
		return p->num > 0 && p->peer != NULL && n->lid != 0;
	return p->lid != 0 && p->state == FABRIC_PORT_ACTIVE;
}

static void
plan_push(struct hpoll *hp, const struct item *it)
{
	q_push(hp, it, false);
	hp->round_total++;
}

/*
 * An observer polls what health.observer_ports gives it: this host's
 * ports, with the switch ports cabled to them, or all (the monitor of a
 * fabric whose master is another SM).  The master polls every port.
 */
static bool
in_scope(const struct hpoll *hp, const struct fabric_node *n, const struct fabric_port *p)
{
	if (!hp->observing || health->cfg.observer_ports == HEALTH_OBS_ALL)
		return true;
	if (n->guid == hp->local_guid)
		return true;
	return health->cfg.observer_ports == HEALTH_OBS_SWITCH && p->peer != NULL &&
	    p->peer->node->guid == hp->local_guid;
}

static bool
node_in_scope(const struct hpoll *hp, const struct fabric_node *n)
{
	if (!hp->observing || health->cfg.observer_ports == HEALTH_OBS_ALL ||
	    n->guid == hp->local_guid)
		return true;
	for (unsigned pn = 1; pn <= n->nports; pn++)
		if (in_scope(hp, n, &n->ports[pn]))
			return true;
	return false;
}

static void
plan_node(struct hpoll *hp, const struct fabric_node *n)
{
	bool sw = n->type == FABRIC_SWITCH;
	struct swsum *s;

	if (!node_in_scope(hp, n))
		return;
	s = sw ? swsum_get(hp, n->guid) : NULL;
	/* an observer's switch sum would count the ports it does not watch */
	if (sw && hp->observing && health->cfg.observer_ports != HEALTH_OBS_ALL)
		s->no_allport = true;
	if (sw && n->lid && !s->no_allport)
		plan_push(hp, &(struct item){ IT_SWITCH_SUM, n->guid, ALL_PORTS, n->lid, 0, false });
	for (unsigned pn = 1; pn <= n->nports; pn++) {
		const struct fabric_port *p = &n->ports[pn];
		uint16_t lid = sw ? n->lid : p->lid;
		struct hport *hpt;

		if (!port_polled(n, p) || !in_scope(hp, n, p))
			continue;
		hpt = hport_get(n->guid, p->num, n->desc);
		hpt->lid = lid;
		memset(hpt->valid, 0, sizeof(hpt->valid));
		memset(hpt->delta, 0, sizeof(hpt->delta));
		/* A switch port without error baselines is read by the
		 * drill-down of its switch this round: its traffic
		 * baseline can wait a round, which keeps even the first
		 * round under ports x 2 MADs. */
		if (!sw || hpt->c[HC_SYMBOL_ERRORS].have_last || s->no_allport)
			plan_push(hp, &(struct item){ IT_PCX, n->guid, p->num, lid, 0, false });
		if (!sw || s->no_allport)
			plan_push(hp, &(struct item){ IT_PC, n->guid, p->num, lid, 0, false });
	}
}

/* Plan the round node by node, FINISH_SLICE_US at a time: the first
 * round on 7,776 ports (every port's state made) held the loop for
 * 50 ms in one go.  What is planned is sent meanwhile; the round cannot
 * end before its plan does.  The items name nodes by GUID and LID, so a
 * sweep that replaces the model between slices only makes the plan
 * follow the new one. */
static void
plan_slice(evutil_socket_t fd, short what, void *arg)
{
	struct hpoll *hp = arg;
	struct fabric *f = sm_fabric(health->sm);
	struct timeval zero = { 0, 0 };
	int64_t t0 = clock_mono_us();

	(void)fd;
	(void)what;
	while (f && hp->plan_node < fabric_node_count(f) && clock_mono_us() - t0 < FINISH_SLICE_US)
		plan_node(hp, fabric_node_at(f, hp->plan_node++));
	if (f && hp->plan_node < fabric_node_count(f)) {
		evtimer_add(hp->plan_ev, &zero);
	} else {
		hp->planning = false;
	}
	if (fd != -1)
		dispatch(hp);
}

/* ---- replies ---- */

static void
feed(struct hport *p, enum hc_counter c, uint64_t raw, unsigned bits, uint32_t *clear)
{
	enum hc_outcome o;

	p->delta[c] += hc_accumulate(&p->c[c], raw, bits, &o);
	p->raw[c] = raw;
	p->valid[c] = true;
	if (o == HC_RESET)
		p->resets++;
	if (o == HC_SATURATED)
		p->saturations++;
	if (bits < 64 && hc_near_saturation(raw, bits))
		*clear |= 1u << c;
}

static void
got_pc(struct hpoll *hp, struct hport *p, const struct item *it, const uint8_t *d)
{
	uint64_t v[HC_COUNT];
	uint32_t clear = 0;

	pma_decode_counters(d, v);
	for (int c = 0; c < HC_COUNT; c++) {
		if (c >= HC_FIRST_TRAFFIC && c != HC_XMIT_WAIT && !p->no_ext)
			continue;	/* 64-bit values come from PortCountersExtended */
		feed(p, c, v[c], hc_info[c].bits, &clear);
	}
	/* an observer only reads: the master's manager owns the counters */
	if (clear && health->cfg.clear_near_saturation && !hp->observing)
		q_push(hp, &(struct item){ IT_CLEAR, it->guid, it->port, it->lid, clear, false }, true);
}

static void
got_pcx(struct hport *p, const uint8_t *d)
{
	uint64_t v[HC_COUNT];
	uint32_t none = 0;

	pma_decode_extended(d, v);
	for (int c = HC_FIRST_TRAFFIC; c < HC_COUNT; c++)
		if (c != HC_XMIT_WAIT)
			feed(p, c, v[c], 64, &none);
}

/* The switch's error sum: unchanged means none of its ports moved. */
static void
got_switch_sum(struct hpoll *hp, const struct item *it, const uint8_t *d)
{
	uint64_t v[HC_COUNT];
	struct swsum *s = swsum_get(hp, it->guid);
	bool moved = !s->have;
	struct fabric *f = sm_fabric(health->sm);
	struct fabric_node *n = f ? fabric_node_by_guid(f, it->guid) : NULL;

	pma_decode_counters(d, v);
	for (int c = 0; c < HC_FIRST_TRAFFIC; c++) {
		if (v[c] != s->sum[c] || v[c] == hc_max(hc_info[c].bits))
			moved = true;
		s->sum[c] = v[c];
	}
	s->have = true;
	if (n == NULL)
		return;
	for (unsigned pn = 1; pn <= n->nports; pn++) {
		struct hport *p;
		if (!port_polled(n, &n->ports[pn]) || (p = hport_find(n->guid, pn)) == NULL)
			continue;
		if (moved || !p->c[HC_SYMBOL_ERRORS].have_last) {
			q_push(hp, &(struct item){ IT_PC, it->guid, pn, it->lid, 0, false }, true);
			continue;
		}
		for (int c = 0; c < HC_FIRST_TRAFFIC; c++)
			p->valid[c] = true;	/* unchanged: delta 0 */
	}
}

static void
got_clear(struct hport *p, uint32_t mask)
{
	for (int c = 0; c < HC_COUNT; c++)
		if (mask & (1u << c)) {
			hc_cleared(&p->c[c]);
			p->raw[c] = 0;
		}
	p->clears++;
}

void
health_ib_cleared(uint64_t node_guid, uint8_t port, uint32_t mask)
{
	struct hport *p = health ? hport_find(node_guid, port) : NULL;

	if (p)
		got_clear(p, mask);
}

static void
perf_reply(const struct mad_result *res, void *owner, void *arg)
{
	struct hpoll *hp = owner;
	struct item it = fly_take(hp, arg);
	struct hport *p;
	const uint8_t *data;

	if (!mad_reply_ok(res)) {
		health->mad_failures++;
		if (it.kind == IT_SWITCH_SUM && res->status == 0) {
			/* No AllPortSelect: read this switch port by port. */
			swsum_get(hp, it.guid)->no_allport = true;
		} else if (it.kind == IT_PCX && res->status == 0 &&
		    (p = hport_find(it.guid, it.port)) != NULL) {
			p->no_ext = true;
			q_push(hp, &(struct item){ IT_PC, it.guid, it.port, it.lid, 0, false }, true);
		}
		log_debug("health: PerfMgt %d to lid %u port %u failed: status %d, MAD status 0x%x",
		    it.kind, it.lid, it.port, res->status, res->mad_status);
		goto next;
	}
	data = res->mad + PMA_DATA_OFFSET;
	if (it.kind == IT_SWITCH_SUM) {
		got_switch_sum(hp, &it, data);
		goto next;
	}
	if ((p = hport_find(it.guid, it.port)) == NULL)
		goto next;
	if (it.kind == IT_PC)
		got_pc(hp, p, &it, data);
	else if (it.kind == IT_PCX)
		got_pcx(p, data);
	else
		got_clear(p, it.clear);
next:
	dispatch(hp);
}

static int
send_item(struct hpoll *hp, const struct item *it)
{
	struct mad_engine *me = fabricd_mad();
	uint8_t data[PMA_DATA_LEN];
	uint16_t attr = it->kind == IT_PCX ? PMA_PORT_COUNTERS_EXT : PMA_PORT_COUNTERS;
	uint8_t method = it->kind == IT_CLEAR ? PERF_SET : PERF_GET;

	if (me == NULL)
		return -1;
	if (it->kind == IT_CLEAR)
		pma_encode_clear(data, it->port, it->clear);
	else
		pma_encode_select(data, it->port);
	if (hp->batch.io.ctx != me) {		/* the engine the daemon has now */
		struct mad_io io = mad_io_engine(me);
		mad_batch_set_io(&hp->batch, &io);
	}
	/* Not queued: perf_reply() has counted the failure. */
	if (mad_batch_perf(&hp->batch, it->lid, method, attr, 0, data, sizeof(data), perf_reply,
	    fly_put(hp, it)) != 0)
		return -1;
	hp->round_mads++;
	health->mads_total++;
	if (hp->first_send_ms == 0)
		hp->first_send_ms = event_now_ms();
	return 0;
}

/* ---- the round ---- */

/* Evaluate and record the ports of one hash bucket. */
static void
finish_bucket(struct hpoll *hp, struct store_batch *batch, size_t b)
{
	for (struct hport *p = health->buckets[b]; p; p = p->next) {
		bool any = false;
		for (int c = 0; c < HC_COUNT; c++)
			any |= p->valid[c];
		if (!any)
			continue;
		hp->fin_ports++;
		health_eval_counters(p, hp->fin_now, hp->fin_dt);
		if (!p->hist_open) {
			history_port_open(batch, p->node_guid, p->port, p->desc, &p->hist);
			p->hist_open = true;
		}
		history_record(batch, &health->hcfg, &p->hist, hp->fin_now, hp->fin_dt, p->delta);
		memset(p->valid, 0, sizeof(p->valid));
	}
}

static void
finish_done(struct hpoll *hp)
{
	struct store *st = health->fd->store;
	int64_t now = hp->fin_now;

	store_begin(st);
	health_isolate_review(now);
	store_commit(st);
	health_events_release();
	health->rounds++;
	health->round_mads = hp->round_mads;
	health->round_ports = hp->fin_ports;
	health->round_seconds = hp->first_send_ms ? (double)(now - hp->first_send_ms) / 1000.0 : 0;
	hp->prev_round_ms = now;
	hp->finishing = false;
	hp->in_round = false;
	log_debug("health: round %" PRIu64 ": %" PRIu64 " MADs, %zu ports, %.2f s",
	    health->rounds, hp->round_mads, hp->fin_ports, health->round_seconds);
}

/* One slice: buckets until FINISH_SLICE_US are spent, their history rows
 * one batch for the store's writer thread; once they are all done and
 * written, finish_done() on a turn of its own: a round counts when its
 * history can be read. */
static void
finish_slice(evutil_socket_t fd, short what, void *arg)
{
	struct hpoll *hp = arg;
	struct store *st = health->fd->store;
	struct timeval zero = { 0, 0 }, soon = { 0, 2000 };
	struct store_batch *batch;
	int64_t t0 = clock_mono_us();

	if (hp->fin_bucket >= HPORT_BUCKETS) {
		if (store_written(st) < hp->fin_batch)
			evtimer_add(hp->finish_ev, &soon);	/* the writer is not there yet */
		else
			finish_done(hp);
		return;
	}
	batch = store_batch_new();
	while (hp->fin_bucket < HPORT_BUCKETS && clock_mono_us() - t0 < FINISH_SLICE_US)
		finish_bucket(hp, batch, hp->fin_bucket++);
	hp->fin_batch = store_write_later(st, batch);
	evtimer_add(hp->finish_ev, &zero);
}

/* The round's readings are in: evaluate them slice by slice (7,776 ports'
 * checks and history rows at once would hold the loop for tens of ms). */
static void
finish_round(struct hpoll *hp)
{
	int64_t now = event_now_ms();

	hp->finishing = true;
	hp->fin_now = now;
	hp->fin_dt = hp->prev_round_ms ? (uint64_t)(now - hp->prev_round_ms) : health->cfg.interval_ms;
	hp->fin_bucket = 0;
	hp->fin_ports = 0;
	health_events_hold();
	finish_slice(-1, 0, hp);
}

/* Send what this moment's share of the round allows. */
static void
dispatch(struct hpoll *hp)
{
	/* Pace the planned items to end at 80 % of the interval.  The first
	 * round only takes baselines: it goes as fast as max_outstanding
	 * allows, so that errors appearing right after the subnet comes up
	 * are not mistaken for old ones. */
	uint64_t span = health->rounds == 0 ? 0 : health->cfg.interval_ms * 8 / 10;
	uint64_t elapsed = (uint64_t)(event_now_ms() - hp->round_start_ms);
	size_t due = span ? (size_t)((double)hp->round_total * (double)elapsed / (double)span) + 1 :
	    hp->round_total;

	if (!hp->in_round || hp->dispatching || hp->finishing)
		return;
	hp->dispatching = true;
	while (hp->head < hp->tail && hp->batch.pending < health->cfg.max_outstanding) {
		struct item it = hp->q[hp->head];

		if (!it.urgent && hp->round_sent >= due)
			break;
		hp->head++;
		if (!it.urgent)
			hp->round_sent++;
		send_item(hp, &it);
	}
	hp->dispatching = false;
	if (hp->head >= hp->tail && hp->batch.pending == 0 && !hp->planning)
		finish_round(hp);
}

/* Is this an observer that knows its own node (from its view, or before
 * the first view from its own port's answers)? Notes the node. */
static bool
observing(struct hpoll *hp, struct fabric *f)
{
	char why[8];
	const struct fabric_port *own;
	const char *desc;
	uint8_t port;
	uint16_t lid;

	hp->observing = sm_observer_refusal(health->sm, why, sizeof(why)) != NULL;
	if (!hp->observing)
		return false;
	if (f == NULL)
		return sm_observer_own_node(health->sm, &hp->local_guid, &desc, &port, &lid);
	own = sm_own_lid(health->sm) ? fabric_port_by_lid(f, sm_own_lid(health->sm)) : NULL;
	hp->local_guid = own ? own->node->guid : 0;
	return own != NULL;
}

/*
 * An observer with no view yet (its first read waits for its turn) polls
 * its own port all the same: the host's cable is the first thing a job
 * crosses, and its counters owe nothing to the master's SA.
 */
static void
plan_own_port(struct hpoll *hp)
{
	const char *desc;
	uint64_t guid;
	uint8_t port;
	uint16_t lid;
	struct hport *hpt;

	if (!sm_observer_own_node(health->sm, &guid, &desc, &port, &lid))
		return;
	hpt = hport_get(guid, port, desc);
	hpt->lid = lid;
	memset(hpt->valid, 0, sizeof(hpt->valid));
	memset(hpt->delta, 0, sizeof(hpt->delta));
	plan_push(hp, &(struct item){ IT_PCX, guid, port, lid, 0, false });
	plan_push(hp, &(struct item){ IT_PC, guid, port, lid, 0, false });
}

static void
tick(evutil_socket_t fd, short what, void *arg)
{
	struct hpoll *hp = arg;
	struct timeval tv = { 0, TICK_MS * 1000 };
	struct fabric *f = sm_fabric(health->sm);
	int64_t now = event_now_ms();

	evtimer_add(hp->tick, &tv);
	/* The master's manager reads (and clears) every port; an observer
	 * reads the ports of its scope and clears none. */
	if (!hp->in_round && (observing(hp, f) || (f && sm_subnet_up(health->sm) &&
	    sm_is_master(health->sm))) &&
	    (hp->round_start_ms == 0 || now - hp->round_start_ms >= (int64_t)health->cfg.interval_ms)) {
		hp->head = hp->tail = 0;
		hp->round_mads = 0;
		hp->round_sent = 0;
		hp->first_send_ms = 0;
		hp->round_start_ms = now;
		hp->in_round = true;
		hp->round_total = 0;
		hp->plan_node = 0;
		hp->planning = true;
		if (f == NULL)
			plan_own_port(hp);
		plan_slice(-1, 0, hp);
	}
	dispatch(hp);
}

/* ---- link checks after each sweep ---- */

static struct link_caps
caps_of(const struct fabric_port *p)
{
	return (struct link_caps){ p->width_active, p->width_supported, p->speed_active,
	    p->speed_supported, p->ext_speed_active, p->ext_speed_supported };
}

static void
link_went_down(struct hport *p, int64_t now, const char *why)
{
	/* An operator disabled this end or the other (`port disable`): down
	 * on purpose, neither a failure nor a flap. */
	if (sm_port_is_disabled(health->sm, p->node_guid, p->port) ||
	    (p->peer_guid && sm_port_is_disabled(health->sm, p->peer_guid, p->peer_port))) {
		p->linked = false;
		p->state = FABRIC_PORT_DOWN;
		return;
	}
	if (p->linked || p->state == FABRIC_PORT_ACTIVE)
		flap_record(&p->flaps, now);
	p->linked = false;
	p->state = FABRIC_PORT_DOWN;
	alarm_update(health->alarms, p->object, p->node_guid, p->port, HCHK_LINK_DOWN,
	    true, EV_ERROR, now, why);
}

static void
check_flapping(struct hport *p, int64_t now)
{
	unsigned n = flap_recent(&p->flaps, now, health->th.flap_window_ms);
	char why[96];

	snprintf(why, sizeof(why), "%u link downs in the last %" PRIu64 " s", n,
	    health->th.flap_window_ms / 1000);
	alarm_update(health->alarms, p->object, p->node_guid, p->port, HCHK_FLAPPING,
	    n >= health->th.flap_count, EV_ERROR, now, why);
}

static void
sweep_port(struct fabric_node *n, struct fabric_port *p, int64_t now)
{
	struct hport *h = hport_find(n->guid, p->num);
	char why[128];

	if (h == NULL && p->peer == NULL)
		return;			/* never cabled: nothing expected */
	h = hport_get(n->guid, p->num, n->desc);
	h->is_switch = n->type == FABRIC_SWITCH;
	h->present = true;
	h->lid = h->is_switch ? n->lid : p->lid;
	h->peer_guid = p->peer ? p->peer->node->guid : 0;
	h->peer_port = p->peer ? p->peer->num : 0;
	snprintf(h->peer_desc, sizeof(h->peer_desc), "%s", p->peer ? p->peer->node->desc : "");
	if (p->peer == NULL) {
		if (h->was_active && (h->linked || h->state == FABRIC_PORT_ACTIVE))
			link_went_down(h, now, "link lost its peer (down or unplugged)");
		h->state = p->state;
		check_flapping(h, now);
		return;
	}
	h->linked = true;
	h->state = p->state;
	h->line_bps = link_line_bps(p->width_active, p->speed_active, p->ext_speed_active);
	alarm_update(health->alarms, h->object, n->guid, p->num, HCHK_NOT_ACTIVE, p->state != FABRIC_PORT_ACTIVE,
	    EV_ERROR, now, "cabled and LinkUp but not ACTIVE after the sweep");
	if (p->state == FABRIC_PORT_ACTIVE) {
		struct link_caps a = caps_of(p), b = caps_of(p->peer);
		bool slow = link_degraded(&a, &b, why, sizeof(why));
		h->was_active = true;
		alarm_clear(health->alarms, h->object, HCHK_LINK_DOWN);
		alarm_update(health->alarms, h->object, n->guid, p->num, HCHK_DEGRADED, slow,
		    EV_WARNING, now, why);
	}
	check_flapping(h, now);
}

/* The checks of the ports gone from the model, one bucket of ports. */
static void
sweep_gone_bucket(struct hpoll *hp, size_t bucket)
{
	for (struct hport *h = health->buckets[bucket]; h; h = h->next) {
		if (h->present || !h->was_active)
			continue;
		/* Ports whose node the SM no longer reaches (a CA behind a dead link). */
		if (h->linked || h->state == FABRIC_PORT_ACTIVE)
			link_went_down(h, hp->sw_now, "node no longer reachable from the SM");
		check_flapping(h, hp->sw_now);
	}
}

/* The isolation review and the events held, then the SM goes on. */
static void
sweep_done(struct hpoll *hp)
{
	void (*done)(void *token) = hp->sw_done;

	health_isolate_review(hp->sw_now);
	health_events_release();
	hp->sw_done = NULL;
	done(hp->sw_token);
}

/* One slice of the after-sweep link checks: the model's nodes, then the
 * ports gone from it, until FINISH_SLICE_US are spent (a storm's 7,776
 * ports' alarms at once held the loop for tens of ms), then sweep_done()
 * on a turn of its own.  The SM waits for done(), so its model stays as
 * it is. */
static void
sweep_slice(evutil_socket_t fd, short what, void *arg)
{
	struct hpoll *hp = arg;
	struct timeval zero = { 0, 0 };
	int64_t t0 = clock_mono_us();
	const struct fabric *f = hp->sw_f;

	if (f != sm_fabric(health->sm)) {
		/* The SM stopped meanwhile (a reload): its model and its
		 * token are gone, nobody waits. */
		health_events_release();
		hp->sw_done = NULL;
		return;
	}
	if (hp->sw_node < fabric_node_count(f)) {
		while (hp->sw_node < fabric_node_count(f) && clock_mono_us() - t0 < FINISH_SLICE_US) {
			struct fabric_node *n = fabric_node_at(f, hp->sw_node++);
			for (unsigned pn = 1; pn <= n->nports; pn++)
				sweep_port(n, &n->ports[pn], hp->sw_now);
		}
	} else if (hp->sw_bucket < HPORT_BUCKETS) {
		while (hp->sw_bucket < HPORT_BUCKETS && clock_mono_us() - t0 < FINISH_SLICE_US)
			sweep_gone_bucket(hp, hp->sw_bucket++);
	} else {
		sweep_done(hp);
		return;
	}
	evtimer_add(hp->sweep_ev, &zero);
}

static void
after_sweep(struct fabric *f, bool topology_changed, void (*done)(void *token),
    void *token, void *arg)
{
	struct hpoll *hp = health ? health->poll : NULL;
	struct timeval zero = { 0, 0 };
	struct hport *h;
	size_t i;

	if (hp == NULL || f == NULL || hp->sw_done) {
		done(token);
		return;
	}
	health->sweeps_seen++;
	health->last_sweep_ms = hp->sw_now = event_now_ms();
	health_events_hold();
	HPORT_FOREACH(health, i, h)
		h->present = false;
	hp->sw_f = f;
	hp->sw_done = done;
	hp->sw_token = token;
	hp->sw_node = 0;
	hp->sw_bucket = 0;
	evtimer_add(hp->sweep_ev, &zero);	/* the first slice on a turn of its own too */
}

int
health_ib_start(struct health *h)
{
	struct hpoll *hp = xcalloc(1, sizeof(*hp));

	sm_add_hook(h->sm, SM_HOOK_AFTER_SWEEP, after_sweep, NULL);	/* kept once: a restart finds it */
	mad_batch_init(&hp->batch, NULL, hp);
	hp->tick = evtimer_new(h->fd->base, tick, hp);
	hp->finish_ev = evtimer_new(h->fd->base, finish_slice, hp);
	hp->sweep_ev = evtimer_new(h->fd->base, sweep_slice, hp);
	hp->plan_ev = evtimer_new(h->fd->base, plan_slice, hp);
	h->poll = hp;
	tick(-1, 0, hp);
	return 0;
}

void
health_ib_stop(struct health *h)
{
	struct hpoll *hp = h->poll;

	if (hp == NULL)
		return;
	event_free(hp->tick);
	event_free(hp->finish_ev);
	event_free(hp->sweep_ev);
	event_free(hp->plan_ev);
	if (hp->finishing)
		health_events_release();
	if (hp->sw_done) {
		/* The SM waits for the checks: it goes on without them. */
		health_events_release();
		hp->sw_done(hp->sw_token);
	}
	/* Replies still on their way reach nobody. */
	mad_batch_free(&hp->batch);
	free(hp->fly);
	free(hp->fly_free);
	free(hp->q);
	free(hp->sw);
	free(hp);
	h->poll = NULL;
}
