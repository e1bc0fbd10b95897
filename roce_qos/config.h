/*
 * The roce_qos: configuration section.
 *
 *   roce_qos:
 *     enabled: true
 *     root: /                  # prefix for sysfs/configfs/debugfs (tests)
 *     interfaces: all          # or [eth2, eth3]
 *     poll_interval: 10s
 *     remediate: false
 *     profile: nvidia-lossless # or a mapping, optionally "base: NAME" + overrides
 *
 * A profile that fails lint fails the configuration, at the offending
 * key's file:line:column, so nothing of it is ever applied.
 */
#ifndef ROCE_QOS_CONFIG_H
#define ROCE_QOS_CONFIG_H

#include "daemon/config.h"
#include <net/if.h>

#include "roce_qos/profile.h"

#define ROCE_MAXIF	16

struct roce_qos_config {
	bool			enabled;
	char			*root;
	bool			all_interfaces;
	char			ifnames[ROCE_MAXIF][IFNAMSIZ];
	size_t			nifnames;
	uint64_t		poll_ms;
	bool			remediate;
	char			*file;		/* profile positions point here */
	bool			has_profile;
	struct roce_profile	profile;
};

void roce_config_init(void *cfg);
void roce_config_parse(struct cfg_ctx *ctx, yaml_node_t *section, void *cfg);
void roce_config_free(void *cfg);

#endif
