/*
 * Partition sets on disk: the `partitions:` section of fabricd.yaml (also
 * the form `partition import` reads and `partition export` writes), and a
 * subset of OpenSM's partitions.conf for importing.
 *
 *   partitions:
 *     enabled: true
 *     default_membership: limited      # or full; the SM's port is always full
 *     tenants:
 *       acme:                          # tenant
 *         acme-train:                  # partition
 *           pkey: 0x0a01
 *           full: [ "gpu-a*", 0x0002c90300a0b0c1 ]
 *           limited: [ switches ]
 *
 * Both readers fail closed where OpenSM fails open: a syntax error, an
 * unknown key or flag, a keyword abbreviation, or a file that declares no
 * partition at all is an error with file:line:column, never "everyone in
 * the default partition".
 */
#ifndef FABRICD_PARTITIONS_FILES_H
#define FABRICD_PARTITIONS_FILES_H

#include <stdbool.h>
#include <yaml.h>

#include "daemon/config.h"
#include "partitions/model.h"

/*
 * partitions.jobs: the keys job partitions take and how (issue 26).
 *
 *   jobs:
 *     pkeys: 0x1000-0x1fff       # the pool; operator partitions never take one
 *     membership: full           # or limited: how the job's ports hold the key
 *     ipoib: false               # an IPoIB broadcast group per job partition
 *     reconcile_interval: 60s    # how often squeue is asked (0: never)
 *     squeue: squeue             # the program asked which jobs still run
 */
struct pt_jobs_config {
	bool			 enabled;
	uint64_t		 pkey_lo, pkey_hi;
	bool			 full;
	bool			 ipoib;
	uint64_t		 reconcile_ms;
	char			*squeue;
};
#define PT_JOBS_POOL_LO		0x1000
#define PT_JOBS_POOL_HI		0x1fff
#define PT_JOBS_RECONCILE_MS	60000

struct partitions_config {
	bool			 enabled;
	int			 default_membership;	/* enum pt_default_policy */
	struct pt_config	*model;			/* NULL: no tenants in the file */
	struct pt_jobs_config	 jobs;
};

void pt_config_section_init(void *cfg);
void pt_config_section_parse(struct cfg_ctx *ctx, yaml_node_t *section, void *cfg);
void pt_config_section_free(void *cfg);

/*
 * A whole file's text (read by the caller: partition import gets it from
 * the client's descriptor) into a model: YAML with a top-level
 * `partitions:` section, or OpenSM syntax when the name ends in ".conf".
 * On failure returns -1 and *err holds every message, one per line (free
 * it).  text must be NUL-terminated at len.
 */
int pt_text_load(const char *name, const char *text, size_t len, struct pt_config **out,
    char **err);
/* The same from text already in memory (name is used in messages). */
int pt_yaml_parse_text(const char *name, const char *text, size_t len,
    struct pt_config **out, char **err);
int pt_osm_parse_text(const char *name, const char *text, struct pt_config **out, char **err);

/* The model as a fabricd.yaml `partitions:` document (heap string),
 * without the job partitions: they are made and removed by the job path
 * only, so a file an operator imports never holds one. */
char *pt_yaml_export(const struct pt_config *c);
/* With them too (jobs true): the replicated intent carries every
 * partition; their job records travel beside it (replica.c). */
char *pt_yaml_export_with(const struct pt_config *c, bool jobs);

#endif
