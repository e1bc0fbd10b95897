/*
 * The `ha` section and the module's life cycle:
 *
 *   ha:
 *     etcd:
 *       endpoints: [ "http://10.0.0.1:2379", "http://10.0.0.2:2379" ]
 *       prefix: /fabricd/        # the subnet prefix is added below it
 *       ca: /etc/fabricd/etcd-ca.pem      # https endpoints: the members' CA,
 *       cert: /etc/fabricd/etcd-client.pem # and the client certificate and key
 *       key: /etc/fabricd/etcd-client.key  # etcd asks for (--client-cert-auth)
 *     lease_ttl: 3s              # a dead master's hold on the intent ends after it
 *     timeout: 2s                # one call to etcd
 *
 * Without endpoints there is no ha (fd->ha NULL): sqlite alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "daemon/fabricd.h"
#include "ha/ha_internal.h"

static bool
parse_endpoints(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct ha_config *c = (struct ha_config *)((char *)field -
	    offsetof(struct ha_config, endpoints));
	yaml_node_item_t *it;

	if (!cfg_expect_sequence(ctx, node, "a list of etcd URLs"))
		return false;
	for (it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++) {
		yaml_node_t *n = cfg_node(ctx, *it);
		const char *s = n ? cfg_scalar(ctx, n, "an etcd URL") : NULL;

		if (s == NULL)
			return false;
		if (strncmp(s, "http://", 7) != 0 && strncmp(s, "https://", 8) != 0) {
			cfg_error(ctx, n, "\"%s\": expected http://HOST:PORT or https://HOST:PORT", s);
			return false;
		}
		if (c->nendpoints == ETCD_MAX_ENDPOINTS) {
			cfg_error(ctx, n, "at most %d endpoints", ETCD_MAX_ENDPOINTS);
			return false;
		}
		c->endpoints[c->nendpoints++] = xstrdup(s);
	}
	return true;
}

static bool
parse_prefix(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "a key prefix");
	size_t n = s ? strlen(s) : 0;

	if (s == NULL)
		return false;
	if (n == 0 || s[0] != '/' || s[n - 1] != '/' || n > 100) {
		cfg_error(ctx, node, "\"%s\": expected a key prefix starting and ending with '/'", s);
		return false;
	}
	free(*(char **)field);
	*(char **)field = xstrdup(s);
	return true;
}

static const struct cfg_field etcd_fields[] = {
	CFG_F_CUSTOM("endpoints", struct ha_config, endpoints, parse_endpoints),
	CFG_F_CUSTOM("prefix", struct ha_config, prefix, parse_prefix),
	CFG_F_CUSTOM("ca", struct ha_config, ca, cfg_parse_abs_path),
	CFG_F_CUSTOM("cert", struct ha_config, cert, cfg_parse_abs_path),
	CFG_F_CUSTOM("key", struct ha_config, key, cfg_parse_abs_path),
	CFG_F_END
};

static bool
parse_etcd(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	if (!cfg_expect_mapping(ctx, node, "the etcd settings"))
		return false;
	cfg_parse_fields(ctx, node, etcd_fields, field);
	return true;
}

static const struct cfg_field ha_fields[] = {
	/* the whole struct: the etcd mapping fills its members */
	{ "etcd", CFG_CUSTOM, 0, 0, 0, NULL, parse_etcd },
	CFG_F_DURATION("lease_ttl", struct ha_config, lease_ttl_ms, 2000, 60000),
	CFG_F_DURATION("timeout", struct ha_config, timeout_ms, 100, 60000),
	CFG_F_END
};

static void
ha_config_init(void *p)
{
	struct ha_config *c = p;

	memset(c, 0, sizeof(*c));
	c->prefix = xstrdup("/fabricd/");
	c->lease_ttl_ms = 3000;
	c->timeout_ms = 2000;
}

static void
ha_config_free(void *p)
{
	struct ha_config *c = p;

	for (size_t i = 0; i < c->nendpoints; i++)
		free(c->endpoints[i]);
	free(c->prefix);
	free(c->ca);
	free(c->cert);
	free(c->key);
	memset(c, 0, sizeof(*c));
}

static int
ha_start(struct fabricd *fd, const void *cfgp)
{
	const struct ha_config *c = cfgp;

	if (c->nendpoints == 0)
		return 0;
	/* without it, refuse to run as if there were no ha: a standby would
	 * then write from its own copy */
	return (fd->ha = ha_new(fd->base, c)) != NULL ? 0 : -1;
}

/* No ha setting is taken in place: the client, its lease and its files
 * are made at start. */
static const struct cfg_restart_key ha_restart_keys[] = {
	CFG_RESTART_CUSTOM("ha.etcd.endpoints"),	/* a list: ha_reload_check */
	CFG_RESTART("ha.etcd.prefix", CFG_STR, struct ha_config, prefix),
	CFG_RESTART("ha.etcd.ca", CFG_STR, struct ha_config, ca),
	CFG_RESTART("ha.etcd.cert", CFG_STR, struct ha_config, cert),
	CFG_RESTART("ha.etcd.key", CFG_STR, struct ha_config, key),
	CFG_RESTART("ha.lease_ttl", CFG_DURATION, struct ha_config, lease_ttl_ms),
	CFG_RESTART("ha.timeout", CFG_DURATION, struct ha_config, timeout_ms),
	CFG_RESTART_END
};

static enum reload_result
ha_reload_check(struct fabricd *fd, const void *cfgp, char *why, size_t len)
{
	const struct ha_config *c = cfgp, *cur = fabricd_module_config(fd, MOD_HA);
	bool same = c->nendpoints == cur->nendpoints;

	for (size_t i = 0; same && i < c->nendpoints; i++)
		same = strcmp(c->endpoints[i], cur->endpoints[i]) == 0;
	if (same)
		return RELOAD_APPLIED;
	snprintf(why, len, "ha.etcd.endpoints changes only at restart");
	return RELOAD_RESTART_NEEDED;
}

static void
ha_stop(struct fabricd *fd)
{
	ha_free(fd->ha);
	fd->ha = NULL;
}

static json_t *
ha_module_status(struct fabricd *fd)
{
	return fd->ha ? ha_status(fd->ha) : json_pack("{s:s}", "state", "disabled");
}

const struct fabricd_module ha_module = {
	.name = "ha",
	.config_size = sizeof(struct ha_config),
	.config_init = ha_config_init,
	.config_fields = ha_fields,
	.config_free = ha_config_free,
	.start = ha_start,
	.reload_check = ha_reload_check,
	.restart_keys = ha_restart_keys,
	.stop = ha_stop,
	.status = ha_module_status,
};
