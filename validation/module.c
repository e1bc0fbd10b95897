/*
 * The validation module: start/stop and status.  The configuration is in
 * vconfig.c; jobs, campaigns, the NCCL environment and pre-flight live in
 * their own files (validation/validation.h).
 */
#include "daemon/fabricd.h"
#include "validation/fabric_view.h"
#include "validation/validation.h"

static int
validation_start(struct fabricd *fd, const void *cfg)
{
	const struct validation_config *c = cfg;

	if (!c->enabled)
		return 0;
	jobs_init(fd);
	view_hook_install();
	return 0;
}

static int
validation_reload(struct fabricd *fd, const void *cfg)
{
	/* settings are read per job: running jobs keep their own copies */
	return 0;
}

static void
validation_stop(struct fabricd *fd)
{
	jobs_shutdown();
	view_forget();
}

static json_t *
validation_status(struct fabricd *fd)
{
	const struct validation_config *c = fabricd_module_config(fd, MOD_VALIDATION);

	return json_pack("{s:s, s:s, s:i}", "state", c->enabled ? "running" : "disabled",
	    "launcher", c->default_launcher ? c->default_launcher : "", "profiles", (int)c->nprofiles);
}

const struct fabricd_module validation_module = {
	.name = "validation",
	.config_size = sizeof(struct validation_config),
	.config_init = validation_config_init,
	.config_fields = validation_fields,
	.config_parse = validation_config_parse,
	.config_free = validation_config_free,
	.start = validation_start,
	.reload = validation_reload,
	.stop = validation_stop,
	.status = validation_status,
	.metrics = validation_metrics,
};
