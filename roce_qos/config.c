/*
 * Parsing the roce_qos: section and its profile.  Every value keeps the
 * position of its YAML node so that lint can point at it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "roce_qos/config.h"

static const char *const profile_keys[] = {
	"base", "dcbx", "trust", "dscp_map", "pfc", "ets", "buffer", "maxrate", "ecn",
	"roce_tos", "pfc_storm_prevention", "nccl_tc", "classes", NULL
};

static struct roce_pos
pos_of(struct cfg_ctx *ctx, yaml_node_t *node)
{
	return (struct roce_pos){ NULL, (int)node->start_mark.line + 1,
	    (int)node->start_mark.column + 1, node };
}

static size_t
nkeys(const char *const *keys)
{
	size_t n = 0;

	while (keys[n])
		n++;
	return n;
}

static void
unknown_key(struct cfg_ctx *ctx, yaml_node_t *key, const char *name, const char *const *keys)
{
	const char *near = cfg_closest(name, keys, nkeys(keys));

	if (near)
		cfg_error(ctx, key, "unknown key \"%s\" (did you mean \"%s\"?)", name, near);
	else
		cfg_error(ctx, key, "unknown key \"%s\"", name);
}

/* A scalar's index in names[], or -1 after an error listing them. */
static int
get_enum(struct cfg_ctx *ctx, yaml_node_t *node, const char *const *names)
{
	const char *s = cfg_scalar(ctx, node, "a word");
	char list[160] = "";

	if (s == NULL)
		return -1;
	for (int i = 0; names[i]; i++) {
		if (strcmp(s, names[i]) == 0)
			return i;
		strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
	}
	cfg_error(ctx, node, "expected one of %s, not \"%s\"", list, s);
	return -1;
}

static bool
get_int(struct cfg_ctx *ctx, yaml_node_t *node, uint64_t min, uint64_t max, int *out)
{
	uint64_t v;

	if (!cfg_get_uint(ctx, node, min, max, &v))
		return false;
	*out = (int)v;
	return true;
}

/* A sequence of exactly 8 numbers in [min, max]. */
static bool
get_eight(struct cfg_ctx *ctx, yaml_node_t *node, uint64_t min, uint64_t max, uint64_t out[8])
{
	yaml_node_item_t *it;
	int n = 0;

	if (!cfg_expect_sequence(ctx, node, "a list of 8 values (one per priority or traffic class)"))
		return false;
	for (it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++, n++) {
		if (n < 8 && !cfg_get_uint(ctx, cfg_node(ctx, *it), min, max, &out[n]))
			return false;
	}
	if (n != 8) {
		cfg_error(ctx, node, "expected 8 values, found %d", n);
		return false;
	}
	return true;
}

static bool
get_prio_mask(struct cfg_ctx *ctx, yaml_node_t *node, uint8_t *mask)
{
	yaml_node_item_t *it;
	uint64_t v;

	*mask = 0;
	if (!cfg_expect_sequence(ctx, node, "a list of priorities 0-7"))
		return false;
	for (it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++) {
		if (!cfg_get_uint(ctx, cfg_node(ctx, *it), 0, 7, &v))
			return false;
		*mask |= 1u << v;
	}
	return true;
}

#define FOR_PAIRS(ctx_, map_, k_, v_, name_) \
	for (yaml_node_pair_t *pr_ = (map_)->data.mapping.pairs.start; \
	    pr_ < (map_)->data.mapping.pairs.top; pr_++) \
		if (((k_) = cfg_node(ctx_, pr_->key)) && ((v_) = cfg_node(ctx_, pr_->value)) && \
		    ((name_) = cfg_scalar(ctx_, k_, "a key")))

static bool
is_word(yaml_node_t *node, const char *word)
{
	return node->type == YAML_SCALAR_NODE &&
	    strcmp((const char *)node->data.scalar.value, word) == 0;
}

static void
parse_dscp_map(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	yaml_node_t *k, *v;
	const char *name;
	int dscp, prio;

	if (!cfg_expect_mapping(ctx, node, "a mapping DSCP: priority"))
		return;
	memset(p->dscp_prio, ROCE_NO_PRIO, sizeof(p->dscp_prio));
	p->map_pos = pos_of(ctx, node);
	FOR_PAIRS(ctx, node, k, v, name) {
		(void)name;
		if (get_int(ctx, k, 0, 63, &dscp) && get_int(ctx, v, 0, 7, &prio))
			p->dscp_prio[dscp] = prio;
	}
}

static void
parse_pfc(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	static const char *const keys[] = { "priorities", "cable_length", NULL };
	yaml_node_t *k, *v;
	const char *name;

	if (is_word(node, "unmanaged")) {
		p->pfc_managed = false;
		return;
	}
	if (!cfg_expect_mapping(ctx, node, "a mapping with priorities and cable_length, or unmanaged"))
		return;
	p->pfc_managed = true;
	p->pfc_pos = pos_of(ctx, node);
	FOR_PAIRS(ctx, node, k, v, name) {
		if (strcmp(name, "priorities") == 0)
			get_prio_mask(ctx, v, &p->pfc_en);
		else if (strcmp(name, "cable_length") == 0)
			get_int(ctx, v, 0, 1000, &p->cable_len_m);
		else
			unknown_key(ctx, k, name, keys);
	}
}

static void
parse_ets(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	static const char *const keys[] = { "prio_tc", "tsa", "bandwidth", NULL };
	static const char *const tsa[] = { "strict", "cbs", "ets", NULL };
	yaml_node_t *k, *v;
	const char *name;
	uint64_t vals[8];

	if (is_word(node, "unmanaged")) {
		p->ets_managed = false;
		return;
	}
	if (!cfg_expect_mapping(ctx, node, "a mapping with prio_tc, tsa and bandwidth, or unmanaged"))
		return;
	p->ets_managed = true;
	p->ets_pos = pos_of(ctx, node);
	FOR_PAIRS(ctx, node, k, v, name) {
		if (strcmp(name, "prio_tc") == 0 && get_eight(ctx, v, 0, 7, vals))
			for (int i = 0; i < 8; i++) p->prio_tc[i] = vals[i];
		else if (strcmp(name, "bandwidth") == 0) {
			p->bw_pos = pos_of(ctx, v);
			if (get_eight(ctx, v, 0, 100, vals))
				for (int i = 0; i < 8; i++) p->tc_bw[i] = vals[i];
		} else if (strcmp(name, "tsa") == 0) {
			yaml_node_item_t *it;
			int i = 0, t;
			if (!cfg_expect_sequence(ctx, v, "a list of 8 of strict, cbs, ets"))
				continue;
			for (it = v->data.sequence.items.start; it < v->data.sequence.items.top && i < 8; it++, i++)
				if ((t = get_enum(ctx, cfg_node(ctx, *it), tsa)) >= 0)
					p->tc_tsa[i] = t;
			if (i != 8)
				cfg_error(ctx, v, "expected 8 values, found %d", i);
		} else if (strcmp(name, "prio_tc") != 0)
			unknown_key(ctx, k, name, keys);
	}
}

static void
parse_buffer(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	static const char *const keys[] = { "prio2buffer", "sizes", NULL };
	yaml_node_t *k, *v;
	const char *name;
	uint64_t vals[8];

	p->buffer_pos = pos_of(ctx, node);
	if (is_word(node, "auto") || is_word(node, "unmanaged")) {
		p->buffer = is_word(node, "auto") ? ROCE_BUF_AUTO : ROCE_BUF_UNMANAGED;
		return;
	}
	if (!cfg_expect_mapping(ctx, node, "auto, unmanaged, or a mapping with prio2buffer and sizes"))
		return;
	p->buffer = ROCE_BUF_MANUAL;
	FOR_PAIRS(ctx, node, k, v, name) {
		if (strcmp(name, "prio2buffer") == 0) {
			if (get_eight(ctx, v, 0, 7, vals))
				for (int i = 0; i < 8; i++) p->prio2buffer[i] = vals[i];
		} else if (strcmp(name, "sizes") == 0) {
			if (get_eight(ctx, v, 0, UINT32_MAX, vals))
				for (int i = 0; i < 8; i++) p->buffer_size[i] = vals[i];
		} else
			unknown_key(ctx, k, name, keys);
	}
}

static void
parse_maxrate(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	uint64_t vals[8];

	if (is_word(node, "unmanaged")) {
		p->maxrate_managed = false;
		return;
	}
	if (get_eight(ctx, node, 0, UINT64_MAX / 2, vals)) {
		p->maxrate_managed = true;
		for (int i = 0; i < 8; i++)
			p->maxrate_kbps[i] = vals[i];
	}
}

static void
parse_ecn_params(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	yaml_node_t *k, *v;
	const char *name;
	uint64_t val;

	if (!cfg_expect_mapping(ctx, node, "a mapping of parameter file name to value"))
		return;
	p->cc.nparams = 0;
	FOR_PAIRS(ctx, node, k, v, name) {
		if (strchr(name, '.') || strstr(name, "..") || name[0] == '/' ||
		    strlen(name) >= sizeof(p->cc.params[0].name)) {
			cfg_error(ctx, k, "expected a parameter file name like rp_ai_rate or roce_rp/rpg_ai_rate");
			continue;
		}
		if (p->cc.nparams == ROCE_CC_MAXPARAM) {
			cfg_error(ctx, k, "at most %d parameters", ROCE_CC_MAXPARAM);
			return;
		}
		if (!cfg_get_uint(ctx, v, 0, UINT32_MAX, &val))
			continue;
		snprintf(p->cc.params[p->cc.nparams].name, sizeof(p->cc.params[0].name), "%s", name);
		p->cc.params[p->cc.nparams++].value = val;
	}
}

static void
parse_ecn(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	static const char *const keys[] = { "mode", "priorities", "cnp_dscp", "cnp_priority", "params", NULL };
	static const char *const modes[] = { "unmanaged", "enabled", "disabled", NULL };
	yaml_node_t *k, *v;
	const char *name;
	int m;

	p->cc.pos = pos_of(ctx, node);
	if (is_word(node, "unmanaged")) {
		p->cc.mode = ROCE_CC_UNMANAGED;
		return;
	}
	if (!cfg_expect_mapping(ctx, node, "unmanaged, or a mapping with mode, priorities, cnp_dscp, cnp_priority, params"))
		return;
	p->cc.mode = ROCE_CC_ENABLED;
	FOR_PAIRS(ctx, node, k, v, name) {
		if (strcmp(name, "mode") == 0) {
			if ((m = get_enum(ctx, v, modes)) >= 0)
				p->cc.mode = m;
		} else if (strcmp(name, "priorities") == 0)
			get_prio_mask(ctx, v, &p->cc.prios);
		else if (strcmp(name, "cnp_dscp") == 0)
			get_int(ctx, v, 0, 63, &p->cc.cnp_dscp);
		else if (strcmp(name, "cnp_priority") == 0) {
			p->cc.cnp_pos = pos_of(ctx, v);
			get_int(ctx, v, 0, 7, &p->cc.cnp_prio);
		} else if (strcmp(name, "params") == 0)
			parse_ecn_params(ctx, v, p);
		else
			unknown_key(ctx, k, name, keys);
	}
}

/* Any u16 parses; lint says which ones a driver takes (with the position). */
static void
parse_storm(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	p->storm_pos = pos_of(ctx, node);
	if (is_word(node, "auto"))
		p->storm_ms = ROCE_STORM_AUTO;
	else if (is_word(node, "disable"))
		p->storm_ms = 0;
	else if (is_word(node, "unmanaged"))
		p->storm_ms = ROCE_UNSET;
	else if (node->type == YAML_SCALAR_NODE &&
	    strspn((const char *)node->data.scalar.value, "0123456789") == 0)
		cfg_error(ctx, node, "expected auto, disable, unmanaged or a timeout in ms (80-8000), not \"%s\"",
		    (const char *)node->data.scalar.value);
	else
		get_int(ctx, node, 0, UINT16_MAX, &p->storm_ms);
}

/* Every position a built-in profile has is the "profile:" value's. */
static void
builtin_positions(struct roce_profile *p, struct roce_pos pos)
{
	p->pos = p->dcbx_pos = p->trust_pos = p->map_pos = p->pfc_pos = pos;
	p->ets_pos = p->bw_pos = p->buffer_pos = p->cc.pos = p->cc.cnp_pos = pos;
	p->tos_pos = p->nccl_pos = p->storm_pos = pos;
}

static void
parse_class_dscps(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_class *c)
{
	c->dscp_pos = pos_of(ctx, node);
	if (!cfg_expect_sequence(ctx, node, "a list of DSCPs 0-63"))
		return;
	for (yaml_node_item_t *it = node->data.sequence.items.start;
	    it < node->data.sequence.items.top; it++) {
		uint64_t d;

		if (c->ndscp == ROCE_CLASS_DSCPS) {
			cfg_error(ctx, node, "at most %d DSCPs per class", ROCE_CLASS_DSCPS);
			return;
		}
		if (cfg_get_uint(ctx, cfg_node(ctx, *it), 0, 63, &d))
			c->dscp[c->ndscp++] = (uint8_t)d;
	}
}

/* "training: ~" or "training:": YAML's null, a class written with nothing. */
static bool
is_null(yaml_node_t *node)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };

	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (int i = 0; nulls[i]; i++)
		if (is_word(node, nulls[i]))
			return true;
	return false;
}

static void
parse_class_keys(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_class *c)
{
	static const char *const keys[] = { "priority", "dscp", "lossless", "ets", "ecn", NULL };
	yaml_node_t *k, *v;
	const char *name;

	FOR_PAIRS(ctx, node, k, v, name) {
		if (strcmp(name, "priority") == 0) {
			c->prio_pos = pos_of(ctx, v);
			get_int(ctx, v, 0, 7, &c->prio);
		} else if (strcmp(name, "dscp") == 0)
			parse_class_dscps(ctx, v, c);
		else if (strcmp(name, "lossless") == 0)
			cfg_get_bool(ctx, v, &c->lossless);
		else if (strcmp(name, "ets") == 0) {
			c->ets_pos = pos_of(ctx, v);
			get_int(ctx, v, 0, 100, &c->ets);
		} else if (strcmp(name, "ecn") == 0)
			cfg_get_bool(ctx, v, &c->ecn);
		else
			unknown_key(ctx, k, name, keys);
	}
}

/* classes: NAME: { priority, dscp: [..], lossless, ets, ecn }.  False for a
 * class without a valid priority (null, not a mapping, none given, out of
 * range): an error at its name, and the class is left out of the profile,
 * since the DCB settings and the lint index arrays with its priority. */
static bool
parse_one_class(struct cfg_ctx *ctx, yaml_node_t *key, yaml_node_t *node, struct roce_class *c)
{
	const char *name = cfg_scalar(ctx, key, "a class name");

	memset(c, 0, sizeof(*c));
	c->prio = ROCE_UNSET;
	c->pos = c->prio_pos = c->ets_pos = c->dscp_pos = pos_of(ctx, key);
	if (name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	if (!is_null(node) &&
	    cfg_expect_mapping(ctx, node, "the class's priority, dscp, lossless, ets, ecn"))
		parse_class_keys(ctx, node, c);
	if (c->prio == ROCE_UNSET) {
		cfg_error(ctx, key, "class %s has no priority", c->name);
		return false;
	}
	return true;
}

static void
parse_classes(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	yaml_node_t *k, *v;
	const char *name;

	p->nclasses = 0;
	if (!cfg_expect_mapping(ctx, node, "a mapping of class names to settings"))
		return;
	FOR_PAIRS(ctx, node, k, v, name) {
		if (p->nclasses == ROCE_MAX_CLASSES) {
			cfg_error(ctx, k, "at most %d classes", ROCE_MAX_CLASSES);
			return;
		}
		if (parse_one_class(ctx, k, v, &p->classes[p->nclasses]))
			p->nclasses++;
	}
}

static void
parse_profile_key(struct cfg_ctx *ctx, yaml_node_t *k, const char *name, yaml_node_t *v,
    struct roce_profile *p)
{
	static const char *const dcbx[] = { "unmanaged", "host", "firmware", NULL };
	static const char *const trust[] = { "unmanaged", "pcp", "dscp", NULL };
	int e;

	if (strcmp(name, "dcbx") == 0) {
		p->dcbx_pos = pos_of(ctx, v);
		if ((e = get_enum(ctx, v, dcbx)) >= 0) p->dcbx = e;
	} else if (strcmp(name, "trust") == 0) {
		p->trust_pos = pos_of(ctx, v);
		if ((e = get_enum(ctx, v, trust)) >= 0) p->trust = e;
	} else if (strcmp(name, "dscp_map") == 0)
		parse_dscp_map(ctx, v, p);
	else if (strcmp(name, "pfc") == 0)
		parse_pfc(ctx, v, p);
	else if (strcmp(name, "ets") == 0)
		parse_ets(ctx, v, p);
	else if (strcmp(name, "buffer") == 0)
		parse_buffer(ctx, v, p);
	else if (strcmp(name, "maxrate") == 0)
		parse_maxrate(ctx, v, p);
	else if (strcmp(name, "ecn") == 0)
		parse_ecn(ctx, v, p);
	else if (strcmp(name, "roce_tos") == 0) {
		p->tos_pos = pos_of(ctx, v);
		get_int(ctx, v, 0, 255, &p->roce_tos);
	} else if (strcmp(name, "pfc_storm_prevention") == 0)
		parse_storm(ctx, v, p);
	else if (strcmp(name, "nccl_tc") == 0) {
		p->nccl_pos = pos_of(ctx, v);
		get_int(ctx, v, 0, 255, &p->nccl_tc);
	} else if (strcmp(name, "classes") == 0)
		parse_classes(ctx, v, p);
	else if (strcmp(name, "base") != 0)
		unknown_key(ctx, k, name, profile_keys);
}

static void
parse_profile(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_profile *p)
{
	yaml_node_t *k, *v;
	const char *name, *base = NULL;

	roce_profile_empty(p);
	if (node->type == YAML_SCALAR_NODE) {
		base = (const char *)node->data.scalar.value;
		if (roce_profile_builtin(base, p) == -1)
			get_enum(ctx, node, roce_profile_builtins);
		builtin_positions(p, pos_of(ctx, node));
		return;
	}
	if (!cfg_expect_mapping(ctx, node, "a built-in profile name or a profile mapping"))
		return;
	FOR_PAIRS(ctx, node, k, v, name)
		if (strcmp(name, "base") == 0 && get_enum(ctx, v, roce_profile_builtins) >= 0) {
			roce_profile_builtin((const char *)v->data.scalar.value, p);
			builtin_positions(p, pos_of(ctx, v));
		}
	if (p->name[0] == '\0')
		builtin_positions(p, pos_of(ctx, node));
	snprintf(p->name, sizeof(p->name), "custom");
	FOR_PAIRS(ctx, node, k, v, name)
		parse_profile_key(ctx, k, name, v, p);
	roce_profile_apply_classes(p);	/* the classes win over the keys they cover */
}

static void
parse_interfaces(struct cfg_ctx *ctx, yaml_node_t *node, struct roce_qos_config *c)
{
	yaml_node_item_t *it;
	const char *s;

	if (is_word(node, "all")) {
		c->all_interfaces = true;
		return;
	}
	if (!cfg_expect_sequence(ctx, node, "all, or a list of netdev names"))
		return;
	c->all_interfaces = false;
	c->nifnames = 0;
	for (it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++) {
		yaml_node_t *n = cfg_node(ctx, *it);
		if ((s = cfg_scalar(ctx, n, "a netdev name")) == NULL)
			continue;
		if (strlen(s) == 0 || strlen(s) >= IFNAMSIZ || strchr(s, '/'))
			cfg_error(ctx, n, "expected a netdev name of 1-%d characters", IFNAMSIZ - 1);
		else if (c->nifnames == ROCE_MAXIF)
			cfg_error(ctx, n, "at most %d interfaces", ROCE_MAXIF);
		else
			snprintf(c->ifnames[c->nifnames++], IFNAMSIZ, "%s", s);
	}
}

static void
lint_into_config(struct cfg_ctx *ctx, struct roce_qos_config *c)
{
	struct roce_lint l[16];
	size_t n = roce_lint_profile(&c->profile, l, 16);

	for (size_t i = 0; i < n && i < 16; i++)
		cfg_error(ctx, l[i].pos.node, "roce_qos profile lint [%s]: %s", l[i].rule, l[i].msg);
}

/* Positions outlive the parse through the config's own copy of the file name. */
static void
own_positions(struct roce_qos_config *c)
{
	struct roce_profile *p = &c->profile;
	struct roce_pos *all[] = { &p->pos, &p->dcbx_pos, &p->trust_pos, &p->map_pos, &p->pfc_pos,
	    &p->ets_pos, &p->bw_pos, &p->buffer_pos, &p->cc.pos, &p->cc.cnp_pos, &p->tos_pos, &p->nccl_pos,
	    &p->storm_pos };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		all[i]->file = c->file;
		all[i]->node = NULL;
	}
	for (size_t i = 0; i < p->nclasses; i++) {
		struct roce_class *k = &p->classes[i];
		struct roce_pos *cp[] = { &k->pos, &k->prio_pos, &k->dscp_pos, &k->ets_pos };

		for (size_t j = 0; j < sizeof(cp) / sizeof(cp[0]); j++) {
			cp[j]->file = c->file;
			cp[j]->node = NULL;
		}
	}
}

void
roce_config_init(void *cfg)
{
	struct roce_qos_config *c = cfg;

	memset(c, 0, sizeof(*c));
	c->root = xstrdup("/");
	c->all_interfaces = true;
	c->poll_ms = 10000;
	roce_profile_empty(&c->profile);
}

/* The section's keys as fields (daemon/config.h): interfaces and profile
 * parse themselves, with the whole configuration at hand. */
#define ROCE_CFG_OF(field, member) \
	((struct roce_qos_config *)((char *)(field) - offsetof(struct roce_qos_config, member)))

static bool
field_interfaces(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	parse_interfaces(ctx, node, ROCE_CFG_OF(field, all_interfaces));
	return true;
}

static bool
field_profile(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct roce_qos_config *c = ROCE_CFG_OF(field, profile);

	parse_profile(ctx, node, &c->profile);
	c->has_profile = true;
	return true;
}

static const struct cfg_field roce_fields[] = {
	CFG_F_BOOL("enabled", struct roce_qos_config, enabled),
	CFG_F_STR("root", struct roce_qos_config, root),
	CFG_F_CUSTOM("interfaces", struct roce_qos_config, all_interfaces, field_interfaces),
	CFG_F_DURATION("poll_interval", struct roce_qos_config, poll_ms, 100, 86400000),
	CFG_F_BOOL("remediate", struct roce_qos_config, remediate),
	CFG_F_CUSTOM("profile", struct roce_qos_config, profile, field_profile),
	CFG_F_END
};

void
roce_config_parse(struct cfg_ctx *ctx, yaml_node_t *section, void *cfg)
{
	struct roce_qos_config *c = cfg;

	free(c->file);
	c->file = xstrdup(ctx->file ? ctx->file : "");
	cfg_parse_fields(ctx, section, roce_fields, c);
	if (c->has_profile)
		lint_into_config(ctx, c);
	own_positions(c);
}

void
roce_config_free(void *cfg)
{
	struct roce_qos_config *c = cfg;

	free(c->root);
	free(c->file);
	c->root = c->file = NULL;
}
