/*
 * Control handlers of roce_qos: show, plan, apply, lint, nccl-env.
 * dcbnl over netlink to the local kernel is quick, so they answer at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/fabricd.h"
#include "roce_qos/internal.h"

static const char *const counters[] = {
	"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
	"out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "out_of_buffer", NULL
};

/* The ports a request is about, or NULL after replying with why not. */
static size_t
req_ports(struct ctl_req *req, json_t *args, struct roce_port *ports)
{
	const struct roce_qos_config *c = roce_cfg();
	const char *ifname = ctl_arg_str(args, "if");
	size_t n;

	if (c == NULL || !c->enabled) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "roce_qos is disabled");
		return 0;
	}
	if ((n = roce_ports(ifname, ports, ROCE_MAXIF)) == 0) {
		if (ifname)
			ctl_reply_error(req, PERR_NOT_FOUND, "%s is not a managed RoCE interface", ifname);
		else
			ctl_reply_error(req, PERR_NOT_FOUND, "no RoCE interface found under %s", c->root);
	}
	return n;
}

static json_t *
u8s(const uint8_t *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *
prio_list(uint8_t mask)
{
	json_t *a = json_array();

	for (int p = 0; p < 8; p++)
		if (mask & (1u << p))
			json_array_append_new(a, json_integer(p));
	return a;
}

static json_t *
state_json(const struct dcb_state *st)
{
	json_t *o = json_object(), *map = json_object(), *a;
	char key[16];
	int entries = 0;

	if (st->has_dcbx)
		json_object_set_new(o, "dcbx", json_string(st->dcbx & DCB_CAP_DCBX_HOST ? "host" : "firmware"));
	for (int d = 0; d < ROCE_NDSCP; d++)
		if (st->dscp_prio[d] != ROCE_NO_PRIO) {
			snprintf(key, sizeof(key), "%d", d);
			json_object_set_new(map, key, json_integer(st->dscp_prio[d]));
			entries++;
		}
	/* mlx5: trust follows the presence of DSCP APP entries */
	json_object_set_new(o, "trust", json_string(entries ? "dscp" : "pcp"));
	json_object_set_new(o, "dscp_map", map);
	if (st->has_pfc) {
		json_t *req = json_array(), *ind = json_array();
		for (int p = 0; p < 8; p++) {
			json_array_append_new(req, json_integer((json_int_t)st->pfc.requests[p]));
			json_array_append_new(ind, json_integer((json_int_t)st->pfc.indications[p]));
		}
		json_object_set_new(o, "pfc", json_pack("{s:o, s:i, s:o, s:o}", "priorities",
		    prio_list(st->pfc.pfc_en), "cable_length", st->pfc.delay, "requests", req,
		    "indications", ind));
	}
	if (st->has_ets) {
		a = json_array();
		for (int tc = 0; tc < 8; tc++)
			json_array_append_new(a, json_string(roce_tsa_name(st->ets.tc_tsa[tc])));
		json_object_set_new(o, "ets", json_pack("{s:o, s:o, s:o}", "prio_tc",
		    u8s(st->ets.prio_tc, 8), "tsa", a, "bandwidth", u8s(st->ets.tc_tx_bw, 8)));
	}
	if (st->has_buffer) {
		a = json_array();
		for (int b = 0; b < 8; b++)
			json_array_append_new(a, json_integer(st->buffer.buffer_size[b]));
		json_object_set_new(o, "buffer", json_pack("{s:o, s:o, s:I}", "prio2buffer",
		    u8s(st->buffer.prio2buffer, 8), "sizes", a, "total", (json_int_t)st->buffer.total_size));
	}
	if (st->has_maxrate) {
		a = json_array();
		for (int tc = 0; tc < 8; tc++)
			json_array_append_new(a, json_integer((json_int_t)st->maxrate.tc_maxrate[tc]));
		json_object_set_new(o, "maxrate_kbps", a);
	}
	return o;
}

static json_t *
port_files_json(const struct roce_qos_config *c, const struct roce_port *port)
{
	struct roce_fs_item items[ROCE_FS_MAXITEM];
	size_t n = roce_fs_want(c->root, &c->profile, port, items, ROCE_FS_MAXITEM);
	json_t *files = json_object(), *cnt = json_object();

	for (size_t i = 0; i < n; i++)
		json_object_set_new(files, items[i].setting,
		    items[i].missing ? json_null() : json_string(items[i].found));
	for (int i = 0; counters[i] && port->ibdev[0]; i++) {
		long long v = roce_fs_counter(c->root, port, counters[i]);
		if (v >= 0)
			json_object_set_new(cnt, counters[i], json_integer(v));
	}
	return json_pack("{s:o, s:o}", "files", files, "counters", cnt);
}

/* The tunable as the driver reports it: 0 disabled, 65535 auto (unresolved). */
static json_t *
storm_json(const char *ifname)
{
	struct roce_tun *t;
	char err[160];
	uint16_t ms;

	if ((t = roce_tun(err, sizeof(err))) == NULL)
		return json_pack("{s:s}", "error", err);
	if (roce_storm_get(t, ifname, &ms) == -1)
		return json_pack("{s:s}", "error", t->err);
	return json_pack("{s:i, s:b}", "timeout_ms", ms, "enabled", ms != 0);
}

void
ctl_roce_show(struct ctl_req *req, json_t *args)
{
	struct roce_port ports[ROCE_MAXIF];
	size_t n = req_ports(req, args, ports);
	struct dcb_conn *c;
	struct dcb_state st;
	char err[256];
	json_t *out;

	if (n == 0)
		return;
	if ((c = roce_conn(err, sizeof(err))) == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s", err);
		return;
	}
	out = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *o;
		if (dcb_get_state(c, ports[i].ifname, &st) == -1)
			o = json_pack("{s:s}", "error", c->err);
		else
			o = state_json(&st);
		json_object_set_new(o, "pfc_storm_prevention", storm_json(ports[i].ifname));
		json_object_set_new(o, "interface", json_string(ports[i].ifname));
		json_object_set_new(o, "rdma_device", json_string(ports[i].ibdev));
		json_object_set_new(o, "port", json_integer(ports[i].port));
		json_t *files = port_files_json(roce_cfg(), &ports[i]);
		json_object_update(o, files);
		json_decref(files);
		json_array_append_new(out, o);
	}
	ctl_reply_ok(req, json_pack("{s:o}", "interfaces", out));
}

/* Plan every port; with apply, also write. */
static void
plan_or_apply(struct ctl_req *req, json_t *args, bool apply)
{
	const struct roce_qos_config *cfg;
	struct roce_port ports[ROCE_MAXIF];
	size_t n = req_ports(req, args, ports), total = 0, failed = 0;
	struct roce_plan *plan;
	struct dcb_state cur;
	struct dcb_conn *c;
	char err[256] = "", first[300] = "";
	json_t *out;

	if (n == 0)
		return;
	cfg = roce_cfg();
	if (!cfg->has_profile) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "no roce_qos profile is configured");
		return;
	}
	if ((c = roce_conn(err, sizeof(err))) == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s", err);
		return;
	}
	out = json_array();
	plan = xcalloc(1, sizeof(*plan));
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s}", "interface", ports[i].ifname), *d = json_array();
		size_t writes = 0;
		int rc;

		if (apply)
			rc = roce_apply_record(&ports[i], "apply", &writes, d, err, sizeof(err));
		else {
			rc = roce_plan_port(c, roce_tun(err, sizeof(err)), cfg->root, &cfg->profile,
			    &ports[i], &cur, plan, err, sizeof(err));
			if (rc == 0) {
				json_t *pd = roce_diffs_json(plan);
				json_array_extend(d, pd);
				json_decref(pd);
				writes = roce_plan_writes(plan);
			}
		}
		json_object_set_new(o, "differences", d);
		json_object_set_new(o, apply ? "writes" : "writes_needed", json_integer(writes));
		if (rc == -1) {
			json_object_set_new(o, "error", json_string(err));
			if (failed++ == 0)
				snprintf(first, sizeof(first), "%s", err);
		}
		total += writes;
		json_array_append_new(out, o);
	}
	free(plan);
	if (apply && failed) {
		json_decref(out);
		ctl_reply_error(req, PERR_FABRIC, "%s", first);
		return;
	}
	ctl_reply_ok(req, json_pack("{s:s, s:o, s:I}", "profile", cfg->profile.name,
	    "interfaces", out, apply ? "writes" : "writes_needed", (json_int_t)total));
}

void
ctl_roce_plan(struct ctl_req *req, json_t *args)
{
	plan_or_apply(req, args, false);
}

void
ctl_roce_apply(struct ctl_req *req, json_t *args)
{
	plan_or_apply(req, args, !ctl_arg_bool(args, "dry_run"));
}

/* A file the caller passed (ctl_arg_file): the daemon parses what the
 * caller could read, so quoting its content back tells them nothing new. */
static void
lint_file(struct ctl_req *req, const struct ctl_file *f)
{
	struct fabricd_config *cfg;
	char **errs, *msg = NULL;
	size_t n, len = 0;

	if (config_load_text(f->name, f->data, f->len, fabricd->config->modules, &cfg, &errs, &n) == 0) {
		const struct roce_qos_config *rc = cfg->module[MOD_ROCE_QOS];
		ctl_reply_ok(req, json_pack("{s:s, s:s, s:o}", "file", f->name, "profile",
		    rc->has_profile ? rc->profile.name : "none", "violations", json_array()));
		config_free(cfg);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(errs[i]);
		msg = xreallocarray(msg, len + l + 2, 1);
		memcpy(msg + len, errs[i], l);
		len += l;
		msg[len++] = i + 1 < n ? '\n' : '\0';
	}
	ctl_reply_error(req, PERR_CHECK_FAILED, "%s", msg ? msg : "invalid");
	free(msg);
	cfg_errors_free(errs, n);
}

void
ctl_roce_lint(struct ctl_req *req, json_t *args)
{
	const struct roce_qos_config *c = roce_cfg();
	const struct ctl_file *file = ctl_arg_file(req, "file");
	struct roce_lint l[16];
	size_t n;

	(void)args;
	if (file) {
		lint_file(req, file);
		return;
	}
	if (c == NULL || !c->has_profile) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "no roce_qos profile is configured");
		return;
	}
	/* the running profile passed lint at load; this re-states it */
	if ((n = roce_lint_profile(&c->profile, l, 16)) > 0) {
		ctl_reply_error(req, PERR_CHECK_FAILED, "%s:%d:%d: [%s] %s", l[0].pos.file,
		    l[0].pos.line, l[0].pos.col, l[0].rule, l[0].msg);
		return;
	}
	ctl_reply_ok(req, json_pack("{s:s, s:s, s:o}", "file", c->file ? c->file : "",
	    "profile", c->profile.name, "violations", json_array()));
}

void
ctl_roce_nccl_env(struct ctl_req *req, json_t *args)
{
	const struct roce_qos_config *cfg;
	struct roce_port ports[ROCE_MAXIF];
	size_t n = req_ports(req, args, ports), o = 0;
	char hca[512] = "=";
	int gid = -1, tc;
	json_t *res, *warn = json_array();

	if (n == 0) {
		json_decref(warn);
		return;
	}
	cfg = roce_cfg();
	o = 1;
	for (size_t i = 0; i < n; i++) {
		int g;
		if (!ports[i].ibdev[0])
			continue;
		o += snprintf(hca + o, o < sizeof(hca) ? sizeof(hca) - o : 0, "%s%s:%d",
		    o > 1 ? "," : "", ports[i].ibdev, ports[i].port);
		g = roce_fs_gid_index(cfg->root, &ports[i]);
		if (g == -1)
			json_array_append_new(warn, json_sprintf("%s has no RoCE v2 GID", ports[i].ibdev));
		else if (gid == -1)
			gid = g;
		else if (g != gid)
			json_array_append_new(warn, json_sprintf("%s: RoCE v2 GID index %d, not %d; "
			    "NCCL_IB_GID_INDEX is one value for all devices", ports[i].ibdev, g, gid));
	}
	tc = cfg->has_profile ? roce_profile_nccl_tc(&cfg->profile) : -1;
	res = json_object();
	if (o > 1)
		json_object_set_new(res, "NCCL_IB_HCA", json_string(hca));
	if (gid >= 0)
		json_object_set_new(res, "NCCL_IB_GID_INDEX", json_integer(gid));
	if (tc >= 0)
		json_object_set_new(res, "NCCL_IB_TC", json_integer(tc));
	json_object_set_new(res, "warnings", warn);
	ctl_reply_ok(req, res);
}
