/*
 * Master and standby: the SM's SMInfo attribute and its state machine.
 *
 * fabricd starts DISCOVERING.  Every heavy sweep asks each port whose
 * PortInfo CapabilityMask says IsSM (not our own) for its SMInfo; when the
 * discovery is done, sm/core/election.h decides, and only a MASTER goes on to
 * program the fabric.  A STANDBY SM sends nothing but SMInfo Gets to the
 * SM it follows, every sm.standby_poll; after sm.standby_misses polls in a
 * row without a live answer it rediscovers the subnet and, unless another
 * SM is there, becomes MASTER with a heavy sweep.  SubnSet(SMInfo) from
 * other SMs (HANDOVER, DISCOVER, DISABLE, STANDBY, ACKNOWLEDGE) moves the
 * state as the IBA says.
 */
#include <errno.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

static void poll_start(struct sm *sm, const struct sm_remote *r);
static void poll_stop(struct sm *sm);

/* Every change of state is an event: operators must know who is master. */
static void
set_state(struct sm *sm, uint8_t state, const char *why)
{
	uint8_t old = sm->state;

	if (old == state)
		return;
	sm->state = state;
	event_post(state == SM_STATE_MASTER || old == SM_STATE_DISCOVERING ? EV_INFO : EV_WARNING,
	    sm_source(sm), NULL, "SM state %s -> %s: %s", sm_state_name(old), sm_state_name(state), why);
	if (old == SM_STATE_MASTER) {
		/* Another SM programs the fabric from now on: what we knew of
		 * the switches' tables is no longer true, and the subnet is no
		 * longer ours to call up. */
		struct fabric_node *n;
		size_t i;

		if (sm->fabric)
			FABRIC_FOREACH_NODE(sm->fabric, i, n)
				n->lft_known = false;
		sm->subnet_up = false;
	}
}

static void
fill_sminfo(struct sm *sm, ib_sm_info_t *si)
{
	si->guid = htobe64(sm->own_guid);
	/* SM_Key goes to anyone who passes M_Key authentication, which is
	 * everyone: fabricd sets no M_Key (OpenSM answers alike). */
	si->sm_key = htobe64(sm->cfg.sm_key);
	/* ActCount: a heartbeat that moves while we work. */
	si->act_count = htobe32((uint32_t)mad_engine_counters(sm->me)->sent);
	si->pri_state = (uint8_t)((sm->cfg.priority << 4) | (sm->state & 0x0F));
}

static void
peer_from_sminfo(struct sm_peer *p, const ib_sm_info_t *si)
{
	p->guid = be64toh(si->guid);
	p->priority = ib_sminfo_get_priority(si);
	p->state = ib_sminfo_get_state(si);
	p->act_count = be32toh(si->act_count);
}

/* An SM with another SM_Key belongs to another administration: it is
 * not part of the election (told once per SM and key). */
static bool
key_ok(struct sm *sm, const ib_sm_info_t *si)
{
	uint64_t key = be64toh(si->sm_key), guid = be64toh(si->guid);
	char g[24];

	if (sm_elect_key_ok(sm->cfg.sm_key, key))
		return true;
	if (sm->key_told_guid != guid || sm->key_told_key != key) {
		sm->key_told_guid = guid;
		sm->key_told_key = key;
		event_post(EV_WARNING, sm_source(sm), NULL, "SM %s has SM_Key 0x%016llx, not ours: ignored",
		    guid_format(guid, g, sizeof(g)), (unsigned long long)key);
	}
	return false;
}

/* ---- SMInfo queries during discovery ---- */

static void
on_remote_sminfo(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_remote *r = arg;
	const ib_smp_t *smp;
	uint64_t asked = r->info.guid;

	if (mad_reply_ok(res)) {
		smp = (const ib_smp_t *)res->mad;
		peer_from_sminfo(&r->info, (const ib_sm_info_t *)smp->data);
		/* An answer from another port than the one asked (a moved
		 * port, a confused SM) is not trusted. */
		r->answered = r->info.guid == asked && key_ok(sm, (const ib_sm_info_t *)smp->data);
	}
	if (!r->answered)
		log_debug("sm: no SMInfo from the SM port " GUID_FMT, asked);
}

void
sm_standby_discovery_start(struct sm *sm)
{
	sm->nremotes = 0;
}

void
sm_standby_query(struct sm *sm, const struct fabric_port *p)
{
	struct sm_remote *r;

	if (p->guid == 0 || p->guid == sm->own_guid)
		return;
	if (sm->nremotes >= SM_MAX_REMOTES) {
		log_warnx("sm: more than %d other SMs; " GUID_FMT " ignored", SM_MAX_REMOTES,
		    p->guid);
		return;
	}
	r = &sm->remotes[sm->nremotes];
	memset(r, 0, sizeof(*r));
	r->addr.directed = true;
	if (!fabric_port_path(p, r->addr.path, &r->addr.hops))
		return;
	r->info.guid = p->guid;
	r->info.lid = p->node->type == FABRIC_SWITCH ? p->node->ports[0].lid :
	    be16toh(((const ib_port_info_t *)p->pi)->base_lid);
	sm->nremotes++;
	sm_send(sm, &r->addr, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SM_INFO, 0, NULL, on_remote_sminfo, r);
}

/* ---- light sweeps: have the other SMs changed? ---- */

static void
on_light_sminfo(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_remote *r = arg;
	const ib_sm_info_t *si;
	struct sm_peer now;

	if (res->status == -ECANCELED)
		return;
	memset(&now, 0, sizeof(now));
	if (mad_reply_ok(res)) {
		si = (const ib_sm_info_t *)((const ib_smp_t *)res->mad)->data;
		peer_from_sminfo(&now, si);
		if (!key_ok(sm, si))
			now.guid = 0;
	}
	if (!r->answered && now.guid == 0)
		return;		/* silent at the discovery, silent still */
	/* Gone, another port, another state or priority: the election may
	 * come out differently (a standby raised above us wants the
	 * subnet), so the sweep turns heavy and decides again. */
	if (now.guid != r->info.guid || now.state != r->info.state ||
	    now.priority != r->info.priority) {
		log_info("sm: SM " GUID_FMT " changed (%s, priority %u -> %s, priority %u)",
		    r->info.guid, sm_state_name(r->info.state), r->info.priority,
		    now.guid ? sm_state_name(now.state) : "no answer", now.priority);
		sm->light_found_change = true;
	}
}

void
sm_standby_light_probe(struct sm *sm)
{
	size_t i;

	for (i = 0; i < sm->nremotes; i++) {
		struct sm_remote *r = &sm->remotes[i];

		if (r->answered)
			sm_send(sm, &r->addr, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SM_INFO, 0, NULL,
			    on_light_sminfo, r);
	}
	sm_standby_reprobe(sm);
}

/* ---- SMs that were silent: a stalled SM may have woken ---- */

#define REPROBE_EVERY_MS	1000

static void
on_reprobe(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_remote *r = arg;
	const ib_sm_info_t *si;
	struct sm_peer now;
	char g[24];

	if (res->status == -ECANCELED || !mad_reply_ok(res))
		return;
	si = (const ib_sm_info_t *)((const ib_smp_t *)res->mad)->data;
	memset(&now, 0, sizeof(now));
	peer_from_sminfo(&now, si);
	if (!key_ok(sm, si) || r->answered || now.guid != r->info.guid)
		return;		/* a slot reused by a later discovery: not this one */
	/* Whatever it thinks it is, the election must hear it now, not at
	 * the next discovery: a second master may be about to write. */
	event_post(EV_WARNING, sm_source(sm), NULL, "SM %s, silent at the last discovery, answers as %s "
	    "with priority %u: electing again", guid_format(now.guid, g, sizeof(g)),
	    sm_state_name(now.state), now.priority);
	sm_sweep_request(sm, true);
}

void
sm_standby_reprobe(struct sm *sm)
{
	int64_t now = clock_mono_ms();
	size_t i;

	if (sm->state != SM_STATE_MASTER || now - sm->reprobe_ms < REPROBE_EVERY_MS)
		return;
	sm->reprobe_ms = now;
	for (i = 0; i < sm->nremotes; i++) {
		struct sm_remote *r = &sm->remotes[i];

		/* on the side batch: a silent port must not hold the sweep
		 * for its timeouts */
		if (!r->answered)
			mad_batch_smp(&sm->side, &r->addr, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SM_INFO,
			    0, NULL, on_reprobe, r);
	}
}

/* ---- the decision after a discovery ---- */

static void
on_handover_sent(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	char g[24];

	if (res->status == -ECANCELED || mad_reply_ok(res))
		return;
	/* Nobody took the subnet: it stays ours. */
	event_post(EV_WARNING, sm_source(sm), NULL, "handover to SM %s %s; staying master",
	    guid_format(sm->polled.info.guid, g, sizeof(g)),
	    res->status ? "not answered" : "refused");
	poll_stop(sm);
	set_state(sm, SM_STATE_MASTER, "handover failed");
	sm_sweep_request(sm, true);
}

static void
hand_over(struct sm *sm, const struct sm_remote *r)
{
	uint8_t data[64] MAD_ALIGNED;
	ib_sm_info_t *si = (ib_sm_info_t *)data;
	char g[24], why[96];

	memset(data, 0, sizeof(data));
	fill_sminfo(sm, si);		/* still MASTER: only a master hands over */
	poll_start(sm, r);
	/* Not queued: on_handover_sent() has already said so and stays master. */
	if (mad_batch_smp(&sm->side, &r->addr, IB_MAD_METHOD_SET, UMAD_SM_ATTR_SM_INFO,
	    SM_MOD_HANDOVER, data, on_handover_sent, NULL) != 0)
		return;
	snprintf(why, sizeof(why), "handed over to SM %s, priority %u",
	    guid_format(r->info.guid, g, sizeof(g)), r->info.priority);
	set_state(sm, SM_STATE_STANDBY, why);
}

/* With ha: the lease keeps a master (sm_elect_with_lease); said once per
 * SM it keeps the subnet from. */
static struct sm_decision
with_lease(struct sm *sm, struct sm_decision d, const struct sm_peer *peers)
{
	bool held = ha_lease_valid(sm->fd->ha);
	struct sm_decision l = sm_elect_with_lease(d, held);
	char g[24];

	if (l.verdict == SM_VERDICT_MASTER && d.verdict != SM_VERDICT_MASTER &&
	    sm->lease_kept_from != peers[d.peer].guid) {
		sm->lease_kept_from = peers[d.peer].guid;
		event_post(EV_INFO, sm_source(sm), NULL, "SM %s is %s with priority %u; this SM holds the "
		    "etcd writer lease and stays master (with ha the lease, not the priority, "
		    "keeps a master)", guid_format(peers[d.peer].guid, g, sizeof(g)),
		    sm_state_name(peers[d.peer].state), peers[d.peer].priority);
	}
	return l;
}

/* The SMs that answered, as the election sees them; map[k] is the remote
 * behind peers[k]. */
static size_t
answered(const struct sm *sm, struct sm_peer *peers, size_t *map)
{
	size_t i, n = 0;

	for (i = 0; i < sm->nremotes; i++)
		if (sm->remotes[i].answered) {
			peers[n] = sm->remotes[i].info;
			map[n++] = i;
		}
	return n;
}

bool
sm_standby_decide(struct sm *sm)
{
	struct sm_peer peers[SM_MAX_REMOTES];
	size_t map[SM_MAX_REMOTES], n = answered(sm, peers, map);
	struct sm_decision d;
	const struct sm_remote *r = NULL;
	char g[24], why[128];

	for (size_t i = 0; i < n; i++)		/* it gave the subnet away */
		if (sm->handover_received && peers[i].guid == sm->handover_from &&
		    peers[i].state == SM_STATE_MASTER)
			peers[i].state = SM_STATE_STANDBY;
	d = sm_elect_after_discovery(sm->state, (uint8_t)sm->cfg.priority, sm->own_guid,
	    peers, n, sm->handover_received);
	if (sm->fd && sm->fd->ha)
		d = with_lease(sm, d, peers);
	sm->recheck = d.recheck;
	sm->handover_received = false;		/* used */
	if (d.peer >= 0)
		r = &sm->remotes[map[d.peer]];
	switch (d.verdict) {
	case SM_VERDICT_MASTER:
		if (sm->polling)
			poll_stop(sm);
		set_state(sm, SM_STATE_MASTER, n ? "no other SM is master or higher" :
		    "no other SM answered");
		return true;
	case SM_VERDICT_HANDOVER:
		hand_over(sm, r);
		return false;
	case SM_VERDICT_STANDBY:
		snprintf(why, sizeof(why), "SM %s is %s with priority %u",
		    guid_format(r->info.guid, g, sizeof(g)), sm_state_name(r->info.state),
		    r->info.priority);
		poll_start(sm, r);
		set_state(sm, SM_STATE_STANDBY, why);
		return false;
	case SM_VERDICT_WAIT:
		/* Two masters: the lower one hands over to us when it sweeps
		 * (C14-60.2.1); until then neither of us rewrites the other. */
		if (!sm->polling || sm->polled.info.guid != r->info.guid) {
			event_post(EV_WARNING, sm_source(sm), NULL, "another master SM %s (priority %u) on "
			    "the subnet; waiting for its handover",
			    guid_format(r->info.guid, g, sizeof(g)), r->info.priority);
			poll_start(sm, r);
		}
		return false;
	}
	return false;
}

/* ---- polling the SM we follow ---- */

void
sm_standby_take_over(struct sm *sm, const char *why)
{
	poll_stop(sm);
	if (sm->state == SM_STATE_STANDBY)
		set_state(sm, SM_STATE_DISCOVERING, why);
	else
		event_post(EV_WARNING, sm_source(sm), NULL, "%s", why);
	sm_sweep_request(sm, true);
}

void
sm_standby_step_down(struct sm *sm, const char *why)
{
	if (sm->state != SM_STATE_MASTER)
		return;
	poll_stop(sm);
	set_state(sm, SM_STATE_DISCOVERING, why);
	sm_sweep_request(sm, true);
}

static void
on_poll(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_peer answer;
	bool alive = false;
	char why[128], g[24];

	if (res->status == -ECANCELED)
		return;
	sm->poll_outstanding = false;
	if (!sm->polling)
		return;
	if (mad_reply_ok(res) &&
	    key_ok(sm, (const ib_sm_info_t *)((const ib_smp_t *)res->mad)->data)) {
		memset(&answer, 0, sizeof(answer));
		peer_from_sminfo(&answer, (const ib_sm_info_t *)((const ib_smp_t *)res->mad)->data);
		alive = sm_elect_poll_alive((uint8_t)sm->cfg.priority, sm->own_guid,
		    sm->polled.info.guid, &answer);
		if (alive) {
			answer.lid = sm->polled.info.lid;
			sm->polled.info = answer;
		}
	}
	if (alive) {
		sm->poll_misses = 0;
		return;
	}
	sm->poll_misses++;
	log_info("sm: SM " GUID_FMT " missed poll %u of %llu",
	    sm->polled.info.guid, sm->poll_misses,
	    (unsigned long long)sm->cfg.standby_misses);
	if (sm->poll_misses < sm->cfg.standby_misses)
		return;
	if (sm->fd && sm->fd->ha) {
		/* With ha a master is master while its writer lease lasts: a
		 * standby that took over on missed polls alone would stand
		 * beside it as a second master (writing nothing, but one
		 * sminfo too many).  fence.c takes over when the lease ends. */
		if (sm->poll_misses == sm->cfg.standby_misses)
			log_info("sm: SM " GUID_FMT " missed %u polls: taking over once its etcd "
			    "writer lease ends", sm->polled.info.guid, sm->poll_misses);
		return;
	}
	snprintf(why, sizeof(why), "SM %s did not answer as master %u times",
	    guid_format(sm->polled.info.guid, g, sizeof(g)), sm->poll_misses);
	sm_standby_take_over(sm, why);
}

static void
poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	if (!sm->polling || sm->poll_outstanding)
		return;
	sm->poll_outstanding = true;
	mad_batch_smp(&sm->side, &sm->polled.addr, IB_MAD_METHOD_GET, UMAD_SM_ATTR_SM_INFO, 0, NULL,
	    on_poll, NULL);
}

static uint64_t
poll_interval_ms(const struct sm *sm)
{
	return sm->cfg.standby_poll_ms ? sm->cfg.standby_poll_ms : sm->cfg.sweep_interval_ms;
}

static void
poll_start(struct sm *sm, const struct sm_remote *r)
{
	uint64_t ms = poll_interval_ms(sm);
	struct timeval tv = clock_tv_ms(ms);

	if (r != &sm->polled)
		sm->polled = *r;
	sm->polling = true;
	sm->poll_misses = 0;
	if (sm->poll_timer == NULL)
		sm->poll_timer = event_new(sm->fd->base, -1, EV_PERSIST, poll_cb, sm);
	event_del(sm->poll_timer);
	event_add(sm->poll_timer, &tv);
}

static void
poll_stop(struct sm *sm)
{
	sm->polling = false;
	sm->poll_misses = 0;
	if (sm->poll_timer)
		event_del(sm->poll_timer);
}

/* The poll period changed (reload). */
void
sm_standby_reload(struct sm *sm)
{
	if (sm->polling)
		poll_start(sm, &sm->polled);
}

void
sm_standby_stop(struct sm *sm)
{
	poll_stop(sm);
	if (sm->poll_timer)
		event_free(sm->poll_timer);
	sm->poll_timer = NULL;
}

/* ---- SMInfo requests addressed to us ---- */

static void
respond(struct sm *sm, const struct mad_in *in, uint16_t status)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_smp_t *smp = (ib_smp_t *)mad;

	memcpy(mad, in->mad, MAD_SIZE);
	smp->method = IB_MAD_METHOD_GET_RESP;
	memset(smp->data, 0, sizeof(smp->data));
	fill_sminfo(sm, (ib_sm_info_t *)smp->data);
	smp->status = htobe16(status);
	if (smp->mgmt_class == IB_MCLASS_SUBN_DIR) {
		/* A directed-route answer: D bit set, and the return path
		 * the fabric recorded.  (ibsim wants the hop pointer at 0
		 * and walks the return path itself.) */
		smp->status |= htobe16(0x8000);
		smp->hop_ptr = 0;
	}
	mad_respond(sm->me, in, mad, MAD_SIZE);
}

/* The SM a STANDBY Set tells us to follow: by its port in the model, else
 * by the LID it wrote from (the subnet has a master: LIDs route). */
static void
follow_sender(struct sm *sm, const struct mad_in *in, const struct sm_peer *sender)
{
	struct sm_remote r;
	struct fabric_port *p = sm->fabric ? fabric_port_by_guid(sm->fabric, sender->guid) : NULL;

	memset(&r, 0, sizeof(r));
	r.info = *sender;
	r.answered = true;
	r.addr.directed = p != NULL && fabric_port_path(p, r.addr.path, &r.addr.hops);
	if (!r.addr.directed)
		r.addr.dlid = in->slid;
	r.info.lid = in->slid != 0xFFFF ? in->slid : 0;
	poll_start(sm, &r);
}

static void
on_set(struct sm *sm, const struct mad_in *in)
{
	const ib_smp_t *smp = (const ib_smp_t *)in->mad;
	uint32_t mod = be32toh(smp->attr_mod);
	struct sm_peer sender;
	enum sm_set_action a;
	char why[128], g[24];

	memset(&sender, 0, sizeof(sender));
	peer_from_sminfo(&sender, (const ib_sm_info_t *)smp->data);
	/* An SM of another administration (another SM_Key) is left out of
	 * the election; it does not get to hand over, disable or demote us
	 * either.  OpenSM 3.3 leaves this check "to do". */
	if (!key_ok(sm, (const ib_sm_info_t *)smp->data)) {
		respond(sm, in, 0x001C);
		log_warnx("sm: SubnSet(SMInfo) %u from SM %s with another SM_Key: refused", mod,
		    guid_format(sender.guid, g, sizeof(g)));
		return;
	}
	a = sm_elect_on_set(sm->state, mod, sender.state);
	/* The answer carries our state before the Set acts (as OpenSM's). */
	respond(sm, in, a == SM_SET_REJECT ? 0x001C : 0);
	snprintf(why, sizeof(why), "SubnSet(SMInfo) %u from SM %s", mod,
	    guid_format(sender.guid, g, sizeof(g)));
	switch (a) {
	case SM_SET_REJECT:
		log_warnx("sm: %s refused in state %s", why, sm_state_name(sm->state));
		break;
	case SM_SET_IGNORE:
		break;
	case SM_SET_TAKE_OVER:
		poll_stop(sm);
		snprintf(why, sizeof(why), "SM %s handed over", guid_format(sender.guid, g, sizeof(g)));
		set_state(sm, SM_STATE_MASTER, why);
		sm_sweep_request(sm, true);
		break;
	case SM_SET_SWEEP:
		if (sm->state == SM_STATE_DISCOVERING) {
			sm->handover_received = true;
			sm->handover_from = sender.guid;
		}
		log_info("sm: %s: sweeping", why);
		sm_sweep_request(sm, true);
		break;
	case SM_SET_DISCOVER:
		poll_stop(sm);
		set_state(sm, SM_STATE_DISCOVERING, why);
		sm_sweep_request(sm, true);
		break;
	case SM_SET_NOTACTIVE:
		poll_stop(sm);
		set_state(sm, SM_STATE_NOTACTIVE, why);
		break;
	case SM_SET_STANDBY:
		follow_sender(sm, in, &sender);
		set_state(sm, SM_STATE_STANDBY, why);
		break;
	}
}

void
sm_sminfo_request(struct sm *sm, const struct mad_in *in)
{
	const ib_smp_t *smp = (const ib_smp_t *)in->mad;

	if (smp->method == IB_MAD_METHOD_SET) {
		on_set(sm, in);
		return;
	}
	respond(sm, in, 0);
	/* Another SM is discovering or polling: if one that was silent is
	 * back, the election hears it now (rate-limited). */
	sm_standby_reprobe(sm);
}
