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

/* Appends one reason to why ("a; b"). */
static void
why_add(char *why, size_t len, const char *one)
{
	size_t used = strlen(why);

	if (used < len)
		snprintf(why + used, len - used, "%s%s", used ? "; " : "", one);
}

/* The daemon's own keys bound at start: the socket, the database, the
 * listeners and the TLS files (clients and peers are read afresh by
 * control_configure). */
static const struct cfg_restart_key daemon_restart_keys[] = {
	CFG_RESTART("socket", CFG_STR, struct fabricd_config, socket),
	CFG_RESTART("state_dir", CFG_STR, struct fabricd_config, state_dir),
	CFG_RESTART("metrics.listen", CFG_STR, struct fabricd_config, metrics_listen),
	CFG_RESTART("control.listen", CFG_STR, struct fabricd_config, control_listen),
	CFG_RESTART("control.tls.cert", CFG_STR, struct fabricd_config, control_tls.cert),
	CFG_RESTART("control.tls.key", CFG_STR, struct fabricd_config, control_tls.key),
	CFG_RESTART("control.tls.ca", CFG_STR, struct fabricd_config, control_tls.ca),
	CFG_RESTART_END
};

static void
keys_changed(const struct cfg_restart_key *keys, const void *a, const void *b, char *why,
    size_t len)
{
	char one[160];

	for (const struct cfg_restart_key *k = keys; k && k->key; k++)
		if (cfg_restart_key_changed(k, a, b)) {
			snprintf(one, sizeof(one), "%s changes only at restart", k->key);
			why_add(why, len, one);
		}
}

/* Every setting of newcfg that cannot be taken in place, each with its
 * reason; false when there is none.  Every module is asked, running,
 * off or failed: a module turned on in the file is one a reload would
 * otherwise leave off while saying "reloaded". */
static bool
restart_needed(const struct fabricd_config *newcfg, char *why, size_t len)
{
	const struct fabricd_config *old = fabricd->config;
	char one[256];

	why[0] = '\0';
	keys_changed(daemon_restart_keys, newcfg, old, why, len);
	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = fabricd->config->modules[m];

		keys_changed(mod->restart_keys, newcfg->module[m], old->module[m], why, len);
		one[0] = '\0';
		if (mod->reload_check &&
		    mod->reload_check(fabricd, newcfg->module[m], one, sizeof(one)) ==
		    RELOAD_RESTART_NEEDED)
			why_add(why, len, one);
	}
	return why[0] != '\0';
}

static enum daemon_reload_outcome
reload_config(json_t *errors)
{
	struct fabricd_config *newcfg, *old = fabricd->config;
	char **errs, why[768];
	size_t n;

	log_info("reloading %s", old->file);
	if (config_load(old->file, old->modules, &newcfg, &errs, &n) != 0) {
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
	/* A module that cannot reload keeps the settings it started with. */
	for (int m = 0; m < MOD_COUNT; m++) {
		if (fabricd->config->modules[m]->reload == NULL) {
			void *keep = old->module[m];
			old->module[m] = newcfg->module[m];
			newcfg->module[m] = keep;
		}
	}
	fabricd->config = newcfg;
	log_set_level(newcfg->log_level);
	control_configure(newcfg);
	for (int m = 0; m < MOD_COUNT; m++)
		if (fabricd->config->modules[m]->reload && fabricd->module_running[m] > 0 &&
		    fabricd->config->modules[m]->reload(fabricd, newcfg->module[m]) != 0)
			log_warnx("reload: module %s did not take its new settings",
			    fabricd->config->modules[m]->name);
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
		const struct fabricd_module *mod = fabricd->config->modules[m];

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
		const struct fabricd_module *mod = fabricd->config->modules[m];
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
		const struct fabricd_module *mod = fabricd->config->modules[m];
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
		if (fabricd->module_running[m] > 0 && fabricd->config->modules[m]->stop)
			fabricd->config->modules[m]->stop(fabricd);
		fabricd->module_running[m] = 0;
	}
	/* Last: the modules have cancelled their MADs, so the engine's
	 * -ECANCELED callbacks reach nobody. */
	mad_engine_close(fabricd->me);
	fabricd->me = NULL;
}

