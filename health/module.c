/*
 * The health module: configuration, life cycle, and the glue from check
 * verdicts to events.  The port table and the health.h queries live in
 * ports.c, IB polling in ib.c, the control commands in ctl.c, the
 * Prometheus export in metrics.c.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "fabric/routing.h"
#include "health/health.h"
#include "health/alarm_store.h"
#include "health/hstate.h"

#define DAY_MS (24ULL * 3600 * 1000)

static void
health_config_init(void *p)
{
	struct health_config *c = p;
	struct health_thresholds t;
	struct history_cfg h;

	health_thresholds_default(&t);
	history_cfg_default(&h);
	c->enabled = true;
	c->interval_ms = 10000;
	c->symbol_errors_per_min = (uint64_t)t.symbol_errors_per_min;
	c->link_recoveries_per_hour = (uint64_t)t.link_recoveries_per_hour;
	c->rcv_errors_per_min = (uint64_t)t.rcv_errors_per_min;
	c->xmit_discards_per_min = (uint64_t)t.xmit_discards_per_min;
	c->xmit_wait_per_sec = (uint64_t)t.xmit_wait_per_sec;
	c->flap_count = t.flap_count;
	c->flap_window_ms = t.flap_window_ms;
	c->clear_after = t.clear_after;
	c->quiet_ms = 15 * 60 * 1000;
	c->ber_warning = t.ber_warning;
	c->ber_critical = t.ber_critical;
	c->ber_window_ms = t.ber_window_ms;
	c->keep_raw_ms = h.keep_ms[0];
	c->keep_5m_ms = h.keep_ms[1];
	c->keep_1h_ms = h.keep_ms[2];
	c->max_outstanding = 4;
	c->clear_near_saturation = true;
	c->roce_sysfs_root = xstrdup("/sys");
	c->roce_interval_ms = 5000;
	c->pfc_storm_window_ms = 20000;
}

/* A bit error rate: 1e-12, 0.000001, between 1e-18 and 1. */
static bool
parse_ber(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "a bit error rate (e.g. 1e-12)");
	char *end;
	double v;

	if (s == NULL)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= 1e-18 && v <= 1)) {
		cfg_error(ctx, node, "invalid bit error rate \"%s\": expected a number from 1e-18 to 1", s);
		return false;
	}
	*(double *)field = v;
	return true;
}

#define HC struct health_config
static const struct cfg_field isolate_fields[] = {
	CFG_F_BOOL("enabled", HC, isolate_enabled),
	CFG_F_BOOL("dry_run", HC, isolate_dry_run),
	CFG_F_UINT("max", HC, isolate_max, 0, 100000),
	CFG_F_END
};

/* health.isolate: a mapping of its own (enabled, dry_run, max). */
static bool
parse_isolate(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	if (!cfg_expect_mapping(ctx, node, "a mapping (enabled, dry_run, max)"))
		return false;
	cfg_parse_fields(ctx, node, isolate_fields, (char *)field - offsetof(HC, isolate_enabled));
	return true;
}

static const char *const observer_port_names[] = { "local", "switch", "all", NULL };

static const struct cfg_field health_fields[] = {
	CFG_F_BOOL("enabled", HC, enabled),
	CFG_F_DURATION("interval", HC, interval_ms, 1000, 3600000),
	CFG_F_UINT("symbol_errors_per_min", HC, symbol_errors_per_min, 0, 1000000),
	CFG_F_UINT("link_recoveries_per_hour", HC, link_recoveries_per_hour, 0, 1000000),
	CFG_F_UINT("rcv_errors_per_min", HC, rcv_errors_per_min, 0, 1000000),
	CFG_F_UINT("xmit_discards_per_min", HC, xmit_discards_per_min, 0, 1000000),
	CFG_F_UINT("xmit_wait_per_sec", HC, xmit_wait_per_sec, 0, UINT32_MAX),
	CFG_F_UINT("flap_count", HC, flap_count, 1, FLAP_HISTORY),
	CFG_F_DURATION("flap_window", HC, flap_window_ms, 1000, 7 * DAY_MS),
	CFG_F_UINT("clear_after", HC, clear_after, 1, 100),
	CFG_F_DURATION("quiet_time", HC, quiet_ms, 0, 7 * DAY_MS),
	CFG_F_CUSTOM("ber_warning", HC, ber_warning, parse_ber),
	CFG_F_CUSTOM("ber_critical", HC, ber_critical, parse_ber),
	CFG_F_DURATION("ber_window", HC, ber_window_ms, 16000, 7 * DAY_MS),
	CFG_F_CUSTOM("isolate", HC, isolate_enabled, parse_isolate),
	CFG_F_DURATION("keep_raw", HC, keep_raw_ms, 60000, 7 * DAY_MS),
	CFG_F_DURATION("keep_5m", HC, keep_5m_ms, 600000, 90 * DAY_MS),
	CFG_F_DURATION("keep_1h", HC, keep_1h_ms, 7200000, 3650 * DAY_MS),
	CFG_F_UINT("max_outstanding", HC, max_outstanding, 1, 32),
	CFG_F_BOOL("clear_near_saturation", HC, clear_near_saturation),
	CFG_F_CUSTOM("roce_sysfs_root", HC, roce_sysfs_root, cfg_parse_abs_path),
	CFG_F_DURATION("roce_interval", HC, roce_interval_ms, 500, 3600000),
	CFG_F_DURATION("pfc_storm_window", HC, pfc_storm_window_ms, 1000, 3600000),
	CFG_F_ENUM("observer_ports", HC, observer_ports, observer_port_names),
	CFG_F_END
};
#undef HC

static void
health_config_free(void *p)
{
	struct health_config *c = p;
	free(c->roce_sysfs_root);
	c->roce_sysfs_root = NULL;
}

static void
apply_config(struct health *h, const struct health_config *c)
{
	char *root = h->cfg.roce_sysfs_root;

	h->cfg = *c;
	h->cfg.roce_sysfs_root = xstrdup(c->roce_sysfs_root);
	free(root);
	h->th.symbol_errors_per_min = (double)c->symbol_errors_per_min;
	h->th.link_recoveries_per_hour = (double)c->link_recoveries_per_hour;
	h->th.rcv_errors_per_min = (double)c->rcv_errors_per_min;
	h->th.xmit_discards_per_min = (double)c->xmit_discards_per_min;
	h->th.xmit_wait_per_sec = (double)c->xmit_wait_per_sec;
	h->th.flap_count = (uint32_t)c->flap_count;
	h->th.flap_window_ms = c->flap_window_ms;
	h->th.clear_after = (uint32_t)c->clear_after;
	h->th.ber_warning = c->ber_warning;
	h->th.ber_critical = c->ber_critical;
	h->th.ber_window_ms = c->ber_window_ms;
	if (h->alarms)
		alarm_table_set_quiet(h->alarms, c->quiet_ms);
	h->hcfg.keep_ms[0] = c->keep_raw_ms;
	h->hcfg.keep_ms[1] = c->keep_5m_ms;
	h->hcfg.keep_ms[2] = c->keep_1h_ms;
}

static void
alarm_notify(const struct alarm *a, bool raised, void *arg)
{
	struct health *h = arg;
	struct held_event e = { a->check, raised ? a->severity : EV_INFO, raised, "", "",
	    a->first_seen_ms, a->failures };

	if (raised)
		h->events_raised[a->severity]++;
	health_alarm_stored(h, a, raised);
	/* a fresh alarm has failed once; a rise in severity is notified
	 * again, later, and changes no port's count */
	if (!raised || a->failures == 1)
		hport_alarm_noted(a, raised);
	snprintf(e.object, sizeof(e.object), "%s", a->object);
	snprintf(e.detail, sizeof(e.detail), "%s", a->detail);
	health_event_note(&e);
}

static void
roce_tick(evutil_socket_t fd, short what, void *arg)
{
	struct health *h = arg;
	struct timeval tv = clock_tv_ms(h->cfg.roce_interval_ms);

	health_events_hold();
	roce_sample(&h->roce, event_now_ms(), h->alarms);
	health_events_release();
	evtimer_add(h->roce_timer, &tv);
}

static void
roce_start(struct health *h)
{
	roce_monitor_init(&h->roce, h->cfg.roce_sysfs_root, h->cfg.pfc_storm_window_ms);
	if (roce_discover(&h->roce) == 0) {
		log_info("health: no RoCE ports under %s/class/infiniband", h->cfg.roce_sysfs_root);
		return;
	}
	log_info("health: watching %zu RoCE port(s) under %s", h->roce.nports, h->cfg.roce_sysfs_root);
	h->roce_timer = evtimer_new(h->fd->base, roce_tick, h);
	roce_tick(-1, 0, h);
}

static void
roce_stop(struct health *h)
{
	if (h->roce_timer)
		event_free(h->roce_timer);
	h->roce_timer = NULL;
	roce_monitor_free(&h->roce);
}

/* ---- life cycle ---- */

static int
health_start(struct fabricd *fd, const void *cfgp)
{
	const struct health_config *c = cfgp;

	if (!c->enabled)
		return 0;
	health = xcalloc(1, sizeof(*health));
	health->fd = fd;
	health->sm = fd->sm;
	health_thresholds_default(&health->th);
	apply_config(health, c);
	health->alarms = alarm_table_new(health->th.clear_after, alarm_notify, health);
	alarm_table_set_quiet(health->alarms, c->quiet_ms);
	health_alarms_load(health);	/* what failed before a restart still counts */
	health_alarms_replica_start(health);	/* ... and before a failover */
	roce_start(health);
	if (health_ib_start(health) < 0)
		log_warnx("health: InfiniBand polling not started");
	return 0;
}

static int
health_reload(struct fabricd *fd, const void *cfgp)
{
	const struct health_config *c = cfgp;

	if (health == NULL)
		return c->enabled ? health_start(fd, cfgp) : 0;
	if (!c->enabled) {
		health_module.stop(fd);
		return 0;
	}
	apply_config(health, c);
	roce_stop(health);
	roce_start(health);
	return 0;
}

static void
health_stop(struct fabricd *fd)
{
	if (health == NULL)
		return;
	health_ib_stop(health);
	roce_stop(health);
	health_alarms_stop(health);
	health_alarms_replica_stop(health);
	/* Nothing stays routed around once nobody watches those ports. */
	if (health->nisolated)
		routing_exclude_set(NULL, NULL, 0);
	alarm_table_free(health->alarms);
	health_events_forget();
	hports_free(health);
	free(health->cfg.roce_sysfs_root);
	free(health);
	health = NULL;
}

static json_t *
health_status(struct fabricd *fd)
{
	if (health == NULL)
		return json_pack("{s:s}", "state", "disabled");
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "state", health->poll ? "polling" : "waiting for the SM",
	    "ports", (json_int_t)health->nports, "roce_ports", (json_int_t)health->roce.nports,
	    "rounds", (json_int_t)health->rounds, "last_round_mads", (json_int_t)health->round_mads,
	    "active_events", (json_int_t)alarm_count(health->alarms),
	    "interval_ms", (json_int_t)health->cfg.interval_ms);
}

const struct fabricd_module health_module = {
	.name = "health",
	.config_size = sizeof(struct health_config),
	.config_init = health_config_init,
	.config_fields = health_fields,
	.config_free = health_config_free,
	.start = health_start,
	.reload = health_reload,
	.stop = health_stop,
	.status = health_status,
	.metrics_slice = health_metrics,
};
