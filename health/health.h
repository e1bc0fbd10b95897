/*
 * The health module's public door: what validation and preflight ask
 * before they trust a port.  Every call is cheap (in-memory) and safe
 * while health is disabled (then nothing is known: no alarms, UNKNOWN).
 */
#ifndef FABRICD_HEALTH_HEALTH_H
#define FABRICD_HEALTH_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "daemon/events.h"

enum health_port_status {
	HEALTH_PORT_UNKNOWN,	/* not monitored (health off, port never seen) */
	HEALTH_PORT_OK,
	HEALTH_PORT_WARNING,	/* error rates or congestion over a threshold */
	HEALTH_PORT_DEGRADED,	/* up, but below the width/speed both ends support */
	HEALTH_PORT_DOWN,	/* should be ACTIVE and is not: down, not active, flapping */
};

bool health_running(void);

/* The worst condition of a port (a switch port or a CA port). */
enum health_port_status health_port_status(uint64_t node_guid, uint8_t port);
const char *health_port_status_name(enum health_port_status s);

/* Active events of a port: a new array of {check, severity, first_seen_ms,
 * last_seen_ms, failures, detail, clears_at_ms}; empty when none or not
 * monitored. */
json_t *health_port_events(uint64_t node_guid, uint8_t port);

/* The same plus the alarms that cleared but last failed at or after
 * since_ms (those carry cleared_ms, active ones clears_at_ms). */
json_t *health_port_failures_since(uint64_t node_guid, uint8_t port, int64_t since_ms);

/* The failure a pre-flight names for a port, without building JSON for
 * it (asked for thousands of ports in one loop step): the port's first
 * active alarm, else its newest cleared one that last failed at or after
 * since_ms and that skip_cleared (NULL: none) does not refuse.  The
 * strings are valid until health next runs.  false: none. */
struct health_failure {
	const char	*check;		/* "degraded", "symbol_errors", ... */
	const char	*detail;	/* the last failing reason */
	int64_t		 last_seen_ms;
	bool		 cleared;
};
bool health_port_failure(uint64_t node_guid, uint8_t port, int64_t since_ms,
    bool (*skip_cleared)(const char *check), struct health_failure *out);

/* Active events anywhere at or above min severity. */
size_t health_active_count(enum event_severity min);

#endif
