/*
 * RoCE host counters: the RDMA hw_counters of every Ethernet-link port
 * under <sysfs_root>/class/infiniband, and the per-priority PFC pause
 * counters of the port's netdev.  Detects a PFC storm (pause counters of a
 * priority rising in every sample for longer than a window) and loss on a
 * lossless class (out_of_sequence / packet_seq_err rising).
 *
 * hw_counters files are read by name (each read is a firmware query: no
 * globbing per sample).  Pause counters are the mlx5 ethtool statistics
 * rx_prio<N>_pause, tx_prio<N>_pause and their _duration: read from
 * <sysfs_root>/class/net/<netdev>/statistics/<name> when such a file
 * exists, else with the SIOCETHTOOL ETHTOOL_GSTATS ioctl.
 */
#ifndef FABRICD_HEALTH_ROCE_H
#define FABRICD_HEALTH_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "health/alarms.h"
#include "health/counters.h"
#include "common/prom.h"

enum roce_hw {
	ROCE_CNP_SENT,		/* np_cnp_sent */
	ROCE_CNP_HANDLED,	/* rp_cnp_handled */
	ROCE_ECN_MARKED,	/* np_ecn_marked_roce_packets */
	ROCE_OUT_OF_SEQUENCE,	/* out_of_sequence */
	ROCE_PACKET_SEQ_ERR,	/* packet_seq_err */
	ROCE_HW_COUNT
};

enum pfc_kind { PFC_RX_PAUSE, PFC_TX_PAUSE, PFC_RX_DURATION, PFC_TX_DURATION, PFC_KIND_COUNT };
#define PFC_PRIOS 8

struct roce_port {
	char			 dev[64];	/* mlx5_0 */
	unsigned		 port;
	char			 netdev[16];	/* IFNAMSIZ; "" when unknown */
	struct hc_counter_state	 hw[ROCE_HW_COUNT];
	bool			 hw_valid[ROCE_HW_COUNT];
	struct hc_counter_state	 pfc[PFC_PRIOS][PFC_KIND_COUNT];
	bool			 pfc_valid[PFC_PRIOS][PFC_KIND_COUNT];
	int64_t			 rising_since_ms[PFC_PRIOS];	/* 0: not rising */
	int			*ethtool_index;	/* stat index per (prio, kind), -1 none */
};

struct roce_monitor {
	char			*root;		/* sysfs root: "/sys", or a test tree */
	uint64_t		 storm_window_ms;
	struct roce_port	*ports;
	size_t			 nports;
	int64_t			 last_ms;
};

void roce_monitor_init(struct roce_monitor *m, const char *root, uint64_t storm_window_ms);
void roce_monitor_free(struct roce_monitor *m);
/* (Re)scan for RoCE ports; returns how many were found. */
size_t roce_discover(struct roce_monitor *m);
/* Read every counter once and run the checks through alarms (may be NULL). */
void roce_sample(struct roce_monitor *m, int64_t now_ms, struct alarm_table *alarms);
/* Append fabricd_roce_* families. */
void roce_metrics(const struct roce_monitor *m, struct prom *p);

const char *roce_hw_name(enum roce_hw c);
const char *pfc_stat_name(enum pfc_kind k, unsigned prio, char *buf, size_t len);

#endif
