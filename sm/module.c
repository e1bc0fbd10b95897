/*
 * The sm module's entry in the daemon's module table.  Placeholder until
 * the module's issue lands: it accepts "sm: {enabled: BOOL}" and reports
 * its state as "disabled" or "not implemented".
 */
#include "daemon/fabricd.h"

struct sm_placeholder_config {
	bool enabled;
};

static const struct cfg_field sm_fields[] = {
	CFG_F_BOOL("enabled", struct sm_placeholder_config, enabled),
	CFG_F_END
};

static json_t *
sm_status(struct fabricd *fd)
{
	const struct sm_placeholder_config *c = fabricd_module_config(fd, MOD_SM);
	return json_pack("{s:s}", "state", c->enabled ? "not implemented" : "disabled");
}

const struct fabricd_module sm_module = {
	.name = "sm",
	.config_size = sizeof(struct sm_placeholder_config),
	.config_fields = sm_fields,
	.status = sm_status,
};
