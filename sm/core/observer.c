/*
 * Observer mode: a node that runs no SM (sm.enabled false) still has a
 * fabric.  It reads it from the SA of whichever SM is master: record by
 * record, or table by table where the kernel reassembles RMPP
 * (observer_records.c says how, and what each answer puts in the model).
 * This file is the read's life: when it starts, its end, what it
 * publishes, and `status`.
 *
 * The model becomes sm->fabric once a read is complete, as a sweep's
 * does, so that every reader (nodes, ports, links, route, topology, the
 * pre-flight's view) finds it where it always looks; the after-sweep
 * hooks run after it.  What is sent: one SMP Get of our own PortInfo (the
 * master's LID is its MasterSMLID) and SA Gets to that LID, at most
 * sm.observer.max_outstanding at a time.  Never a Set.
 *
 * Each reply does O(1) work (a record into the model, a few queries
 * queued), a table's records are taken a slice at a time; linking and
 * publishing the model is one step in O(nodes + links).  Reads are
 * sm.observer.refresh apart, each delay moved by up to a quarter of it by
 * a hash of our port GUID and the read's number, so that observers
 * started together do not all ask at once.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sa.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/observer_internal.h"

#define RETRY_MIN_MS	1000
#define RETRY_FIRST_MS	5000	/* no view yet: the first retry, then doubling */
#define WATCH_MS	2000	/* our own PortInfo read again: its MasterSMLID */
#define MOVED_WINDOW_MS	8000	/* a new master: the reads spread over this */
#define MASTER_POLL_TICKS 5	/* the master's SMInfo asked every 5 watches: 10 s */
#define MASTER_MISSES	2	/* unanswered in a row: the view is stale */

static uint64_t soon_wait(const struct sm_observer *o);

/* ---- a read: start, end, publish ---- */

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The next read ms from now. */
static void
arm_in(struct sm_observer *o, uint64_t ms)
{
	struct timeval tv;

	if (o->timer == NULL)
		return;		/* unit tests: reads are started by hand */
	o->next_read_at_ms = event_now_ms() + (int64_t)ms;
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	evtimer_add(o->timer, &tv);
}

/* The next read: the period, moved by up to a quarter of it either way
 * by a hash of the port GUID, so that observers started together drift
 * apart. */
static void
schedule(struct sm_observer *o, uint64_t ms)
{
	uint64_t h = mix(o->sm->own_guid ^ o->reads);

	if (ms >= 4)
		ms = ms - ms / 4 + h % (ms / 2 + 1);
	arm_in(o, ms);
}

/*
 * The first read's turn: a point of the first FIRST_WINDOW_MS (or of the
 * period, when shorter) chosen by a hash of the port GUID, so that the
 * observers of a booting cluster spread their first reads over half a
 * minute and every one has a view within it (they once waited LID x 4 s:
 * 98 minutes for the last of 1,296 hosts).  The master's SA then answers
 * nodes / 30 reads a second at boot (docs/sm.md, "Observer mode").  0 when
 * the turn has come.
 */
#define FIRST_WINDOW_MS	30000

static uint64_t
first_read_wait(const struct sm_observer *o)
{
	uint64_t window = o->cfg.refresh_ms < FIRST_WINDOW_MS ? o->cfg.refresh_ms : FIRST_WINDOW_MS;
	int64_t waited = event_now_ms() - o->started_at_ms;
	uint64_t turn = window ? mix(o->sm->own_guid) % window : 0;

	return o->timer == NULL || o->published > 0 || o->slot_taken || waited < 0 ||
	    (uint64_t)waited >= turn ? 0 : turn - (uint64_t)waited;
}

static void
read_free(struct sm_observer *o)
{
	mad_batch_cancel(&o->batch);
	obs_table_drop(o);
	fabric_free(o->next);
	o->next = NULL;
	o->qhead = o->qlen = 0;
	o->nlinks = 0;
	o->reading = false;
}

/* What follows the after-sweep hooks: the next read. */
static void
hooks_done(struct sm *sm)
{
	struct sm_observer *o = sm->observer;

	if (o->read_again) {	/* a change a patch could not cover came during the read */
		o->read_again = false;
		arm_in(o, soon_wait(o));
	} else
		schedule(o, o->cfg.refresh_ms);
}

/*
 * The next read after a failed one: sooner than the period.  Without a
 * view yet (the master not up, our port not configured) from 5 s,
 * doubling, so that a cluster booting before its SM finds it soon; with
 * one, a quarter period: a read with errors costs the SA a whole read, and
 * 1,296 observers retrying every few seconds would be the storm the
 * period avoids.
 */
static void
retry(struct sm_observer *o)
{
	uint64_t quarter = o->cfg.refresh_ms / 4, ms;

	read_free(o);
	if (o->published == 0) {
		ms = (uint64_t)RETRY_FIRST_MS << (o->fails < 10 ? o->fails : 10);
		o->fails++;
		if (ms > quarter)
			ms = quarter;
	} else
		ms = quarter;
	arm_in(o, ms > RETRY_MIN_MS ? ms : RETRY_MIN_MS);
}

/* Every answer is in: link the model, make it the published one.  A
 * read that found nothing (our port not configured, the SA silent), or
 * one with errors while a complete view exists, replaces nothing. */
static void
read_done(void *owner)
{
	struct sm *sm = owner;
	struct sm_observer *o = sm->observer;
	struct fabric *old = sm->fabric;
	struct fabric_port *p;
	unsigned changes;

	if (o->slot_wait_ms > 0) {	/* only our PortInfo was read: wait for the turn */
		uint64_t ms = o->slot_wait_ms;

		o->slot_wait_ms = 0;
		o->reads--;
		read_free(o);
		arm_in(o, ms);
		return;
	}
	o->cur.duration_ms = event_now_ms() - o->started_ms;
	o->last = o->cur;
	if (fabric_node_count(o->next) == 0) {
		log_debug("sm: observer: nothing read (%s)", o->last_error);
		retry(o);
		return;
	}
	if (o->cur.errors > 0 && old != NULL) {
		log_warnx("sm: observer: the read from the SA at LID %u had %llu errors (the "
		    "last: %s); the view of %lld s ago stays", o->master_lid,
		    (unsigned long long)o->cur.errors, o->last_error,
		    (long long)((event_now_ms() - o->view_ms) / 1000));
		retry(o);
		return;
	}
	obs_links_apply(o);
	if (o->table)
		obs_hops(o->next, sm->own_lid);
	sm_mark_degraded(o->next);
	fabric_sort(o->next);
	changes = sm_diff_events(old, o->next, "sm");
	sm->topology_changed = old == NULL || changes > 0;
	sm->fabric = o->next;
	o->next = NULL;
	sm->published++;
	sm_ports_seen_note(sm, sm->fabric);
	fabric_free(old);
	o->published++;
	o->fails = 0;
	o->view_ms = event_now_ms();
	o->moved = false;
	p = fabric_port_by_lid(sm->fabric, o->master_lid);
	o->master_guid = p ? p->guid : 0;
	if (!sm->subnet_up)
		event_post(EV_INFO, "sm", NULL, "observer: %zu nodes read from the SA of the SM at "
		    "LID %u in %lld ms", fabric_node_count(sm->fabric), o->master_lid,
		    (long long)o->cur.duration_ms);
	sm->subnet_up = true;
	read_free(o);
	sm_observer_subscribe(sm, o->master_lid);
	sm_run_hooks(sm, SM_HOOK_AFTER_SWEEP, hooks_done);
}

/* Our own PortInfo: our LID, and the master SM's (MasterSMLID). */
static void
on_own_portinfo(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_observer *o = sm->observer;
	const ib_port_info_t *pi;
	uint16_t lid, smlid;
	uint64_t wait;

	(void)arg;
	if (!mad_reply_ok(res)) {
		obs_error(o, "own PortInfo: %s", res->status == -ETIMEDOUT ? "no answer" : "failed");
		return;
	}
	pi = (const ib_port_info_t *)((const ib_smp_t *)res->mad)->data;
	lid = be16toh(pi->base_lid);
	smlid = be16toh(pi->master_sm_base_lid);
	if (ib_port_info_get_port_state(pi) != IB_LINK_ACTIVE || lid == 0 || smlid == 0 ||
	    lid > FABRIC_MAX_LID || smlid > FABRIC_MAX_LID) {
		obs_error(o, "own port not configured by an SM yet (state %s, LID %u, SM LID %u)",
		    fabric_port_state_name(ib_port_info_get_port_state(pi)), lid, smlid);
		return;
	}
	sm->own_lid = lid;
	if ((wait = first_read_wait(o)) > 0) {
		o->slot_taken = true;	/* the read starts again at its turn */
		o->slot_wait_ms = wait;
		return;
	}
	if (smlid != o->master_lid) {
		event_post(EV_INFO, "sm", NULL, "observer: following the SM at LID %u", smlid);
		o->master_guid = 0;
	}
	o->master_lid = smlid;
	if (o->table)
		obs_push(o, Q_NODE, 0, 0);	/* the NodeRecord table first */
	else {
		o->asked[lid] = 1;
		obs_push(o, Q_NODE, lid, 0);
	}
	obs_kick(o);
}

static void
read_start(struct sm_observer *o)
{
	struct mad_addr self = { .directed = true, .hops = 0 };

	o->reading = true;
	o->table = o->sm->me != NULL && mad_engine_kernel_rmpp(o->sm->me);
	o->reads++;
	o->cur = (struct obs_figures){ 0 };
	o->started_ms = event_now_ms();
	o->next = fabric_new();
	memset(o->asked, 0, FABRIC_MAX_LID + 1);
	o->cur.queries++;
	(void)mad_batch_smp(&o->batch, &self, IB_MAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO,
	    o->sm->own_port, NULL, on_own_portinfo, NULL);
	mad_batch_wait(&o->batch, read_done);
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm_observer *o = arg;

	(void)fd;
	(void)what;
	if (!o->reading)
		read_start(o);
}

/* ---- a new master ---- */

/*
 * A master that dies or stalls is followed by a standby that sets every
 * port's MasterSMLID to its own LID (and asks the clients to register
 * again, which the kernel tells verbs clients, not umad).  Our own
 * PortInfo is read every WATCH_MS (a Get to our own port: nothing crosses
 * the fabric); once it names another SM the view is called stale, the
 * Reports are asked of the new SA and a read from it starts within
 * MOVED_WINDOW_MS (spread by a hash of the port GUID: every observer saw
 * the same change at once).
 */
static void
master_moved(struct sm_observer *o, uint16_t smlid)
{
	uint64_t h = mix(o->sm->own_guid ^ smlid);

	event_post(EV_WARNING, "sm", NULL, "observer: the master SM is now at LID %u (was %u): "
	    "the view is read again from its SA", smlid, o->master_lid);
	o->master_lid = smlid;
	o->master_guid = 0;
	o->moved = true;
	o->master_silent = false;
	o->master_misses = 0;
	sm_observer_subscribe(o->sm, smlid);
	if (o->reading)
		read_free(o);	/* it asked the old SA */
	if (o->timer)
		evtimer_del(o->timer);
	arm_in(o, h % MOVED_WINDOW_MS);
}

static void
on_watch(const struct mad_result *res, void *owner, void *arg)
{
	struct sm_observer *o = ((struct sm *)owner)->observer;
	const ib_port_info_t *pi;
	uint16_t smlid;

	(void)arg;
	if (o == NULL || !mad_reply_ok(res))
		return;
	pi = (const ib_port_info_t *)((const ib_smp_t *)res->mad)->data;
	smlid = be16toh(pi->master_sm_base_lid);
	if (o->published == 0 || smlid == 0 || smlid > FABRIC_MAX_LID || smlid == o->master_lid ||
	    ib_port_info_get_port_state(pi) != IB_LINK_ACTIVE)
		return;
	master_moved(o, smlid);
}

/*
 * A master that dies with no standby to follow it changes no MasterSMLID:
 * only its silence tells.  Its SMInfo is asked every MASTER_POLL_TICKS
 * watches (10 s, the period OpenSM's standbys poll at; the phase spread
 * by a hash of the port GUID: 1,296 observers ask 130 a second, 5,184
 * ask 518, one MAD each).  MASTER_MISSES in a row unanswered, or answered
 * by an SM that is no longer master, and the view is stale; answered
 * again, the view is read again soon (what changed while it was silent
 * is unknown).
 */
static void
on_master_sminfo(const struct mad_result *res, void *owner, void *arg)
{
	struct sm_observer *o = ((struct sm *)owner)->observer;
	bool master;

	if (o == NULL || (uintptr_t)arg != o->master_lid)
		return;		/* gone, or a new master since it was asked */
	master = mad_reply_ok(res) &&
	    ib_sminfo_get_state((const ib_sm_info_t *)((const ib_smp_t *)res->mad)->data) ==
	    IB_SMINFO_STATE_MASTER;
	if (master) {
		o->master_misses = 0;
		if (o->master_silent) {
			o->master_silent = false;
			event_post(EV_INFO, "sm", NULL, "observer: the master SM at LID %u answers "
			    "again: the view is read again", o->master_lid);
			o->read_soon(o->sm);
		}
		return;
	}
	if (++o->master_misses < MASTER_MISSES || o->master_silent)
		return;
	o->master_silent = true;
	obs_error(o, "the master SM at LID %u %s its SMInfo", o->master_lid,
	    mad_reply_ok(res) ? "is no longer MASTER in" : "does not answer");
	event_post(EV_WARNING, "sm", NULL, "observer: the master SM at LID %u %s: the view "
	    "of %lld s ago is stale until it answers or another master takes over",
	    o->master_lid, mad_reply_ok(res) ? "is no longer master" : "does not answer",
	    (long long)((event_now_ms() - o->view_ms) / 1000));
}

void
obs_master_poll(struct sm_observer *o)
{
	struct mad_addr a = { .directed = false, .dlid = o->master_lid };

	if (o->master_lid == 0 || o->published == 0 || o->poll_batch.pending > 0)
		return;
	(void)mad_batch_smp(&o->poll_batch, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SM_INFO, 0,
	    NULL, on_master_sminfo, (void *)(uintptr_t)o->master_lid);
}

/*
 * Our own node, asked of our own port (NodeInfo and NodeDescription, no
 * hop): health polls this host's ports from the start, before any view
 * names the node (sm_observer_own_node).
 */
static void
on_own_node(const struct mad_result *res, void *owner, void *arg)
{
	struct sm_observer *o = ((struct sm *)owner)->observer;
	const uint8_t *data = ((const ib_smp_t *)res->mad)->data;

	if (o == NULL || !mad_reply_ok(res))
		return;
	if ((uintptr_t)arg == UMAD_SM_ATTR_NODE_INFO) {
		const ib_node_info_t *ni = (const ib_node_info_t *)data;

		o->own_node_guid = be64toh(ni->node_guid);
		o->own_node_switch = ni->node_type == IB_NODE_TYPE_SWITCH;
		return;
	}
	memcpy(o->own_desc, data, FABRIC_NODE_DESC_LEN);
	o->own_desc[FABRIC_NODE_DESC_LEN] = '\0';
	for (size_t i = 0; o->own_desc[i]; i++)	/* as discovery keeps it */
		if (!isprint((unsigned char)o->own_desc[i]))
			o->own_desc[i] = '?';
	o->own_desc_known = true;
}

static void
watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm_observer *o = arg;
	struct mad_addr self = { .directed = true, .hops = 0 };
	struct timeval tv = { WATCH_MS / 1000, (WATCH_MS % 1000) * 1000 };

	(void)fd;
	(void)what;
	if (o->watch_batch.pending == 0) {
		(void)mad_batch_smp(&o->watch_batch, &self, IB_MAD_METHOD_GET,
		    UMAD_SM_ATTR_PORT_INFO, o->sm->own_port, NULL, on_watch, NULL);
		if (o->own_node_guid == 0 || !o->own_desc_known) {
			(void)mad_batch_smp(&o->watch_batch, &self, IB_MAD_METHOD_GET,
			    UMAD_SM_ATTR_NODE_INFO, 0, NULL, on_own_node,
			    (void *)(uintptr_t)UMAD_SM_ATTR_NODE_INFO);
			(void)mad_batch_smp(&o->watch_batch, &self, IB_MAD_METHOD_GET,
			    UMAD_SM_ATTR_NODE_DESC, 0, NULL, on_own_node,
			    (void *)(uintptr_t)UMAD_SM_ATTR_NODE_DESC);
		}
	}
	if ((++o->watch_ticks + mix(o->sm->own_guid)) % MASTER_POLL_TICKS == 0)
		obs_master_poll(o);
	evtimer_add(o->watch, &tv);
}

/* ---- a whole read soon (observer_patch.c) ---- */

/* Every observer heard the same change: their reads spread over the
 * first reads' window by a hash of the port GUID and the read's number. */
static uint64_t
soon_wait(const struct sm_observer *o)
{
	uint64_t window = o->cfg.refresh_ms < FIRST_WINDOW_MS ? o->cfg.refresh_ms : FIRST_WINDOW_MS;

	return window ? mix(o->sm->own_guid ^ o->reads) % window : 0;
}

/* A whole read within the first reads' window, unless one comes sooner:
 * what a patch could not cover (observer_patch.c). */
static void
read_soon(struct sm *sm)
{
	struct sm_observer *o = sm->observer;
	uint64_t wait;

	if (o == NULL || o->published == 0)
		return;		/* no view yet: the first read comes anyway */
	if (o->reading) {
		o->read_again = true;
		return;
	}
	wait = soon_wait(o);
	/* a read already due sooner covers this too */
	if (o->timer && evtimer_pending(o->timer, NULL) &&
	    o->next_read_at_ms <= event_now_ms() + (int64_t)wait)
		return;
	if (o->timer)
		evtimer_del(o->timer);
	arm_in(o, wait);
}

/* ---- the instance ---- */

void
sm_observer_start(struct sm *sm)
{
	struct sm_observer *o = xcalloc(1, sizeof(*o));

	o->sm = sm;
	o->cfg = sm->cfg.observer;
	mad_batch_init(&o->batch, &sm->batch.io, sm);
	mad_batch_set_base(&o->batch, sm->fd ? sm->fd->base : NULL);
	o->asked = xcalloc(FABRIC_MAX_LID + 1, 1);
	sm->observer = o;
	obs_patch_init(o, read_soon);
	mad_batch_init(&o->watch_batch, &sm->batch.io, sm);
	mad_batch_set_base(&o->watch_batch, sm->fd ? sm->fd->base : NULL);
	mad_batch_init(&o->poll_batch, &sm->batch.io, sm);
	mad_batch_set_base(&o->poll_batch, sm->fd ? sm->fd->base : NULL);
	if (sm->fd && sm->fd->base) {
		o->timer = evtimer_new(sm->fd->base, timer_cb, o);
		o->watch = evtimer_new(sm->fd->base, watch_cb, o);
		watch_cb(-1, 0, o);
	}
	event_post(EV_INFO, "sm", NULL, "observer mode: the SM is off here; the fabric is read "
	    "from the master SM's SA every %llu s", (unsigned long long)(o->cfg.refresh_ms / 1000));
	o->started_at_ms = event_now_ms();
	/* at once: its own PortInfo says its LID, and so its turn */
	arm_in(o, 0);
}

void
sm_observer_reload(struct sm *sm, const struct sm_observer_config *cfg)
{
	struct sm_observer *o = sm->observer;
	bool changed = cfg->refresh_ms != o->cfg.refresh_ms;

	o->cfg = *cfg;
	sm->cfg.observer = *cfg;
	/* the next read at the new period from now (a first read keeps
	 * its turn: the timer then waits for it) */
	if (changed && !o->reading && o->timer && o->published > 0) {
		evtimer_del(o->timer);
		schedule(o, o->cfg.refresh_ms);
	}
}

void
sm_observer_stop(struct sm *sm)
{
	struct sm_observer *o = sm->observer;

	if (o == NULL)
		return;
	read_free(o);
	mad_batch_free(&o->batch);
	mad_batch_free(&o->watch_batch);
	mad_batch_free(&o->poll_batch);
	obs_patch_free(o);
	if (o->timer)
		event_free(o->timer);
	if (o->watch)
		event_free(o->watch);
	free(o->q);
	free(o->links);
	free(o->asked);
	free(o);
	sm->observer = NULL;
}

void
sm_observer_master(const struct sm *sm, uint64_t *guid, uint16_t *lid)
{
	const struct sm_observer *o = sm ? sm->observer : NULL;

	*guid = o ? o->master_guid : 0;
	*lid = o ? o->master_lid : 0;
}

int64_t
sm_observer_view_ms(const struct sm *sm)
{
	return sm && sm->observer ? sm->observer->view_ms : 0;
}

bool
sm_observer_own_node(const struct sm *sm, uint64_t *guid, const char **desc, uint8_t *port,
    uint16_t *lid)
{
	const struct sm_observer *o = sm ? sm->observer : NULL;

	if (o == NULL || o->own_node_guid == 0 || !o->own_desc_known || o->own_node_switch ||
	    sm->own_lid == 0)
		return false;
	*guid = o->own_node_guid;
	*desc = o->own_desc;
	*port = sm->own_port;
	*lid = sm->own_lid;
	return true;
}

int64_t
sm_observer_next_read_in_ms(const struct sm *sm)
{
	const struct sm_observer *o = sm ? sm->observer : NULL;
	int64_t next;

	if (o == NULL || o->reading || o->next_read_at_ms == 0)
		return 0;
	next = o->next_read_at_ms - event_now_ms();
	return next > 0 ? next : 0;
}

/* `status`: whom we follow, how old the view is, what a read costs. */
json_t *
sm_observer_json(const struct sm *sm)
{
	const struct sm_observer *o = sm->observer;
	int64_t age = o->view_ms ? event_now_ms() - o->view_ms : -1;
	/* a view read from a master that is one no longer, or that no
	 * longer answers, is not fresh */
	const char *view = age < 0 ? "none" : (uint64_t)age <= 2 * o->cfg.refresh_ms &&
	    !o->moved && !o->master_silent ? "fresh" : "stale";
	int64_t next = o->reading || o->next_read_at_ms == 0 ? 0 : o->next_read_at_ms - event_now_ms();
	size_t links = 0, i;
	struct fabric_node *n;
	unsigned j;
	json_t *st;

	if (sm->fabric)
		FABRIC_FOREACH_NODE(sm->fabric, i, n)
			for (j = 1; j <= n->nports; j++)
				links += n->ports[j].peer != NULL;
	st = json_pack("{s:s, s:{s:o, s:i, s:i, s:s, s:I, s:I, s:b, s:I, s:I, s:I, s:I,"
	    " s:{s:I, s:I, s:I, s:I}, s:I, s:s}}",
	    "state", "observer",
	    "observer", "master_guid", sm_guid_json(o->master_guid), "master_lid", o->master_lid,
	    "lid", sm->own_lid, "view", view, "age_ms", (json_int_t)age,
	    "refresh_ms", (json_int_t)o->cfg.refresh_ms, "reading", o->reading,
	    "reads", (json_int_t)o->reads, "views", (json_int_t)o->published,
	    "nodes", (json_int_t)(sm->fabric ? fabric_node_count(sm->fabric) : 0),
	    "links", (json_int_t)(links / 2),
	    "last_read", "queries", (json_int_t)o->last.queries,
	    "records", (json_int_t)o->last.records, "errors", (json_int_t)o->last.errors,
	    "duration_ms", (json_int_t)o->last.duration_ms,
	    "errors_total", (json_int_t)o->errors_total, "last_error", o->last_error);
	/* when the next read starts (the first: at this port's turn) */
	json_object_set_new(json_object_get(st, "observer"), "next_read_in_ms",
	    json_integer(next > 0 ? next : 0));
	json_object_set_new(json_object_get(st, "observer"), "subscriptions",
	    sm_observer_reports_json(sm));
	/* whether the master answers its SMInfo (on_master_sminfo) */
	json_object_set_new(json_object_get(st, "observer"), "master_answers",
	    json_boolean(!o->master_silent));
	/* switches read again after a Report (observer_patch.c) */
	json_object_set_new(json_object_get(st, "observer"), "patches",
	    json_integer((json_int_t)o->patches));
	/* how the last read asked: GetTable where the kernel does RMPP */
	json_object_set_new(json_object_get(st, "observer"), "read_by",
	    json_string(o->reads == 0 ? "none" : o->table ? "tables" : "records"));
	return st;
}
