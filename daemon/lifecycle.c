/*
 * Daemon lifecycle: starting and stopping the modules in order, and
 * reloading the configuration without ever running on a half-valid one.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/daemon.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/notify.h"
#include "mad/mad.h"

struct fabricd *fabricd;

/* The first module that cannot take newcfg in place, with its reason.
 * Failed modules are asked too: their configuration is what a restart
 * would retry. */
static bool
restart_needed(const struct fabricd_config *newcfg, char *why, size_t len)
{
	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = fabricd_modules[m];

		if (mod->reload_check && fabricd->module_running[m] != 0 &&
		    mod->reload_check(fabricd, newcfg->module[m], why, len) == RELOAD_RESTART_NEEDED)
			return true;
	}
	return false;
}

static enum daemon_reload_outcome
reload_config(json_t *errors)
{
	struct fabricd_config *newcfg, *old = fabricd->config;
	char **errs, why[160];
	size_t n;

	log_info("reloading %s", old->file);
	if (config_load(old->file, &newcfg, &errs, &n) != 0) {
		for (size_t i = 0; i < n; i++) {
			log_warnx("reload: %s", errs[i]);
			if (errors)
				json_array_append_new(errors, json_string(errs[i]));
		}
		event_post(EV_WARNING, "daemon", old->file, "configuration reload rejected "
		    "(%zu error%s); the running configuration is kept", n, n == 1 ? "" : "s");
		cfg_errors_free(errs, n);
		return DAEMON_RELOAD_REJECTED;
	}
	cfg_errors_free(errs, n);
	if (restart_needed(newcfg, why, sizeof(why))) {
		log_warnx("reload: %s; nothing was changed", why);
		if (errors)
			json_array_append_new(errors, json_string(why));
		event_post(EV_WARNING, "daemon", old->file, "configuration reload needs a restart "
		    "(%s); the running configuration is kept", why);
		config_free(newcfg);
		return DAEMON_RELOAD_RESTART_NEEDED;
	}
	if (strcmp(newcfg->socket, old->socket) || strcmp(newcfg->state_dir, old->state_dir))
		log_notice("reload: socket and state_dir changes take effect at restart");
	if ((newcfg->metrics_listen == NULL) != (old->metrics_listen == NULL) ||
	    (old->metrics_listen && strcmp(newcfg->metrics_listen, old->metrics_listen)))
		log_notice("reload: metrics.listen changes take effect at restart");
	free(newcfg->metrics_listen);
	newcfg->metrics_listen = old->metrics_listen ? xstrdup(old->metrics_listen) : NULL;
	free(newcfg->socket);
	newcfg->socket = xstrdup(old->socket);
	free(newcfg->state_dir);
	newcfg->state_dir = xstrdup(old->state_dir);
	/* A module that cannot reload keeps the settings it started with. */
	for (int m = 0; m < MOD_COUNT; m++) {
		if (fabricd_modules[m]->reload == NULL) {
			void *keep = old->module[m];
			old->module[m] = newcfg->module[m];
			newcfg->module[m] = keep;
		}
	}
	fabricd->config = newcfg;
	log_set_level(newcfg->log_level);
	control_configure(newcfg);
	for (int m = 0; m < MOD_COUNT; m++)
		if (fabricd_modules[m]->reload && fabricd->module_running[m] > 0 &&
		    fabricd_modules[m]->reload(fabricd, newcfg->module[m]) != 0)
			log_warnx("reload: module %s did not take its new settings",
			    fabricd_modules[m]->name);
	config_free(old);
	event_post(EV_INFO, "daemon", newcfg->file, "configuration reloaded");
	return DAEMON_RELOADED;
}

/* systemd is told around the reload, so that `systemctl reload` returns
 * once it is done and `systemctl status` says how it went. */
enum daemon_reload_outcome
daemon_reload(json_t *errors)
{
	static const char *const said[] = {
		[DAEMON_RELOADED] = "running; configuration reloaded",
		[DAEMON_RELOAD_REJECTED] = "running; the last reload was rejected (see the log)",
		[DAEMON_RELOAD_RESTART_NEEDED] = "running; the last reload needs a restart",
	};
	enum daemon_reload_outcome r;

	notify_reloading();
	r = reload_config(errors);
	notify_reloaded(said[r]);
	return r;
}

/* The engine, if some module's configuration talks to the fabric.  A port
 * that cannot be opened is logged by the engine; the modules that need it
 * then fail to start, as before. */
static void
open_mad_engine(void)
{
	struct mad_engine_config mc;

	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = fabricd_modules[m];

		if (mod->mad_config && mod->mad_config(fabricd->config->module[m], &mc)) {
			fabricd->me = mad_engine_open(fabricd->base, &mc);
			return;
		}
	}
}

void
daemon_start_modules(void)
{
	open_mad_engine();
	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = fabricd_modules[m];
		if (mod->start == NULL)
			continue;
		/* A module that fails is reported, not fatal: a RoCE host must
		 * keep its daemon even when, say, no IB port exists. */
		if (mod->start(fabricd, fabricd->config->module[m]) == 0) {
			fabricd->module_running[m] = 1;
		} else {
			fabricd->module_running[m] = -1;
			event_post(EV_ERROR, "daemon", mod->name, "module %s failed to start",
			    mod->name);
		}
	}
}

void
daemon_status_line(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int m = 0; m < MOD_COUNT && off < len; m++) {
		const struct fabricd_module *mod = fabricd_modules[m];
		json_t *st = mod->status && fabricd->module_running[m] > 0 ? mod->status(fabricd) : NULL;
		const char *state = fabricd->module_running[m] < 0 ? "failed" :
		    json_string_value(json_object_get(st, "state"));
		int n = snprintf(buf + off, len - off, "%s%s %s", off ? ", " : "", mod->name,
		    state ? state : "off");

		json_decref(st);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

void
daemon_stop_modules(void)
{
	for (int m = MOD_COUNT - 1; m >= 0; m--) {
		if (fabricd->module_running[m] > 0 && fabricd_modules[m]->stop)
			fabricd_modules[m]->stop(fabricd);
		fabricd->module_running[m] = 0;
	}
	/* Last: the modules have cancelled their MADs, so the engine's
	 * -ECANCELED callbacks reach nobody. */
	mad_engine_close(fabricd->me);
	fabricd->me = NULL;
}

