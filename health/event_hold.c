/*
 * The health module's events, one per cause: alarm transitions of a round
 * are held and posted together when the round ends (see below).  module.c
 * notes them; ib.c and module.c's RoCE tick hold and release around a round.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "health/hstate.h"

/*
 * One cause, one event.  Alarm transitions of one round (a polling round,
 * the link checks after a sweep, a RoCE sample) are held and posted when
 * the round ends: a check that started (or stopped) failing on at most
 * HEALTH_EVENT_PORTS objects in the round gets one event per object, as an
 * operator wants for a bad cable; on more, it is one fabric-wide event with
 * the count and a few names, and the list is `fabricctl ports --degraded`
 * or `fabricctl health`.  A first start on a fabric whose links all run
 * below their best would otherwise write one row per port (7,776 on a
 * 1,296-host tree) in one go.
 */
#define HEALTH_EVENT_PORTS	8
#define HEALTH_EVENT_NAMES	3

static struct held_event *held;
static size_t nheld, held_cap;
static unsigned hold_depth;

static void
post_one(const struct held_event *e)
{
	if (e->raised)
		event_post(e->sev, "health", e->object, "%s: %s", hchk_name(e->check), e->detail);
	else {
		char since[32];

		event_post(EV_INFO, "health", e->object, "%s cleared (failing for %s, %u failed "
		    "checks)", hchk_name(e->check), clock_duration_text(event_now_ms() -
		    e->first_seen_ms, since, sizeof(since)), e->failures);
	}
}

/* One event for the n held transitions like e (same check, direction, severity). */
static void
post_many(const struct held_event *e, size_t n)
{
	char names[3 * 80 + 8] = "";
	size_t shown = 0;

	for (size_t i = 0; i < nheld && shown < HEALTH_EVENT_NAMES; i++) {
		const struct held_event *o = &held[i];
		if (o->check != e->check || o->raised != e->raised || o->sev != e->sev)
			continue;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
		    shown ? ", " : "", o->object);
		shown++;
	}
	if (e->raised)
		event_post(e->sev, "health", "fabric", "%s: %zu ports (%s, ...; e.g. %s); "
		    "list: fabricctl ports --degraded, fabricctl health", hchk_name(e->check), n,
		    names, e->detail);
	else
		event_post(EV_INFO, "health", "fabric", "%s cleared on %zu ports (%s, ...)",
		    hchk_name(e->check), n, names);
}

static void
post_held(void)
{
	size_t count[HCHK_COUNT][2][EV_CRITICAL + 1] = { { { 0 } } };
	bool done[HCHK_COUNT][2][EV_CRITICAL + 1] = { { { false } } };

	for (size_t i = 0; i < nheld; i++)
		count[held[i].check][held[i].raised][held[i].sev]++;
	for (size_t i = 0; i < nheld; i++) {
		const struct held_event *e = &held[i];
		size_t n = count[e->check][e->raised][e->sev];

		if (n <= HEALTH_EVENT_PORTS)
			post_one(e);
		else if (!done[e->check][e->raised][e->sev]) {
			done[e->check][e->raised][e->sev] = true;
			post_many(e, n);
		}
	}
	nheld = 0;
}

void
health_events_hold(void)
{
	hold_depth++;
}

void
health_events_release(void)
{
	if (hold_depth > 0 && --hold_depth == 0)
		post_held();
}

/* Post e now, or keep it for the release when a round holds events. */
void
health_event_note(const struct held_event *e)
{
	if (hold_depth == 0) {
		post_one(e);
		return;
	}
	if (nheld == held_cap) {
		held_cap = held_cap ? held_cap * 2 : 64;
		held = xreallocarray(held, held_cap, sizeof(*held));
	}
	held[nheld++] = *e;
}

/* The module stops: what was held goes unposted, as it went before. */
void
health_events_forget(void)
{
	hold_depth = 0;
	nheld = 0;
	free(held);
	held = NULL;
	held_cap = 0;
}
