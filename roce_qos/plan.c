/*
 * Differences and writes.  Comparison is normalised the way mlx5 reads
 * back: ETS bandwidth only for ETS classes (strict and vendor classes read
 * 100), PFC counters and capabilities ignored, APP entries only for the
 * DSCPs the profile owns (or all of them when trust must go back to PCP).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_qos/plan.h"

static void __attribute__((format(printf, 4, 5)))
diff_add(struct roce_plan *plan, const char *setting, const char *expected, const char *fmt, ...)
{
	struct roce_diff *d;
	va_list ap;

	if (plan->ndiffs == ROCE_MAXDIFF)
		return;
	d = &plan->diffs[plan->ndiffs++];
	snprintf(d->setting, sizeof(d->setting), "%s", setting);
	snprintf(d->expected, sizeof(d->expected), "%s", expected);
	va_start(ap, fmt);
	vsnprintf(d->found, sizeof(d->found), fmt, ap);
	va_end(ap);
}

static void
fmt_u8s(char *buf, size_t len, const uint8_t *v)
{
	snprintf(buf, len, "%u,%u,%u,%u,%u,%u,%u,%u", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

static void
fmt_mask(char *buf, size_t len, uint8_t mask)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int p = 0; p < 8; p++)
		if (mask & (1u << p))
			o += snprintf(buf + o, len - o, "%s%d", o ? "," : "", p);
	if (o == 0)
		snprintf(buf, len, "none");
}

static const char *
dcbx_name(bool host)
{
	return host ? "host" : "firmware";
}

static void
plan_dcbx(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan)
{
	bool host = cur->dcbx & DCB_CAP_DCBX_HOST;

	if (p->dcbx == ROCE_DCBX_UNMANAGED || !cur->has_dcbx)
		return;
	if ((p->dcbx == ROCE_DCBX_HOST) == host)
		return;
	plan->set_dcbx = true;
	plan->dcbx_mode = p->dcbx == ROCE_DCBX_HOST ? DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE : 0;
	diff_add(plan, "dcbx", dcbx_name(p->dcbx == ROCE_DCBX_HOST), "%s", dcbx_name(host));
}

static void
plan_ets(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan)
{
	char want[64], have[64];
	bool bw_differs = false;

	if (!p->ets_managed)
		return;
	if (!cur->has_ets) {
		diff_add(plan, "ets", "managed", "not reported by the driver");
		return;
	}
	plan->ets = cur->ets;
	if (memcmp(cur->ets.prio_tc, p->prio_tc, ROCE_NPRIO)) {
		fmt_u8s(want, sizeof(want), p->prio_tc);
		fmt_u8s(have, sizeof(have), cur->ets.prio_tc);
		diff_add(plan, "ets.prio_tc", want, "%s", have);
		plan->set_ets = true;
	}
	if (memcmp(cur->ets.tc_tsa, p->tc_tsa, ROCE_NTC)) {
		fmt_u8s(want, sizeof(want), p->tc_tsa);
		fmt_u8s(have, sizeof(have), cur->ets.tc_tsa);
		diff_add(plan, "ets.tc_tsa", want, "%s", have);
		plan->set_ets = true;
	}
	for (int tc = 0; tc < ROCE_NTC; tc++)
		if (p->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS && cur->ets.tc_tx_bw[tc] != p->tc_bw[tc])
			bw_differs = true;
	if (bw_differs) {
		fmt_u8s(want, sizeof(want), p->tc_bw);
		fmt_u8s(have, sizeof(have), cur->ets.tc_tx_bw);
		diff_add(plan, "ets.tc_bw", want, "%s", have);
		plan->set_ets = true;
	}
	memcpy(plan->ets.prio_tc, p->prio_tc, ROCE_NPRIO);
	memcpy(plan->ets.tc_tsa, p->tc_tsa, ROCE_NTC);
	memcpy(plan->ets.tc_tx_bw, p->tc_bw, ROCE_NTC);
}

static void
plan_pfc(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan)
{
	char want[32], have[32];

	if (!p->pfc_managed)
		return;
	if (!cur->has_pfc) {
		diff_add(plan, "pfc", "managed", "not reported by the driver");
		return;
	}
	plan->pfc = cur->pfc;
	if (cur->pfc.pfc_en != p->pfc_en) {
		fmt_mask(want, sizeof(want), p->pfc_en);
		fmt_mask(have, sizeof(have), cur->pfc.pfc_en);
		diff_add(plan, "pfc.priorities", want, "%s", have);
		plan->set_pfc = true;
		plan->pfc.pfc_en = p->pfc_en;
	}
	if (p->cable_len_m != ROCE_UNSET && cur->pfc.delay != p->cable_len_m) {
		snprintf(want, sizeof(want), "%d", p->cable_len_m);
		diff_add(plan, "pfc.cable_length", want, "%u", cur->pfc.delay);
		plan->set_pfc = true;
		plan->pfc.delay = p->cable_len_m;
	}
}

static void
plan_buffer(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan)
{
	char want[64], have[64];

	if (p->buffer != ROCE_BUF_MANUAL)
		return;
	if (!cur->has_buffer) {
		diff_add(plan, "buffer", "manual", "not reported by the driver");
		return;
	}
	plan->buffer = cur->buffer;
	if (memcmp(cur->buffer.prio2buffer, p->prio2buffer, ROCE_NPRIO)) {
		fmt_u8s(want, sizeof(want), p->prio2buffer);
		fmt_u8s(have, sizeof(have), cur->buffer.prio2buffer);
		diff_add(plan, "buffer.prio2buffer", want, "%s", have);
		plan->set_buffer = true;
	}
	for (int b = 0; b < ROCE_NTC; b++)
		if (cur->buffer.buffer_size[b] != p->buffer_size[b]) {
			char setting[32];
			snprintf(setting, sizeof(setting), "buffer.size.%d", b);
			snprintf(want, sizeof(want), "%u", p->buffer_size[b]);
			diff_add(plan, setting, want, "%u", cur->buffer.buffer_size[b]);
			plan->set_buffer = true;
		}
	memcpy(plan->buffer.prio2buffer, p->prio2buffer, ROCE_NPRIO);
	memcpy(plan->buffer.buffer_size, p->buffer_size, sizeof(p->buffer_size));
}

static void
plan_maxrate(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan)
{
	if (!p->maxrate_managed || !cur->has_maxrate)
		return;
	plan->maxrate = cur->maxrate;
	for (int tc = 0; tc < ROCE_NTC; tc++)
		if (cur->maxrate.tc_maxrate[tc] != p->maxrate_kbps[tc]) {
			char setting[32], want[32];
			snprintf(setting, sizeof(setting), "maxrate.%d", tc);
			snprintf(want, sizeof(want), "%llu", (unsigned long long)p->maxrate_kbps[tc]);
			diff_add(plan, setting, want, "%llu", (unsigned long long)cur->maxrate.tc_maxrate[tc]);
			plan->maxrate.tc_maxrate[tc] = p->maxrate_kbps[tc];
			plan->set_maxrate = true;
		}
}

/*
 * mlx5 has no trust op: trust DSCP means "at least one DSCP APP entry".
 * Owned entries are set (replacing in place; never delete first, a delete
 * resets the mapping to 0); going to PCP deletes every entry with the
 * priority it has now.
 */
static void
plan_apps(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan)
{
	char setting[32], want[8];

	for (int d = 0; d < ROCE_NDSCP; d++) {
		uint8_t w = p->dscp_prio[d], h = cur->dscp_prio[d];

		snprintf(setting, sizeof(setting), "dscp_map.%d", d);
		if (p->trust == ROCE_TRUST_PCP && h != ROCE_NO_PRIO) {
			diff_add(plan, setting, "none (trust pcp)", "%u", h);
			plan->app_del[plan->napp_del++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, h, d };
		} else if (p->trust != ROCE_TRUST_PCP && w != ROCE_NO_PRIO && w != h) {
			snprintf(want, sizeof(want), "%u", w);
			if (h == ROCE_NO_PRIO)
				diff_add(plan, setting, want, "none");
			else
				diff_add(plan, setting, want, "%u", h);
			plan->app_set[plan->napp_set++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, w, d };
		}
	}
}

void
roce_plan_dcb(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan)
{
	plan_dcbx(p, cur, plan);
	plan_ets(p, cur, plan);
	plan_pfc(p, cur, plan);
	plan_buffer(p, cur, plan);
	plan_apps(p, cur, plan);
	plan_maxrate(p, cur, plan);
}

void
roce_plan_files(const struct roce_profile *p, const struct roce_fs_item *want, size_t n,
    struct roce_plan *plan)
{
	(void)p;
	for (size_t i = 0; i < n; i++) {
		if (!want[i].missing && strcmp(want[i].value, want[i].found) == 0)
			continue;
		if (plan->nfiles < ROCE_FS_MAXITEM)
			plan->files[plan->nfiles++] = want[i];
		diff_add(plan, want[i].setting, want[i].value, "%s",
		    want[i].missing ? "missing" : want[i].found);
	}
}

void
roce_plan_storm(const struct roce_profile *p, struct roce_tun *tun, struct roce_plan *plan)
{
	struct roce_tun none = { 0 };
	char want[16], have[16];
	uint16_t cur;

	if (p->storm_ms == ROCE_UNSET)
		return;
	roce_storm_text(p->storm_ms, want, sizeof(want));
	if (tun == NULL)
		tun = &none;
	if (roce_storm_get(tun, plan->ifname, &cur) == -1) {
		plan->storm_errno = errno;
		snprintf(plan->storm_err, sizeof(plan->storm_err), "%s", tun->err);
		diff_add(plan, "pfc_storm_prevention", want, "unreadable: %s", strerror(plan->storm_errno));
		return;
	}
	if (roce_storm_matches(p->storm_ms, cur))
		return;
	diff_add(plan, "pfc_storm_prevention", want, "%s", roce_storm_text(cur, have, sizeof(have)));
	plan->set_storm = true;
	plan->storm = (uint16_t)p->storm_ms;
}

size_t
roce_plan_writes(const struct roce_plan *plan)
{
	return plan->set_dcbx + plan->set_ets + plan->set_pfc + plan->set_buffer +
	    (plan->napp_set > 0) + (plan->napp_del > 0) + plan->set_maxrate + plan->nfiles +
	    plan->set_storm;
}

static int
step_fail(struct dcb_conn *c, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", what, c->err[0] ? c->err : strerror(errno));
	return -1;
}

int
roce_plan_execute(struct dcb_conn *c, struct roce_tun *tun, const struct roce_plan *plan,
    char *err, size_t errlen)
{
	const char *ifn = plan->ifname;

	if (plan->set_dcbx && dcb_set_dcbx(c, ifn, plan->dcbx_mode) == -1)
		return step_fail(c, "dcbx", err, errlen);
	if (plan->set_ets && dcb_set_ets(c, ifn, &plan->ets) == -1)
		return step_fail(c, "ets", err, errlen);
	if (plan->set_pfc && dcb_set_pfc(c, ifn, &plan->pfc) == -1)
		return step_fail(c, "pfc", err, errlen);
	if (plan->set_buffer && dcb_set_buffer(c, ifn, &plan->buffer) == -1)
		return step_fail(c, "buffer", err, errlen);
	if (plan->napp_set && dcb_set_apps(c, ifn, false, plan->app_set, plan->napp_set) == -1)
		return step_fail(c, "dscp_map", err, errlen);
	if (plan->napp_del && dcb_set_apps(c, ifn, true, plan->app_del, plan->napp_del) == -1)
		return step_fail(c, "dscp_map (delete)", err, errlen);
	if (plan->set_maxrate && dcb_set_maxrate(c, ifn, &plan->maxrate) == -1)
		return step_fail(c, "maxrate", err, errlen);
	for (size_t i = 0; i < plan->nfiles; i++)
		if (roce_fs_write_item(&plan->files[i], err, errlen) == -1)
			return -1;
	if (plan->set_storm && (tun == NULL || roce_storm_set(tun, ifn, plan->storm) == -1)) {
		snprintf(err, errlen, "%s: pfc_storm_prevention: %s", ifn,
		    tun && tun->err[0] ? tun->err : "no ethtool access");
		return -1;
	}
	return 0;
}

int
roce_plan_port(struct dcb_conn *c, struct roce_tun *tun, const char *root,
    const struct roce_profile *p, const struct roce_port *port, struct dcb_state *cur,
    struct roce_plan *plan, char *err, size_t errlen)
{
	struct roce_fs_item want[ROCE_FS_MAXITEM];
	size_t n;

	memset(plan, 0, sizeof(*plan));
	snprintf(plan->ifname, sizeof(plan->ifname), "%s", port->ifname);
	if (dcb_get_state(c, port->ifname, cur) == -1) {
		snprintf(err, errlen, "%s: dcbnl read: %s", port->ifname, c->err);
		return -1;
	}
	roce_plan_dcb(p, cur, plan);
	n = roce_fs_want(root, p, port, want, ROCE_FS_MAXITEM);
	roce_plan_files(p, want, n, plan);
	roce_plan_storm(p, tun, plan);
	return 0;
}

/* A tunable that cannot even be read fails the port, after the other writes. */
static int
storm_unreadable(const struct roce_plan *plan, char *err, size_t errlen)
{
	if (plan->storm_errno == 0)
		return 0;
	snprintf(err, errlen, "%s: pfc_storm_prevention: %s", plan->ifname,
	    plan->storm_err[0] ? plan->storm_err : strerror(plan->storm_errno));
	return -1;
}

int
roce_apply_port(struct dcb_conn *c, struct roce_tun *tun, const char *root,
    const struct roce_profile *p, const struct roce_port *port, struct roce_plan *plan,
    size_t *writes, char *err, size_t errlen)
{
	struct roce_plan *after;
	struct dcb_state cur;
	int ret = 0;

	*writes = 0;
	if (roce_plan_port(c, tun, root, p, port, &cur, plan, err, errlen) == -1)
		return -1;
	if ((*writes = roce_plan_writes(plan)) == 0)
		return storm_unreadable(plan, err, errlen);
	if (roce_plan_execute(c, tun, plan, err, errlen) == -1)
		return -1;
	/* Drivers drop what they do not support without a word: read back. */
	if ((after = calloc(1, sizeof(*after))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (roce_plan_port(c, tun, root, p, port, &cur, after, err, errlen) == -1)
		ret = -1;
	else if (storm_unreadable(after, err, errlen) == -1)
		ret = -1;
	else if (after->ndiffs > 0) {
		snprintf(err, errlen, "%s: %s reads back %s, expected %s (ignored by the driver?)",
		    port->ifname, after->diffs[0].setting, after->diffs[0].found, after->diffs[0].expected);
		ret = -1;
	}
	free(after);
	return ret;
}
