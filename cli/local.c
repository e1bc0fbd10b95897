/*
 * fabricctl preflight --local: what only the host itself can see, read
 * from sysfs without the daemon (a compute host may run none, and the
 * check must answer even when the SM is down): every RDMA port under
 * <root>/class/infiniband, its state, physical state, rate and link layer,
 * and on RoCE ports the GID table (a RoCE v2 GID for NCCL_IB_GID_INDEX);
 * and the NCCL environment the host would export (nccl_env).
 * A port not ACTIVE is a fault; a host without RDMA ports is inconclusive.
 * Whether a port runs below its peers is judged by --fanout, which sees
 * every host (cli/fanout.c).
 *
 * FABRICCTL_SYSFS_ROOT (default /sys) and FABRICCTL_HOST (default the
 * short host name) exist for the test launcher, which plays 64 hosts on
 * one machine.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/proto.h"
#include "cli/fanout.h"

static int
read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf[0] = '\0';
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "4: ACTIVE" -> 4 and "ACTIVE". */
static int
state_of(const char *s, const char **name)
{
	const char *colon = strchr(s, ':');

	*name = colon ? colon + 1 + (colon[1] == ' ') : s;
	return atoi(s);
}

/* The lowest GID index of type "RoCE v2" (what NCCL_IB_GID_INDEX needs), -1 if none. */
static int
roce_v2_index(const char *pdir)
{
	char dir[1600], t[32];
	struct dirent *e;
	int best = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/gid_attrs/types", pdir);
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		int idx = atoi(e->d_name);
		if (e->d_name[0] == '.' || read_line(dir, e->d_name, t, sizeof(t)) != 0)
			continue;
		if (strcasecmp(t, "RoCE v2") == 0 && (best < 0 || idx < best))
			best = idx;
	}
	closedir(d);
	return best;
}

static void
local_port(json_t *res, const char *host, const char *hca, const char *pdir, unsigned port)
{
	char state[64], phys[64], rate[64], ll[32];
	const char *sname, *pname;
	int st;

	read_line(pdir, "state", state, sizeof(state));
	read_line(pdir, "phys_state", phys, sizeof(phys));
	read_line(pdir, "rate", rate, sizeof(rate));
	read_line(pdir, "link_layer", ll, sizeof(ll));
	st = state_of(state, &sname);
	state_of(phys, &pname);
	json_array_append_new(json_object_get(res, "ports"), json_pack("{s:s, s:i, s:s, s:s, "
	    "s:s, s:f, s:s}", "hca", hca, "port", (int)port, "state", sname, "phys_state", pname,
	    "rate", rate, "rate_gbps", atof(rate), "link_layer", ll[0] ? ll : "InfiniBand"));
	if (st != 4)
		fanout_fault(res, host, hca, port, "IBPortDown", "%s port %u is %s (%s), not ACTIVE",
		    hca, port, sname[0] ? sname : "unreadable", pname[0] ? pname : "?");
	if (strcmp(ll, "Ethernet") == 0) {
		int gid = roce_v2_index(pdir);
		json_object_set_new(json_array_get(json_object_get(res, "ports"),
		    json_array_size(json_object_get(res, "ports")) - 1), "roce_v2_gid_index",
		    json_integer(gid));
		if (gid < 0)
			fanout_fault(res, host, hca, port, "RoceGidMissing", "%s port %u has no RoCE v2 "
			    "GID: NCCL_IB_GID_INDEX has nothing to name", hca, port);
	}
}

static void
local_hca(json_t *res, const char *host, const char *root, const char *hca)
{
	char dir[1024];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports", root, hca);
	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char pdir[1536];
		unsigned port = (unsigned)strtoul(e->d_name, NULL, 10);
		if (e->d_name[0] == '.' || port == 0)
			continue;
		snprintf(pdir, sizeof(pdir), "%s/%s", dir, e->d_name);
		local_port(res, host, hca, pdir, port);
	}
	closedir(d);
}

/* The NCCL environment this host would export: its ACTIVE ports as an exact
 * NCCL_IB_HCA list, and on RoCE the lowest RoCE v2 GID index. */
static void
local_nccl_env(json_t *res)
{
	json_t *p, *env = json_object();
	char hca[512] = "=";
	long long gid = -1;
	size_t i;

	json_array_foreach(json_object_get(res, "ports"), i, p) {
		json_t *g = json_object_get(p, "roce_v2_gid_index");
		char one[96];
		if (strcmp(cli_str(p, "state", ""), "ACTIVE") != 0)
			continue;
		snprintf(one, sizeof(one), "%s%s:%lld", hca[1] ? "," : "", cli_str(p, "hca", "?"),
		    (long long)json_integer_value(json_object_get(p, "port")));
		if (strlen(hca) + strlen(one) < sizeof(hca))
			strcat(hca, one);
		if (g && json_integer_value(g) >= 0 && gid < 0)
			gid = json_integer_value(g);
	}
	if (hca[1])
		json_object_set_new(env, "NCCL_IB_HCA", json_string(hca));
	if (gid >= 0)
		json_object_set_new(env, "NCCL_IB_GID_INDEX", json_sprintf("%lld", gid));
	json_object_set_new(res, "nccl_env", env);
}

json_t *
local_check(void)
{
	const char *root = getenv("FABRICCTL_SYSFS_ROOT"), *host = getenv("FABRICCTL_HOST");
	char dir[1024], me[256];
	struct dirent *e;
	json_t *res;
	DIR *d;
	int code;

	if (root == NULL || *root == '\0')
		root = "/sys";
	if (host == NULL || *host == '\0') {
		if (gethostname(me, sizeof(me)) != 0)
			snprintf(me, sizeof(me), "localhost");
		me[sizeof(me) - 1] = '\0';
		me[strcspn(me, ".")] = '\0';
		host = me;
	}
	res = json_pack("{s:s, s:[], s:[]}", "host", host, "ports", "faults");
	snprintf(dir, sizeof(dir), "%s/class/infiniband", root);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.')
				local_hca(res, host, root, e->d_name);
		closedir(d);
	}
	local_nccl_env(res);
	code = json_array_size(json_object_get(res, "faults")) ? 1 :
	    json_array_size(json_object_get(res, "ports")) ? 0 : 2;
	json_object_set_new(res, "exit_code", json_integer(code));
	json_object_set_new(res, "verdict", json_string(fanout_verdict_name(code)));
	if (code == 2)
		json_object_set_new(res, "detail", json_sprintf("no RDMA ports under %s", dir));
	return res;
}

int
cli_preflight_local(json_t *args, int json_out)
{
	json_t *res = local_check(), *f, *p;
	int code = (int)json_integer_value(json_object_get(res, "exit_code"));
	size_t i;

	if (json_out) {
		json_dumpf(res, stdout, JSON_INDENT(2) | PROTO_JSON_REAL);
		putchar('\n');
	} else {
		printf("preflight --local %s: %s%s%s\n", cli_str(res, "host", "-"),
		    cli_str(res, "verdict", "-"), code == 2 ? ": " : "", cli_str(res, "detail", ""));
		json_array_foreach(json_object_get(res, "ports"), i, p)
			printf("  %s/%lld %-8s %-10s %s\n", cli_str(p, "hca", "-"),
			    (long long)json_integer_value(json_object_get(p, "port")),
			    cli_str(p, "state", "-"), cli_str(p, "phys_state", "-"),
			    cli_str(p, "rate", "-"));
		json_array_foreach(json_object_get(res, "faults"), i, f)
			printf("  %s: %s\n", cli_str(f, "code", "-"), cli_str(f, "message", "-"));
	}
	json_decref(res);
	return code;
}
