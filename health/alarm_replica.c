/*
 * The alarms in the replicated intent (ha/ha.h), so that a failover keeps
 * what the pre-flight relies on as a restart does (alarm_store.c): the
 * master, while it holds the writer lease, puts its raised alarms and its
 * ring of cleared ones under "health/alarms" (at most every 2 s, when
 * something changed); a standby takes them as its own table, so that the
 * moment it becomes master its pre-flights name what failed under the old
 * one, with the same quiet times.  An alarm whose port an operator
 * unisolated carries the mark ("released"): the next master does not
 * isolate the port again before it clears.  The mirror's mechanics are ha's
 * (ha_mirror_start).
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
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:s, s:I, s:b}", "object", a->object,
	    "check", hchk_name(a->check), "guid", g, "port", a->port, "severity", a->severity,
	    "first", (json_int_t)a->first_seen_ms, "last", (json_int_t)a->last_seen_ms,
	    "failures", (json_int_t)a->failures, "detail", a->detail, "cleared",
	    (json_int_t)cleared_ms, "released", a->released);
}

static char *
snapshot(struct health *h)
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

static char *
snapshot_of(void *arg)
{
	return snapshot(arg);
}

static bool
is_master(void *arg)
{
	struct health *h = arg;

	return sm_is_master(h->sm);
}

static uint64_t
own_guid(void *arg)
{
	struct health *h = arg;

	return sm_own_port_guid(h->sm);
}

/* A standby's table follows the master's. */
static void
on_alarms(const char *value, size_t len, int64_t rev, void *arg)
{
	struct health *h = arg;
	json_t *arr, *e;
	size_t i, n = 0;

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
		    .cleared_ms = json_integer_value(json_object_get(e, "cleared")),
		    .released = json_is_true(json_object_get(e, "released")) };
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
	static const struct ha_mirror_ops ops = { KEY, snapshot_of, on_alarms, is_master,
	    own_guid, PUBLISH_MS };

	h->alarms_mirror = ha_mirror_start(h->fd ? h->fd->ha : NULL, &ops, h);
}

void
health_alarms_replica_stop(struct health *h)
{
	ha_mirror_stop(h->alarms_mirror);
	h->alarms_mirror = NULL;
}
