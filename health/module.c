/*
 * The health module's entry in the daemon's module table.  Placeholder until
 * the module's issue lands: it accepts "health: {enabled: BOOL}" and reports
 * its state as "disabled" or "not implemented".
 */
#include "daemon/fabricd.h"

struct health_placeholder_config {
	bool enabled;
};

static const struct cfg_field health_fields[] = {
	CFG_F_BOOL("enabled", struct health_placeholder_config, enabled),
	CFG_F_END
};

static json_t *
health_status(struct fabricd *fd)
{
	const struct health_placeholder_config *c = fabricd_module_config(fd, MOD_HEALTH);
	return json_pack("{s:s}", "state", c->enabled ? "not implemented" : "disabled");
}

const struct fabricd_module health_module = {
	.name = "health",
	.config_size = sizeof(struct health_placeholder_config),
	.config_fields = health_fields,
	.status = health_status,
};
