/*
 * The SM's metrics, read from its status object (daemon/metrics.h), so
 * that fabricd_sm_sweeps_total is the sweep count `fabricctl status`
 * shows.  The MAD engine's counters are the daemon's (every module sends
 * through it).
 */
#include "common/prom.h"
#include "daemon/fabricd.h"
#include "daemon/metrics.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

static const struct status_metric sm_series[] = {
	{ "priority", "fabricd_sm_priority", "gauge", "this SM's SMInfo priority (0-15)" },
	{ "lid", "fabricd_sm_lid", "gauge", "the LID of this SM's port (0: none yet)" },
	{ "subnet.sweeps", "fabricd_sm_sweeps_total", "counter",
	    "sweeps this SM has finished, light and heavy (status's subnet.sweeps)" },
	{ "subnet.last_sweep_ms", "fabricd_sm_last_sweep_duration_seconds", "gauge",
	    "how long the last sweep took" },
	{ "subnet.last_sweep_ok", "fabricd_sm_last_sweep_ok", "gauge",
	    "1 when the last sweep routed and activated everything" },
	{ "subnet.switches", "fabricd_sm_switches", "gauge", "switches in the fabric model" },
	{ "subnet.cas", "fabricd_sm_cas", "gauge", "channel adapters (hosts) in the fabric model" },
	{ "subnet.ports", "fabricd_sm_ports", "gauge", "switch ports and CA ports in the model" },
	{ "subnet.active_links", "fabricd_sm_active_links", "gauge", "links ACTIVE at both ends" },
	{ "subnet.degraded_ports", "fabricd_sm_degraded_ports", "gauge",
	    "ports whose link runs below what both ends support" },
	{ "subnet.routing_hottest_routes", "fabricd_sm_routing_hottest_routes", "gauge",
	    "CA-to-CA routes on the busiest inter-switch link direction of the tables the SM "
	    "gave (repairs after failures let it drift; `routing rebalance` restores it)" },
	{ "subnet.routing_bound_routes", "fabricd_sm_routing_bound_routes", "gauge",
	    "the least any routing could put on the busiest link of the fabric as it is: the "
	    "busiest leaf's ceil(L(N-L)/u), L its CAs, u its live uplinks, N all CAs" },
	{ "sa.requests", "fabricd_sa_requests_total", "counter", "SA requests answered" },
	{ "sa.records", "fabricd_sa_records_total", "counter", "records returned in SA replies" },
	{ "sa.errors", "fabricd_sa_errors_total", "counter", "SA requests answered with an error" },
	{ "sa.malformed", "fabricd_sa_malformed_total", "counter", "SA requests that did not parse" },
	{ "sa.truncated", "fabricd_sa_truncated_total", "counter",
	    "SA replies cut to what one MAD carries" },
	{ "master.missed_polls", "fabricd_sm_master_missed_polls", "gauge",
	    "polls of the master SM missed in a row (standby)" },
	{ "fence.sets_refused", "fabricd_sm_sets_refused_total", "counter",
	    "SubnSets held back because this SM may not write the fabric (not master, no "
	    "valid etcd writer lease, or just woken from a stall)" },
};

/* Under sm.subnets each SM has an engine of its own, and the daemon's
 * fabricd_mad_* count only the first: these count each (status's
 * sm.subnets[].mads). */
static const struct status_metric subnet_mad_series[] = {
	{ "mads.sent", "fabricd_sm_mads_sent_total", "counter",
	    "MADs this subnet's engine sent (sm.subnets)" },
	{ "mads.received", "fabricd_sm_mads_received_total", "counter",
	    "MADs this subnet's engine received (sm.subnets)" },
	{ "mads.timeouts", "fabricd_sm_mads_timeouts_total", "counter",
	    "MADs of this subnet's engine that got no reply after every retry (sm.subnets)" },
};

/* The audit's totals (fabricctl audit): a repair is a table the audit
 * found changed behind the SM's back and wrote back. */
static const struct status_metric audit_series[] = {
	{ "passes", "fabricd_sm_audit_passes_total", "counter", "audit passes finished" },
	{ "totals.findings", "fabricd_sm_audit_findings_total", "counter",
	    "differences the audit found between the switches' tables and the SM's" },
	{ "totals.repairs", "fabricd_sm_audit_repairs_total", "counter",
	    "differences the audit wrote back" },
	{ "totals.repair_failed", "fabricd_sm_audit_repair_failures_total", "counter",
	    "differences the audit could not write back" },
	{ "totals.read_failures", "fabricd_sm_audit_read_failures_total", "counter",
	    "audit reads that got no answer" },
};

/* An observer's (status's sm.observer): the view and what reading it costs. */
static const struct status_metric observer_series[] = {
	{ "observer.master_lid", "fabricd_observer_master_lid", "gauge",
	    "the LID of the master SM whose SA this observer reads (0: none known)" },
	{ "observer.age_ms", "fabricd_observer_view_age_seconds", "gauge",
	    "how old the observer's view of the fabric is (absent: none read yet)" },
	{ "observer.nodes", "fabricd_observer_nodes", "gauge", "nodes in the observer's view" },
	{ "observer.links", "fabricd_observer_links", "gauge", "links in the observer's view" },
	{ "observer.reads", "fabricd_observer_reads_total", "counter",
	    "reads of the fabric from the master's SA started" },
	{ "observer.views", "fabricd_observer_views_total", "counter",
	    "reads that became the published view" },
	{ "observer.errors_total", "fabricd_observer_errors_total", "counter",
	    "queries of reads that failed (no answer, an SA error)" },
	{ "observer.last_read.queries", "fabricd_observer_last_read_queries", "gauge",
	    "SA queries (and the one SMP) the last read sent" },
	{ "observer.last_read.duration_ms", "fabricd_observer_last_read_seconds", "gauge",
	    "how long the last read took" },
};

/* status says milliseconds; Prometheus wants seconds */
static void
ms_to_seconds(json_t *o, const char *key)
{
	json_t *ms = json_object_get(o, key);

	if (json_is_integer(ms))
		json_object_set_new(o, key, json_real((double)json_integer_value(ms) / 1000.0));
}

#define SM_METRICS_MAX	16	/* SMs a daemon runs (sm.subnets) */

/* Every SM of the daemon, from the first: one family each, one sample an
 * SM, labelled subnet="NAME" under sm.subnets (none without). */
static void
sm_metrics_subnets(struct prom *p, struct sm *first, const char *const *states,
    const char *const *subnet_states)
{
	json_t *st[SM_METRICS_MAX] = { 0 }, *audit[SM_METRICS_MAX] = { 0 };
	const char *names[SM_METRICS_MAX] = { 0 }, *state[SM_METRICS_MAX] = { 0 };
	const char *sub[SM_METRICS_MAX] = { 0 };
	const char *label = first->subnet[0] ? "subnet" : NULL;
	size_t n = 0, na = 0;

	for (struct sm *sm = first; sm && n < SM_METRICS_MAX; sm = sm->next_subnet) {
		if ((st[n] = sm_status_json(sm)) == NULL)
			continue;
		names[n] = sm->subnet;
		state[n] = json_string_value(json_object_get(st[n], "state"));
		sub[n] = json_string_value(json_object_get(json_object_get(st[n], "subnet"), "state"));
		ms_to_seconds(json_object_get(st[n], "subnet"), "last_sweep_ms");
		n++;
	}
	metrics_state_sets(p, "fabricd_sm_state", "SMInfo state of this SM (1 for the current one)",
	    state, label, names, n, states);
	metrics_state_sets(p, "fabricd_sm_subnet_state", "the subnet as this SM sees it", sub,
	    label, names, n, subnet_states);
	metrics_from_statuses(p, st, label, names, n, sm_series,
	    sizeof(sm_series) / sizeof(sm_series[0]));
	if (label)
		metrics_from_statuses(p, st, label, names, n, subnet_mad_series,
		    sizeof(subnet_mad_series) / sizeof(subnet_mad_series[0]));
	for (size_t i = 0; i < n; i++)
		json_decref(st[i]);
	for (struct sm *sm = first; sm && na < SM_METRICS_MAX; sm = sm->next_subnet) {
		if ((audit[na] = sm_audit_json(sm)) == NULL)
			continue;
		names[na++] = sm->subnet;
	}
	metrics_from_statuses(p, audit, label, names, na, audit_series,
	    sizeof(audit_series) / sizeof(audit_series[0]));
	for (size_t i = 0; i < na; i++)
		json_decref(audit[i]);
}

/* Observers' series, one sample each (labelled subnet="NAME" under
 * sm.subnets, an observer a subnet). */
static void
observer_metrics(struct prom *p, struct sm *first)
{
	json_t *st[SM_METRICS_MAX] = { 0 }, *o;
	const char *names[SM_METRICS_MAX] = { 0 };
	const char *label = first->subnet[0] ? "subnet" : NULL;
	size_t n = 0;

	for (struct sm *sm = first; sm && n < SM_METRICS_MAX; sm = sm->next_subnet) {
		if ((st[n] = sm_observer_json(sm)) == NULL)
			continue;
		o = json_object_get(st[n], "observer");
		if (json_integer_value(json_object_get(o, "age_ms")) < 0)
			json_object_del(o, "age_ms");
		ms_to_seconds(o, "age_ms");
		ms_to_seconds(json_object_get(o, "last_read"), "duration_ms");
		names[n++] = sm->subnet;
	}
	metrics_from_statuses(p, st, label, names, n, observer_series,
	    sizeof(observer_series) / sizeof(observer_series[0]));
	for (size_t i = 0; i < n; i++)
		json_decref(st[i]);
}

void
sm_metrics(struct fabricd *fd, struct prom *p)
{
	static const char *const states[] = { "notactive", "discovering", "standby", "master",
	    NULL };
	static const char *const subnet[] = { "up", "down", "discovering", "another master's",
	    NULL };
	struct sm *sm = sm_of_daemon(fd);

	if (sm && sm->observer) {	/* an observer runs no SM: its own series */
		observer_metrics(p, sm);
		return;
	}
	if (sm == NULL)
		return;
	sm_metrics_subnets(p, sm, states, subnet);
}
