/*
 * The NCCL environment a job on a set of hosts should use (`nccl-env`, and
 * pre-flight's NCCL run): NCCL_IB_HCA over their ACTIVE ports, the
 * tenant's NCCL_IB_PKEY index, and the RoCE GID index and traffic class.
 * Read from the other modules' public state; ctl.c and preflight.c both
 * use it, so it is neither's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "daemon/fabricd.h"
#include "partitions/partitions.h"
#include "roce_qos/roce_qos.h"
#include "sm/sm.h"
#include "validation/fabric_view.h"
#include "validation/validation.h"

/* NCCL_IB_HCA: "=hca:port,..." over the ACTIVE ports of the hosts ("="
 * makes the match exact: mlx5_1 must not also pick mlx5_10). */
static void
env_hca(const struct view_hosts *vh, char *const *hosts, size_t n, json_t *env, json_t *notes,
    json_t *faults)
{
	char list[1024] = "=";
	size_t i, j, named = 0, unnamed = 0;

	for (i = 0; i < n; i++) {
		struct view_port vp[VIEW_MAX_PORTS];
		size_t np = view_hosts_ports(vh, hosts[i], vp, VIEW_MAX_PORTS);
		if (np == 0)
			json_array_append_new(faults, json_pack("{s:s, s:s}", "host", hosts[i],
			    "code", "HostNotFound"));
		for (j = 0; j < np; j++) {
			char item[64];
			if (vp[j].port->state != FABRIC_PORT_ACTIVE)
				continue;	/* NCCL would skip it silently */
			if (vp[j].hca[0] == '\0') {
				unnamed++;
				continue;
			}
			snprintf(item, sizeof(item), "%s:%u", vp[j].hca, vp[j].port->num);
			if (strstr(list, item) != NULL)
				continue;	/* the same name on another host */
			if (strlen(list) + strlen(item) + 2 >= sizeof(list))
				break;
			if (named++ > 0)
				strcat(list, ",");
			strcat(list, item);
		}
	}
	if (named > 0)
		json_object_set_new(env, "NCCL_IB_HCA", json_string(list));
	if (unnamed > 0)
		json_array_append_new(notes, json_string("NCCL_IB_HCA: some NodeDescriptions carry "
		    "no HCA name (\"<host> <hca>\")"));
}

/* NCCL_IB_PKEY is an index, one value for every rank: it exists only
 * when the tenant's key sits at the same index on every host port. */
static void
env_pkey(const struct view_hosts *vh, char *const *hosts, size_t n, const char *tenant, json_t *env,
    json_t *notes, json_t *faults)
{
	uint16_t pkey = 0;
	int want = -1, idx;
	size_t i, j;
	bool bad = false;

	(void)partitions_index_of(tenant, &pkey);
	if (pkey == 0) {
		json_array_append_new(faults, json_pack("{s:s, s:s}", "code", "TenantUnknown",
		    "message", "no partition of that name"));
		return;
	}
	for (i = 0; i < n; i++) {
		struct view_port vp[VIEW_MAX_PORTS];
		size_t np = view_hosts_ports(vh, hosts[i], vp, VIEW_MAX_PORTS);
		for (j = 0; j < np; j++) {
			idx = partitions_pkey_index(vp[j].port->guid, pkey, NULL);
			if (idx >= 0 && (want < 0 || idx == want)) {
				want = idx;
				continue;
			}
			bad = true;
			json_array_append_new(faults, json_pack("{s:s, s:s, s:i, s:i}", "host", hosts[i],
			    "code", idx < 0 ? "PKeyMissing" : "PKeyIndexMismatch", "port",
			    vp[j].port->num, "index", idx));
		}
	}
	/* the same index on the host's other planes, or none is valid */
	for (i = 0; !bad && want >= 0 && i < n; i++) {
		char why[160];

		if (partitions_planes_refusal(hosts[i], pkey, want, why, sizeof(why)) == NULL)
			continue;
		bad = true;
		json_array_append_new(faults, json_pack("{s:s, s:s, s:s}", "host", hosts[i],
		    "code", "PKeyPlaneMismatch", "message", why));
	}
	if (!bad && want >= 0) {
		char v[16];
		snprintf(v, sizeof(v), "%d", want);
		json_object_set_new(env, "NCCL_IB_PKEY", json_string(v));
		snprintf(v, sizeof(v), "0x%04x", pkey & 0x7fff);
		json_object_set_new(env, "UCX_IB_PKEY", json_string(v));
	} else
		json_array_append_new(notes, json_string("NCCL_IB_PKEY: withheld, the tenant's P_Key "
		    "is not at one index on every host port"));
}

static void
env_roce(const char *ifname, json_t *env, json_t *notes)
{
	char v[16];
	int tc, gid;

	if (!validation_module_up(MOD_ROCE_QOS) || !roce_qos_active()) {
		json_array_append_new(notes, json_string("NCCL_IB_TC, NCCL_IB_GID_INDEX: no RoCE "
		    "profile (roce_qos not active)"));
		return;
	}
	if ((tc = roce_qos_nccl_tc()) >= 0) {
		snprintf(v, sizeof(v), "%d", tc);
		json_object_set_new(env, "NCCL_IB_TC", json_string(v));
	}
	if (ifname == NULL)
		json_array_append_new(notes, json_string("NCCL_IB_GID_INDEX: give --ifname"));
	else if ((gid = roce_qos_gid_index(ifname)) >= 0) {
		snprintf(v, sizeof(v), "%d", gid);
		json_object_set_new(env, "NCCL_IB_GID_INDEX", json_string(v));
	} else
		json_array_append_new(notes, json_string("NCCL_IB_GID_INDEX: no RoCE v2 GID on that "
		    "interface"));
}

/* The QoS classes' knobs (docs/qos.md): training's SL or traffic class for
 * NCCL, kv's for UCX (llm-d's NIXL moves KV caches over UCX). */
static void
env_qos(bool ib, json_t *env, json_t *notes)
{
	char v[16];
	int sl, tc, prio;

	if (ib && (sl = sm_qos_class_sl(view_sm(), "training")) >= 0) {
		snprintf(v, sizeof(v), "%d", sl);
		json_object_set_new(env, "NCCL_IB_SL", json_string(v));
	} else if (ib)
		json_array_append_new(notes, json_string("NCCL_IB_SL: no QoS class named training "
		    "(SL 0)"));
	if (ib && (sl = sm_qos_class_sl(view_sm(), "kv")) >= 0) {
		snprintf(v, sizeof(v), "%d", sl);
		json_object_set_new(env, "UCX_IB_SL", json_string(v));
	}
	if ((tc = roce_qos_class_tclass("kv", &prio)) >= 0) {
		snprintf(v, sizeof(v), "%d", tc);
		json_object_set_new(env, "UCX_IB_TRAFFIC_CLASS", json_string(v));
	}
}

json_t *
nccl_env_compute(char *const *hosts, size_t n, const char *tenant, const char *ifname)
{
	struct fabric *f = view_fabric();
	json_t *env = json_object(), *notes = json_array(), *faults = json_array();

	/* No NCCL_ALGO: a training job exports these, and NCCL picks Tree,
	 * NVLS or CollNet where they beat Ring; only fabricd's own link tests
	 * pin Ring (job_env, the pre-flight's NCCL check) */
	if (f == NULL)
		json_array_append_new(notes, json_string("NCCL_IB_HCA, NCCL_IB_PKEY: SM not "
		    "available (no fabric state)"));
	else {
		struct view_hosts *vh = view_hosts_new(f);

		env_hca(vh, hosts, n, env, notes, faults);
		if (tenant == NULL)
			json_array_append_new(notes, json_string("NCCL_IB_PKEY: no --partition (index 0, "
			    "the default partition)"));
		else if (!validation_module_up(MOD_PARTITIONS))
			json_array_append_new(notes, json_string("NCCL_IB_PKEY: partitions module not "
			    "running"));
		else
			env_pkey(vh, hosts, n, tenant, env, notes, faults);
		view_hosts_free(vh);
	}
	env_roce(ifname, env, notes);
	env_qos(f != NULL, env, notes);
	return json_pack("{s:o, s:o, s:o}", "env", env, "notes", notes, "faults", faults);
}
