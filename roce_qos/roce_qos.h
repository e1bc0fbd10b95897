/*
 * roce_qos's public door, for validation/preflight and health: is this
 * host's RoCE QoS what the profile says, and what must NCCL be told.
 * All calls are synchronous and read the NIC now (a dcbnl GET and a few
 * sysfs reads per interface).
 */
#ifndef ROCE_QOS_ROCE_QOS_H
#define ROCE_QOS_ROCE_QOS_H

#include <stdbool.h>
#include <stddef.h>

/* The module is enabled with a profile. */
bool roce_qos_active(void);

/*
 * Compare the NIC(s) with the profile: 0 all in sync, 1 drift (why names
 * the first difference: "mlx0 pfc.priorities: expected 3, found none"),
 * -1 cannot tell (why says so).  ifname NULL: every managed interface.
 */
int roce_qos_verify(const char *ifname, char *why, size_t len);

/* NCCL_IB_TC the profile requires, or -1 without a ToS in the profile. */
int roce_qos_nccl_tc(void);

/* A class of the profile (docs/qos.md): its traffic class byte (first
 * DSCP << 2 | ECT(0), what nvme connect --tos and UCX_IB_TRAFFIC_CLASS
 * take) and *prio its priority; -1 when there is no such class. */
int roce_qos_class_tclass(const char *name, int *prio);

/* NCCL_IB_GID_INDEX: the RoCE v2 GID index of ifname's RDMA port, -1 if none. */
int roce_qos_gid_index(const char *ifname);

#endif
