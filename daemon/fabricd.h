/*
 * The daemon's shape: one event loop, one database, one control socket, and
 * the modules that plug into them.  A module is a table of callbacks; the
 * list in daemon/modules.c fixes their order (start in order, stop in
 * reverse).  Modules reach each other only through their public headers
 * (sm/sm.h, partitions/partitions.h, ...).
 *
 * The MAD engine (mad/mad.h) belongs to the daemon, not to a module: it is
 * opened before the first module starts and closed after the last one
 * stops, so every module sends through the same engine whichever of them
 * runs, and a module's MAD callbacks never outlive the engine's owner.
 */
#ifndef FABRICD_FABRICD_H
#define FABRICD_FABRICD_H

#include <stdio.h>
#include <time.h>
#include <jansson.h>
#include <event2/event.h>

#include "daemon/config.h"
#include "daemon/store.h"

struct fabricd;
struct mad_engine;
struct mad_engine_config;
struct prom;
struct prom_cursor;

/* A module's verdict on a new configuration (see reload_check). */
enum reload_result { RELOAD_APPLIED, RELOAD_RESTART_NEEDED };

struct fabricd_module {
	const char		*name;		/* also its config section */
	size_t			 config_size;
	void			(*config_init)(void *cfg);		/* defaults */
	const struct cfg_field	*config_fields;			/* simple sections */
	void			(*config_parse)(struct cfg_ctx *ctx, yaml_node_t *section, void *cfg);
	void			(*config_free)(void *cfg);
	/* True when this configuration talks to the fabric; fills in the
	 * engine's settings (the first module that says so sets them). */
	bool			(*mad_config)(const void *cfg, struct mad_engine_config *mc);
	int			(*start)(struct fabricd *fd, const void *cfg);
	/* Can cfg replace the running configuration in place?  When not,
	 * why names the setting ("sm.port_guid changes only at restart").
	 * Every module is asked before any reloads, so that one refusal
	 * changes nothing anywhere.  NULL: always in place. */
	enum reload_result	(*reload_check)(struct fabricd *fd, const void *cfg, char *why,
				    size_t len);
	/* The keys whose change only a restart applies (daemon/config.h):
	 * the simple ones compared by the daemon before reload_check, for
	 * every module, running or not.  NULL: none. */
	const struct cfg_restart_key *restart_keys;
	int			(*reload)(struct fabricd *fd, const void *cfg);
	void			(*stop)(struct fabricd *fd);
	json_t			*(*status)(struct fabricd *fd);	/* {"state": ...} */
	/* The same for one subnet of sm.subnets (`status --subnet NAME`):
	 * NULL: the module is not per subnet, status serves. */
	json_t			*(*status_of)(struct fabricd *fd, const char *subnet);
	/* Its families for the metrics exposition (daemon/metrics.h), called
	 * while it runs; the same figures its status shows.  NULL: none. */
	void			(*metrics)(struct fabricd *fd, struct prom *p);
	/* Instead of metrics, for a part that grows with the fabric: writes
	 * until prom_cursor_spent(c) and returns false to be called again
	 * (same c, a later turn of the loop), true when it has written all. */
	bool			(*metrics_slice)(struct fabricd *fd, struct prom *p,
				    struct prom_cursor *c);
	/* What `fabricd -n` adds for a configuration that parses: notes to
	 * out (the routing it will use), warnings to err (a program its jobs
	 * will need, missing).  Asked of every module, so that main() calls
	 * none by name.  NULL: nothing to say. */
	void			(*config_notes)(const void *cfg, FILE *out, FILE *err);
};

extern const struct fabricd_module *const fabricd_modules[MOD_COUNT];
extern const struct fabricd_module ha_module, sm_module, partitions_module, roce_qos_module,
    health_module, validation_module;

struct fabricd {
	struct event_base	*base;
	struct fabricd_config	*config;
	struct store		*store;
	time_t			 started;
	int			 module_running[MOD_COUNT];
	struct mad_engine	*me;		/* NULL: no module wants one, or no port */
	/* The subnet manager this daemon runs (sm/sm.h), NULL while sm is
	 * off: the SM module's start sets it, its stop clears it.  The
	 * modules that serve an SM (partitions, health, validation) take it
	 * from here in their start: they start after the SM and stop before
	 * it, so the pointer outlives them.  One today; a daemon that runs an
	 * SM per subnet or plane would hand each module the one it serves. */
	struct sm		*sm;
	/* The replicated intent (ha/ha.h), NULL without an `ha` section: the
	 * first module to start, the last to stop. */
	struct ha		*ha;
};

/* The one daemon instance (NULL in unit tests unless they set one up). */
extern struct fabricd *fabricd;

/* The daemon's MAD engine; NULL without one (and in unit tests). */
static inline struct mad_engine *
fabricd_mad(void)
{
	return fabricd ? fabricd->me : NULL;
}

static inline const void *
fabricd_module_config(const struct fabricd *fd, enum module_id id)
{
	return fd->config->module[id];
}

#endif
