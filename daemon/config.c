/*
 * fabricd.yaml loader.  libyaml builds a document tree; we walk it against
 * field tables, recording every problem with its position and carrying on,
 * so that `fabricd -n` lists all errors in one run.  A YAML syntax error
 * stops libyaml itself, so that one is necessarily reported alone.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/socket.h>
#include <event2/util.h>

#include "common/file.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "daemon/config.h"
#include "daemon/control_access.h"
#include "daemon/fabricd.h"

yaml_node_t *
cfg_node(struct cfg_ctx *ctx, int index)
{
	return yaml_document_get_node(ctx->doc, index);
}

const char *
cfg_scalar(struct cfg_ctx *ctx, yaml_node_t *node, const char *what)
{
	if (node == NULL || node->type != YAML_SCALAR_NODE) {
		cfg_error(ctx, node, "expected %s", what);
		return NULL;
	}
	return (const char *)node->data.scalar.value;
}

bool
cfg_expect_mapping(struct cfg_ctx *ctx, yaml_node_t *node, const char *what)
{
	if (node != NULL && node->type == YAML_MAPPING_NODE)
		return true;
	cfg_error(ctx, node, "expected a mapping for %s", what);
	return false;
}

bool
cfg_expect_sequence(struct cfg_ctx *ctx, yaml_node_t *node, const char *what)
{
	if (node != NULL && node->type == YAML_SEQUENCE_NODE)
		return true;
	cfg_error(ctx, node, "expected a list for %s", what);
	return false;
}

bool
cfg_get_bool(struct cfg_ctx *ctx, yaml_node_t *node, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };
	const char *s = cfg_scalar(ctx, node, "a boolean (true or false)");

	if (s == NULL)
		return false;
	for (int i = 0; yes[i]; i++)
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, true;
	for (int i = 0; no[i]; i++)
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, true;
	cfg_error(ctx, node, "expected a boolean (true or false), found \"%s\"", s);
	return false;
}

bool
cfg_get_uint(struct cfg_ctx *ctx, yaml_node_t *node, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *s = cfg_scalar(ctx, node, "a number");
	unsigned long long v;
	char *end;

	if (s == NULL)
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end != '\0' || s[0] == '-') {
		cfg_error(ctx, node, "expected a number between %" PRIu64 " and %" PRIu64
		    ", found \"%s\"", min, max, s);
		return false;
	}
	if (v < min || v > max) {
		cfg_error(ctx, node, "%llu is out of range: must be between %" PRIu64
		    " and %" PRIu64, v, min, max);
		return false;
	}
	*out = v;
	return true;
}

bool
cfg_get_duration_ms(struct cfg_ctx *ctx, yaml_node_t *node, uint64_t min_ms, uint64_t max_ms,
    uint64_t *out)
{
	static const struct { const char *suffix; uint64_t ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "", 1000 },
	};
	const char *s = cfg_scalar(ctx, node, "a duration");
	unsigned long long v;
	char *end;

	if (s == NULL)
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == 0 && end != s && s[0] != '-') {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(end, units[i].suffix) != 0)
				continue;
			v *= units[i].ms;
			if (v < min_ms || v > max_ms) {
				cfg_error(ctx, node, "duration %s is out of range: must be between "
				    "%" PRIu64 "ms and %" PRIu64 "ms", s, min_ms, max_ms);
				return false;
			}
			*out = v;
			return true;
		}
	}
	cfg_error(ctx, node, "expected a duration such as 10s, 500ms or 2m, found \"%s\"", s);
	return false;
}

/* Edit distance, for "did you mean". */
static size_t
levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]));
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

const char *
cfg_closest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3;	/* at most two edits away */

	for (size_t i = 0; i < n; i++) {
		size_t d = levenshtein(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best;
}

static void
unknown_key(struct cfg_ctx *ctx, yaml_node_t *key, const char *where,
    const char *const *known, size_t nknown)
{
	const char *k = (const char *)key->data.scalar.value;
	const char *guess;

	if (ctx->nerrors >= CFG_MAX_ERRORS) {	/* only counted: no guess to make */
		cfg_error(ctx, key, "unknown key");
		return;
	}
	guess = cfg_closest(k, known, nknown);
	if (guess)
		cfg_error(ctx, key, "unknown key \"%s\" in %s (did you mean \"%s\"?)", k, where, guess);
	else
		cfg_error(ctx, key, "unknown key \"%s\" in %s", k, where);
}

static void
parse_field(struct cfg_ctx *ctx, const struct cfg_field *f, yaml_node_t *val, void *obj)
{
	void *p = (char *)obj + f->offset;
	uint64_t u;
	const char *s;

	switch (f->type) {
	case CFG_BOOL:
		cfg_get_bool(ctx, val, (bool *)p);
		break;
	case CFG_STR:
		if ((s = cfg_scalar(ctx, val, "a string")) != NULL) {
			free(*(char **)p);
			*(char **)p = xstrdup(s);
		}
		break;
	case CFG_UINT:
		if (cfg_get_uint(ctx, val, f->min, f->max, &u))
			*(uint64_t *)p = u;
		break;
	case CFG_DURATION:
		if (cfg_get_duration_ms(ctx, val, f->min, f->max, &u))
			*(uint64_t *)p = u;
		break;
	case CFG_ENUM:
		if ((s = cfg_scalar(ctx, val, "a keyword")) == NULL)
			break;
		for (int i = 0; f->names[i]; i++) {
			if (strcmp(s, f->names[i]) == 0) {
				*(int *)p = i;
				return;
			}
		}
		{
			char choices[256] = "";
			for (int i = 0; f->names[i]; i++) {
				strncat(choices, i ? ", " : "", sizeof(choices) - strlen(choices) - 1);
				strncat(choices, f->names[i], sizeof(choices) - strlen(choices) - 1);
			}
			cfg_error(ctx, val, "invalid value \"%s\" for %s: expected one of %s",
			    s, f->key, choices);
		}
		break;
	case CFG_CUSTOM:
		f->parse(ctx, val, p);
		break;
	}
}

void
cfg_parse_fields(struct cfg_ctx *ctx, yaml_node_t *map, const struct cfg_field *fields, void *obj)
{
	const char *known[64];
	size_t nknown = 0;

	for (const struct cfg_field *f = fields; f->key && nknown < 64; f++)
		known[nknown++] = f->key;
	if (map == NULL || (map->type == YAML_SCALAR_NODE && map->data.scalar.length == 0))
		return;		/* "section:" with nothing under it: defaults */
	if (!cfg_expect_mapping(ctx, map, "this section"))
		return;
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	    pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = cfg_node(ctx, pair->key), *val = cfg_node(ctx, pair->value);
		const struct cfg_field *f;
		const char *k = cfg_scalar(ctx, key, "a key");

		if (k == NULL)
			continue;
		for (f = fields; f->key; f++)
			if (strcmp(f->key, k) == 0)
				break;
		if (f->key == NULL)
			unknown_key(ctx, key, ctx->section ? ctx->section : "this section", known, nknown);
		else
			parse_field(ctx, f, val, obj);
	}
}

void
cfg_fields_free(const struct cfg_field *fields, void *obj)
{
	for (const struct cfg_field *f = fields; f && f->key; f++) {
		if (f->type == CFG_STR) {
			char **p = (char **)((char *)obj + f->offset);
			free(*p);
			*p = NULL;
		}
	}
}

bool
cfg_restart_key_changed(const struct cfg_restart_key *k, const void *a, const void *b)
{
	const char *pa = (const char *)a + k->offset, *pb = (const char *)b + k->offset;

	switch (k->type) {
	case CFG_BOOL:
		return *(const bool *)pa != *(const bool *)pb;
	case CFG_STR: {
		const char *sa = *(char *const *)pa, *sb = *(char *const *)pb;

		return (sa == NULL) != (sb == NULL) || (sa != NULL && strcmp(sa, sb) != 0);
	}
	case CFG_UINT:
	case CFG_DURATION:
		return *(const uint64_t *)pa != *(const uint64_t *)pb;
	case CFG_ENUM:
		return *(const int *)pa != *(const int *)pb;
	case CFG_CUSTOM:
		break;
	}
	return false;
}

void
cfg_errors_free(char **errors, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(errors[i]);
	free(errors);
}

/* HOST:PORT where HOST is a name, an IPv4 address or a [IPv6] literal;
 * names are resolved when the daemon starts.  -1 when s is not one. */
static int
split_host_port(const char *s, char *host, size_t hlen, unsigned *port)
{
	const char *colon = strrchr(s, ':'), *h = s;
	size_t n;
	char *end;
	long p;

	if (colon == NULL || colon == s)
		return -1;
	n = (size_t)(colon - s);
	if (s[0] == '[') {
		if (colon[-1] != ']' || n < 3)
			return -1;
		h = s + 1;
		n -= 2;
	} else if (memchr(s, ':', n) != NULL) {
		return -1;	/* an IPv6 address must be in brackets */
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end != '\0' || p < 1 || p > 65535 || n >= hlen)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = (unsigned)p;
	return 0;
}

int
cfg_host_port(const char *s, char *host, size_t hlen, unsigned *port)
{
	return split_host_port(s, host, hlen, port);
}

/* control.listen, a peer's address: HOST:PORT; "" is none. */
static bool
parse_host_port(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "HOST:PORT");
	char host[256];
	unsigned port;

	if (s == NULL)
		return false;
	if (s[0] != '\0' && split_host_port(s, host, sizeof(host), &port) != 0) {
		cfg_error(ctx, node, "expected HOST:PORT (a host name, an IPv4 address or an "
		    "[IPv6] address, and a port 1-65535), such as 10.0.0.1:9700 or [::1]:9700, "
		    "found \"%s\"", s);
		return false;
	}
	free(*(char **)field);
	*(char **)field = s[0] ? xstrdup(s) : NULL;
	return true;
}

static const struct cfg_field tls_fields[] = {
	CFG_F_CUSTOM("cert", struct cfg_ctl_tls, cert, cfg_parse_abs_path),
	CFG_F_CUSTOM("key", struct cfg_ctl_tls, key, cfg_parse_abs_path),
	CFG_F_CUSTOM("ca", struct cfg_ctl_tls, ca, cfg_parse_abs_path),
	CFG_F_END
};

static bool
parse_tls(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	cfg_parse_fields(ctx, node, tls_fields, field);
	return true;
}

/* "sha256:" and 32 bytes in hex, colons between them optional: kept as
 * upper-case pairs joined by colons, the form openssl x509 -fingerprint
 * prints and control_tls.c compares. */
static bool
parse_fingerprint(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "a fingerprint"), *p;
	char out[7 + 32 * 3] = "sha256:";
	size_t nhex = 0;

	if (s == NULL)
		return false;
	if (strncasecmp(s, "sha256:", 7) == 0) {
		for (p = s + 7; *p && nhex < 64; p++) {
			if (*p == ':' && nhex % 2 == 0 && nhex > 0)
				continue;
			if (!isxdigit((unsigned char)*p))
				break;
			if (nhex > 0 && nhex % 2 == 0)
				out[7 + nhex / 2 * 3 - 1] = ':';
			out[7 + nhex / 2 * 3 + nhex % 2] = (char)toupper((unsigned char)*p);
			nhex++;
		}
		if (*p == '\0' && nhex == 64) {
			out[sizeof(out) - 1] = '\0';
			free(*(char **)field);
			*(char **)field = xstrdup(out);
			return true;
		}
	}
	cfg_error(ctx, node, "expected a certificate fingerprint \"sha256:AB:CD:...\" (32 bytes "
	    "in hex, as openssl x509 -noout -fingerprint -sha256 prints it), found \"%s\"", s);
	return false;
}

static bool
parse_role(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	static const struct { const char *name; enum ctl_role role; } roles[] = {
		{ "admin", ROLE_ADMIN }, { "read", ROLE_READ }, { "jobs", ROLE_JOBS },
	};
	const char *s = cfg_scalar(ctx, node, "a role");

	if (s == NULL)
		return false;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (strcmp(s, roles[i].name) == 0)
			return *(int *)field = roles[i].role, true;
	cfg_error(ctx, node, "invalid role \"%s\": expected admin, read or jobs", s);
	return false;
}

static const struct cfg_field client_fields[] = {
	CFG_F_CUSTOM("fingerprint", struct cfg_ctl_client, fingerprint, parse_fingerprint),
	CFG_F_STR("cn", struct cfg_ctl_client, cn),
	CFG_F_CUSTOM("role", struct cfg_ctl_client, role, parse_role),
	CFG_F_END
};

/* The same certificate named twice could hold two roles: which one
 * would depend on the order, so it is an error. */
static bool
client_duplicate(const struct fabricd_config *cfg, const struct cfg_ctl_client *c)
{
	for (size_t i = 0; i < cfg->nclients; i++) {
		const struct cfg_ctl_client *o = &cfg->clients[i];
		if ((c->cn && o->cn && strcmp(c->cn, o->cn) == 0) ||
		    (c->fingerprint && o->fingerprint && strcmp(c->fingerprint, o->fingerprint) == 0))
			return true;
	}
	return false;
}

static void
parse_client(struct cfg_ctx *ctx, yaml_node_t *item, struct fabricd_config *cfg)
{
	struct cfg_ctl_client c = { .role = ROLE_NONE };
	size_t before = ctx->nerrors + ctx->ndropped;

	if (!cfg_expect_mapping(ctx, item, "a client ({cn: NAME, role: ROLE} or "
	    "{fingerprint: sha256:..., role: ROLE})"))
		return;
	cfg_parse_fields(ctx, item, client_fields, &c);
	if (ctx->nerrors + ctx->ndropped == before) {
		if ((c.cn == NULL) == (c.fingerprint == NULL))
			cfg_error(ctx, item, "a client needs exactly one of cn and fingerprint");
		else if (c.role == ROLE_NONE)
			cfg_error(ctx, item, "a client needs a role (admin, read or jobs)");
		else if (c.cn && c.cn[0] == '\0')
			cfg_error(ctx, item, "a client's cn is empty");
		else if (client_duplicate(cfg, &c))
			cfg_error(ctx, item, "this certificate (%s) is already in control.clients",
			    c.cn ? c.cn : c.fingerprint);
	}
	if (ctx->nerrors + ctx->ndropped != before) {
		cfg_fields_free(client_fields, &c);
		free(c.fingerprint);
		return;
	}
	cfg->clients = xreallocarray(cfg->clients, cfg->nclients + 1, sizeof(c));
	cfg->clients[cfg->nclients++] = c;
}

static bool
parse_clients(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct fabricd_config *cfg = field;

	if (!cfg_expect_sequence(ctx, node, "control.clients"))
		return false;
	for (yaml_node_item_t *it = node->data.sequence.items.start;
	    it < node->data.sequence.items.top; it++)
		parse_client(ctx, cfg_node(ctx, *it), cfg);
	return true;
}

static bool
parse_guid_field(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	return cfg_get_uint(ctx, node, 1, UINT64_MAX, field);
}

static const struct cfg_field peer_fields[] = {
	CFG_F_CUSTOM("address", struct cfg_ctl_peer, address, parse_host_port),
	CFG_F_CUSTOM("guid", struct cfg_ctl_peer, guid, parse_guid_field),
	CFG_F_END
};

/* A peer is "HOST:PORT" or {address: HOST:PORT, guid: PORT_GUID}. */
static void
parse_peer(struct cfg_ctx *ctx, yaml_node_t *item, struct fabricd_config *cfg)
{
	struct cfg_ctl_peer p = { NULL, 0 };
	size_t before = ctx->nerrors + ctx->ndropped;

	if (item && item->type == YAML_SCALAR_NODE)
		parse_host_port(ctx, item, &p.address);
	else if (cfg_expect_mapping(ctx, item, "a peer (HOST:PORT or {address: HOST:PORT, "
	    "guid: PORT_GUID})"))
		cfg_parse_fields(ctx, item, peer_fields, &p);
	if (ctx->nerrors + ctx->ndropped == before && p.address == NULL)
		cfg_error(ctx, item, "a peer needs an address (HOST:PORT)");
	if (ctx->nerrors + ctx->ndropped != before) {
		free(p.address);
		return;
	}
	cfg->peers = xreallocarray(cfg->peers, cfg->npeers + 1, sizeof(p));
	cfg->peers[cfg->npeers++] = p;
}

static bool
parse_peers(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct fabricd_config *cfg = field;

	if (!cfg_expect_sequence(ctx, node, "control.peers"))
		return false;
	for (yaml_node_item_t *it = node->data.sequence.items.start;
	    it < node->data.sequence.items.top; it++)
		parse_peer(ctx, cfg_node(ctx, *it), cfg);
	return true;
}

/* The daemon's own keys; module sections follow them. */
static const struct cfg_field control_fields[] = {
	CFG_F_CUSTOM("listen", struct fabricd_config, control_listen, parse_host_port),
	CFG_F_CUSTOM("tls", struct fabricd_config, control_tls, parse_tls),
	/* lists: their parsers take the whole configuration */
	{ "clients", CFG_CUSTOM, 0, 0, 0, NULL, parse_clients },
	{ "peers", CFG_CUSTOM, 0, 0, 0, NULL, parse_peers },
	CFG_F_STR("admin_group", struct fabricd_config, admin_group),
	CFG_F_STR("read_group", struct fabricd_config, read_group),
	CFG_F_STR("jobs_group", struct fabricd_config, jobs_group),
	CFG_F_UINT("max_connections", struct fabricd_config, max_connections, 8, 16384),
	CFG_F_UINT("max_connections_per_user", struct fabricd_config, max_connections_per_user,
	    1, 16384),
	CFG_F_DURATION("idle_timeout", struct fabricd_config, idle_timeout_ms, 100, 86400000),
	CFG_F_END
};

static bool
parse_control(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct fabricd_config *cfg = field;
	const struct cfg_ctl_tls *t = &cfg->control_tls;

	cfg_parse_fields(ctx, node, control_fields, field);
	/* a TLS channel without its keys, or without a CA to check clients
	 * against, would have to trust every peer: refused at load */
	if (cfg->control_listen && (t->cert == NULL || t->key == NULL || t->ca == NULL))
		cfg_error(ctx, node, "control.listen needs control.tls with cert, key and ca "
		    "(the server's certificate and key, the CA that signs the clients')");
	return true;
}

static bool
parse_log_level(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "a log level");

	if (s && log_level_parse(s, field) != 0) {
		cfg_error(ctx, node, "invalid log_level \"%s\": expected error, warning, "
		    "notice, info or debug", s);
		return false;
	}
	return s != NULL;
}

bool
cfg_parse_abs_path(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "a path");

	if (s == NULL)
		return false;
	if (s[0] != '/') {
		cfg_error(ctx, node, "expected an absolute path, found \"%s\"", s);
		return false;
	}
	free(*(char **)field);
	*(char **)field = xstrdup(s);
	return true;
}

/* metrics.listen: HOST:PORT (or [V6]:PORT), as libevent parses it; "" is
 * none. */
static bool
parse_listen(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "HOST:PORT");
	struct sockaddr_storage ss;
	int sslen = sizeof(ss);

	if (s == NULL)
		return false;
	if (s[0] != '\0' && (strrchr(s, ':') == NULL ||
	    evutil_parse_sockaddr_port(s, (struct sockaddr *)&ss, &sslen) != 0 ||
	    strtol(strrchr(s, ':') + 1, NULL, 10) <= 0)) {
		cfg_error(ctx, node, "expected ADDRESS:PORT with a numeric address, such as "
		    "127.0.0.1:9683 or [::1]:9683, found \"%s\"", s);
		return false;
	}
	free(*(char **)field);
	*(char **)field = s[0] ? xstrdup(s) : NULL;
	return true;
}

static const struct cfg_field metrics_fields[] = {
	CFG_F_CUSTOM("listen", struct fabricd_config, metrics_listen, parse_listen),
	CFG_F_END
};

static bool
parse_metrics(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	cfg_parse_fields(ctx, node, metrics_fields, field);
	return true;
}

static const struct cfg_field top_fields[] = {
	CFG_F_CUSTOM("socket", struct fabricd_config, socket, cfg_parse_abs_path),
	CFG_F_CUSTOM("state_dir", struct fabricd_config, state_dir, cfg_parse_abs_path),
	CFG_F_CUSTOM("log_level", struct fabricd_config, log_level, parse_log_level),
	/* control's fields live at the top of struct fabricd_config */
	{ "control", CFG_CUSTOM, 0, 0, 0, NULL, parse_control },
	{ "metrics", CFG_CUSTOM, 0, 0, 0, NULL, parse_metrics },
	CFG_F_END
};

static struct fabricd_config *
config_defaults(const char *path, const struct fabricd_module *const *modules)
{
	struct fabricd_config *cfg = xcalloc(1, sizeof(*cfg));

	cfg->modules = modules;
	cfg->file = xstrdup(path);
	cfg->socket = xstrdup(FABRICD_DEFAULT_SOCKET);
	cfg->state_dir = xstrdup(FABRICD_DEFAULT_STATE);
	cfg->log_level = LOG_LVL_INFO;
	cfg->max_connections = 512;
	cfg->max_connections_per_user = 32;
	cfg->idle_timeout_ms = 60000;
	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = cfg->modules[m];
		cfg->module[m] = xcalloc(1, mod->config_size ? mod->config_size : 1);
		if (mod->config_init)
			mod->config_init(cfg->module[m]);
	}
	return cfg;
}

static void
parse_module_section(struct cfg_ctx *ctx, const struct fabricd_module *mod, yaml_node_t *val,
    void *mcfg)
{
	if (mod->config_parse)
		mod->config_parse(ctx, val, mcfg);
	else if (mod->config_fields)
		cfg_parse_fields(ctx, val, mod->config_fields, mcfg);
}

static void
parse_top(struct cfg_ctx *ctx, yaml_node_t *root, struct fabricd_config *cfg)
{
	const char *known[16];
	size_t nknown = 0;

	for (const struct cfg_field *f = top_fields; f->key; f++)
		known[nknown++] = f->key;
	for (int m = 0; m < MOD_COUNT; m++)
		known[nknown++] = cfg->modules[m]->name;

	if (!cfg_expect_mapping(ctx, root, "the configuration file"))
		return;
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
	    pair < root->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = cfg_node(ctx, pair->key), *val = cfg_node(ctx, pair->value);
		const char *k = cfg_scalar(ctx, key, "a key");
		const struct cfg_field *f;
		int m;

		if (k == NULL)
			continue;
		for (f = top_fields; f->key; f++)
			if (strcmp(f->key, k) == 0)
				break;
		if (f->key) {
			ctx->section = f->key;
			parse_field(ctx, f, val, cfg);
			ctx->section = NULL;
			continue;
		}
		for (m = 0; m < MOD_COUNT; m++)
			if (strcmp(cfg->modules[m]->name, k) == 0)
				break;
		if (m < MOD_COUNT) {
			ctx->section = cfg->modules[m]->name;
			parse_module_section(ctx, cfg->modules[m], val, cfg->module[m]);
			ctx->section = NULL;
		}
		else
			unknown_key(ctx, key, "the top level", known, nknown);
	}
}

int
config_load_text(const char *name, const char *text, size_t len,
    const struct fabricd_module *const *modules, struct fabricd_config **out, char ***errors,
    size_t *nerrors)
{
	struct cfg_ctx ctx = { .file = name };
	struct fabricd_config *cfg = config_defaults(name, modules);
	yaml_document_t doc;

	*out = NULL;
	if (cfg_yaml_load(&ctx, text, len, &doc)) {
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		ctx.doc = &doc;
		if (root != NULL)	/* an empty file means all defaults */
			parse_top(&ctx, root, cfg);
		yaml_document_delete(&doc);
	}
	cfg_errors_finish(&ctx);
	*errors = ctx.errors;
	*nerrors = ctx.nerrors;
	if (ctx.nerrors) {
		config_free(cfg);
		return -1;
	}
	*out = cfg;
	return 0;
}

/* The daemon's own file, named by its operator; still only a regular file
 * of bounded size, so that `fabricd -n` on a FIFO cannot hang either. */
int
config_load(const char *path, const struct fabricd_module *const *modules,
    struct fabricd_config **out, char ***errors, size_t *nerrors)
{
	const char *why;
	char *text;
	size_t len;
	int rc;

	if (file_read_path(path, FILE_MAX_INPUT, &text, &len, &why) != 0) {
		*out = NULL;
		*errors = xcalloc(1, sizeof(char *));
		xasprintf(&(*errors)[0], "%s: cannot open: %s", path, why);
		*nerrors = 1;
		return -1;
	}
	rc = config_load_text(path, text, len, modules, out, errors, nerrors);
	free(text);
	return rc;
}

void
config_free(struct fabricd_config *cfg)
{
	if (cfg == NULL)
		return;
	for (int m = 0; m < MOD_COUNT; m++) {
		const struct fabricd_module *mod = cfg->modules[m];
		if (cfg->module[m] == NULL)
			continue;
		if (mod->config_free)
			mod->config_free(cfg->module[m]);
		else
			cfg_fields_free(mod->config_fields, cfg->module[m]);
		free(cfg->module[m]);
	}
	free(cfg->file);
	free(cfg->socket);
	free(cfg->state_dir);
	free(cfg->admin_group);
	free(cfg->read_group);
	free(cfg->jobs_group);
	free(cfg->metrics_listen);
	free(cfg->control_listen);
	free(cfg->control_tls.cert);
	free(cfg->control_tls.key);
	free(cfg->control_tls.ca);
	for (size_t i = 0; i < cfg->nclients; i++) {
		free(cfg->clients[i].fingerprint);
		free(cfg->clients[i].cn);
	}
	free(cfg->clients);
	for (size_t i = 0; i < cfg->npeers; i++)
		free(cfg->peers[i].address);
	free(cfg->peers);
	free(cfg);
}
