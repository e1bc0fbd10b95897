/*
 * Plan and apply: the difference between what a NIC holds and what the
 * profile wants, as a list of human-readable differences plus the writes
 * that remove them.  Writes are built from what was read (fields the
 * profile does not manage are sent back as read, as iproute2 dcb does),
 * and a setting that already matches is never written: changing pfc_en
 * flaps the link on mlx5.
 */
#ifndef ROCE_QOS_PLAN_H
#define ROCE_QOS_PLAN_H

#include <net/if.h>

#include "roce_qos/profile.h"
#include "roce_qos/sysfs.h"
#include "roce_qos/tunable.h"

#define ROCE_MAXDIFF	96

struct roce_diff {
	char	setting[48];
	char	expected[64];
	char	found[64];
};

struct roce_plan {
	char			 ifname[IFNAMSIZ];
	struct roce_diff	 diffs[ROCE_MAXDIFF];
	size_t			 ndiffs;

	bool			 set_dcbx, set_ets, set_pfc, set_buffer, set_maxrate;
	uint8_t			 dcbx_mode;
	struct ieee_ets		 ets;
	struct ieee_pfc		 pfc;
	struct dcbnl_buffer	 buffer;
	struct ieee_maxrate	 maxrate;
	struct dcb_app		 app_set[ROCE_NDSCP], app_del[ROCE_NDSCP];
	size_t			 napp_set, napp_del;

	struct roce_fs_item	 files[ROCE_FS_MAXITEM];
	size_t			 nfiles;

	bool			 set_storm;	/* ethtool PFC storm prevention */
	uint16_t		 storm;
	int			 storm_errno;	/* the read failed: nothing to write */
	char			 storm_err[160];
};

/* The dcbnl part of the plan, from a GET snapshot (pure). */
void roce_plan_dcb(const struct roce_profile *p, const struct dcb_state *cur, struct roce_plan *plan);
/* The file part: what the profile wants in sysfs/configfs/debugfs. */
void roce_plan_files(const struct roce_profile *p, const struct roce_fs_item *want, size_t n,
    struct roce_plan *plan);
/* The storm prevention part: read the tunable, compare (tun NULL: no
 * ethtool access).  A failed read is a difference, never silent. */
void roce_plan_storm(const struct roce_profile *p, struct roce_tun *tun, struct roce_plan *plan);
/* Number of writes the plan holds. */
size_t roce_plan_writes(const struct roce_plan *plan);

/*
 * Execute the writes in the kernel's order (DCBX, ETS, PFC, buffer, APP,
 * maxrate, files, storm prevention), stopping at the first failure.
 * Returns 0, or -1 with err naming the setting and the reason.
 */
int roce_plan_execute(struct dcb_conn *c, struct roce_tun *tun, const struct roce_plan *plan,
    char *err, size_t errlen);

/* Snapshot the NIC (dcbnl, files, ethtool tunable) and plan against the profile. */
int roce_plan_port(struct dcb_conn *c, struct roce_tun *tun, const char *root,
    const struct roce_profile *p, const struct roce_port *port, struct dcb_state *cur,
    struct roce_plan *plan, char *err, size_t errlen);
/*
 * Plan, write what differs, then read everything back: 0 when the NIC
 * holds the profile afterwards; -1 with err (the first failed write, or
 * the first setting the driver silently ignored).  *writes counts writes.
 */
int roce_apply_port(struct dcb_conn *c, struct roce_tun *tun, const char *root,
    const struct roce_profile *p, const struct roce_port *port, struct roce_plan *plan,
    size_t *writes, char *err, size_t errlen);
#endif
