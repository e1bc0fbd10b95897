/*
 * The roce_qos module's entry in the daemon's module table.  Placeholder until
 * the module's issue lands: it accepts "roce_qos: {enabled: BOOL}" and reports
 * its state as "disabled" or "not implemented".
 */
#include "daemon/fabricd.h"

struct roce_qos_placeholder_config {
	bool enabled;
};

static const struct cfg_field roce_qos_fields[] = {
	CFG_F_BOOL("enabled", struct roce_qos_placeholder_config, enabled),
	CFG_F_END
};

static json_t *
roce_qos_status(struct fabricd *fd)
{
	const struct roce_qos_placeholder_config *c = fabricd_module_config(fd, MOD_ROCE_QOS);
	return json_pack("{s:s}", "state", c->enabled ? "not implemented" : "disabled");
}

const struct fabricd_module roce_qos_module = {
	.name = "roce_qos",
	.config_size = sizeof(struct roce_qos_placeholder_config),
	.config_fields = roce_qos_fields,
	.status = roce_qos_status,
};
