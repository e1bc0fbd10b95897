/*
 * sysfs, configfs and debugfs, every path under a root prefix.  Knobs that
 * a driver flavour lacks are skipped (OFED has ecn/, upstream mlx5 has
 * debugfs cc_params, neither has both), so the plan only names files
 * that exist, plus the RDMA-CM ToS, whose configfs group we create.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "roce_qos/profile.h"
#include "roce_qos/sysfs.h"

static int
fs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd == -1)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return 0;
}

static bool
fs_exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

static int
port_link_ethernet(const char *root, const char *ibdev, int port)
{
	char path[ROCE_PATHMAX], ll[32];

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%d/link_layer", root, ibdev, port);
	return fs_read(path, ll, sizeof(ll)) == 0 && strcmp(ll, "Ethernet") == 0;
}

static void
port_bdf(const char *root, struct roce_port *out)
{
	char path[ROCE_PATHMAX], real[PATH_MAX];
	const char *slash;

	out->bdf[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/device", root, out->ifname);
	if (realpath(path, real) && (slash = strrchr(real, '/')) != NULL)
		snprintf(out->bdf, sizeof(out->bdf), "%s", slash + 1);
}

/* Each RDMA device's first Ethernet port; the netdevs under device/net. */
size_t
roce_fs_list(const char *root, struct roce_port *out, size_t max)
{
	char path[ROCE_PATHMAX];
	struct dirent *ib, *nd;
	DIR *dib, *dnd;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband", root);
	if ((dib = opendir(path)) == NULL)
		return 0;
	while ((ib = readdir(dib)) != NULL && n < max) {
		int port = 0;
		if (ib->d_name[0] == '.')
			continue;
		for (int p = 1; p <= 4 && !port; p++)
			if (port_link_ethernet(root, ib->d_name, p))
				port = p;
		if (!port || strlen(ib->d_name) >= sizeof(out[n].ibdev))
			continue;
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device/net", root, ib->d_name);
		if ((dnd = opendir(path)) == NULL)
			continue;
		while ((nd = readdir(dnd)) != NULL && n < max) {
			if (nd->d_name[0] == '.' || strlen(nd->d_name) >= IFNAMSIZ)
				continue;
			memcpy(out[n].ifname, nd->d_name, strlen(nd->d_name) + 1);
			memcpy(out[n].ibdev, ib->d_name, strlen(ib->d_name) + 1);
			out[n].port = port;
			port_bdf(root, &out[n]);
			n++;
		}
		closedir(dnd);
	}
	closedir(dib);
	return n;
}

int
roce_fs_port(const char *root, const char *ifname, struct roce_port *out)
{
	struct roce_port all[32];
	size_t n = roce_fs_list(root, all, 32);

	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i].ifname, ifname) == 0) {
			*out = all[i];
			return 0;
		}
	return -1;
}

int
roce_fs_gid_index(const char *root, const struct roce_port *port)
{
	char base[ROCE_PATHMAX], path[ROCE_PATHMAX + 64], buf[64];
	int first_v2 = -1;

	snprintf(base, sizeof(base), "%s/sys/class/infiniband/%s/ports/%d", root, port->ibdev, port->port);
	for (int idx = 0; idx < 256; idx++) {
		snprintf(path, sizeof(path), "%s/gid_attrs/types/%d", base, idx);
		if (fs_read(path, buf, sizeof(buf)) == -1)
			continue;
		if (strcasecmp(buf, "RoCE v2") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%d", base, idx);
		if (fs_read(path, buf, sizeof(buf)) == 0 && strcmp(buf, port->ifname) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/gids/%d", base, idx);
		if (fs_read(path, buf, sizeof(buf)) == -1 ||
		    strcmp(buf, "0000:0000:0000:0000:0000:0000:0000:0000") == 0)
			continue;
		/* NCCL's default address family is IPv4: prefer ::ffff:a.b.c.d */
		if (strncmp(buf, "0000:0000:0000:0000:0000:ffff:", 30) == 0)
			return idx;
		if (first_v2 == -1)
			first_v2 = idx;
	}
	return first_v2;
}

static void __attribute__((format(printf, 5, 6)))
want_add(struct roce_fs_item *out, size_t *n, size_t max, const char *setting, const char *pathfmt, ...)
{
	struct roce_fs_item *it;
	va_list ap;

	if (*n >= max)
		return;
	it = &out[*n];
	memset(it, 0, sizeof(*it));
	snprintf(it->setting, sizeof(it->setting), "%s", setting);
	va_start(ap, pathfmt);
	vsnprintf(it->path, sizeof(it->path), pathfmt, ap);
	va_end(ap);
	(*n)++;
}

static void
want_value(struct roce_fs_item *out, size_t n, long v)
{
	snprintf(out[n - 1].value, sizeof(out[n - 1].value), "%ld", v);
}

/* Add an item only when its file exists (the knob belongs to this flavour). */
static void
want_if_exists(struct roce_fs_item *out, size_t *n, size_t max, const char *setting,
    const char *path, long v)
{
	size_t before = *n;

	if (!fs_exists(path))
		return;
	want_add(out, n, max, setting, "%s", path);
	if (*n > before)
		want_value(out, *n, v);
}

static void
want_cc(const char *root, const struct roce_profile *p, const struct roce_port *port,
    struct roce_fs_item *out, size_t *n, size_t max)
{
	char ecn[ROCE_PATHMAX], dbg[ROCE_PATHMAX], path[ROCE_PATHMAX + 64], setting[48];

	snprintf(ecn, sizeof(ecn), "%s/sys/class/net/%s/ecn", root, port->ifname);
	snprintf(dbg, sizeof(dbg), "%s/sys/kernel/debug/mlx5/%s/cc_params", root, port->bdf);
	for (int prio = 0; prio < ROCE_NPRIO; prio++) {
		long on = p->cc.mode == ROCE_CC_ENABLED && (p->cc.prios & (1u << prio));
		static const char *const points[] = { "roce_rp", "roce_np" };
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s/enable/%d", ecn, points[i], prio);
			snprintf(setting, sizeof(setting), "ecn.%s.enable.%d", points[i], prio);
			want_if_exists(out, n, max, setting, path, on);
		}
	}
	if (p->cc.cnp_dscp != ROCE_UNSET) {
		snprintf(path, sizeof(path), "%s/roce_np/cnp_dscp", ecn);
		want_if_exists(out, n, max, "ecn.cnp_dscp", path, p->cc.cnp_dscp);
		snprintf(path, sizeof(path), "%s/np_cnp_dscp", dbg);
		want_if_exists(out, n, max, "ecn.cnp_dscp", path, p->cc.cnp_dscp);
	}
	if (p->cc.cnp_prio != ROCE_UNSET) {
		snprintf(path, sizeof(path), "%s/roce_np/cnp_802p_prio", ecn);
		want_if_exists(out, n, max, "ecn.cnp_prio", path, p->cc.cnp_prio);
		snprintf(path, sizeof(path), "%s/np_cnp_prio", dbg);
		want_if_exists(out, n, max, "ecn.cnp_prio", path, p->cc.cnp_prio);
	}
	for (size_t i = 0; i < p->cc.nparams; i++) {
		const struct roce_cc_param *cp = &p->cc.params[i];
		snprintf(setting, sizeof(setting), "ecn.%s", cp->name);
		snprintf(path, sizeof(path), "%s/%s", ecn, cp->name);
		want_if_exists(out, n, max, setting, path, cp->value);
		snprintf(path, sizeof(path), "%s/%s", dbg, cp->name);
		want_if_exists(out, n, max, setting, path, cp->value);
	}
}

size_t
roce_fs_want(const char *root, const struct roce_profile *p, const struct roce_port *port,
    struct roce_fs_item *out, size_t max)
{
	size_t n = 0;

	if (p->cc.mode != ROCE_CC_UNMANAGED)
		want_cc(root, p, port, out, &n, max);
	if (p->roce_tos != ROCE_UNSET && port->ibdev[0]) {
		want_add(out, &n, max, "rdma_cm.default_roce_tos",
		    "%s/sys/kernel/config/rdma_cm/%s/ports/%d/default_roce_tos", root, port->ibdev, port->port);
		want_value(out, n, p->roce_tos);
	}
	roce_fs_read_items(out, n);
	return n;
}

void
roce_fs_read_items(struct roce_fs_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		items[i].missing = fs_read(items[i].path, items[i].found, sizeof(items[i].found)) == -1;
		if (items[i].missing)
			items[i].found[0] = '\0';
	}
}

/* configfs: the rdma_cm group appears on mkdir of .../rdma_cm/<ibdev>. */
static void
configfs_group(const char *path)
{
	char group[ROCE_PATHMAX];
	char *ports;

	snprintf(group, sizeof(group), "%s", path);
	if ((ports = strstr(group, "/ports/")) == NULL || strstr(group, "/rdma_cm/") == NULL)
		return;
	*ports = '\0';
	if (mkdir(group, 0755) == -1 && errno != EEXIST)
		return;
}

int
roce_fs_write_item(const struct roce_fs_item *item, char *err, size_t errlen)
{
	char back[32], line[40];
	int fd, len;

	if (!fs_exists(item->path))
		configfs_group(item->path);
	if ((fd = open(item->path, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s: %s", item->setting, item->path, strerror(errno));
		return -1;
	}
	len = snprintf(line, sizeof(line), "%s\n", item->value);
	if (write(fd, line, len) != len) {
		snprintf(err, errlen, "%s: write %s: %s", item->setting, item->path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if (fs_read(item->path, back, sizeof(back)) == -1 || strcmp(back, item->value) != 0) {
		snprintf(err, errlen, "%s: %s reads back \"%s\" after writing \"%s\"",
		    item->setting, item->path, back, item->value);
		return -1;
	}
	return 0;
}

long long
roce_fs_counter(const char *root, const struct roce_port *port, const char *name)
{
	char path[ROCE_PATHMAX], buf[32];

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%d/hw_counters/%s",
	    root, port->ibdev, port->port, name);
	if (fs_read(path, buf, sizeof(buf)) == -1)
		return -1;
	return strtoll(buf, NULL, 10);
}
