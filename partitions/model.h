/*
 * The partition model, private to partitions/: tenants own partitions, a
 * partition is a name, a 15-bit P_Key and a list of members.  Everything
 * here is pure data manipulation (no fabric, no database, no MADs) so that
 * it can be unit-tested and reused by the YAML loader, the OpenSM importer
 * and the control commands alike.
 *
 * Every function that can refuse fills a struct pt_err with a proto error
 * code and a sentence for the operator, and leaves the model unchanged.
 */
#ifndef FABRICD_PARTITIONS_MODEL_H
#define FABRICD_PARTITIONS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

#define PT_PKEY_MIN		0x0001
#define PT_PKEY_MAX		0x7ffe	/* highest key a user partition may take */
#define PT_PKEY_DEFAULT		0x7fff	/* the default partition */
#define PT_PKEY_FULL		0x8000	/* membership bit: set = full member */
#define PT_NAME_MAX		64
#define PT_DEFAULT_NAME		"default"

struct pt_err {
	enum proto_error	code;
	char			msg[512];
};

void pt_err_set(struct pt_err *e, enum proto_error code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

enum pt_member_kind {
	PT_MEMBER_GUID,		/* one port GUID (CA port, or a switch's port 0) */
	PT_MEMBER_NODE,		/* NodeDescription, exact or shell glob */
	PT_MEMBER_ALL_CAS,	/* every CA port */
	PT_MEMBER_SWITCHES,	/* every switch management port (port 0) */
};

struct pt_member {
	enum pt_member_kind	 kind;
	uint64_t		 guid;		/* PT_MEMBER_GUID */
	char			*pattern;	/* PT_MEMBER_NODE */
	bool			 full;
};

/* IPoIB on a partition (OpenSM's `ipoib` flag): the SM creates its
 * broadcast group with these parameters. */
struct pt_ipoib {
	bool			 enabled;
	uint8_t			 mtu;		/* IB_MTU_LEN_* code: 4 = 2048 */
	uint8_t			 rate;		/* IB rate code: 3 = 10 Gb/s */
	uint8_t			 sl;
	uint32_t		 qkey;
};
#define PT_IPOIB_DEFAULT ((struct pt_ipoib){ true, 4, 3, 0, 0x0B1B })

/*
 * A job partition (issue 26): made for one scheduler job from its host
 * list, removed when the job ends.  Its members are the port GUIDs of the
 * job's hosts as found when it was made, and only the job path changes
 * them: operator commands refuse to touch it.
 */
struct pt_job {
	char			*id;		/* the scheduler's job id (SLURM_JOB_ID) */
	char			*user;		/* SLURM_JOB_USER, "" when not given */
	char			*account;	/* SLURM_JOB_ACCOUNT, "" when not given */
	char			*hosts;		/* the job's hosts as one Slurm hostlist */
	int64_t			 created_ms;	/* wall clock, ms since the epoch */
};

struct pt_partition {
	char			*name;
	char			*tenant;	/* never NULL; the partition's name when none was given */
	uint16_t		 pkey;		/* 0x0001-0x7ffe, no membership bit */
	struct pt_member	*members;
	size_t			 nmembers;
	struct pt_ipoib		 ipoib;
	struct pt_job		*job;		/* NULL: an operator's partition */
};

/*
 * Who is in the default partition (0x7fff, always at index 0).  The SM's
 * own port is always a full member: without it the SA cannot answer
 * anyone.  Nobody can be left out altogether, for the same reason.
 */
enum pt_default_policy {
	PT_DEFAULT_OTHERS_LIMITED,	/* SM full, everyone else limited (isolation) */
	PT_DEFAULT_OTHERS_FULL,		/* everyone full (no isolation on 0x7fff) */
};

struct pt_config {
	struct pt_partition	*parts;
	size_t			 nparts;
	enum pt_default_policy	 default_policy;
};

struct pt_config *pt_config_new(void);
void pt_config_free(struct pt_config *c);
struct pt_config *pt_config_dup(const struct pt_config *c);

const char *pt_default_policy_name(enum pt_default_policy p);
int pt_default_policy_parse(const char *s, enum pt_default_policy *out);

/* "0x8001" style text; only 0x0001-0x7ffe are accepted for partitions. */
int pt_pkey_parse(const char *s, uint16_t *out, struct pt_err *e);
bool pt_name_valid(const char *name);

/* Member text: "0x<guid>", "all-cas", "switches", or a node name / glob. */
int pt_member_parse(const char *text, bool full, struct pt_member *out, struct pt_err *e);
const char *pt_member_text(const struct pt_member *m, char *buf, size_t len);
bool pt_member_same(const struct pt_member *a, const struct pt_member *b);
void pt_member_clear(struct pt_member *m);

struct pt_partition *pt_find(const struct pt_config *c, const char *name);
struct pt_partition *pt_find_pkey(const struct pt_config *c, uint16_t pkey);

/* Changes.  Each one validates first and changes nothing on refusal. */
int pt_partition_add(struct pt_config *c, const char *name, const char *tenant,
    uint16_t pkey, struct pt_err *e);
int pt_partition_delete(struct pt_config *c, const char *name, struct pt_err *e);
/* Adding a member that is there already changes its membership (full or
 * limited) if it differs, and is a conflict if it does not. */
int pt_member_add(struct pt_config *c, const char *partition, const char *member,
    bool full, struct pt_err *e);
int pt_member_remove(struct pt_config *c, const char *partition, const char *member,
    struct pt_err *e);

/* A job partition's record (copied); NULL clears it. */
void pt_partition_set_job(struct pt_partition *p, const struct pt_job *job);
void pt_job_free(struct pt_job *j);
/* The partition made for scheduler job id, or NULL. */
struct pt_partition *pt_find_job(const struct pt_config *c, const char *id);
/* A scheduler job id: 1-40 of 0-9 A-Z a-z _ . - (Slurm's 1234, 1234_7). */
bool pt_job_id_valid(const char *id);

/* Whole-model check for configurations built elsewhere (file, import). */
int pt_config_check(const struct pt_config *c, struct pt_err *e);

#endif
