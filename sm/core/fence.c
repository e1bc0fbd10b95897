/*
 * The fence: one SM writes the fabric, whatever happens.
 *
 * Switches take a SubnSet from anyone, so nothing on the fabric keeps two
 * SMs from rewriting each other's tables: each SM must hold itself back.
 * Every SubnSet this SM sends, from whatever part (sweep, audit, P_Key,
 * QoS, MFT, port admin) and at every retry, passes one gate (the MAD
 * engine asks write_gate() before each try leaves), and goes out only
 * while this SM may write:
 *
 *   - it is MASTER (an SMInfo Set of a handover excepted, without ha);
 *   - with ha, it holds the etcd writer lease and the lease is valid by
 *     its own clock (ha_lease_valid: counted from the send of the last
 *     renewal etcd answered, a margin short of the TTL), and it has read
 *     the SM's records from etcd since it won the lease;
 *   - without ha, it has not just woken from a stall long enough for a
 *     standby to have taken over: it elects again (a heavy discovery,
 *     Gets only) before it writes.
 *
 * A master that loses its lease (expired, fenced by etcd, given up) steps
 * down at once and discovers the subnet again; a master without the lease
 * yet (just elected) programs nothing until it holds it.  A standby with
 * ha takes over when the master's lease is gone, read from the writer key
 * every FENCE_TICK_MS, not after sm.standby_misses SMInfo polls.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

#define FENCE_TICK_MS		250
#define FENCE_MIN_STALL_MS	2000

static struct ha *
ha_of(const struct sm *sm)
{
	return sm->fd ? sm->fd->ha : NULL;
}

/*
 * Without ha, how long this SM may stand still before another may have
 * taken the subnet: a standby needs standby_misses polls in a row without
 * an answer, the first of which may fall just after the stall began; half
 * of the remaining polls' time, never under FENCE_MIN_STALL_MS (a loaded
 * machine delays a timer by far less).
 */
static int64_t
stall_ms(const struct sm *sm)
{
	uint64_t poll = sm->cfg.standby_poll_ms ? sm->cfg.standby_poll_ms :
	    sm->cfg.sweep_interval_ms;
	uint64_t misses = sm->cfg.standby_misses > 1 ? sm->cfg.standby_misses - 1 : 1;
	int64_t ms = (int64_t)(poll * misses / 2);

	return ms < FENCE_MIN_STALL_MS ? FENCE_MIN_STALL_MS : ms;
}

static bool
stalled(const struct sm *sm)
{
	return sm->fence.tick_ms != 0 && clock_mono_ms() - sm->fence.tick_ms > stall_ms(sm);
}

const char *
sm_write_refusal(const struct sm *sm, char *buf, size_t len)
{
	struct ha *ha = ha_of(sm);

	if (sm->state != SM_STATE_MASTER)
		snprintf(buf, len, "this SM is %s, not master", sm_state_name(sm->state));
	else if (ha == NULL && stalled(sm))
		snprintf(buf, len, "this SM stood still for %" PRId64 " ms: it elects again "
		    "before it writes", clock_mono_ms() - sm->fence.tick_ms);
	else if (ha != NULL && !ha_lease_valid(ha))
		snprintf(buf, len, "this SM does not hold a valid etcd writer lease");
	else if (ha != NULL && sm->mirror != NULL && !ha_mirror_fresh(sm->mirror))
		snprintf(buf, len, "this SM has not read the SM's records from etcd since it "
		    "won the writer lease");
	else
		return NULL;
	return buf;
}

bool
sm_may_write(const struct sm *sm)
{
	char buf[160];

	return sm_write_refusal(sm, buf, sizeof(buf)) == NULL;
}

/* The MAD engine asks before every SubnSet leaves, each try. */
static bool
write_gate(const uint8_t *mad, void *arg)
{
	struct sm *sm = arg;
	const ib_mad_t *hdr = (const ib_mad_t *)mad;
	char why[160];

	/* Without ha, a master hands over with an SMInfo Set and goes
	 * STANDBY before the Set has left: that one goes unless stalled. */
	if (ha_of(sm) == NULL && be16toh(hdr->attr_id) == UMAD_SM_ATTR_SM_INFO &&
	    !stalled(sm))
		return true;
	if (sm_write_refusal(sm, why, sizeof(why)) == NULL)
		return true;
	sm->fence.refused++;
	if (sm->fence.refused_told != sm->fence.steps) {
		/* once per change of our standing, not once per Set */
		sm->fence.refused_told = sm->fence.steps;
		log_warnx("sm: SubnSet held back: %s", why);
	}
	return false;
}

/* ---- stepping down, taking over, resuming ---- */

static void
on_lease_lost(void *arg)
{
	struct sm *sm = arg;

	if (sm->state == SM_STATE_MASTER)
		sm_standby_step_down(sm, "the etcd writer lease was lost: electing again "
		    "before any write");
}

/* A master elected but not yet entitled to write goes on once it is. */
static void
resume_when_entitled(struct sm *sm)
{
	if (!sm->fence.unprogrammed || sm->fence.resuming || sm->state != SM_STATE_MASTER ||
	    !sm_may_write(sm))
		return;
	event_post(EV_INFO, sm_source(sm), NULL, "this SM holds the etcd writer lease and has read the "
	    "intent: programming the subnet");
	sm->fence.resuming = true;	/* one sweep, not one a tick until it decides */
	sm_sweep_request(sm, true);
}

static void
on_writer(int rc, const char *value, size_t len, int64_t rev, const char *err, void *arg)
{
	struct sm_fence_get *g = arg;
	struct sm *sm = g->sm;
	int64_t now = clock_mono_ms(), ttl;
	char own[24], why[160];

	free(g);
	if (sm == NULL)
		return;		/* the SM stopped while etcd answered */
	sm->fence.get = NULL;
	if (sm->state != SM_STATE_STANDBY || rc < 0 || sm->fence.gen != sm->fence.steps)
		return;		/* no answer (no quorum): the master is followed as before */
	snprintf(own, sizeof(own), "%016" PRIx64, sm->own_guid);
	if (rc == 0) {
		sm->fence.absent_since = 0;
		/* our own name from when we were master tells nothing of it */
		if (len != strlen(own) || memcmp(value, own, len) != 0)
			sm->fence.writer_seen = true;
		return;
	}
	ttl = ha_lease_ttl_ms(ha_of(sm));
	if (sm->fence.writer_seen)
		snprintf(why, sizeof(why), "the master's etcd writer lease ended");
	else if (sm->fence.absent_since == 0) {
		sm->fence.absent_since = now;
		return;
	} else if (now - sm->fence.absent_since >= ttl)
		snprintf(why, sizeof(why), "no SM has held the etcd writer lease for %" PRId64
		    " ms", now - sm->fence.absent_since);
	else
		return;
	sm_standby_take_over(sm, why);
}

/* A standby with ha reads the writer key: the master's lease ending is
 * the master gone, TTL after its last keep-alive. */
static void
watch_writer(struct sm *sm)
{
	struct ha *ha = ha_of(sm);
	struct sm_fence_get *g;

	if (ha == NULL || sm->state != SM_STATE_STANDBY || sm->fence.get != NULL)
		return;
	sm->fence.gen = sm->fence.steps;
	g = xcalloc(1, sizeof(*g));
	g->sm = sm;
	if (ha_get(ha, "writer", on_writer, g) == 0)
		sm->fence.get = g;
	else
		free(g);
}

static void
fence_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	int64_t now = clock_mono_ms();

	if (sm->state != sm->fence.state_seen) {	/* a new standing: start afresh */
		sm->fence.state_seen = sm->state;
		sm->fence.steps++;
		sm->fence.writer_seen = false;
		sm->fence.absent_since = 0;
	}
	if (ha_of(sm) == NULL && sm->state == SM_STATE_MASTER && stalled(sm)) {
		char why[160];

		snprintf(why, sizeof(why), "this SM stood still for %" PRId64 " ms, long enough "
		    "for a standby to take over: electing again before any write",
		    now - sm->fence.tick_ms);
		sm->fence.tick_ms = now;
		sm_standby_step_down(sm, why);
	}
	sm->fence.tick_ms = now;
	resume_when_entitled(sm);
	watch_writer(sm);
}

void
sm_fence_start(struct sm *sm)
{
	struct timeval tv = clock_tv_ms(FENCE_TICK_MS);

	sm->fence.tick_ms = clock_mono_ms();
	sm->fence.state_seen = sm->state;
	sm->fence.refused_told = UINT64_MAX;
	if (sm->me)
		mad_engine_set_gate(sm->me, write_gate, sm);
	ha_on_lease_lost(ha_of(sm), on_lease_lost, sm);
	if (sm->fd && sm->fd->base) {
		sm->fence.ev = event_new(sm->fd->base, -1, EV_PERSIST, fence_tick, sm);
		event_add(sm->fence.ev, &tv);
	}
}

void
sm_fence_stop(struct sm *sm)
{
	if (sm->me)
		mad_engine_set_gate(sm->me, NULL, NULL);
	ha_forget(ha_of(sm), sm);
	if (sm->fence.get)		/* its answer finds no SM and frees it */
		sm->fence.get->sm = NULL;
	sm->fence.get = NULL;
	if (sm->fence.ev)
		event_free(sm->fence.ev);
	sm->fence.ev = NULL;
}

json_t *
sm_fence_json(const struct sm *sm)
{
	char buf[160];
	const char *why = sm_write_refusal(sm, buf, sizeof(buf));

	return json_pack("{s:s, s:s?, s:I, s:b}", "writes", why ? "held" : "allowed",
	    "why", why, "sets_refused", (json_int_t)sm->fence.refused,
	    "awaiting_lease", sm->fence.unprogrammed && sm->state == SM_STATE_MASTER);
}
