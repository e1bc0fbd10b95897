/*
 * Alarms: the event state machine of the health checks.
 *
 * A check reports "failing" or "passing" for an object (a port, a RoCE
 * priority) every time it is evaluated.  The first failure raises the alarm
 * (one event); further failures only move last_seen and, if the severity
 * rises, raise it again at the new severity; `clear_after` consecutive passes
 * and a quiet time with no failure at all clear it (one event).  So a port
 * that keeps failing produces two events in its life, not one per round.
 * Cleared alarms are kept a while longer in a bounded ring, so that a
 * pre-flight can ask what failed in the last hour, not only what fails now.
 */
#ifndef FABRICD_HEALTH_ALARMS_H
#define FABRICD_HEALTH_ALARMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/events.h"

enum hchk {
	HCHK_SYMBOL_ERRORS,
	HCHK_LINK_RECOVERIES,
	HCHK_FLAPPING,
	HCHK_RCV_ERRORS,
	HCHK_XMIT_DISCARDS,
	HCHK_CONGESTION,
	HCHK_DEGRADED,
	HCHK_NOT_ACTIVE,
	HCHK_LINK_DOWN,
	HCHK_PFC_STORM,
	HCHK_ROCE_LOSS,
	HCHK_BER,
	HCHK_COUNT
};

const char *hchk_name(enum hchk c);
int hchk_by_name(const char *name);	/* -1: none */

struct alarm {
	char			*object;	/* "node:port", "mlx5_0/1 prio 3" */
	uint64_t		 node_guid;	/* 0 when not a fabric port */
	uint8_t			 port;
	enum hchk		 check;
	enum event_severity	 severity;
	int64_t			 first_seen_ms, last_seen_ms;
	uint32_t		 failures;	/* evaluations that failed */
	uint32_t		 passes;	/* consecutive passes since the last failure */
	char			 detail[160];	/* last failing reason */
	int64_t			 cleared_ms;	/* 0 while active */
	bool			 released;	/* its port was unisolated while it stood:
						 * not isolated again before it clears */
};

struct alarm_table;

/* raised: true for a new or escalated alarm, false when it clears. */
typedef void (*alarm_notify_fn)(const struct alarm *a, bool raised, void *arg);

struct alarm_table *alarm_table_new(unsigned clear_after, alarm_notify_fn fn, void *arg);
/* An alarm read back (health/alarm_store.c, after a restart or from the
 * replicated intent): active (cleared_ms 0) into the table, unless it is
 * there, cleared into the ring; no event either way.  object is copied. */
void alarm_restore(struct alarm_table *t, const struct alarm *a);
/* Every alarm and the ring forgotten, without events (a standby taking the
 * master's alarms again). */
void alarm_table_reset(struct alarm_table *t);
void alarm_table_free(struct alarm_table *t);

/*
 * One evaluation.  detail (may be NULL when passing) says why it fails.
 * Returns the alarm while it is active, NULL otherwise.
 */
const struct alarm *alarm_update(struct alarm_table *t, const char *object,
    uint64_t node_guid, uint8_t port, enum hchk check, bool failing,
    enum event_severity sev, int64_t now_ms, const char *detail);

/*
 * Quiet time: an alarm clears only once quiet_ms have passed since its last
 * failure (on top of clear_after passes), so that a burst followed by clean
 * rounds is not forgotten in three rounds.  0 (the default) clears on passes.
 */
void alarm_table_set_quiet(struct alarm_table *t, uint64_t quiet_ms);
/* When an active alarm will clear at the earliest, if it keeps passing. */
int64_t alarm_clears_at(const struct alarm_table *t, const struct alarm *a);

/* Cleared alarms still remembered (newest last), at most ALARM_RECENT. */
#define ALARM_RECENT 1024
size_t alarm_recent_count(const struct alarm_table *t);
const struct alarm *alarm_recent_at(const struct alarm_table *t, size_t i);
/* One port's cleared alarms, newest first: *i = alarm_recent_count(t) to
 * begin; NULL at the end.  Cheap for a port with none (no ring walk). */
const struct alarm *alarm_recent_of_port(const struct alarm_table *t, uint64_t node_guid,
    uint8_t port, size_t *i);

/* Clear at once, without waiting for clear_after passes (e.g. ReLink). */
void alarm_clear(struct alarm_table *t, const char *object, enum hchk check);

const struct alarm *alarm_find(const struct alarm_table *t, const char *object, enum hchk check);
/* Mark the active alarm (object, check) released; NULL when none. */
const struct alarm *alarm_release(struct alarm_table *t, const char *object, enum hchk check);
size_t alarm_count(const struct alarm_table *t);
const struct alarm *alarm_at(const struct alarm_table *t, size_t i);
/* Active alarms of one fabric port. */
size_t alarm_count_port(const struct alarm_table *t, uint64_t node_guid, uint8_t port);
/* One port's alarms one at a time (*cursor NULL to begin; NULL at the
 * end), through the port's hash chain: not a walk over every alarm. */
const struct alarm *alarm_next_of_port(const struct alarm_table *t, uint64_t node_guid,
    uint8_t port, const void **cursor);

#endif
