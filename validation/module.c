/*
 * The validation module: start/stop and status.  The configuration is in
 * vconfig.c; jobs, campaigns, the NCCL environment and pre-flight live in
 * their own files (validation/validation.h).
 */
#include <stdio.h>

#include "common/log.h"
#include "daemon/fabricd.h"
#include "validation/fabric_view.h"
#include "validation/validation.h"

/* Said at start, once per missing program, before a job trips on it. */
static void
warn_missing_tools(const struct validation_config *c)
{
	json_t *t = validation_tools_check(c), *m;
	size_t i;

	json_array_foreach(json_object_get(t, "missing"), i, m)
		log_warnx("validation: %s: jobs that need it will be inconclusive", json_string_value(m));
	json_decref(t);
}

/* fabricd -n: the configuration parses, but would its jobs run?  A
 * warning, not an error: the SM and the rest do not need mpirun, and the
 * exit status of -n is about the file. */
static void
validation_config_notes(const void *cfg, FILE *out, FILE *err)
{
	const struct validation_config *c = cfg;
	json_t *t, *m;
	size_t i;

	(void)out;
	if (c == NULL || !c->enabled)
		return;
	t = validation_tools_check(c);
	json_array_foreach(json_object_get(t, "missing"), i, m)
		fprintf(err, "warning: validation: %s\n", json_string_value(m));
	json_decref(t);
}

static int
validation_start(struct fabricd *fd, const void *cfg)
{
	const struct validation_config *c = cfg;

	view_attach(fd->sm);	/* the pre-flight runs with validation off too */
	if (!c->enabled)
		return 0;
	jobs_init(fd);
	view_hook_install();
	warn_missing_tools(c);
	return 0;
}

/* Its jobs and the pre-flight's hook are set up at start. */
static const struct cfg_restart_key validation_restart_keys[] = {
	CFG_RESTART("validation.enabled", CFG_BOOL, struct validation_config, enabled),
	CFG_RESTART_END
};

static int
validation_reload(struct fabricd *fd, const void *cfg)
{
	/* settings are read per job: running jobs keep their own copies */
	return 0;
}

static void
validation_stop(struct fabricd *fd)
{
	preflights_stop();
	jobs_shutdown();
	view_forget();
}

static json_t *
validation_status(struct fabricd *fd)
{
	const struct validation_config *c = fabricd_module_config(fd, MOD_VALIDATION);

	json_t *res = validation_tools_check(c);

	json_object_set_new(res, "state", json_string(c->enabled ? "running" : "disabled"));
	json_object_set_new(res, "profiles", json_integer((json_int_t)c->nprofiles));
	return res;
}

const struct fabricd_module validation_module = {
	.name = "validation",
	.config_size = sizeof(struct validation_config),
	.config_init = validation_config_init,
	.config_fields = validation_fields,
	.config_parse = validation_config_parse,
	.config_free = validation_config_free,
	.start = validation_start,
	.restart_keys = validation_restart_keys,
	.reload = validation_reload,
	.stop = validation_stop,
	.status = validation_status,
	.metrics = validation_metrics,
	.config_notes = validation_config_notes,
};
