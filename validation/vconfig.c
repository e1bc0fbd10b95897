/*
 * The validation module's configuration ("validation:" in fabricd.yaml)
 * and the accessors every file of the module reads it through; module.c
 * is the life cycle, so that job.c and the others depend on this file,
 * not on the one that starts them.
 *
 *   validation:
 *     enabled: true
 *     nccl_tests_dir: /opt/nccl-tests/build
 *     perftest_dir: /usr/bin
 *     mpirun: /usr/bin/mpirun
 *     srun: /usr/bin/srun
 *     launcher: mpirun            # default launcher: mpirun | srun | local
 *     sizes: "1G:16G"
 *     gpus_per_host: 8
 *     job_timeout: 10m
 *     kill_grace: 5s
 *     max_parallel: 8
 *     rdma_port: 18515
 *     json_report: true
 *     profile: h100-ring          # default profile
 *     profiles:
 *       h100-ring: { min_busbw: 340, warn_busbw: 370, rdma_min_gbps: 380 }
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/fabricd.h"
#include "validation/fabric_view.h"
#include "validation/validation.h"

static const char *const launcher_names[] = { "mpirun", "srun", "local", NULL };

static bool
parse_gbs(struct cfg_ctx *ctx, yaml_node_t *node, double *out)
{
	const char *s = cfg_scalar(ctx, node, "a bandwidth (number)");
	char *end;

	if (s == NULL)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(*out) || *out < 0 || *out > 1e6) {
		cfg_error(ctx, node, "invalid bandwidth \"%s\": expected a number from 0 to 1000000", s);
		return false;
	}
	return true;
}

static void
parse_profile(struct cfg_ctx *ctx, yaml_node_t *map, struct validation_profile *p)
{
	static const char *const keys[] = { "min_busbw", "warn_busbw", "rdma_min_gbps" };
	yaml_node_pair_t *pair;

	if (!cfg_expect_mapping(ctx, map, "a profile (min_busbw, warn_busbw, rdma_min_gbps)"))
		return;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = cfg_node(ctx, pair->key), *val = cfg_node(ctx, pair->value);
		const char *k = cfg_scalar(ctx, key, "a key");

		if (k == NULL)
			continue;
		if (strcmp(k, "min_busbw") == 0)
			parse_gbs(ctx, val, &p->min_busbw);
		else if (strcmp(k, "warn_busbw") == 0)
			parse_gbs(ctx, val, &p->warn_busbw);
		else if (strcmp(k, "rdma_min_gbps") == 0)
			parse_gbs(ctx, val, &p->rdma_min_gbps);
		else {
			const char *near = cfg_closest(k, keys, 3);
			cfg_error(ctx, key, "unknown key \"%s\" in a validation profile%s%s%s", k,
			    near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
		}
	}
}

static bool
parse_profiles(struct cfg_ctx *ctx, yaml_node_t *map, void *field)
{
	struct validation_config *c = (struct validation_config *)((char *)field -
	    offsetof(struct validation_config, profiles));
	yaml_node_pair_t *pair;

	if (!cfg_expect_mapping(ctx, map, "a mapping of profile names"))
		return false;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = cfg_node(ctx, pair->key);
		const char *name = cfg_scalar(ctx, key, "a profile name");
		struct validation_profile *p;

		if (name == NULL)
			continue;
		c->profiles = xreallocarray(c->profiles, c->nprofiles + 1, sizeof(*c->profiles));
		p = &c->profiles[c->nprofiles++];
		memset(p, 0, sizeof(*p));
		p->name = xstrdup(name);
		parse_profile(ctx, cfg_node(ctx, pair->value), p);
	}
	return true;
}

const struct cfg_field validation_fields[] = {
	CFG_F_BOOL("enabled", struct validation_config, enabled),
	CFG_F_STR("nccl_tests_dir", struct validation_config, nccl_tests_dir),
	CFG_F_STR("perftest_dir", struct validation_config, perftest_dir),
	CFG_F_STR("mpirun", struct validation_config, mpirun),
	CFG_F_STR("srun", struct validation_config, srun),
	CFG_F_STR("launcher", struct validation_config, default_launcher),
	CFG_F_STR("sizes", struct validation_config, default_sizes),
	CFG_F_STR("profile", struct validation_config, default_profile),
	CFG_F_UINT("gpus_per_host", struct validation_config, gpus_per_host, 1, 64),
	CFG_F_DURATION("job_timeout", struct validation_config, job_timeout_ms, 1000, 86400000),
	CFG_F_DURATION("kill_grace", struct validation_config, kill_grace_ms, 0, 600000),
	CFG_F_UINT("max_parallel", struct validation_config, max_parallel, 1, 1024),
	CFG_F_UINT("rdma_port", struct validation_config, rdma_port, 1024, 65000),
	CFG_F_BOOL("json_report", struct validation_config, json_report),
	CFG_F_DURATION("preflight_window", struct validation_config, preflight_window_ms, 0, 7 * 86400000ULL),
	CFG_F_CUSTOM("profiles", struct validation_config, profiles, parse_profiles),
	CFG_F_END
};

void
validation_config_init(void *p)
{
	struct validation_config *c = p;

	c->enabled = true;
	c->default_launcher = xstrdup("mpirun");
	c->default_sizes = xstrdup("1G:16G");
	c->gpus_per_host = 8;
	c->job_timeout_ms = 600000;
	c->kill_grace_ms = 5000;
	c->max_parallel = 8;
	c->rdma_port = 18515;
	c->json_report = true;
	/* A port that threw errors in the last hour is the port a job must
	 * not start on, even if health has cleared it since. */
	c->preflight_window_ms = 3600 * 1000;
}

void
validation_config_parse(struct cfg_ctx *ctx, yaml_node_t *section, void *p)
{
	struct validation_config *c = p;
	size_t i;

	cfg_parse_fields(ctx, section, validation_fields, c);
	for (i = 0; launcher_names[i] != NULL; i++)
		if (c->default_launcher && strcmp(c->default_launcher, launcher_names[i]) == 0)
			break;
	if (launcher_names[i] == NULL)
		cfg_error(ctx, section, "validation: launcher \"%s\": expected mpirun, srun or local",
		    c->default_launcher ? c->default_launcher : "");
	if (c->default_sizes && launch_parse_sizes(c->default_sizes, &(uint64_t){0}, &(uint64_t){0}) != 0)
		cfg_error(ctx, section, "validation: sizes \"%s\": expected SIZE or MIN:MAX (K/M/G suffixes)",
		    c->default_sizes);
}

void
validation_config_free(void *p)
{
	struct validation_config *c = p;
	size_t i;

	cfg_fields_free(validation_fields, c);
	for (i = 0; i < c->nprofiles; i++)
		free(c->profiles[i].name);
	free(c->profiles);
	c->profiles = NULL;
	c->nprofiles = 0;
}

const struct validation_config *
validation_config(void)
{
	return fabricd_module_config(fabricd, MOD_VALIDATION);
}

const struct validation_profile *
validation_profile(const char *name)
{
	const struct validation_config *c = validation_config();
	size_t i;

	for (i = 0; name != NULL && i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].name, name) == 0)
			return &c->profiles[i];
	return NULL;
}

const char *
validation_state_dir(void)
{
	return fabricd->config->state_dir;
}

bool
validation_module_up(enum module_id m)
{
	return fabricd != NULL && fabricd->module_running[m] > 0;
}
