/*
 * The partitions module: tenants isolated by P_Key (issue 4).
 *
 * At the first start the `partitions:` section of fabricd.yaml seeds the
 * database; from then on the database wins and the file's tenants are
 * only a starting point (`partition import` replaces the stored set on
 * purpose).  Changes arrive through the control commands (ctl.c) and run
 * through the pipeline in change.c; sweeps reach us through the SM's
 * before-activate hook.  This file is the life cycle; the committed state
 * and the partitions.h queries are in state.c.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/metrics.h"
#include "partitions/files.h"
#include "partitions/internal.h"
#include "partitions/jobs.h"
#include "partitions/replica.h"
#include "partitions/turns.h"
#include "partitions/partitions.h"
#include "sm/sm.h"


/* ---- module ---- */

static void
seed_from_file(const struct partitions_config *pc)
{
	if (pc->model != NULL) {
		pt_config_free(pt_state.model);
		pt_state.model = pt_config_dup(pc->model);
		pt_state.model->default_policy = (enum pt_default_policy)pc->default_membership;
		pt_store_save_model(pt_state.store, pt_state.model, pt_state.index, pt_state.nindex);
		pt_history_add(0, false, "config", NULL, "stored",
		    "partitions taken from the configuration file at the first start");
	} else
		pt_state.model->default_policy = (enum pt_default_policy)pc->default_membership;
	pt_store_set_seeded(pt_state.store);
}

/*
 * The subnets one tenant space spans: the first subnet, and with
 * sm.subnets every other subnet of its plane group (sm.subnets' group).
 * Rails without a group are subnets of their own: partitions serve the
 * first only, as without sm.subnets.
 */
static void
find_planes(struct sm *first)
{
	const char *group = sm_subnet_group(first);

	pt_state.planes[0] = first;
	pt_state.nplanes = 1;
	for (struct sm *sm = sm_next_subnet(first); sm && group[0]; sm = sm_next_subnet(sm))
		if (strcmp(sm_subnet_group(sm), group) == 0 && pt_state.nplanes < PT_MAX_PLANES)
			pt_state.planes[pt_state.nplanes++] = sm;
}

/* Each plane's SM asks us, with its plane as the argument. */
static void
hook_planes(bool on)
{
	for (size_t i = 0; i < pt_state.nplanes; i++) {
		struct sm *sm = pt_state.planes[i];
		void *plane = (void *)(uintptr_t)i;

		if (on)
			sm_add_hook(sm, SM_HOOK_BEFORE_ACTIVATE, pt_sweep_hook, plane);
		sm_set_pkey_tables(sm, on ? pt_sa_pkey_table : NULL, plane);
		sm_set_pkey_expect(sm, on ? pt_audit_expect : NULL, plane);
		sm_set_ipoib_partitions(sm, on ? pt_sa_ipoib : NULL, NULL);
	}
}

static int
partitions_start(struct fabricd *fd, const void *cfg)
{
	const struct partitions_config *pc = cfg;
	bool seeded;

	if (!pc->enabled)
		return 0;
	if (pt_turns_start(fd->base) != 0)
		return -1;
	pt_state.store = fd->store;
	pt_state.sm = fd->sm;
	find_planes(fd->sm);
	if (pt_store_load(fd->store, &pt_state, &seeded) != 0)
		return -1;
	/* in the order pt_table_find searches (sqlite sorts GUIDs signed) */
	pt_tables_sort(pt_state.tables, pt_state.ntables);
	if (!seeded)
		seed_from_file(pc);
	else if (pc->model != NULL)
		log_notice("partitions: the database holds %zu partition%s and wins over the "
		    "file's tenants; use `fabricctl partition import` to replace them",
		    pt_state.model->nparts, pt_state.model->nparts == 1 ? "" : "s");
	/* with the SM off none of these is kept: changes are then stored only */
	hook_planes(true);
	if (pt_state.nplanes > 1)
		log_info("partitions: one tenant space over %zu subnets (plane group %s)",
		    pt_state.nplanes, sm_subnet_group(fd->sm));
	pt_replica_start(fd->ha);
	pt_state.running = true;
	pt_jobs_start(fd->base, &pc->jobs);
	return 0;
}

static int
partitions_reload(struct fabricd *fd, const void *cfg)
{
	const struct partitions_config *pc = cfg;

	if (pt_state.running && pc->model != NULL)
		log_notice("partitions: reload keeps the stored partitions (the database wins "
		    "after the first start)");
	if (pt_state.running)
		pt_jobs_configure(&pc->jobs);
	return 0;
}

/* The module's hooks into the SM and its database are made at start;
 * the tenants, once the database holds partitions, only by import
 * (partitions_reload_check). */
static const struct cfg_restart_key partitions_restart_keys[] = {
	CFG_RESTART("partitions.enabled", CFG_BOOL, struct partitions_config, enabled),
	CFG_RESTART_CUSTOM("partitions.tenants"),
	CFG_RESTART_END
};

/* The tenants in the file seed the database once; after that the database
 * wins, so an edit of the file cannot be applied by a reload (nor by a
 * restart): say so rather than answer "reloaded" with the edit ignored. */
static enum reload_result
partitions_reload_check(struct fabricd *fd, const void *cfg, char *why, size_t len)
{
	const struct partitions_config *pc = cfg, *cur = fabricd_module_config(fd, MOD_PARTITIONS);
	char *a, *b;
	bool same;

	if (!pt_state.running || (pc->model == NULL && cur->model == NULL))
		return RELOAD_APPLIED;
	a = pc->model ? pt_yaml_export(pc->model) : NULL;
	b = cur->model ? pt_yaml_export(cur->model) : NULL;
	same = a != NULL && b != NULL && strcmp(a, b) == 0;
	free(a);
	free(b);
	if (same)
		return RELOAD_APPLIED;
	snprintf(why, len, "partitions.tenants changed in the file, but the database holds the "
	    "partitions: apply them with `fabricctl partition import`");
	return RELOAD_RESTART_NEEDED;
}

static void
partitions_stop(struct fabricd *fd)
{
	if (pt_state.running)
		hook_planes(false);
	/* a change waiting for its next step ends here, unanswered */
	pt_turns_stop();
	pt_jobs_stop();
	pt_replica_stop();
	pt_state_free();
}

static json_t *
partitions_status(struct fabricd *fd)
{
	size_t ntenants = 0;
	json_t *st;

	if (!pt_state.running)
		return json_pack("{s:s}", "state", "disabled");
	for (size_t i = 0; i < pt_state.model->nparts; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= strcmp(pt_state.model->parts[i].tenant, pt_state.model->parts[j].tenant) == 0;
		ntenants += !seen;
	}
	st = json_pack("{s:s, s:b, s:I, s:I, s:I, s:s, s:{s:I, s:I, s:I, s:I, s:I}, "
	    "s:{s:I, s:I, s:I}}",
	    "state", pt_fabric_now() ? "running" : "stored-only", "busy", pt_state.busy,
	    "partitions", (json_int_t)pt_state.model->nparts, "tenants", (json_int_t)ntenants,
	    "ports", (json_int_t)pt_state.ntables,
	    "default_membership", pt_default_policy_name(pt_state.model->default_policy),
	    "pkey_mads", "sets", (json_int_t)pt_mad_counts.sets, "gets",
	    (json_int_t)pt_mad_counts.gets, "failures", (json_int_t)pt_mad_counts.failures,
	    "enforce_gets", (json_int_t)pt_mad_counts.enforce_gets,
	    "enforce_sets", (json_int_t)pt_mad_counts.enforce_sets,
	    "changes", "ok", (json_int_t)pt_state.changes_ok, "failed",
	    (json_int_t)pt_state.changes_failed, "rejected", (json_int_t)pt_state.changes_rejected);
	if (pt_state.nplanes > 1) {	/* the subnets a change lands on, together */
		json_t *planes = json_array();

		for (size_t i = 0; i < pt_state.nplanes; i++)
			json_array_append_new(planes, json_string(pt_plane_name(i)));
		json_object_set_new(st, "planes", planes);
	}
	if (pt_replica_on())
		json_object_set_new(st, "intent", pt_replica_status());
	json_object_set_new(st, "jobs", pt_jobs_status());
	return st;
}

/* Read from the status object, so the two always agree. */
static void
partitions_metrics(struct fabricd *fd, struct prom *p)
{
	static const struct status_metric series[] = {
		{ "partitions", "fabricd_partitions", "gauge", "partitions in force" },
		{ "tenants", "fabricd_partition_tenants", "gauge", "tenants owning partitions" },
		{ "ports", "fabricd_partition_ports", "gauge", "end ports whose P_Key table is managed" },
		{ "busy", "fabricd_partition_change_running", "gauge",
		    "1 while a partition change is being applied" },
		{ "pkey_mads.sets", "fabricd_partition_pkey_sets_total", "counter",
		    "P_KeyTable Sets sent" },
		{ "pkey_mads.gets", "fabricd_partition_pkey_gets_total", "counter",
		    "P_KeyTable Gets sent" },
		{ "pkey_mads.failures", "fabricd_partition_pkey_mad_failures_total", "counter",
		    "P_KeyTable MADs that failed" },
		{ "changes.ok", "fabricd_partition_changes_ok_total", "counter",
		    "partition changes applied" },
		{ "changes.failed", "fabricd_partition_changes_failed_total", "counter",
		    "partition changes that failed to apply" },
		{ "changes.rejected", "fabricd_partition_changes_rejected_total", "counter",
		    "partition changes refused before applying" },
	};
	json_t *st = partitions_status(fd);

	metrics_from_status(p, st, series, sizeof(series) / sizeof(series[0]));
	json_decref(st);
}

const struct fabricd_module partitions_module = {
	.name = "partitions",
	.config_size = sizeof(struct partitions_config),
	.config_init = pt_config_section_init,
	.config_parse = pt_config_section_parse,
	.config_free = pt_config_section_free,
	.start = partitions_start,
	.reload_check = partitions_reload_check,
	.restart_keys = partitions_restart_keys,
	.reload = partitions_reload,
	.stop = partitions_stop,
	.status = partitions_status,
	.metrics = partitions_metrics,
};
