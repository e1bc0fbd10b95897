/*
 * The partitions module's entry in the daemon's module table.  Placeholder until
 * the module's issue lands: it accepts "partitions: {enabled: BOOL}" and reports
 * its state as "disabled" or "not implemented".
 */
#include "daemon/fabricd.h"

struct partitions_placeholder_config {
	bool enabled;
};

static const struct cfg_field partitions_fields[] = {
	CFG_F_BOOL("enabled", struct partitions_placeholder_config, enabled),
	CFG_F_END
};

static json_t *
partitions_status(struct fabricd *fd)
{
	const struct partitions_placeholder_config *c = fabricd_module_config(fd, MOD_PARTITIONS);
	return json_pack("{s:s}", "state", c->enabled ? "not implemented" : "disabled");
}

const struct fabricd_module partitions_module = {
	.name = "partitions",
	.config_size = sizeof(struct partitions_placeholder_config),
	.config_fields = partitions_fields,
	.status = partitions_status,
};
