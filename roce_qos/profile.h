/*
 * A RoCE QoS profile: what a host's NIC should hold.  Every DSCP, priority
 * and traffic class is a value here, never a constant in the code; the
 * built-in profiles are just filled-in instances.  Each setting remembers
 * where the configuration wrote it so that lint can point at it.
 */
#ifndef ROCE_QOS_PROFILE_H
#define ROCE_QOS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_qos/dcbnl.h"

struct roce_pos {
	const char	*file;		/* borrowed from the configuration */
	int		 line, col;	/* 1-based; 0: built in */
	const void	*node;		/* its YAML node, valid while parsing only */
};

enum roce_dcbx { ROCE_DCBX_UNMANAGED, ROCE_DCBX_HOST, ROCE_DCBX_FIRMWARE };
enum roce_trust { ROCE_TRUST_UNMANAGED, ROCE_TRUST_PCP, ROCE_TRUST_DSCP };
enum roce_buffer { ROCE_BUF_UNMANAGED, ROCE_BUF_AUTO, ROCE_BUF_MANUAL };
enum roce_cc { ROCE_CC_UNMANAGED, ROCE_CC_ENABLED, ROCE_CC_DISABLED };

#define ROCE_UNSET	(-1)	/* an int setting fabricd leaves alone */
#define ROCE_STORM_AUTO	0xffff	/* ethtool pfc-prevention-tout "auto" */
#define ROCE_CC_MAXPARAM 24

struct roce_cc_param {
	char		 name[40];	/* cc_params / ecn file name */
	uint32_t	 value;
};

#define ROCE_MAX_CLASSES	8
#define ROCE_CLASS_DSCPS	8

/* A traffic class on one NIC (the RoCE side of docs/qos.md's policy). */
struct roce_class {
	char		 name[32];
	int		 prio;			/* 802.1p priority, also its TC */
	uint8_t		 dscp[ROCE_CLASS_DSCPS];
	size_t		 ndscp;
	bool		 lossless;		/* PFC on its priority */
	int		 ets;			/* ETS share of its TC, percent */
	bool		 ecn;			/* DCQCN RP and NP on its priority */
	struct roce_pos	 pos, prio_pos, dscp_pos, ets_pos;
};

struct roce_profile {
	char		 name[32];
	struct roce_pos	 pos;

	enum roce_dcbx	 dcbx;
	struct roce_pos	 dcbx_pos;
	enum roce_trust	 trust;
	struct roce_pos	 trust_pos;
	uint8_t		 dscp_prio[ROCE_NDSCP];	/* ROCE_NO_PRIO: not owned */
	struct roce_pos	 map_pos;

	bool		 pfc_managed;
	uint8_t		 pfc_en;		/* bit p: priority p lossless */
	int		 cable_len_m;		/* mlx5 "delay"; ROCE_UNSET keeps */
	struct roce_pos	 pfc_pos;

	bool		 ets_managed;
	uint8_t		 prio_tc[ROCE_NPRIO];
	uint8_t		 tc_tsa[ROCE_NTC];	/* IEEE_8021QAZ_TSA_* */
	uint8_t		 tc_bw[ROCE_NTC];
	struct roce_pos	 ets_pos, bw_pos;

	enum roce_buffer buffer;
	uint8_t		 prio2buffer[ROCE_NPRIO];
	uint32_t	 buffer_size[ROCE_NTC];
	struct roce_pos	 buffer_pos;

	bool		 maxrate_managed;
	uint64_t	 maxrate_kbps[ROCE_NTC];	/* 0: unlimited */

	struct {
		enum roce_cc		mode;
		uint8_t			prios;		/* RP and NP enabled on these */
		int			cnp_dscp, cnp_prio;
		struct roce_cc_param	params[ROCE_CC_MAXPARAM];
		size_t			nparams;
		struct roce_pos		pos, cnp_pos;
	} cc;

	int		 roce_tos;		/* rdma_cm default_roce_tos */
	struct roce_pos	 tos_pos;
	int		 storm_ms;		/* 0 off, 80..8000, ROCE_STORM_AUTO;
						   ROCE_UNSET: left alone */
	struct roce_pos	 storm_pos;
	int		 nccl_tc;		/* NCCL_IB_TC; ROCE_UNSET: = roce_tos */
	struct roce_pos	 nccl_pos;

	struct roce_class classes[ROCE_MAX_CLASSES];	/* as written; applied */
	size_t		 nclasses;
};

/*
 * Turn p's classes into the settings above (classes.c): trust dscp, each
 * class's DSCPs on its priority, its priority on a TC of its own (the
 * priority's number) with its ETS share, PFC on the lossless ones, ECN on
 * those that ask, and the bandwidth no class takes to the TC of priority
 * 0 when no class has it.  A class named training gives the RoCE ToS
 * (its first DSCP, ECT(0)) that rdma_cm and NCCL_IB_TC use.
 */
void roce_profile_apply_classes(struct roce_profile *p);
/* The class of a name, NULL when none. */
const struct roce_class *roce_profile_class(const struct roce_profile *p, const char *name);

/* Fill p with a built-in profile; -1 when name is not one. */
int roce_profile_builtin(const char *name, struct roce_profile *p);
extern const char *const roce_profile_builtins[];	/* NULL-terminated */
/* An all-unmanaged profile to fill in. */
void roce_profile_empty(struct roce_profile *p);
/* The traffic class NCCL must use: nccl_tc, or the RoCE ToS. */
int roce_profile_nccl_tc(const struct roce_profile *p);

struct roce_lint {
	const char	*rule;
	struct roce_pos	 pos;
	char		 msg[200];
};

/* Check the profile's own consistency; returns the number of violations
 * (at most max are stored). */
size_t roce_lint_profile(const struct roce_profile *p, struct roce_lint *out, size_t max);

const char *roce_tsa_name(uint8_t tsa);

#endif
