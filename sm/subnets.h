/*
 * sm.subnets: several subnets in one daemon, an SM each (sm/subnets.c).
 * The SM module's own door: nothing outside sm/ includes it.
 */
#ifndef FABRICD_SM_SUBNETS_H
#define FABRICD_SM_SUBNETS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <yaml.h>

#include "daemon/config.h"

struct fabricd;
struct mad_engine;
struct mad_engine_config;
struct sm;
struct sm_config;

/* CFG_F_CUSTOM parser of sm.subnets. */
bool sm_subnets_parse(struct cfg_ctx *ctx, yaml_node_t *seq, void *field);
/* What sm.subnets cannot go with, once the section is parsed. */
void sm_subnets_check(struct cfg_ctx *ctx, yaml_node_t *section, const struct sm_config *c);
/* Whether a and b name the same subnets on the same ports. */
bool sm_subnets_same(const struct sm_config *a, const struct sm_config *b);
/* The engine settings of subnet i's port. */
void sm_subnet_engine_config(const struct sm_config *cfg, size_t i, struct mad_engine_config *mc);

/* Starts one SM on me for the subnet named name (module.c). */
typedef struct sm *(*sm_subnet_start_fn)(struct fabricd *fd, const struct sm_config *cfg,
    struct mad_engine *me, const char *name);
/* After the first subnet's SM (fd->sm) started: the others, chained on
 * its next_subnet, and the names for the control socket. */
void sm_subnets_start(struct fabricd *fd, const struct sm_config *cfg, sm_subnet_start_fn start);
/* Before the first one stops: the others, and their engines. */
void sm_subnets_stop(struct fabricd *fd, void (*stop)(struct sm *));
/* [{name, state, subnet_state, lid, port_guid, switches, cas, active_links,
 * sweeps, mads_sent}] from first on: a row an SM. */
json_t *sm_subnets_status(struct sm *first, json_t *(*status)(struct sm *));

#endif
