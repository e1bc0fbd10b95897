/* The health control commands: health, health port, metrics. */
#include <inttypes.h>

#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/topk.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "fabric/fabric.h"
#include "health/health.h"
#include "health/hstate.h"

#define TOP_PORTS 20
/* Active events in `health`, worst first: a storm's 7,776 made a 2 MB
 * answer that held the loop 90 ms; the count says how many there are and
 * `ports --degraded` lists the ports. */
#define TOP_EVENTS 100

static json_t *isolated_ports(void);

static json_t *
alarm_json(const struct alarm *a)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:i, s:s}", "object", a->object,
	    "check", hchk_name(a->check), "severity", event_severity_name(a->severity),
	    "first_seen_ms", (json_int_t)a->first_seen_ms, "last_seen_ms", (json_int_t)a->last_seen_ms,
	    "failures", (int)a->failures, "detail", a->detail);
}

static int
alarm_cmp(const void *x, const void *y)
{
	const struct alarm *a = *(const struct alarm *const *)x, *b = *(const struct alarm *const *)y;

	if (a->severity != b->severity)
		return a->severity > b->severity ? -1 : 1;
	if (a->first_seen_ms != b->first_seen_ms)
		return a->first_seen_ms < b->first_seen_ms ? -1 : 1;
	return strcmp(a->object, b->object);
}

/* Worst first: most severe, then oldest. */
static json_t *
active_events(void)
{
	size_t n = alarm_count(health->alarms);
	const struct alarm **v = xcalloc(n ? n : 1, sizeof(*v));
	json_t *out = json_array();

	for (size_t i = 0; i < n; i++)
		v[i] = alarm_at(health->alarms, i);
	n = topk_select(v, n, sizeof(*v), TOP_EVENTS, alarm_cmp);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(out, alarm_json(v[i]));
	free(v);
	return out;
}

static double
error_rate(const struct hport *p)
{
	double r = 0;
	for (int i = 0; i < HC_XMIT_WAIT; i++)
		r += p->rate[i];
	return r * 60;
}

struct ranked {
	const struct hport	*p;
	enum health_port_status	 status;
	double			 errors_per_min;
};

static int
ranked_cmp(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->status != b->status)
		return a->status > b->status ? -1 : 1;
	if (a->errors_per_min != b->errors_per_min)
		return a->errors_per_min > b->errors_per_min ? -1 : 1;
	return strcmp(a->p->object, b->p->object);
}

/* The ports worth a look: any that is not OK or has errors, worst first. */
static json_t *
worst_ports(void)
{
	struct ranked *v = xcalloc(health->nports ? health->nports : 1, sizeof(*v));
	json_t *out = json_array();
	struct hport *p;
	size_t i, n = 0;

	HPORT_FOREACH(health, i, p) {
		struct ranked r = { p, hport_status(p), error_rate(p) };
		if (r.status > HEALTH_PORT_OK || r.errors_per_min > 0)
			v[n++] = r;
	}
	n = topk_select(v, n, sizeof(*v), TOP_PORTS, ranked_cmp);
	for (i = 0; i < n; i++)
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:f, s:I}",
		    "port", v[i].p->object, "node_guid", "", "status",
		    health_port_status_name(v[i].status), "errors_per_min", v[i].errors_per_min,
		    "events", (json_int_t)alarm_count_port(health->alarms, v[i].p->node_guid, v[i].p->port)));
	for (i = 0; i < json_array_size(out); i++) {
		char guid[24];
		guid_format(v[i].p->node_guid, guid, sizeof(guid));
		json_object_set_new(json_array_get(out, i), "node_guid", json_string(guid));
	}
	free(v);
	return out;
}

void
ctl_health(struct ctl_req *req, json_t *args)
{
	if (health == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the health module is disabled");
		return;
	}
	json_t *res = json_pack("{s:s, s:I, s:I, s:I, s:{s:I, s:I, s:f}, s:I, s:o, s:o}",
	    "state", health->poll ? "polling" : "waiting for the SM",
	    "ports", (json_int_t)health->nports, "roce_ports", (json_int_t)health->roce.nports,
	    "rounds", (json_int_t)health->rounds,
	    "last_round", "mads", (json_int_t)health->round_mads, "ports",
	    (json_int_t)health->round_ports, "seconds", health->round_seconds,
	    "interval_ms", (json_int_t)health->cfg.interval_ms,
	    "worst_ports", worst_ports(), "events", active_events());

	json_object_set_new(res, "events_total", json_integer((json_int_t)alarm_count(health->alarms)));

	json_object_set_new(res, "isolation", json_pack("{s:b, s:b, s:I, s:o}",
	    "enabled", health->cfg.isolate_enabled, "dry_run", health->cfg.isolate_dry_run,
	    "cap", (json_int_t)health_isolate_cap(), "isolated", isolated_ports()));
	ctl_reply_ok(req, res);
}

static json_t *
port_counters(const struct hport *p)
{
	json_t *o = json_object();

	for (int i = 0; i < HC_COUNT; i++) {
		if (!p->c[i].have_last)
			continue;
		json_object_set_new(o, hc_info[i].perfquery, json_pack("{s:I, s:I, s:f}",
		    "reading", (json_int_t)p->raw[i], "total", (json_int_t)p->c[i].total,
		    "rate_per_s", p->rate[i]));
	}
	return o;
}

/* The BER window of a port, with what it was computed from. */
static json_t *
port_ber(const struct hport *p)
{
	int64_t now = p->last_eval_ms ? p->last_eval_ms : event_now_ms();
	struct ber_sum b = ber_window_sum(&p->ber, health->th.ber_window_ms, now);

	return json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f}",
	    "window_ms", (json_int_t)health->th.ber_window_ms, "covered_ms", (json_int_t)b.ms,
	    "symbol_errors", (json_int_t)b.errors, "bits", b.bits, "ber", b.ber,
	    "line_gbps", p->line_bps / 1e9, "warning", health->th.ber_warning,
	    "critical", health->th.ber_critical);
}

void
ctl_health_port(struct ctl_req *req, json_t *args)
{
	const char *spec = ctl_arg_str(args, "port"), *since = ctl_arg_str(args, "since");
	int64_t since_ms = event_now_ms() - 3600 * 1000;
	struct hport *p;
	json_t *hist = NULL;
	char guid[24], why[256];

	if (health == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the health module is disabled");
		return;
	}
	if (since && event_parse_since(since, &since_ms) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "cannot parse --since \"%s\": use "
		    "10m, 2h, 1d, epoch milliseconds or YYYY-MM-DD HH:MM:SS", since);
		return;
	}
	if ((p = hport_lookup(spec ? spec : "", why, sizeof(why))) == NULL) {
		if (why[0])
			ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s", why);
		else
			ctl_reply_error(req, PERR_NOT_FOUND, "no monitored port \"%s\" (NODE:PORT "
			    "with NODE a node description, GUID or LID)", spec);
		return;
	}
	if (p->hist_open)
		hist = history_query(health->fd->store, p->node_guid, p->port, since_ms);
	guid_format(p->node_guid, guid, sizeof(guid));
	ctl_reply_ok(req, json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:b, s:I, s:i, s:i, s:i, "
	    "s:o, s:o, s:o, s:o, s:I, s:s}",
	    "object", p->object, "node", p->desc, "node_guid", guid, "port", p->port,
	    "lid", p->lid, "state", p->state,
	    "status", health_port_status_name(health_port_status(p->node_guid, p->port)),
	    "extended_counters", !p->no_ext, "last_eval_ms", (json_int_t)p->last_eval_ms,
	    "resets", (int)p->resets, "saturations", (int)p->saturations, "clears", (int)p->clears,
	    "counters", port_counters(p), "events", health_port_events(p->node_guid, p->port),
	    "history", hist ? hist : json_array(), "ber", port_ber(p),
	    "quiet_time_ms", (json_int_t)health->cfg.quiet_ms,
	    "state_name", fabric_port_state_key(p->state)));
}

/* The ports isolation holds out of the routing, or would (dry run). */
static json_t *
isolated_ports(void)
{
	json_t *out = json_array();
	struct hport *p;
	size_t i;

	HPORT_FOREACH(health, i, p)
		if (p->isolated)
			json_array_append_new(out, json_pack("{s:s, s:b, s:I}", "port", p->object,
			    "dry_run", p->iso_dry, "since_ms", (json_int_t)p->isolated_ms));
	return out;
}

void
ctl_health_unisolate(struct ctl_req *req, json_t *args)
{
	const char *spec = ctl_arg_str(args, "port");
	struct hport *p;
	char why[256];

	if (health == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the health module is disabled");
		return;
	}
	if ((p = hport_lookup(spec ? spec : "", why, sizeof(why))) == NULL) {
		if (why[0])
			ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s", why);
		else
			ctl_reply_error(req, PERR_NOT_FOUND, "no monitored port \"%s\"", spec);
		return;
	}
	if (health_unisolate(p, ctl_req_who(req)) != 0) {
		ctl_reply_error(req, PERR_CONFLICT, "%s is not isolated", p->object);
		return;
	}
	ctl_reply_ok(req, json_pack("{s:s, s:o}", "restored", p->object, "isolated", isolated_ports()));
}

