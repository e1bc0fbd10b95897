/*
 * The writer's lease (ha.h): "writer" is created under a lease of
 * ha.lease_ttl in the master SM's name, only when no one holds it, and
 * kept alive once a second.  A master killed with the lease held loses it
 * when the TTL runs out; the next master's claim, tried every second,
 * then wins.  Every write compares "writer" with our name (ha_txn), so
 * the lease is the fence in etcd.
 *
 * Switches take a SubnSet from anyone, so on the fabric the fence is this
 * node's own discipline: a lease lasts at least its TTL from the moment
 * the request that renewed it was sent (etcd counts from when it got it,
 * later), so we count from our send, and stop writing a margin before
 * that runs out (ha_lease_valid), not when etcd tells us.  A process that
 * was frozen wakes with its clock past the lease and writes nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "ha/ha_internal.h"

static int64_t
ttl_s(const struct ha *ha)
{
	int64_t s = (int64_t)(ha->cfg.lease_ttl_ms / 1000);

	return s < 2 ? 2 : s;
}

int64_t
ha_lease_ttl_ms(const struct ha *ha)
{
	return ha ? ttl_s(ha) * 1000 : 0;
}

/* What etcd said the lease lives (seconds), never more than we asked. */
static int64_t
granted_ms(const struct ha *ha, int64_t ttl)
{
	return ttl > 0 && ttl < ttl_s(ha) ? ttl * 1000 : ttl_s(ha) * 1000;
}

/* Writes stop this long before the lease can have ended by our clock: a
 * keep-alive's interval (1 s), at most a third of the TTL, so that one
 * late answer holds writes back rather than lets them through late. */
static int64_t
margin_ms(const struct ha *ha)
{
	int64_t third = ha->lease_ttl_ms / 3;

	return third < 1000 ? third : 1000;
}

bool
ha_lease_valid(const struct ha *ha)
{
	return ha && ha->writer &&
	    clock_mono_ms() - ha->lease_from_ms < ha->lease_ttl_ms - margin_ms(ha);
}

void
ha_on_lease_lost(struct ha *ha, void (*fn)(void *arg), void *arg)
{
	if (ha == NULL || ha->nlost >= sizeof(ha->lost) / sizeof(ha->lost[0]))
		return;
	ha->lost[ha->nlost].fn = fn;
	ha->lost[ha->nlost].arg = arg;
	ha->nlost++;
}

static void
on_claim(json_t *reply, const char *err, void *arg)
{
	struct ha *ha = arg;
	json_t *fail, *kv;
	const char *v;
	size_t len;
	char *holder;

	ha->claim_out = false;
	if (ha->stopping || !ha->wanted)
		return;
	if (reply == NULL || !json_is_true(json_object_get(reply, "succeeded")))
		ha->lease = 0;	/* not kept alive meanwhile: the next try takes a new one */
	if (reply == NULL)
		return;
	if (json_is_true(json_object_get(reply, "succeeded"))) {
		ha->writer = true;
		ha->lease_from_ms = ha->grant_sent_ms;	/* the lease's life began no sooner */
		snprintf(ha->holder, sizeof(ha->holder), "%s", ha->id);
		event_post(EV_INFO, "ha", NULL, "this node (%s) holds the etcd writer lease", ha->id);
		for (size_t i = 0; i < ha->ngained; i++)
			ha->gained[i].fn(ha->gained[i].arg);
		return;
	}
	fail = json_array_get(json_object_get(reply, "responses"), 0);
	kv = json_array_get(json_object_get(json_object_get(fail, "response_range"), "kvs"), 0);
	v = json_string_value(json_object_get(kv, "value"));
	if (v && (holder = etcd_unb64(v, &len)) != NULL) {
		if (strcmp(ha->holder, holder) != 0)
			log_info("ha: the writer lease is held by %s; waiting for it to end", holder);
		snprintf(ha->holder, sizeof(ha->holder), "%s", holder);
		free(holder);
	}
}

static void
put_writer(struct ha *ha)
{
	char *wk = ha_key64(ha, "writer"), *id = etcd_b64(ha->id, strlen(ha->id)), lease[24];
	json_t *body;

	snprintf(lease, sizeof(lease), "%" PRId64, ha->lease);
	body = json_pack("{s:[{s:s, s:s, s:s, s:s}], s:[{s:{s:s, s:s, s:s}}], s:[{s:{s:s}}]}",
	    "compare", "key", wk, "target", "CREATE", "result", "EQUAL", "create_revision", "0",
	    "success", "request_put", "key", wk, "value", id, "lease", lease,
	    "failure", "request_range", "key", wk);
	free(wk);
	free(id);
	if (etcd_call(ha->etcd, "/v3/kv/txn", body, on_claim, ha) == 0)
		ha->claim_out = true;
}

static void
on_grant(json_t *reply, const char *err, void *arg)
{
	struct ha *ha = arg;

	ha->claim_out = false;
	if (ha->stopping || reply == NULL || !ha->wanted)
		return;
	ha->lease_ttl_ms = granted_ms(ha, etcd_int(reply, "TTL"));
	if ((ha->lease = etcd_int(reply, "ID")) != 0)
		put_writer(ha);
}

static void
try_claim(struct ha *ha)
{
	if (ha->claim_out || ha->writer || !ha->wanted)
		return;
	if (ha->lease != 0) {
		put_writer(ha);
		return;
	}
	ha->grant_sent_ms = clock_mono_ms();
	if (etcd_call(ha->etcd, "/v3/lease/grant", json_pack("{s:I}", "TTL",
	    (json_int_t)ttl_s(ha)), on_grant, ha) == 0)
		ha->claim_out = true;
}

void
ha_claim(struct ha *ha, uint64_t sm_guid, bool (*still)(void *arg), void (*gained)(void *arg),
    void *arg)
{
	if (ha == NULL)
		return;
	snprintf(ha->id, sizeof(ha->id), "%016" PRIx64, sm_guid);
	if (still) {
		ha->still = still;
		ha->still_arg = arg;
	}
	if (gained) {
		size_t i;

		for (i = 0; i < ha->ngained; i++)
			if (ha->gained[i].fn == gained && ha->gained[i].arg == arg)
				break;
		if (i == ha->ngained && i < sizeof(ha->gained) / sizeof(ha->gained[0])) {
			ha->gained[i].fn = gained;
			ha->gained[i].arg = arg;
			ha->ngained++;
			/* another claimer (a mirror) won it already: this one is
			 * told now, as it would have been at the win */
			if (ha->writer)
				gained(arg);
		}
	}
	ha->wanted = true;
	try_claim(ha);
}

void
ha_lease_lost(struct ha *ha, const char *why)
{
	if (!ha->writer)
		return;
	ha->writer = false;
	ha->lease = 0;		/* the next claim takes a new one */
	ha->holder[0] = '\0';
	event_post(EV_WARNING, "ha", NULL, "this node lost the etcd writer lease (%s): it writes "
	    "nothing until it holds it again", why);
	for (size_t i = 0; i < ha->nlost; i++)
		ha->lost[i].fn(ha->lost[i].arg);
}

static void
on_revoke(json_t *reply, const char *err, void *arg)
{
	struct ha *ha = arg;

	ha->revoke_out = false;
	if (ha->stopping)	/* ha_free waits for this answer alone */
		event_base_loopbreak(ha->base);
}

/* At a clean stop, after the SM gave the lease up: the revoke is let
 * reach etcd (at most HA_REVOKE_WAIT_MS), so that the next master writes
 * at once instead of after the lease's TTL.  The daemon is leaving: no
 * one else is served in the meantime. */
static void
revoke_timeout(evutil_socket_t fd, short what, void *arg)
{
	event_base_loopbreak(arg);
}

void
ha_lease_flush(struct ha *ha)
{
	struct timeval tv = { 0, HA_REVOKE_WAIT_MS * 1000 };
	struct event *t;

	if (!ha->revoke_out)
		return;
	ha->stopping = true;
	t = evtimer_new(ha->base, revoke_timeout, ha->base);
	evtimer_add(t, &tv);
	event_base_dispatch(ha->base);
	event_free(t);
	if (ha->revoke_out)
		log_warnx("ha: etcd did not answer the lease's revoke within %d ms: the next master "
		    "writes once the lease's TTL has run out", HA_REVOKE_WAIT_MS);
}

void
ha_release(struct ha *ha)
{
	char lease[24];

	if (ha == NULL || !ha->wanted)
		return;
	ha->wanted = false;
	if (ha->lease != 0) {
		snprintf(lease, sizeof(lease), "%" PRId64, ha->lease);
		if (etcd_call(ha->etcd, "/v3/lease/revoke", json_pack("{s:s}", "ID", lease),
		    on_revoke, ha) == 0)
			ha->revoke_out = true;
	}
	ha_lease_lost(ha, "this SM is no longer master");
	ha->lease = 0;
}

static void
on_keepalive(json_t *reply, const char *err, void *arg)
{
	struct ha *ha = arg;
	json_t *res = reply ? json_object_get(reply, "result") : NULL;

	ha->keepalive_out = false;
	if (ha->stopping || reply == NULL)
		return;		/* the tick below judges the time since the last one */
	if (!ha->writer || ha->lease != ha->keepalive_lease)
		return;		/* an answer about a lease given up since */
	if (etcd_int(res, "TTL") > 0) {
		ha->lease_from_ms = ha->keepalive_sent_ms;
		ha->lease_ttl_ms = granted_ms(ha, etcd_int(res, "TTL"));
	} else
		ha_lease_lost(ha, "its lease expired");
}

/* Once a second (ha.c's poll): claim, keep alive, or give up. */
void
ha_lease_tick(struct ha *ha)
{
	char lease[24];

	if (ha->wanted && ha->still && !ha->still(ha->still_arg)) {
		ha_release(ha);
		return;
	}
	if (!ha->writer) {
		try_claim(ha);
		return;
	}
	/* not kept alive for a whole TTL (from the send of the last renewal
	 * etcd answered): etcd may have let it go by now */
	if (clock_mono_ms() - ha->lease_from_ms >= ha->lease_ttl_ms) {
		ha_lease_lost(ha, "no keep-alive answered within the lease's TTL");
		return;
	}
	if (ha->keepalive_out)
		return;
	ha->keepalive_sent_ms = clock_mono_ms();
	ha->keepalive_lease = ha->lease;
	snprintf(lease, sizeof(lease), "%" PRId64, ha->lease);
	if (etcd_call(ha->etcd, "/v3/lease/keepalive", json_pack("{s:s}", "ID", lease),
	    on_keepalive, ha) == 0)
		ha->keepalive_out = true;
}

void
ha_forget(struct ha *ha, void *arg)
{
	size_t i, j;

	if (ha == NULL)
		return;
	if (ha->still_arg == arg) {
		ha->still = NULL;
		ha->still_arg = NULL;
	}
	for (i = j = 0; i < ha->ngained; i++)
		if (ha->gained[i].arg != arg)
			ha->gained[j++] = ha->gained[i];
	ha->ngained = j;
	for (i = j = 0; i < ha->nlost; i++)
		if (ha->lost[i].arg != arg)
			ha->lost[j++] = ha->lost[i];
	ha->nlost = j;
}
