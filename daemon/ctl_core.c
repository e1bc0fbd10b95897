/* Control handlers of the daemon itself: status, version, reload. */
#include <unistd.h>

#include "common/proto.h"
#include "daemon/control.h"
#include "daemon/daemon.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/loopstat.h"
#include "daemon/store_writer.h"

void
ctl_version(struct ctl_req *req, json_t *args)
{
	(void)args;
	ctl_reply_ok(req, json_pack("{s:s, s:i}", "version", FABRICD_VERSION,
	    "protocol", PROTO_VERSION));
}

/* What fabricd holds that sqlite does not have yet: events not written,
 * the writer thread's queue, the SM's model rows not handed over (one
 * figure, so that a script can wait for 0 before it reads the database). */
static json_int_t
unwritten_total(json_t *res)
{
	json_t *model = json_object_get(json_object_get(res, "sm"), "stored_model");

	return json_integer_value(json_object_get(json_object_get(res, "events"), "unwritten")) +
	    json_integer_value(json_object_get(json_object_get(res, "store"), "queued")) +
	    json_integer_value(json_object_get(model, "queued"));
}

void
ctl_status(struct ctl_req *req, json_t *args)
{
	json_t *res, *mods;
	const char *subnet = ctl_req_subnet(req);

	(void)args;
	res = json_pack("{s:s, s:i, s:I, s:i, s:s, s:s}", "version", FABRICD_VERSION,
	    "protocol", PROTO_VERSION, "uptime_s", (json_int_t)(time(NULL) - fabricd->started),
	    "pid", (int)getpid(), "config", fabricd->config->file,
	    "state_dir", fabricd->config->state_dir);
	mods = json_array();
	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = fabricd->config->modules[m];
		json_t *st = subnet && mod->status_of ? mod->status_of(fabricd, subnet) :
		    mod->status ? mod->status(fabricd) : NULL;
		const char *state;

		if (st == NULL)
			st = json_object();
		state = json_string_value(json_object_get(st, "state"));
		if (fabricd->module_running[m] < 0)
			state = "failed";
		json_array_append_new(mods, json_pack("{s:s, s:s}", "name", mod->name,
		    "state", state ? state : "unknown"));
		json_object_set_new(res, mod->name, st);
	}
	json_object_set_new(res, "modules", mods);
	json_object_set_new(res, "control", control_status());
	json_object_set_new(res, "loop", loopstat_status());
	json_object_set_new(res, "events", events_status());
	if (fabricd->store)
		json_object_set_new(res, "store", store_writer_status(fabricd->store));
	json_object_set_new(res, "unwritten_total", json_integer(unwritten_total(res)));
	ctl_reply_ok(req, res);
}

void
ctl_reload(struct ctl_req *req, json_t *args)
{
	json_t *errors = json_array();

	(void)args;
	switch (daemon_reload(errors)) {
	case DAEMON_RELOADED:
		json_decref(errors);
		ctl_reply_ok(req, json_pack("{s:s}", "config", fabricd->config->file));
		return;
	case DAEMON_RELOAD_RESTART_NEEDED:
		/* Valid, but it cannot run without a restart: nothing changed. */
		ctl_reply_error(req, PERR_CONFLICT, "restart needed: %s; the running "
		    "configuration is kept", json_string_value(json_array_get(errors, 0)));
		json_decref(errors);
		return;
	case DAEMON_RELOAD_REJECTED:
		break;
	}
	/* The old configuration stays; the client sees why. */
	size_t n = json_array_size(errors);
	json_t *first = json_array_get(errors, 0);
	ctl_reply_error(req, PERR_CHECK_FAILED, "configuration rejected (%zu error%s, old one "
	    "kept): %s", n, n == 1 ? "" : "s", first ? json_string_value(first) : "?");
	json_decref(errors);
}
