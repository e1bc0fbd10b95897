/*
 * The alarms in the replicated intent (ha/ha.h), so that a failover keeps
 * what the pre-flight relies on as a restart does (alarm_store.c): the
 * master, while it holds the writer lease, puts its raised alarms and its
 * ring of cleared ones under "health/alarms" (at most every 2 s, when
 * something changed); a standby takes them as its own table, so that the
 * moment it becomes master its pre-flights name what failed under the old
 * one, with the same quiet times.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/fabricd.h"
#include "ha/ha.h"
#include "health/alarm_store.h"
#include "health/hstate.h"
#include "sm/sm.h"

#define KEY		"health/alarms"
#define PUBLISH_MS	2000

static json_t *
alarm_json(const struct alarm *a, int64_t cleared_ms)
{
	char g[24];

	snprintf(g, sizeof(g), "0x%016" PRIx64, a->node_guid);
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:s, s:I}", "object", a->object,
	    "check", hchk_name(a->check), "guid", g, "port", a->port, "severity", a->severity,
	    "first", (json_int_t)a->first_seen_ms, "last", (json_int_t)a->last_seen_ms,
	    "failures", (json_int_t)a->failures, "detail", a->detail, "cleared",
	    (json_int_t)cleared_ms);
}

static char *
snapshot(const struct health *h)
{
	json_t *arr = json_array();
	char *text;

	for (size_t i = 0; i < alarm_recent_count(h->alarms); i++)	/* oldest first */
		json_array_append_new(arr, alarm_json(alarm_recent_at(h->alarms, i),
		    alarm_recent_at(h->alarms, i)->cleared_ms));
	for (size_t i = 0; i < alarm_count(h->alarms); i++)
		json_array_append_new(arr, alarm_json(alarm_at(h->alarms, i), 0));
	text = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return text;
}

/* arg unused: the answer may come after health stopped (a reload turned
 * it off), when only the module's pointer says so */
static void
on_put(enum ha_txn_result r, int64_t rev, const char *err, void *arg)
{
	struct health *h = health;

	if (h == NULL)
		return;
	h->alarms_putting = false;
	if (r != HA_TXN_OK)
		h->alarms_dirty = true;		/* tried again at the next tick */
}

static bool
still_master(void *arg)
{
	return health != NULL && sm_is_master(health->sm);
}

static void
publish(evutil_socket_t fd, short what, void *arg)
{
	struct health *h = arg;
	struct timeval tv = clock_tv_ms(PUBLISH_MS);
	struct ha *ha = h->fd->ha;
	struct ha_op op = { KEY, NULL, false };
	char *v;

	evtimer_add(h->alarms_publish_ev, &tv);
	/* the master writes; it claims the lease even with partitions off */
	if (sm_is_master(h->sm) && !ha_is_writer(ha))
		ha_claim(ha, sm_own_port_guid(h->sm), still_master, NULL, h);
	if (!h->alarms_dirty || h->alarms_putting || !ha_is_writer(ha))
		return;
	op.value = v = snapshot(h);
	if (ha_txn(ha, NULL, -1, &op, 1, on_put, NULL) == 0) {
		h->alarms_putting = true;
		h->alarms_dirty = false;
	}
	free(v);
}

/* A standby's table follows the master's. */
static void
on_alarms(const char *value, size_t len, int64_t rev, void *arg)
{
	struct health *h = arg;
	json_t *arr, *e;
	size_t i, n = 0;

	if (value == NULL || ha_is_writer(h->fd->ha))
		return;		/* ours, or nothing */
	arr = json_loadb(value, len, 0, NULL);	/* not inside json_is_array: a macro */
	if (!json_is_array(arr)) {
		json_decref(arr);
		return;
	}
	alarm_table_reset(h->alarms);
	json_array_foreach(arr, i, e) {
		int check = hchk_by_name(json_string_value(json_object_get(e, "check")) ?: "");
		const char *object = json_string_value(json_object_get(e, "object"));
		const char *guid = json_string_value(json_object_get(e, "guid"));
		struct alarm a;

		if (check < 0 || object == NULL)
			continue;
		a = (struct alarm){ .object = (char *)object, .check = (enum hchk)check,
		    .node_guid = guid ? strtoull(guid, NULL, 16) : 0,
		    .port = (uint8_t)json_integer_value(json_object_get(e, "port")),
		    .severity = (enum event_severity)json_integer_value(json_object_get(e, "severity")),
		    .first_seen_ms = json_integer_value(json_object_get(e, "first")),
		    .last_seen_ms = json_integer_value(json_object_get(e, "last")),
		    .failures = (uint32_t)json_integer_value(json_object_get(e, "failures")),
		    .cleared_ms = json_integer_value(json_object_get(e, "cleared")) };
		snprintf(a.detail, sizeof(a.detail), "%s",
		    json_string_value(json_object_get(e, "detail")) ?: "");
		alarm_restore(h->alarms, &a);
		n++;
	}
	json_decref(arr);
	hports_recount(h);
	log_debug("health: took %zu alarms of the master from etcd (revision %" PRId64 ")", n, rev);
}

void
health_alarms_replica_start(struct health *h)
{
	struct ha *ha = h->fd ? h->fd->ha : NULL;
	struct timeval tv = clock_tv_ms(PUBLISH_MS);

	if (ha == NULL)
		return;
	h->alarms_dirty = true;
	h->alarms_publish_ev = evtimer_new(h->fd->base, publish, h);
	evtimer_add(h->alarms_publish_ev, &tv);
	ha_watch(ha, KEY, on_alarms, h);
}

void
health_alarms_replica_stop(struct health *h)
{
	if (h->fd)
		ha_unwatch(h->fd->ha, on_alarms, h);
	if (h->alarms_publish_ev)
		event_free(h->alarms_publish_ev);
	h->alarms_publish_ev = NULL;
}
