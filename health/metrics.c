/*
 * The health module's metrics (daemon/metrics.h gathers every module's).
 * Naming scheme (see common/prom.h and docs/metrics.md):
 * fabricd_<subsystem>_<what>[_<unit>][_total].
 *
 * Cardinality is bounded by the ports: per port, one total per PerfMgt
 * counter (errors and traffic) and two link series; no raw readings (they
 * are what `fabricctl health port` and perfquery show).  Counters carry
 * node_guid, node and port; the link series also name the remote end
 * (remote_guid, remote_node, remote_port), as the community InfiniBand
 * exporters label a link, so a dashboard can join the two ends.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/guid.h"
#include "common/xmalloc.h"
#include "health/health.h"
#include "health/hstate.h"
#include "common/prom.h"

struct plabels {
	char guid[24], port[8], rguid[24], rport[8];
	struct prom_label l[6];
};

static size_t
port_labels(const struct hport *p, struct plabels *pl)
{
	guid_format(p->node_guid, pl->guid, sizeof(pl->guid));
	snprintf(pl->port, sizeof(pl->port), "%u", p->port);
	pl->l[0] = (struct prom_label){ "node_guid", pl->guid };
	pl->l[1] = (struct prom_label){ "node", p->desc };
	pl->l[2] = (struct prom_label){ "port", pl->port };
	return 3;
}

static size_t
link_labels(const struct hport *p, struct plabels *pl)
{
	size_t n = port_labels(p, pl);

	guid_format(p->peer_guid, pl->rguid, sizeof(pl->rguid));
	snprintf(pl->rport, sizeof(pl->rport), "%u", p->peer_port);
	pl->l[n++] = (struct prom_label){ "remote_guid", p->peer_guid ? pl->rguid : "" };
	pl->l[n++] = (struct prom_label){ "remote_node", p->peer_desc };
	pl->l[n++] = (struct prom_label){ "remote_port", p->peer_guid ? pl->rport : "" };
	return n;
}

/*
 * The per-port families, numbered: 0 .. HC_COUNT-1 one per PerfMgt counter,
 * then the two link series.  They are written from a snapshot of the
 * ports' keys (GUID, port) in the table's order, each looked up again when
 * its sample is written: the build spans turns of the loop, and a sweep
 * between two may add or free ports (a freed one is skipped).
 */
#define FAM_LINK_STATE	HC_COUNT
#define FAM_LINK_HEALTH	(HC_COUNT + 1)
#define FAM_PORTS	(HC_COUNT + 2)

struct hkey {
	uint64_t	guid;
	uint8_t		port;
};

static void
counter_name(int c, char *name, size_t len)
{
	snprintf(name, len, "fabricd_port_%s_total", hc_info[c].metric);
}

static void
family_header(struct prom *pr, int fam)
{
	char name[96], help[160];

	if (fam == FAM_LINK_STATE) {
		prom_family(pr, "fabricd_link_state", "gauge",
		    "PortState at the last sweep: 0 absent, 1 down, 2 init, 3 armed, 4 active");
	} else if (fam == FAM_LINK_HEALTH) {
		prom_family(pr, "fabricd_link_health_status", "gauge",
		    "worst condition: 1 ok, 2 warning, 3 degraded, 4 down");
	} else {
		counter_name(fam, name, sizeof(name));
		snprintf(help, sizeof(help), "%s accumulated since fabricd first saw the port "
		    "(resets and clears do not lower it)", hc_info[fam].perfquery);
		prom_family(pr, name, "counter", help);
	}
}

static void
port_sample(struct prom *pr, int fam, const struct hport *p)
{
	char name[96];
	struct plabels pl;

	if (fam == FAM_LINK_STATE) {
		prom_sample_u64(pr, "fabricd_link_state", pl.l, link_labels(p, &pl),
		    p->present ? p->state : 0);
	} else if (fam == FAM_LINK_HEALTH) {
		prom_sample_u64(pr, "fabricd_link_health_status", pl.l, link_labels(p, &pl),
		    health_port_status(p->node_guid, p->port));
	} else if (p->c[fam].have_last) {
		counter_name(fam, name, sizeof(name));
		prom_sample_u64(pr, name, pl.l, port_labels(p, &pl), p->c[fam].total);
	}
}

static void
snapshot_keys(struct prom_cursor *cur)
{
	struct hkey *k;
	struct hport *p;
	size_t i, n = 0;

	HPORT_FOREACH(health, i, p)
		n++;
	k = xreallocarray(NULL, n ? n : 1, sizeof(*k));
	n = 0;
	HPORT_FOREACH(health, i, p)
		k[n++] = (struct hkey){ p->node_guid, p->port };
	cur->keys = k;
	cur->nkeys = n;
}

/* Family fam from entry cur->pos on; false when the slice's time ran out
 * before its end (at least one entry is written each call). */
static bool
port_family(struct prom *pr, struct prom_cursor *cur, int fam)
{
	const struct hkey *k = cur->keys;

	if (cur->pos == 0)
		family_header(pr, fam);
	while (cur->pos < cur->nkeys) {
		const struct hport *p = hport_find(k[cur->pos].guid, k[cur->pos].port);

		cur->pos++;
		if (p)
			port_sample(pr, fam, p);
		if (prom_cursor_spent(cur))
			return cur->pos >= cur->nkeys;
	}
	return true;
}

static void
daemon_families(struct prom *pr)
{
	static const char *const sev[] = { "info", "warning", "error", "critical" };
	struct prom_label l[1];

	/* The SM's own sweep count is fabricd_sm_sweeps_total (sm/metrics.c);
	 * this is how many health has acted on. */
	prom_family(pr, "fabricd_health_sweeps_seen_total", "counter",
	    "SM sweeps whose fabric model health has taken (the SM counts its own)");
	prom_sample_u64(pr, "fabricd_health_sweeps_seen_total", NULL, 0, health->sweeps_seen);
	prom_family(pr, "fabricd_health_poll_rounds_total", "counter", "completed counter polling rounds");
	prom_sample_u64(pr, "fabricd_health_poll_rounds_total", NULL, 0, health->rounds);
	prom_family(pr, "fabricd_health_poll_round_duration_seconds", "gauge",
	    "last polling round, first MAD sent to last reply");
	prom_sample_double(pr, "fabricd_health_poll_round_duration_seconds", NULL, 0, health->round_seconds);
	prom_family(pr, "fabricd_health_poll_round_mads", "gauge", "PerfMgt MADs in the last polling round");
	prom_sample_u64(pr, "fabricd_health_poll_round_mads", NULL, 0, health->round_mads);
	prom_family(pr, "fabricd_health_perf_mads_total", "counter", "PerfMgt MADs sent by health");
	prom_sample_u64(pr, "fabricd_health_perf_mads_total", NULL, 0, health->mads_total);
	prom_family(pr, "fabricd_health_perf_mad_failures_total", "counter",
	    "PerfMgt MADs that timed out or were refused");
	prom_sample_u64(pr, "fabricd_health_perf_mad_failures_total", NULL, 0, health->mad_failures);
	prom_family(pr, "fabricd_health_monitored_ports", "gauge", "fabric ports health watches");
	prom_sample_u64(pr, "fabricd_health_monitored_ports", NULL, 0, health->nports);
	prom_family(pr, "fabricd_health_active_events", "gauge", "health events raised and not cleared");
	for (int s = 0; s <= EV_CRITICAL; s++) {
		size_t n = 0;
		for (size_t i = 0; i < alarm_count(health->alarms); i++)
			if ((int)alarm_at(health->alarms, i)->severity == s)
				n++;
		l[0] = (struct prom_label){ "severity", sev[s] };
		prom_sample_u64(pr, "fabricd_health_active_events", l, 1, n);
	}
	/* by check too, so that an alert can say what is wrong (ber,
	 * link_down, flapping...) without a series per port */
	prom_family(pr, "fabricd_health_alarms", "gauge",
	    "active health alarms by check and severity");
	for (int c = 0; c < HCHK_COUNT; c++)
		for (int s = EV_WARNING; s <= EV_CRITICAL; s++) {
			struct prom_label cl[2] = { { "check", hchk_name((enum hchk)c) },
			    { "severity", sev[s] } };
			size_t n = 0;
			for (size_t i = 0; i < alarm_count(health->alarms); i++) {
				const struct alarm *a = alarm_at(health->alarms, i);
				n += (int)a->check == c && (int)a->severity == s;
			}
			prom_sample_u64(pr, "fabricd_health_alarms", cl, 2, n);
		}
	prom_family(pr, "fabricd_health_events_raised_total", "counter", "health events raised");
	for (int s = 0; s <= EV_CRITICAL; s++) {
		l[0] = (struct prom_label){ "severity", sev[s] };
		prom_sample_u64(pr, "fabricd_health_events_raised_total", l, 1, health->events_raised[s]);
	}
}

/* Stage 0: the module's own families and the snapshot; 1 .. FAM_PORTS:
 * the per-port families; then the RoCE ports (a host's few NICs). */
bool
health_metrics(struct fabricd *fd, struct prom *pr, struct prom_cursor *cur)
{
	(void)fd;
	if (health == NULL)
		return true;
	for (;;) {
		if (cur->stage == 0) {
			daemon_families(pr);
			snapshot_keys(cur);
		} else if (cur->stage <= FAM_PORTS) {
			if (!port_family(pr, cur, (int)cur->stage - 1))
				return false;
			cur->pos = 0;
		} else {
			roce_metrics(&health->roce, pr);
			return true;
		}
		cur->stage++;
		if (prom_cursor_spent(cur))
			return false;
	}
}
