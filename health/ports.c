/*
 * The health module's shared state: the one struct health, its port table
 * (found by node GUID and port number), the evaluation of a port's counter
 * checks after a round, and the queries of health/health.h that other
 * modules ask.  module.c (life cycle), ib.c (polling) and ctl.c read and
 * change it through here, so none of them calls into another.
 */
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "fabric/fabric.h"
#include "health/health.h"
#include "health/hstate.h"

struct health *health;

/* ---- the port table ---- */

static size_t
hport_hash(uint64_t guid, uint8_t port)
{
	uint64_t x = guid * 0x9E3779B97F4A7C15ULL ^ port;
	return (size_t)(x >> 40) % HPORT_BUCKETS;
}

struct hport *
hport_find(uint64_t node_guid, uint8_t port)
{
	if (health == NULL)
		return NULL;
	for (struct hport *p = health->buckets[hport_hash(node_guid, port)]; p; p = p->next)
		if (p->node_guid == node_guid && p->port == port)
			return p;
	return NULL;
}

/* Which of hport's alarms_of[] an alarm's check counts in. */
static int
status_slot(enum hchk check)
{
	switch (check) {
	case HCHK_LINK_DOWN:
	case HCHK_NOT_ACTIVE:
	case HCHK_FLAPPING:
		return 0;	/* down */
	case HCHK_DEGRADED:
		return 1;
	default:
		return 2;	/* warning */
	}
}

/* A new entry starts from the alarms already standing for its port (a
 * port the model lost and found again keeps them). */
static void
hport_count_alarms(struct hport *p)
{
	const void *cur = NULL;
	const struct alarm *a;

	if (health->alarms == NULL)
		return;
	while ((a = alarm_next_of_port(health->alarms, p->node_guid, p->port, &cur)) != NULL)
		p->alarms_of[status_slot(a->check)]++;
}

void
hports_recount(struct health *h)
{
	struct hport *p;
	size_t i;

	HPORT_FOREACH(h, i, p) {
		memset(p->alarms_of, 0, sizeof(p->alarms_of));
		hport_count_alarms(p);
	}
}

void
hport_alarm_noted(const struct alarm *a, bool raised)
{
	struct hport *p = hport_find(a->node_guid, a->port);
	uint16_t *n;

	if (p == NULL)
		return;		/* counted from the table when it is made */
	n = &p->alarms_of[status_slot(a->check)];
	if (raised)
		(*n)++;
	else if (*n > 0)
		(*n)--;
}

enum health_port_status
hport_status(const struct hport *p)
{
	if (p->alarms_of[0])
		return HEALTH_PORT_DOWN;
	if (p->alarms_of[1])
		return HEALTH_PORT_DEGRADED;
	return p->alarms_of[2] ? HEALTH_PORT_WARNING : HEALTH_PORT_OK;
}

struct hport *
hport_get(uint64_t node_guid, uint8_t port, const char *desc)
{
	struct hport *p = hport_find(node_guid, port);
	size_t b;

	if (p == NULL) {
		p = xcalloc(1, sizeof(*p));
		p->node_guid = node_guid;
		p->port = port;
		b = hport_hash(node_guid, port);
		p->next = health->buckets[b];
		health->buckets[b] = p;
		health->nports++;
		hport_count_alarms(p);
	}
	if (desc && desc[0] && strcmp(desc, p->desc)) {
		snprintf(p->desc, sizeof(p->desc), "%.64s", desc);
		snprintf(p->object, sizeof(p->object), "%.64s:%u", p->desc, port);
	} else if (p->object[0] == '\0') {
		snprintf(p->object, sizeof(p->object), GUID_FMT ":%u", node_guid, port);
	}
	return p;
}

/* "sw-l1[27]", as the SM once wrote ports, is "sw-l1:27": accepted on
 * input so that old scripts keep working; NODE:PORT is what is printed. */
static const char *
bracket_form(const char *spec, char *buf, size_t len)
{
	const char *open = strrchr(spec, '[');
	size_t n = strlen(spec);

	if (open == NULL || n < 3 || spec[n - 1] != ']' || (size_t)(open - spec) + 2 >= n)
		return spec;
	snprintf(buf, len, "%.*s:%.*s", (int)(open - spec), spec, (int)(n - (size_t)(open - spec) - 2),
	    open + 1);
	return buf;
}

struct hport *
hport_lookup(const char *given, char *why, size_t why_len)
{
	char conv[128];
	const char *spec = bracket_form(given, conv, sizeof(conv));
	char node[80], *end;
	size_t nl, i;
	int port;
	struct hport *p;

	why[0] = '\0';
	switch (fabric_port_arg(spec, &nl, &port, why, why_len)) {
	case FABRIC_ARG_OK:
		break;
	case FABRIC_ARG_NO_PORT:
		snprintf(why, why_len, "\"%s\": expected NODE:PORT (NODE a name, GUID or LID, PORT "
		    "a number)", given);
		return NULL;
	case FABRIC_ARG_BAD:
		return NULL;
	}
	if (health == NULL || nl >= sizeof(node))
		return NULL;
	snprintf(node, sizeof(node), "%.*s", (int)nl, spec);
	HPORT_FOREACH(health, i, p) {
		char guid[24];
		if (p->port != port)
			continue;
		guid_format(p->node_guid, guid, sizeof(guid));
		if (!strcmp(p->desc, node) || !strcasecmp(guid, node) ||
		    (strtoull(node, &end, 0) == p->node_guid && *end == '\0' && p->node_guid))
			return p;
		if (p->lid && strtoul(node, &end, 10) == p->lid && *end == '\0')
			return p;
	}
	return NULL;
}

void
hports_free(struct health *h)
{
	for (size_t i = 0; i < HPORT_BUCKETS; i++)
		while (h->buckets[i]) {
			struct hport *p = h->buckets[i];
			h->buckets[i] = p->next;
			free(p);
		}
	h->nports = 0;
}

/* ---- checks ---- */

void
health_eval_counters(struct hport *p, int64_t now_ms, uint64_t dt_ms)
{
	struct check_verdict v[HCHK_COUNT];
	static const enum hchk counter_checks[] = {
		HCHK_SYMBOL_ERRORS, HCHK_LINK_RECOVERIES, HCHK_RCV_ERRORS,
		HCHK_XMIT_DISCARDS, HCHK_CONGESTION,
	};

	memset(v, 0, sizeof(v));
	checks_counters(&health->th, p->delta, p->valid, dt_ms, v);
	for (size_t i = 0; i < sizeof(counter_checks) / sizeof(counter_checks[0]); i++) {
		enum hchk c = counter_checks[i];
		alarm_update(health->alarms, p->object, p->node_guid, p->port, c,
		    v[c].failing, v[c].severity, now_ms, v[c].failing ? v[c].detail : NULL);
	}
	if (p->valid[HC_SYMBOL_ERRORS] && p->line_bps > 0) {
		struct ber_sum b;
		ber_window_add(&p->ber, health->th.ber_window_ms, now_ms,
		    p->delta[HC_SYMBOL_ERRORS], dt_ms, p->line_bps);
		b = ber_window_sum(&p->ber, health->th.ber_window_ms, now_ms);
		checks_ber(&health->th, &b, &v[HCHK_BER]);
		alarm_update(health->alarms, p->object, p->node_guid, p->port, HCHK_BER,
		    v[HCHK_BER].failing, v[HCHK_BER].severity, now_ms, v[HCHK_BER].detail);
	}
	for (int i = 0; i < HC_COUNT; i++)
		p->rate[i] = p->valid[i] ? hc_rate(p->delta[i], dt_ms) : 0;
	/* LinkDownedCounter: each increment is a link that went down. */
	if (p->valid[HC_LINK_DOWNED])
		for (uint64_t n = 0; n < p->delta[HC_LINK_DOWNED] && n < FLAP_HISTORY; n++)
			flap_record(&p->flaps, now_ms);
	p->last_eval_ms = now_ms;
}

/* ---- the public door ---- */

bool
health_running(void)
{
	return health != NULL;
}

const char *
health_port_status_name(enum health_port_status s)
{
	static const char *const names[] = { "unknown", "ok", "warning", "degraded", "down" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

enum health_port_status
health_port_status(uint64_t node_guid, uint8_t port)
{
	const struct hport *p = health ? hport_find(node_guid, port) : NULL;

	return p ? hport_status(p) : HEALTH_PORT_UNKNOWN;
}

static json_t *
alarm_event_json(const struct alarm *a)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:i, s:s}",
	    "check", hchk_name(a->check), "severity", event_severity_name(a->severity),
	    "first_seen_ms", (json_int_t)a->first_seen_ms,
	    "last_seen_ms", (json_int_t)a->last_seen_ms, "failures", (int)a->failures,
	    "detail", a->detail);

	if (a->cleared_ms)
		json_object_set_new(o, "cleared_ms", json_integer(a->cleared_ms));
	else
		json_object_set_new(o, "clears_at_ms",
		    json_integer(alarm_clears_at(health->alarms, a)));
	return o;
}

json_t *
health_port_events(uint64_t node_guid, uint8_t port)
{
	return health_port_failures_since(node_guid, port, INT64_MAX);
}

json_t *
health_port_failures_since(uint64_t node_guid, uint8_t port, int64_t since_ms)
{
	json_t *out = json_array();
	const struct alarm *a;
	const void *cur = NULL;

	if (health == NULL)
		return out;
	/* the port's hash chain: a walk over every alarm for each port
	 * held a pre-flight over 1,296 degraded hosts 40 ms */
	while ((a = alarm_next_of_port(health->alarms, node_guid, port, &cur)) != NULL)
		json_array_append_new(out, alarm_event_json(a));
	/* Newest first, so that a caller naming one names the latest. */
	size_t i = alarm_recent_count(health->alarms);
	while ((a = alarm_recent_of_port(health->alarms, node_guid, port, &i)) != NULL)
		if (a->last_seen_ms >= since_ms)
			json_array_append_new(out, alarm_event_json(a));
	return out;
}

static void
failure_of(const struct alarm *a, struct health_failure *out)
{
	*out = (struct health_failure){ .check = hchk_name(a->check), .detail = a->detail,
	    .last_seen_ms = a->last_seen_ms, .cleared = a->cleared_ms != 0 };
}

bool
health_port_failure(uint64_t node_guid, uint8_t port, int64_t since_ms,
    bool (*skip_cleared)(const char *check), struct health_failure *out)
{
	const struct alarm *a;
	const void *cur = NULL;
	size_t i;

	if (health == NULL)
		return false;
	if ((a = alarm_next_of_port(health->alarms, node_guid, port, &cur)) != NULL) {
		failure_of(a, out);
		return true;
	}
	i = alarm_recent_count(health->alarms);
	while ((a = alarm_recent_of_port(health->alarms, node_guid, port, &i)) != NULL)
		if (a->last_seen_ms >= since_ms &&
		    (skip_cleared == NULL || !skip_cleared(hchk_name(a->check)))) {
			failure_of(a, out);
			return true;
		}
	return false;
}

size_t
health_active_count(enum event_severity min)
{
	size_t n = 0;

	if (health == NULL)
		return 0;
	for (size_t i = 0; i < alarm_count(health->alarms); i++)
		if (alarm_at(health->alarms, i)->severity >= min)
			n++;
	return n;
}

/* ---- RoCE ---- */

