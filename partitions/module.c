/*
 * The partitions module: tenants isolated by P_Key (issue 4).
 *
 * At the first start the `partitions:` section of fabricd.yaml seeds the
 * database; from then on the database wins and the file's tenants are
 * only a starting point (`partition import` replaces the stored set on
 * purpose).  Changes arrive through the control commands (ctl.c) and run
 * through the pipeline in change.c; sweeps reach us through the SM's
 * before-activate hook.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "partitions/files.h"
#include "partitions/internal.h"
#include "partitions/partitions.h"
#include "sm/sm.h"


struct pt_state pt_state;

/* ---- committed port tables ---- */

const struct pt_table *
pt_table_find(uint64_t node_guid, uint8_t port)
{
	for (size_t i = 0; i < pt_state.ntables; i++)
		if (pt_state.tables[i].node_guid == node_guid && pt_state.tables[i].port == port)
			return &pt_state.tables[i];
	return NULL;
}

bool
pt_have_committed(void *arg, uint64_t node_guid, uint8_t port, uint16_t *t, size_t n)
{
	const struct pt_table *tb = pt_table_find(node_guid, port);

	if (tb == NULL)
		return false;
	memset(t, 0, n * sizeof(*t));
	memcpy(t, tb->entries, (tb->n < n ? tb->n : n) * sizeof(*t));
	return true;
}

/* A port whose table is no longer known: dropped, so the next sweep reads it. */
static void
forget_table(struct pt_table *t)
{
	size_t i = (size_t)(t - pt_state.tables);

	if (pt_state.store != NULL)
		pt_store_forget_table(pt_state.store, t->node_guid, t->port);
	free(t->entries);
	memmove(t, t + 1, (pt_state.ntables - i - 1) * sizeof(*t));
	pt_state.ntables--;
}

void
pt_tables_update(const struct pt_plan *p)
{
	size_t changed = 0;
	struct pt_table *upd = xcalloc(p->nports ? p->nports : 1, sizeof(*upd));

	for (size_t i = 0; i < p->nports; i++) {
		const struct pt_port_plan *pp = &p->ports[i];
		struct pt_table *t = (struct pt_table *)pt_table_find(pp->node_guid, pp->port);

		if (pp->have == NULL) {
			if (t != NULL)
				forget_table(t);
			continue;
		}
		if (t != NULL && t->n == pp->cap &&
		    memcmp(t->entries, pp->have, pp->cap * sizeof(uint16_t)) == 0)
			continue;
		if (t == NULL) {
			pt_state.tables = xreallocarray(pt_state.tables, pt_state.ntables + 1,
			    sizeof(*pt_state.tables));
			t = &pt_state.tables[pt_state.ntables++];
			memset(t, 0, sizeof(*t));
		}
		free(t->entries);
		t->node_guid = pp->node_guid;
		t->port = pp->port;
		t->port_guid = pp->port_guid;
		t->switch_ext = pp->switch_ext;
		snprintf(t->label, sizeof(t->label), "%s", pp->label);
		t->n = pp->cap;
		t->entries = xcalloc(pp->cap, sizeof(uint16_t));
		memcpy(t->entries, pp->have, pp->cap * sizeof(uint16_t));
		upd[changed++] = *t;
	}
	if (changed > 0 && pt_state.store != NULL)
		pt_store_save_tables(pt_state.store, upd, changed);
	free(upd);
}

/* ---- public door (partitions.h) ---- */

int
partitions_pkey_index(uint64_t port_guid, uint16_t pkey, bool *full)
{
	for (size_t i = 0; i < pt_state.ntables; i++) {
		const struct pt_table *t = &pt_state.tables[i];

		if (t->switch_ext || t->port_guid != port_guid)
			continue;
		for (uint16_t k = 0; k < t->n; k++)
			if ((t->entries[k] & ~PT_PKEY_FULL) == (pkey & ~PT_PKEY_FULL) &&
			    t->entries[k] != 0) {
				if (full)
					*full = (t->entries[k] & PT_PKEY_FULL) != 0;
				return k;
			}
	}
	return -1;
}

bool
partitions_port_holds(uint64_t port_guid, uint16_t pkey)
{
	return partitions_pkey_index(port_guid, pkey, NULL) >= 0;
}

int
pt_committed_index(uint16_t pkey)
{
	for (size_t i = 0; i < pt_state.nindex; i++)
		if (pt_state.index[i].pkey == pkey)
			return pt_state.index[i].index;
	return -1;
}

int
partitions_index_of(const char *partition, uint16_t *pkey)
{
	const struct pt_partition *p;

	if (pt_state.model == NULL || (p = pt_find(pt_state.model, partition)) == NULL)
		return -1;
	if (pkey)
		*pkey = p->pkey;
	return pt_committed_index(p->pkey);
}

/*
 * The SA's view of who is in which partition (sm_set_pkey_tables): the
 * tables last verified on the end ports, the same ones `partition show`
 * lists as the ports that hold a key.
 */
static int
sa_pkey_table(const struct fabric_port *p, uint16_t *keys, size_t max, void *arg)
{
	const struct pt_table *t = pt_table_find(p->node->guid, p->num);
	size_t n = 0;

	if (t == NULL || t->switch_ext)
		return -1;
	for (uint16_t k = 0; k < t->n && n < max; k++)
		if (t->entries[k] != 0)
			keys[n++] = t->entries[k];
	return (int)n;
}

/* ---- module ---- */

static void
state_free(void)
{
	pt_config_free(pt_state.model);
	free(pt_state.index);
	for (size_t i = 0; i < pt_state.ntables; i++)
		free(pt_state.tables[i].entries);
	free(pt_state.tables);
	memset(&pt_state, 0, sizeof(pt_state));
}

static void
seed_from_file(const struct partitions_config *pc)
{
	if (pc->model != NULL) {
		pt_config_free(pt_state.model);
		pt_state.model = pt_config_dup(pc->model);
		pt_state.model->default_policy = (enum pt_default_policy)pc->default_membership;
		pt_store_save_model(pt_state.store, pt_state.model, pt_state.index, pt_state.nindex);
		pt_store_history(pt_state.store, 0, false, "config", NULL, "stored",
		    "partitions taken from the configuration file at the first start");
	} else
		pt_state.model->default_policy = (enum pt_default_policy)pc->default_membership;
	pt_store_set_seeded(pt_state.store);
}

static int
partitions_start(struct fabricd *fd, const void *cfg)
{
	const struct partitions_config *pc = cfg;
	bool seeded;

	if (!pc->enabled)
		return 0;
	pt_state.store = fd->store;
	if (pt_store_load(fd->store, &pt_state, &seeded) != 0)
		return -1;
	if (!seeded)
		seed_from_file(pc);
	else if (pc->model != NULL)
		log_notice("partitions: the database holds %zu partition%s and wins over the "
		    "file's tenants; use `fabricctl partition import` to replace them",
		    pt_state.model->nparts, pt_state.model->nparts == 1 ? "" : "s");
	/* kept by the SM even while it is disabled; changes are then stored only */
	sm_add_hook(SM_HOOK_BEFORE_ACTIVATE, pt_sweep_hook, NULL);
	sm_set_pkey_tables(sa_pkey_table, NULL);
	pt_state.running = true;
	return 0;
}

static int
partitions_reload(struct fabricd *fd, const void *cfg)
{
	const struct partitions_config *pc = cfg;

	if (pt_state.running && pc->model != NULL)
		log_notice("partitions: reload keeps the stored partitions (the database wins "
		    "after the first start)");
	return 0;
}

static void
partitions_stop(struct fabricd *fd)
{
	if (pt_state.running)
		sm_set_pkey_tables(NULL, NULL);
	state_free();
}

static json_t *
partitions_status(struct fabricd *fd)
{
	size_t ntenants = 0;

	if (!pt_state.running)
		return json_pack("{s:s}", "state", "disabled");
	for (size_t i = 0; i < pt_state.model->nparts; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= strcmp(pt_state.model->parts[i].tenant, pt_state.model->parts[j].tenant) == 0;
		ntenants += !seen;
	}
	return json_pack("{s:s, s:b, s:I, s:I, s:I, s:s, s:{s:I, s:I, s:I, s:I, s:I}, "
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
}

const struct fabricd_module partitions_module = {
	.name = "partitions",
	.config_size = sizeof(struct partitions_config),
	.config_init = pt_config_section_init,
	.config_parse = pt_config_section_parse,
	.config_free = pt_config_section_free,
	.start = partitions_start,
	.reload = partitions_reload,
	.stop = partitions_stop,
	.status = partitions_status,
};
