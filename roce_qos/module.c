/*
 * The roce_qos module: keeps a host's RoCE NICs on their profile.
 *
 * Drift is noticed two ways: the DCB multicast group (every dcbnl
 * IEEE_SET/DEL on the host is announced) and a poll, because firmware
 * and sysfs changes announce nothing.  Each new difference raises one
 * event naming interface, setting, expected and found; with remediate
 * the profile is applied again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "common/prom.h"
#include "daemon/metrics.h"
#include "roce_qos/internal.h"
#include "roce_qos/roce_qos.h"

static struct {
	const struct roce_qos_config	*cfg;
	struct dcb_conn			 conn;
	bool				 conn_open;
	struct roce_tun			 tun;
	bool				 tun_open;
	struct dcb_transport		 mc;
	bool				 mc_open;
	struct event			*mc_ev, *poll_ev;
	char				 drift[ROCE_MAXIF * 4][IFNAMSIZ + 256];	/* "if\tsignature" */
	size_t				 ndrift;
	int64_t				 last_check_ms;
	bool				 in_sync;
} R;

const struct roce_qos_config *
roce_cfg(void)
{
	return R.cfg;
}

struct dcb_conn *
roce_conn(char *err, size_t errlen)
{
	struct dcb_transport t;

	if (R.conn_open)
		return &R.conn;
	if (dcb_transport_mnl(&t, false, NULL) == -1) {
		snprintf(err, errlen, "netlink: %s", strerror(errno));
		return NULL;
	}
	dcb_conn_init(&R.conn, &t);
	R.conn_open = true;
	return &R.conn;
}

struct roce_tun *
roce_tun(char *err, size_t errlen)
{
	if (R.tun_open)
		return &R.tun;
	if (roce_tun_open(&R.tun) == -1) {
		snprintf(err, errlen, "ethtool socket: %s", strerror(errno));
		return NULL;
	}
	R.tun_open = true;
	return &R.tun;
}

size_t
roce_ports(const char *ifname, struct roce_port *out, size_t max)
{
	const struct roce_qos_config *c = R.cfg;
	size_t n = 0;

	if (c == NULL)
		return 0;
	if (c->all_interfaces) {
		struct roce_port all[ROCE_MAXIF];
		size_t na = roce_fs_list(c->root, all, ROCE_MAXIF);
		for (size_t i = 0; i < na && n < max; i++)
			if (ifname == NULL || strcmp(ifname, all[i].ifname) == 0)
				out[n++] = all[i];
		return n;
	}
	for (size_t i = 0; i < c->nifnames && n < max; i++) {
		if (ifname && strcmp(ifname, c->ifnames[i]) != 0)
			continue;
		/* a netdev without an RDMA device still gets its dcbnl part */
		if (roce_fs_port(c->root, c->ifnames[i], &out[n]) == -1) {
			memset(&out[n], 0, sizeof(out[n]));
			snprintf(out[n].ifname, IFNAMSIZ, "%s", c->ifnames[i]);
			out[n].port = 1;
		}
		n++;
	}
	return n;
}

json_t *
roce_diffs_json(const struct roce_plan *plan)
{
	json_t *a = json_array();

	for (size_t i = 0; i < plan->ndiffs; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "setting", plan->diffs[i].setting,
		    "expected", plan->diffs[i].expected, "found", plan->diffs[i].found));
	return a;
}

static void
record_writes(const char *ifname, const struct roce_plan *plan, const char *reason)
{
	struct store *st = fabricd ? fabricd->store : NULL;
	sqlite3_stmt *s;
	int64_t now = event_now_ms();

	if (st == NULL || store_begin(st) == -1)
		return;
	for (size_t i = 0; i < plan->ndiffs; i++) {
		if ((s = store_prepare(st, "INSERT INTO roce_writes(time_ms, interface, setting, "
		    "expected, found, reason) VALUES (?, ?, ?, ?, ?, ?)")) == NULL)
			break;
		sqlite3_bind_int64(s, 1, now);
		sqlite3_bind_text(s, 2, ifname, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, plan->diffs[i].setting, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, plan->diffs[i].expected, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, plan->diffs[i].found, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 6, reason, -1, SQLITE_STATIC);
		if (store_step_done(st, s) == -1) {
			store_rollback(st);
			return;
		}
	}
	store_commit(st);
}

int
roce_apply_record(const struct roce_port *port, const char *reason, size_t *writes,
    json_t *diffs, char *err, size_t errlen)
{
	struct dcb_conn *c = roce_conn(err, errlen);
	struct roce_plan *plan;
	int ret;

	*writes = 0;
	if (c == NULL)
		return -1;
	plan = xcalloc(1, sizeof(*plan));
	ret = roce_apply_port(c, roce_tun(err, errlen), R.cfg->root, &R.cfg->profile, port, plan,
	    writes, err, errlen);
	if (diffs) {
		json_t *pd = roce_diffs_json(plan);
		json_array_extend(diffs, pd);
		json_decref(pd);
	}
	if (*writes > 0)
		record_writes(port->ifname, plan, reason);
	if (ret == 0 && *writes > 0)
		event_post(EV_INFO, "roce_qos", port->ifname, "%s: profile %s applied (%zu write%s)",
		    reason, R.cfg->profile.name, *writes, *writes == 1 ? "" : "s");
	else if (ret == -1)
		event_post(EV_ERROR, "roce_qos", port->ifname, "%s failed: %s", reason, err);
	free(plan);
	return ret;
}

/* ---- drift ---- */

static bool
drift_seen(const char *ifname, const char *sig)
{
	char key[sizeof(R.drift[0])];

	snprintf(key, sizeof(key), "%s\t%s", ifname, sig);
	for (size_t i = 0; i < R.ndrift; i++)
		if (strcmp(R.drift[i], key) == 0)
			return true;
	if (R.ndrift < sizeof(R.drift) / sizeof(R.drift[0]))
		snprintf(R.drift[R.ndrift++], sizeof(R.drift[0]), "%s", key);
	return false;
}

static void
drift_forget(const char *ifname)
{
	size_t len = strlen(ifname), j = 0;

	for (size_t i = 0; i < R.ndrift; i++)
		if (!(strncmp(R.drift[i], ifname, len) == 0 && R.drift[i][len] == '\t'))
			memmove(R.drift[j++], R.drift[i], sizeof(R.drift[0]));
	R.ndrift = j;
}

static void
check_port(struct dcb_conn *c, const struct roce_port *port, struct roce_plan *plan)
{
	struct dcb_state cur;
	char err[256], sig[256];
	size_t writes, newdiffs = 0;

	if (roce_plan_port(c, roce_tun(err, sizeof(err)), R.cfg->root, &R.cfg->profile, port, &cur,
	    plan, err, sizeof(err)) == -1) {
		snprintf(sig, sizeof(sig), "unreadable");
		if (!drift_seen(port->ifname, sig))
			event_post(EV_ERROR, "roce_qos", port->ifname, "cannot read the NIC: %s", err);
		R.in_sync = false;
		return;
	}
	if (plan->ndiffs == 0) {
		drift_forget(port->ifname);
		return;
	}
	R.in_sync = false;
	for (size_t i = 0; i < plan->ndiffs; i++) {
		const struct roce_diff *d = &plan->diffs[i];
		snprintf(sig, sizeof(sig), "%s=%s", d->setting, d->found);
		if (drift_seen(port->ifname, sig))
			continue;
		newdiffs++;
		/* a knob that cannot be read is a failure, not a drift */
		if (plan->storm_errno && strcmp(d->setting, "pfc_storm_prevention") == 0)
			event_post(EV_ERROR, "roce_qos", port->ifname, "pfc_storm_prevention "
			    "expected %s, cannot be read: %s", d->expected, plan->storm_err);
		else
			event_post(EV_WARNING, "roce_qos", port->ifname,
			    "drift: %s expected %s, found %s", d->setting, d->expected, d->found);
	}
	if (R.cfg->remediate && newdiffs > 0 &&
	    roce_apply_record(port, "remediate", &writes, NULL, err, sizeof(err)) == 0) {
		drift_forget(port->ifname);
		R.in_sync = true;
	}
}

static void
check_all(void)
{
	struct roce_port ports[ROCE_MAXIF];
	struct roce_plan *plan;
	struct dcb_conn *c;
	char err[256];
	size_t n = roce_ports(NULL, ports, ROCE_MAXIF);

	if (!R.cfg || !R.cfg->has_profile || (c = roce_conn(err, sizeof(err))) == NULL)
		return;
	R.in_sync = true;
	R.last_check_ms = event_now_ms();
	plan = xcalloc(1, sizeof(*plan));
	for (size_t i = 0; i < n; i++) {
		memset(plan, 0, sizeof(*plan));
		check_port(c, &ports[i], plan);
	}
	free(plan);
}

static void
on_poll(evutil_socket_t fd, short what, void *arg)
{
	check_all();
}

/* Notifications carry the full new state; it is simpler to re-read. */
static void
on_dcb_notify(evutil_socket_t fd, short what, void *arg)
{
	char buf[8192];
	int drained = 0;

	while (drained < 64 && R.mc.recv(R.mc.ctx, buf, sizeof(buf)) > 0)
		drained++;
	check_all();
}

static void
subscribe(struct fabricd *fd)
{
	int sock;

	if (dcb_transport_mnl(&R.mc, true, &sock) == -1) {
		log_warn("roce_qos: DCB notifications unavailable, polling only");
		return;
	}
	R.mc_open = true;
	evutil_make_socket_nonblocking(sock);
	R.mc_ev = event_new(fd->base, sock, EV_READ | EV_PERSIST, on_dcb_notify, NULL);
	event_add(R.mc_ev, NULL);
}

static void
schedule(struct fabricd *fd)
{
	struct timeval tv = clock_tv_ms(R.cfg->poll_ms);
	struct timeval now = { 0, 0 };

	if (R.poll_ev == NULL)
		R.poll_ev = event_new(fd->base, -1, EV_PERSIST, on_poll, NULL);
	event_add(R.poll_ev, &tv);
	/* first check right away */
	event_base_once(fd->base, -1, EV_TIMEOUT, on_poll, NULL, &now);
}

static int
roce_start(struct fabricd *fd, const void *cfg)
{
	R.cfg = cfg;
	if (!R.cfg->enabled)
		return 0;
	if (!R.cfg->has_profile) {
		log_warnx("roce_qos: enabled without a profile; nothing to keep");
		return 0;
	}
	subscribe(fd);
	schedule(fd);
	log_info("roce_qos: profile %s, poll every %llu ms%s", R.cfg->profile.name,
	    (unsigned long long)R.cfg->poll_ms, R.cfg->remediate ? ", remediating" : "");
	return 0;
}

static void
roce_stop(struct fabricd *fd)
{
	if (R.poll_ev)
		event_free(R.poll_ev);
	if (R.mc_ev)
		event_free(R.mc_ev);
	if (R.mc_open)
		R.mc.close(R.mc.ctx);
	if (R.conn_open)
		dcb_conn_close(&R.conn);
	if (R.tun_open)
		roce_tun_close(&R.tun);
	memset(&R, 0, sizeof(R));
}

static int
roce_reload(struct fabricd *fd, const void *cfg)
{
	roce_stop(fd);
	return roce_start(fd, cfg);
}

static json_t *
roce_status(struct fabricd *fd)
{
	const struct roce_qos_config *c = fabricd_module_config(fd, MOD_ROCE_QOS);

	if (!c->enabled)
		return json_pack("{s:s}", "state", "disabled");
	if (!c->has_profile)
		return json_pack("{s:s}", "state", "no profile");
	return json_pack("{s:s, s:s, s:b, s:b, s:I}", "state", "running", "profile", c->profile.name,
	    "in_sync", R.in_sync, "remediate", c->remediate, "last_check_ms", (json_int_t)R.last_check_ms);
}

/* From the status object; the RoCE port counters are health's. */
static void
roce_qos_metrics(struct fabricd *fd, struct prom *p)
{
	static const struct status_metric series[] = {
		{ "in_sync", "fabricd_roce_qos_in_sync", "gauge",
		    "1 when every managed interface matches the profile (PFC, ETS, trust, ECN)" },
		{ "remediate", "fabricd_roce_qos_remediate", "gauge",
		    "1 when drift is put right, 0 when only reported" },
	};
	json_t *st = roce_status(fd);
	json_t *last = json_object_get(st, "last_check_ms");

	metrics_from_status(p, st, series, sizeof(series) / sizeof(series[0]));
	if (json_is_integer(last)) {
		prom_family(p, "fabricd_roce_qos_last_check_timestamp_seconds", "gauge",
		    "when the interfaces were last compared with the profile");
		prom_sample_double(p, "fabricd_roce_qos_last_check_timestamp_seconds", NULL, 0,
		    (double)json_integer_value(last) / 1000.0);
	}
	json_decref(st);
}

/* ---- the public door (roce_qos.h) ---- */

bool
roce_qos_active(void)
{
	return R.cfg && R.cfg->enabled && R.cfg->has_profile;
}

int
roce_qos_verify(const char *ifname, char *why, size_t len)
{
	struct roce_port ports[ROCE_MAXIF];
	struct roce_plan *plan;
	struct dcb_state cur;
	struct dcb_conn *c;
	size_t n;
	int ret = 0;

	if (!roce_qos_active()) {
		snprintf(why, len, "roce_qos is not enabled with a profile");
		return -1;
	}
	if ((c = roce_conn(why, len)) == NULL)
		return -1;
	if ((n = roce_ports(ifname, ports, ROCE_MAXIF)) == 0) {
		snprintf(why, len, "no managed RoCE interface%s%s", ifname ? " " : "", ifname ? ifname : "");
		return -1;
	}
	plan = xcalloc(1, sizeof(*plan));
	for (size_t i = 0; i < n && ret == 0; i++) {
		if (roce_plan_port(c, roce_tun(why, len), R.cfg->root, &R.cfg->profile, &ports[i], &cur,
		    plan, why, len) == -1)
			ret = -1;
		else if (plan->ndiffs > 0) {
			snprintf(why, len, "%s %s: expected %s, found %s", ports[i].ifname,
			    plan->diffs[0].setting, plan->diffs[0].expected, plan->diffs[0].found);
			ret = 1;
		}
	}
	free(plan);
	return ret;
}

int
roce_qos_nccl_tc(void)
{
	return roce_qos_active() ? roce_profile_nccl_tc(&R.cfg->profile) : -1;
}

int
roce_qos_class_tclass(const char *name, int *prio)
{
	const struct roce_class *c = roce_qos_active() ? roce_profile_class(&R.cfg->profile, name) : NULL;

	if (c == NULL || c->ndscp == 0)
		return -1;
	*prio = c->prio;
	return c->dscp[0] << 2 | 2;
}

int
roce_qos_gid_index(const char *ifname)
{
	struct roce_port port;

	if (R.cfg == NULL || roce_fs_port(R.cfg->root, ifname, &port) == -1)
		return -1;
	return roce_fs_gid_index(R.cfg->root, &port);
}

const struct fabricd_module roce_qos_module = {
	.name = "roce_qos",
	.config_size = sizeof(struct roce_qos_config),
	.config_init = roce_config_init,
	.config_parse = roce_config_parse,
	.config_free = roce_config_free,
	.start = roce_start,
	.reload = roce_reload,
	.stop = roce_stop,
	.status = roce_status,
	.metrics = roce_qos_metrics,
};
