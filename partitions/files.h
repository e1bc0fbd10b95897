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

struct partitions_config {
	bool			 enabled;
	int			 default_membership;	/* enum pt_default_policy */
	struct pt_config	*model;			/* NULL: no tenants in the file */
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

/* The model as a fabricd.yaml `partitions:` document (heap string). */
char *pt_yaml_export(const struct pt_config *c);

#endif
