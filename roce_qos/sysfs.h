/*
 * The RoCE knobs outside dcbnl, under a configurable root prefix (tests
 * use a fake tree): ECN/DCQCN enables and parameters (OFED sysfs
 * /sys/class/net/IF/ecn/..., or upstream mlx5 debugfs cc_params), the
 * RDMA-CM default ToS in configfs, and the netdev <-> RDMA device <-> GID
 * mapping NCCL needs.
 */
#ifndef ROCE_QOS_SYSFS_H
#define ROCE_QOS_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>

#define ROCE_FS_MAXITEM	48
#define ROCE_PATHMAX	512

struct roce_profile;

/* One file fabricd owns: where, what it should hold, what it holds. */
struct roce_fs_item {
	char	setting[48];
	char	path[ROCE_PATHMAX];
	char	value[32];
	char	found[32];		/* filled by roce_fs_read_items */
	bool	missing;
};

struct roce_port {
	char	ifname[IFNAMSIZ];
	char	ibdev[64];
	int	port;			/* 1-based */
	char	bdf[32];		/* PCI address, for debugfs */
};

/* RoCE netdevs under root (those whose RDMA port's link layer is Ethernet). */
size_t roce_fs_list(const char *root, struct roce_port *out, size_t max);
/* The RDMA device and port behind one netdev; -1 when it has none. */
int roce_fs_port(const char *root, const char *ifname, struct roce_port *out);
/* The RoCE v2 GID index of the port (IPv4-mapped preferred); -1 if none. */
int roce_fs_gid_index(const char *root, const struct roce_port *port);

/* The files the profile wants on this port (missing knobs are skipped,
 * except the RDMA-CM ToS, whose configfs group fabricd creates). */
size_t roce_fs_want(const char *root, const struct roce_profile *p, const struct roce_port *port,
    struct roce_fs_item *out, size_t max);
/* Read each item's current content into found. */
void roce_fs_read_items(struct roce_fs_item *items, size_t n);
/* Write value, then read it back; 0, or -1 with err. */
int roce_fs_write_item(const struct roce_fs_item *item, char *err, size_t errlen);

/* A named counter of the port (hw_counters), or -1. */
long long roce_fs_counter(const char *root, const struct roce_port *port, const char *name);

#endif
