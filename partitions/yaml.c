/*
 * The YAML form of a partition set: the `partitions:` section of
 * fabricd.yaml, `partition import` of such a file, and `partition export`.
 * Parsing goes through the daemon's config framework so that every error
 * carries file:line:column; emitting goes through libyaml's emitter.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "partitions/files.h"

static const char *const partition_keys[] = { "pkey", "full", "limited", "ipoib" };
static const char *const ipoib_keys[] = { "mtu", "rate", "sl", "qkey" };

void
pt_config_section_init(void *cfg)
{
	struct partitions_config *pc = cfg;

	pc->enabled = false;
	pc->default_membership = PT_DEFAULT_OTHERS_LIMITED;
	pc->model = NULL;
	pc->jobs = (struct pt_jobs_config){
		.enabled = true, .pkey_lo = PT_JOBS_POOL_LO, .pkey_hi = PT_JOBS_POOL_HI,
		.full = true, .ipoib = false, .reconcile_ms = PT_JOBS_RECONCILE_MS,
		.squeue = xstrdup("squeue"),
	};
}

void
pt_config_section_free(void *cfg)
{
	struct partitions_config *pc = cfg;

	pt_config_free(pc->model);
	pc->model = NULL;
	free(pc->jobs.squeue);
	pc->jobs.squeue = NULL;
}

static void
unknown_key(struct cfg_ctx *ctx, yaml_node_t *key, const char *k, const char *where,
    const char *const *known, size_t n)
{
	const char *close = cfg_closest(k, known, n);

	if (close != NULL)
		cfg_error(ctx, key, "unknown key \"%s\" in %s (did you mean \"%s\"?)", k, where, close);
	else
		cfg_error(ctx, key, "unknown key \"%s\" in %s", k, where);
}

static void
parse_members(struct cfg_ctx *ctx, struct pt_config *model, const char *partition,
    yaml_node_t *seq, bool full)
{
	struct pt_err e;

	if (seq->type == YAML_SCALAR_NODE) {	/* one member may be written bare */
		const char *s = cfg_scalar(ctx, seq, "a member");

		if (s != NULL && pt_member_add(model, partition, s, full, &e) != 0)
			cfg_error(ctx, seq, "%s", e.msg);
		return;
	}
	if (!cfg_expect_sequence(ctx, seq, "a list of members"))
		return;
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	    it < seq->data.sequence.items.top; it++) {
		yaml_node_t *m = cfg_node(ctx, *it);
		const char *s = cfg_scalar(ctx, m, "a member: port GUID, node name or glob, "
		    "all-cas or switches");

		if (s != NULL && pt_member_add(model, partition, s, full, &e) != 0)
			cfg_error(ctx, m, "%s", e.msg);
	}
}

static bool
ipoib_number(struct cfg_ctx *ctx, yaml_node_t *val, const char *what, unsigned long max,
    unsigned long *out)
{
	const char *s = cfg_scalar(ctx, val, what);
	char *end;

	if (s == NULL)
		return false;
	*out = strtoul(s, &end, 0);
	if (*s == '\0' || *end != '\0' || *out > max) {
		cfg_error(ctx, val, "\"%s\": expected %s", s, what);
		return false;
	}
	return true;
}

/* ipoib: {mtu: 2048, rate: 3, sl: 0, qkey: 0x0b1b}, each optional (OpenSM's
 * defaults), or `ipoib: true`. */
static void
parse_ipoib(struct cfg_ctx *ctx, yaml_node_t *map, struct pt_ipoib *ip)
{
	unsigned long v;

	*ip = PT_IPOIB_DEFAULT;
	if (map->type == YAML_SCALAR_NODE) {
		cfg_get_bool(ctx, map, &ip->enabled);
		return;
	}
	if (!cfg_expect_mapping(ctx, map, "ipoib settings (mtu, rate, sl, qkey)"))
		return;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = cfg_node(ctx, p->key), *val = cfg_node(ctx, p->value);
		const char *k = cfg_scalar(ctx, key, "a key");

		if (k == NULL)
			continue;
		if (strcmp(k, "mtu") == 0) {
			if (!ipoib_number(ctx, val, "an MTU: 256, 512, 1024, 2048 or 4096", 4096, &v))
				continue;
			ip->mtu = v == 256 ? 1 : v == 512 ? 2 : v == 1024 ? 3 : v == 2048 ? 4 :
			    v == 4096 ? 5 : 0;
			if (ip->mtu == 0)
				cfg_error(ctx, val, "mtu %lu: expected 256, 512, 1024, 2048 or 4096", v);
		} else if (strcmp(k, "rate") == 0) {
			if (ipoib_number(ctx, val, "an IB rate code 2-22 (3 = 10 Gb/s)", 22, &v) &&
			    v < 2)
				cfg_error(ctx, val, "rate %lu: expected an IB rate code 2-22", v);
			ip->rate = (uint8_t)v;
		} else if (strcmp(k, "sl") == 0) {
			if (ipoib_number(ctx, val, "a service level 0-15", 15, &v))
				ip->sl = (uint8_t)v;
		} else if (strcmp(k, "qkey") == 0) {
			if (ipoib_number(ctx, val, "a 32-bit Q_Key", 0xFFFFFFFFul, &v))
				ip->qkey = (uint32_t)v;
		} else
			unknown_key(ctx, key, k, "ipoib", ipoib_keys, 4);
	}
}

static void
parse_partition(struct cfg_ctx *ctx, struct pt_config *model, const char *tenant,
    yaml_node_t *name_node, const char *name, yaml_node_t *map)
{
	yaml_node_t *pkey_node = NULL, *full = NULL, *limited = NULL, *ipoib = NULL;
	struct pt_err e;
	uint16_t pkey;
	const char *s;

	if (!cfg_expect_mapping(ctx, map, "a partition (pkey, full, limited, ipoib)"))
		return;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = cfg_node(ctx, p->key), *val = cfg_node(ctx, p->value);
		const char *k = cfg_scalar(ctx, key, "a key");

		if (k == NULL)
			continue;
		if (strcmp(k, "pkey") == 0)
			pkey_node = val;
		else if (strcmp(k, "full") == 0)
			full = val;
		else if (strcmp(k, "limited") == 0)
			limited = val;
		else if (strcmp(k, "ipoib") == 0)
			ipoib = val;
		else
			unknown_key(ctx, key, k, "a partition", partition_keys, 4);
	}
	if (pkey_node == NULL) {
		cfg_error(ctx, name_node, "partition \"%s\": pkey is required", name);
		return;
	}
	if ((s = cfg_scalar(ctx, pkey_node, "a P_Key (0x0001-0x7ffe)")) == NULL)
		return;
	if (pt_pkey_parse(s, &pkey, &e) != 0) {
		cfg_error(ctx, pkey_node, "%s", e.msg);
		return;
	}
	if (pt_partition_add(model, name, tenant, pkey, &e) != 0) {
		cfg_error(ctx, name_node, "%s", e.msg);
		return;
	}
	if (ipoib != NULL)
		parse_ipoib(ctx, ipoib, &pt_find(model, name)->ipoib);
	if (full != NULL)
		parse_members(ctx, model, name, full, true);
	if (limited != NULL)
		parse_members(ctx, model, name, limited, false);
}

static bool
empty_node(const yaml_node_t *n)
{
	return n == NULL || (n->type == YAML_SCALAR_NODE && n->data.scalar.length == 0) ||
	    (n->type == YAML_MAPPING_NODE && n->data.mapping.pairs.start == n->data.mapping.pairs.top);
}

static void
parse_tenants(struct cfg_ctx *ctx, yaml_node_t *map, struct pt_config *model)
{
	if (empty_node(map)) {
		/* OpenSM falls back to "everyone in the default partition" on an
		 * empty file; an empty list here is refused instead */
		cfg_error(ctx, map, "tenants: expected at least one tenant; an empty list "
		    "would drop every partition (leave the key out to keep the stored ones)");
		return;
	}
	if (!cfg_expect_mapping(ctx, map, "tenants (tenant: {partition: {...}})"))
		return;
	for (yaml_node_pair_t *t = map->data.mapping.pairs.start; t < map->data.mapping.pairs.top; t++) {
		yaml_node_t *tkey = cfg_node(ctx, t->key), *parts = cfg_node(ctx, t->value);
		const char *tenant = cfg_scalar(ctx, tkey, "a tenant name");

		if (tenant == NULL)
			continue;
		if (!pt_name_valid(tenant)) {
			cfg_error(ctx, tkey, "tenant name \"%s\": expected 1-64 of A-Z a-z 0-9 _ . -",
			    tenant);
			continue;
		}
		if (empty_node(parts)) {
			cfg_error(ctx, tkey, "tenant \"%s\" has no partitions", tenant);
			continue;
		}
		if (!cfg_expect_mapping(ctx, parts, "the tenant's partitions (name: {...})"))
			continue;
		for (yaml_node_pair_t *p = parts->data.mapping.pairs.start;
		    p < parts->data.mapping.pairs.top; p++) {
			yaml_node_t *pkey = cfg_node(ctx, p->key);
			const char *name = cfg_scalar(ctx, pkey, "a partition name");

			if (name != NULL)
				parse_partition(ctx, model, tenant, pkey, name, cfg_node(ctx, p->value));
		}
	}
}

/* The section's keys as fields (daemon/config.h). */
static bool
field_default_membership(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "limited or full");
	enum pt_default_policy pol;

	if (s == NULL)
		return false;
	if (pt_default_policy_parse(s, &pol) != 0) {
		cfg_error(ctx, node, "default_membership \"%s\": expected limited "
		    "(the SM's port full, every other port limited) or full", s);
		return false;
	}
	*(int *)field = (int)pol;
	return true;
}

static bool
field_tenants(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct pt_config **model = field;

	pt_config_free(*model);
	*model = pt_config_new();
	parse_tenants(ctx, node, *model);
	return true;
}

/* "0x1000-0x1fff": both ends inside 0x0001-0x7ffe, low first. */
static bool
field_pkey_range(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct pt_jobs_config *jc = (struct pt_jobs_config *)((char *)field -
	    offsetof(struct pt_jobs_config, pkey_lo));
	const char *s = cfg_scalar(ctx, node, "a P_Key range such as 0x1000-0x1fff");
	char lo[16], hi[16];
	uint16_t a, b;
	struct pt_err e;
	const char *dash;

	if (s == NULL)
		return false;
	if ((dash = strchr(s, '-')) == NULL || (size_t)(dash - s) >= sizeof(lo) ||
	    strlen(dash + 1) >= sizeof(hi)) {
		cfg_error(ctx, node, "pkeys \"%s\": expected LOW-HIGH, such as 0x1000-0x1fff", s);
		return false;
	}
	snprintf(lo, sizeof(lo), "%.*s", (int)(dash - s), s);
	snprintf(hi, sizeof(hi), "%s", dash + 1);
	if (pt_pkey_parse(lo, &a, &e) != 0 || pt_pkey_parse(hi, &b, &e) != 0) {
		cfg_error(ctx, node, "pkeys \"%s\": %s", s, e.msg);
		return false;
	}
	if (a > b) {
		cfg_error(ctx, node, "pkeys \"%s\": the low end is above the high end", s);
		return false;
	}
	jc->pkey_lo = a;
	jc->pkey_hi = b;
	return true;
}

static bool
field_membership(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *s = cfg_scalar(ctx, node, "full or limited");

	if (s == NULL)
		return false;
	if (strcmp(s, "full") != 0 && strcmp(s, "limited") != 0) {
		cfg_error(ctx, node, "membership \"%s\": expected full or limited", s);
		return false;
	}
	*(bool *)field = strcmp(s, "full") == 0;
	return true;
}

static const struct cfg_field jobs_fields[] = {
	CFG_F_BOOL("enabled", struct pt_jobs_config, enabled),
	CFG_F_CUSTOM("pkeys", struct pt_jobs_config, pkey_lo, field_pkey_range),
	CFG_F_CUSTOM("membership", struct pt_jobs_config, full, field_membership),
	CFG_F_BOOL("ipoib", struct pt_jobs_config, ipoib),
	CFG_F_DURATION("reconcile_interval", struct pt_jobs_config, reconcile_ms, 0, 86400000),
	CFG_F_STR("squeue", struct pt_jobs_config, squeue),
	CFG_F_END
};

static bool
field_jobs(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	const char *was = ctx->section;

	ctx->section = "partitions.jobs";	/* "unknown key ... in partitions.jobs" */
	cfg_parse_fields(ctx, node, jobs_fields, field);
	ctx->section = was;
	return true;
}

static const struct cfg_field section_fields[] = {
	CFG_F_BOOL("enabled", struct partitions_config, enabled),
	CFG_F_CUSTOM("jobs", struct partitions_config, jobs, field_jobs),
	CFG_F_CUSTOM("default_membership", struct partitions_config, default_membership,
	    field_default_membership),
	CFG_F_CUSTOM("tenants", struct partitions_config, model, field_tenants),
	CFG_F_END
};

void
pt_config_section_parse(struct cfg_ctx *ctx, yaml_node_t *section, void *cfg)
{
	struct partitions_config *pc = cfg;

	cfg_parse_fields(ctx, section, section_fields, pc);
	if (pc->model != NULL)
		pc->model->default_policy = (enum pt_default_policy)pc->default_membership;
}

static char *
join_errors(struct cfg_ctx *ctx)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < ctx->nerrors; i++)
		len += strlen(ctx->errors[i]) + 1;
	out = xcalloc(1, len);
	for (size_t i = 0; i < ctx->nerrors; i++) {
		strcat(out, ctx->errors[i]);
		if (i + 1 < ctx->nerrors)
			strcat(out, "\n");
	}
	return out;
}

int
pt_yaml_parse_text(const char *name, const char *text, size_t len, struct pt_config **out,
    char **err)
{
	struct partitions_config pc;
	struct cfg_ctx ctx = { .file = name, .section = "partitions" };
	yaml_document_t doc;
	yaml_node_t *root, *section = NULL;
	int rc = -1;

	*out = NULL;
	*err = NULL;
	pt_config_section_init(&pc);
	if (!cfg_yaml_load(&ctx, text, len, &doc)) {
		*err = join_errors(&ctx);
		cfg_errors_free(ctx.errors, ctx.nerrors);
		pt_config_section_free(&pc);
		return -1;
	}
	ctx.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (root == NULL || empty_node(root))
		cfg_error(&ctx, NULL, "the file is empty: expected a partitions: section "
		    "with at least one tenant");
	else if (cfg_expect_mapping(&ctx, root, "a mapping with a partitions: section")) {
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
		    p < root->data.mapping.pairs.top; p++) {
			const char *k = cfg_scalar(&ctx, cfg_node(&ctx, p->key), "a key");

			if (k != NULL && strcmp(k, "partitions") == 0)
				section = cfg_node(&ctx, p->value);
		}
		if (section == NULL)
			cfg_error(&ctx, root, "no partitions: section in the file");
		else
			pt_config_section_parse(&ctx, section, &pc);
		if (section != NULL && ctx.nerrors == 0 && (pc.model == NULL || pc.model->nparts == 0))
			cfg_error(&ctx, section, "the partitions section declares no partition "
			    "(tenants: is missing or empty); refusing to drop every partition");
	}
	cfg_errors_finish(&ctx);
	if (ctx.nerrors == 0) {
		*out = pc.model;
		pc.model = NULL;
		rc = 0;
	} else
		*err = join_errors(&ctx);
	cfg_errors_free(ctx.errors, ctx.nerrors);
	pt_config_section_free(&pc);
	yaml_document_delete(&doc);
	return rc;
}

int
pt_text_load(const char *name, const char *text, size_t len, struct pt_config **out, char **err)
{
	size_t nlen = strlen(name);

	*out = NULL;
	*err = NULL;
	if (nlen > 5 && strcmp(name + nlen - 5, ".conf") == 0)
		return pt_osm_parse_text(name, text, out, err);
	return pt_yaml_parse_text(name, text, len, out, err);
}

/* ---- export ---- */

static int
add_scalar(yaml_document_t *d, const char *s, bool quoted)
{
	return yaml_document_add_scalar(d, NULL, (yaml_char_t *)s, -1,
	    quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

static void
add_pair(yaml_document_t *d, int map, const char *k, int v)
{
	yaml_document_append_mapping_pair(d, map, add_scalar(d, k, false), v);
}

static int
members_seq(yaml_document_t *d, const struct pt_partition *p, bool full)
{
	int seq = yaml_document_add_sequence(d, NULL, YAML_FLOW_SEQUENCE_STYLE);
	char buf[80];

	for (size_t i = 0; i < p->nmembers; i++)
		if (p->members[i].full == full)
			yaml_document_append_sequence_item(d, seq, add_scalar(d,
			    pt_member_text(&p->members[i], buf, sizeof(buf)),
			    p->members[i].kind == PT_MEMBER_NODE));
	return seq;
}

static int
tenant_map(yaml_document_t *d, const struct pt_config *c, const char *tenant, bool jobs)
{
	int map = yaml_document_add_mapping(d, NULL, YAML_BLOCK_MAPPING_STYLE);
	char pkey[8];

	for (size_t i = 0; i < c->nparts; i++) {
		const struct pt_partition *p = &c->parts[i];
		int pm;

		if (strcmp(p->tenant, tenant) != 0 || (p->job != NULL && !jobs))
			continue;
		pm = yaml_document_add_mapping(d, NULL, YAML_BLOCK_MAPPING_STYLE);
		snprintf(pkey, sizeof(pkey), "0x%04x", p->pkey);
		add_pair(d, pm, "pkey", add_scalar(d, pkey, false));
		add_pair(d, pm, "full", members_seq(d, p, true));
		add_pair(d, pm, "limited", members_seq(d, p, false));
		add_pair(d, map, p->name, pm);
	}
	return map;
}

static int
write_buf(void *data, unsigned char *buffer, size_t size)
{
	return fwrite(buffer, 1, size, data) == size;
}

char *
pt_yaml_export(const struct pt_config *c)
{
	return pt_yaml_export_with(c, false);
}

char *
pt_yaml_export_with(const struct pt_config *c, bool jobs)
{
	yaml_document_t d;
	yaml_emitter_t em;
	int root, sec, tenants;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	yaml_document_initialize(&d, NULL, NULL, NULL, 1, 1);
	root = yaml_document_add_mapping(&d, NULL, YAML_BLOCK_MAPPING_STYLE);
	sec = yaml_document_add_mapping(&d, NULL, YAML_BLOCK_MAPPING_STYLE);
	add_pair(&d, root, "partitions", sec);
	add_pair(&d, sec, "enabled", add_scalar(&d, "true", false));
	add_pair(&d, sec, "default_membership",
	    add_scalar(&d, pt_default_policy_name(c->default_policy), false));
	tenants = yaml_document_add_mapping(&d, NULL, YAML_BLOCK_MAPPING_STYLE);
	add_pair(&d, sec, "tenants", tenants);
	for (size_t i = 0; i < c->nparts; i++) {
		bool seen = false;

		if (c->parts[i].job != NULL && !jobs)
			continue;
		for (size_t j = 0; j < i; j++)
			seen |= strcmp(c->parts[j].tenant, c->parts[i].tenant) == 0 &&
			    (c->parts[j].job == NULL || jobs);
		if (!seen)
			add_pair(&d, tenants, c->parts[i].tenant[0] ? c->parts[i].tenant :
			    c->parts[i].name, tenant_map(&d, c, c->parts[i].tenant, jobs));
	}
	if ((f = open_memstream(&buf, &len)) == NULL) {
		yaml_document_delete(&d);
		return xstrdup("");
	}
	yaml_emitter_initialize(&em);
	yaml_emitter_set_output(&em, write_buf, f);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_open(&em);
	yaml_emitter_dump(&em, &d);	/* dump deletes the document */
	yaml_emitter_close(&em);
	yaml_emitter_delete(&em);
	fclose(f);
	return buf;
}
