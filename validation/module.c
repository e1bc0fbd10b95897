/*
 * The validation module's entry in the daemon's module table.  Placeholder until
 * the module's issue lands: it accepts "validation: {enabled: BOOL}" and reports
 * its state as "disabled" or "not implemented".
 */
#include "daemon/fabricd.h"

struct validation_placeholder_config {
	bool enabled;
};

static const struct cfg_field validation_fields[] = {
	CFG_F_BOOL("enabled", struct validation_placeholder_config, enabled),
	CFG_F_END
};

static json_t *
validation_status(struct fabricd *fd)
{
	const struct validation_placeholder_config *c = fabricd_module_config(fd, MOD_VALIDATION);
	return json_pack("{s:s}", "state", c->enabled ? "not implemented" : "disabled");
}

const struct fabricd_module validation_module = {
	.name = "validation",
	.config_size = sizeof(struct validation_placeholder_config),
	.config_fields = validation_fields,
	.status = validation_status,
};
