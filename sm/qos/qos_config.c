/*
 * The qos policy in the sm section, and its lint (before anything is
 * written: a policy that fails keeps the daemon from loading it, with
 * every error at FILE:LINE:COLUMN):
 *
 *   sm:
 *     qos:
 *       enabled: true            # false: fabricd writes no QoS table
 *       high_limit: 0            # PortInfo VLHighLimit
 *       classes:
 *         training: { sl: 1, vl: 1, share: 50, priority: high, pkeys: [0x8001] }
 *         storage:  { sl: 2, vl: 2, share: 30, services: [nvme-of, nfs-rdma] }
 *         kv:       { sl: 3, vl: 3, share: 15 }
 *         management: { sl: 0, vl: 0, share: 5 }
 *
 * services: nvme-of (4420), iser (3260), nfs-rdma (20049), a port number
 * (rdma_cm's TCP port space), or a ServiceID range "0xLO-0xHI".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/qos/qos.h"
#include "daemon/config.h"

struct class_nodes {
	yaml_node_t	*key, *sl, *vl, *share, *pkeys, *services;
};

struct class_cfg {
	uint64_t	sl, vl, share;
	int		priority;	/* 0 low, 1 high */
	struct qos_class *c;
	struct class_nodes *nodes;
};

static const char *const priority_names[] = { "low", "high", NULL };

static const struct { const char *name; uint16_t port; } known_services[] = {
	{ "nvme-of", 4420 }, { "iser", 3260 }, { "nfs-rdma", 20049 },
};

static bool
parse_pkeys(struct cfg_ctx *ctx, yaml_node_t *seq, void *field)
{
	struct class_cfg *cc = (struct class_cfg *)((char *)field - offsetof(struct class_cfg, c));
	struct qos_class *c = cc->c;

	cc->nodes->pkeys = seq;
	if (!cfg_expect_sequence(ctx, seq, "a list of P_Keys"))
		return false;
	for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		uint64_t k;

		if (!cfg_get_uint(ctx, cfg_node(ctx, *it), 1, 0xFFFF, &k))
			continue;
		if (c->npkeys == QOS_MAX_PKEYS) {
			cfg_error(ctx, cfg_node(ctx, *it), "at most %d P_Keys per class", QOS_MAX_PKEYS);
			return false;
		}
		c->pkeys[c->npkeys++] = (uint16_t)(k & 0x7FFF);
	}
	return true;
}

static bool
service_range(const char *s, struct qos_sid_range *r)
{
	char *end;
	unsigned long long lo, hi;

	for (size_t i = 0; i < sizeof(known_services) / sizeof(known_services[0]); i++)
		if (strcmp(s, known_services[i].name) == 0) {
			r->lo = r->hi = QOS_SID_RDMA_TCP(known_services[i].port);
			return true;
		}
	lo = strtoull(s, &end, 0);
	if (end == s)
		return false;
	if (*end == '\0' && lo <= 0xFFFF) {	/* a port number */
		r->lo = r->hi = QOS_SID_RDMA_TCP(lo);
		return true;
	}
	hi = lo;
	if (*end == '-') {
		const char *h = end + 1;

		hi = strtoull(h, &end, 0);
		if (end == h)
			return false;
	}
	if (*end != '\0' || hi < lo)
		return false;
	r->lo = lo;
	r->hi = hi;
	return true;
}

static bool
parse_services(struct cfg_ctx *ctx, yaml_node_t *seq, void *field)
{
	struct class_cfg *cc = (struct class_cfg *)((char *)field -
	    offsetof(struct class_cfg, nodes));
	struct qos_class *c = cc->c;

	cc->nodes->services = seq;
	if (!cfg_expect_sequence(ctx, seq, "a list of services"))
		return false;
	for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		yaml_node_t *node = cfg_node(ctx, *it);
		const char *s = cfg_scalar(ctx, node, "a service");

		if (s == NULL)
			continue;
		if (c->nsids == QOS_MAX_SIDS) {
			cfg_error(ctx, node, "at most %d services per class", QOS_MAX_SIDS);
			return false;
		}
		if (!service_range(s, &c->sids[c->nsids])) {
			cfg_error(ctx, node, "expected nvme-of, iser, nfs-rdma, a port number or a "
			    "ServiceID range 0xLO-0xHI, found \"%s\"", s);
			continue;
		}
		c->nsids++;
	}
	return true;
}

static const struct cfg_field class_fields[] = {
	CFG_F_UINT("sl", struct class_cfg, sl, 0, 15),
	CFG_F_UINT("vl", struct class_cfg, vl, 0, 14),
	CFG_F_UINT("share", struct class_cfg, share, 0, 100),
	CFG_F_ENUM("priority", struct class_cfg, priority, priority_names),
	CFG_F_CUSTOM("pkeys", struct class_cfg, c, parse_pkeys),
	CFG_F_CUSTOM("services", struct class_cfg, nodes, parse_services),
	CFG_F_END
};

/* The value node of key in a mapping, for lint positions. */
static yaml_node_t *
value_of(struct cfg_ctx *ctx, yaml_node_t *map, const char *key)
{
	if (map == NULL || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = cfg_node(ctx, pr->key);

		if (k && k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0)
			return cfg_node(ctx, pr->value);
	}
	return NULL;
}

static void
parse_class(struct cfg_ctx *ctx, yaml_node_t *key, yaml_node_t *val, struct qos_class *c,
    struct class_nodes *nodes)
{
	struct class_cfg cc = { .sl = 0, .vl = 0, .share = 0, .priority = 0, .c = c, .nodes = nodes };
	const char *name = cfg_scalar(ctx, key, "a class name");

	memset(c, 0, sizeof(*c));
	nodes->key = key;
	if (name == NULL)
		return;
	if (strlen(name) == 0 || strlen(name) > QOS_CLASS_NAME_LEN) {
		cfg_error(ctx, key, "a class name has 1 to %d characters", QOS_CLASS_NAME_LEN);
		return;
	}
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (!cfg_expect_mapping(ctx, val, "the class's settings (sl, vl, share, priority, ...)"))
		return;
	if (value_of(ctx, val, "sl") == NULL)
		cfg_error(ctx, key, "class %s has no sl", name);
	cfg_parse_fields(ctx, val, class_fields, &cc);
	nodes->sl = value_of(ctx, val, "sl");
	nodes->vl = value_of(ctx, val, "vl");
	nodes->share = value_of(ctx, val, "share");
	c->sl = (uint8_t)cc.sl;
	c->vl = (uint8_t)cc.vl;
	c->share = (uint8_t)cc.share;
	c->high = cc.priority == 1;
}

/* ---- lint ---- */

static bool
sid_overlap(const struct qos_class *a, const struct qos_class *b)
{
	for (size_t i = 0; i < a->nsids; i++)
		for (size_t j = 0; j < b->nsids; j++)
			if (a->sids[i].lo <= b->sids[j].hi && b->sids[j].lo <= a->sids[i].hi)
				return true;
	return false;
}

static bool
pkey_shared(const struct qos_class *a, const struct qos_class *b)
{
	for (size_t i = 0; i < a->npkeys; i++)
		for (size_t j = 0; j < b->npkeys; j++)
			if (a->pkeys[i] == b->pkeys[j])
				return true;
	return false;
}

/* The weight a VL gets on a port operating VL0-7 (masked as the tables are). */
static unsigned
vl_weight(const struct qos_policy *p, uint8_t vl)
{
	unsigned w = 0;

	for (size_t i = 0; i < p->nclasses; i++)
		if ((p->classes[i].vl & 7) == (vl & 7))
			w += p->classes[i].share;
	return w;
}

static void
lint_pair(struct cfg_ctx *ctx, const struct qos_class *a, const struct qos_class *b,
    const struct class_nodes *nb)
{
	if (a->sl == b->sl)
		cfg_error(ctx, nb->sl ? nb->sl : nb->key, "class %s has SL %u, as class %s does: "
		    "an SL belongs to one class", b->name, b->sl, a->name);
	if (a->vl != b->vl && (a->vl & 7) == (b->vl & 7))
		cfg_error(ctx, nb->vl ? nb->vl : nb->key, "class %s's VL %u and class %s's VL %u "
		    "are the same VL on a port operating VL0-7 (most HCAs and switches)",
		    b->name, b->vl, a->name, a->vl);
	if (strcmp(a->name, b->name) == 0)
		cfg_error(ctx, nb->key, "class %s is defined twice", b->name);
	if (pkey_shared(a, b))
		cfg_error(ctx, nb->pkeys ? nb->pkeys : nb->key, "class %s names a P_Key class %s "
		    "names too", b->name, a->name);
	if (sid_overlap(a, b))
		cfg_error(ctx, nb->services ? nb->services : nb->key, "class %s's services overlap "
		    "class %s's", b->name, a->name);
}

static void
lint(struct cfg_ctx *ctx, yaml_node_t *classes, const struct qos_policy *p,
    const struct class_nodes *nodes)
{
	unsigned sum = 0;

	for (size_t i = 0; i < p->nclasses; i++) {
		const struct qos_class *c = &p->classes[i];

		sum += c->share;
		for (size_t j = 0; j < i; j++)
			lint_pair(ctx, &p->classes[j], c, &nodes[i]);
		if (vl_weight(p, c->vl) == 0)
			cfg_error(ctx, nodes[i].share ? nodes[i].share : nodes[i].key,
			    "class %s's SL %u runs on VL %u, which no class gives a share: "
			    "its packets would never be sent", c->name, c->sl, c->vl);
	}
	if (p->nclasses && sum != 100)
		cfg_error(ctx, classes, "the classes' shares add up to %u, not 100 (every port "
		    "carries every class)", sum);
	if (p->nclasses && qos_class_of_sl(p, 0) == NULL && vl_weight(p, 0) == 0)
		cfg_error(ctx, classes, "the SLs of no class run on VL 0, which no class gives "
		    "a share: give SL 0 a class, or VL 0 a share");
}

static bool
parse_classes(struct cfg_ctx *ctx, yaml_node_t *map, void *field)
{
	struct qos_policy *p = (struct qos_policy *)((char *)field -
	    offsetof(struct qos_policy, classes));
	struct class_nodes nodes[QOS_MAX_CLASSES];

	p->nclasses = 0;
	if (!cfg_expect_mapping(ctx, map, "a mapping of class names to settings"))
		return false;
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		if (p->nclasses == QOS_MAX_CLASSES) {
			cfg_error(ctx, cfg_node(ctx, pr->key), "at most %d classes", QOS_MAX_CLASSES);
			break;
		}
		memset(&nodes[p->nclasses], 0, sizeof(nodes[0]));
		parse_class(ctx, cfg_node(ctx, pr->key), cfg_node(ctx, pr->value),
		    &p->classes[p->nclasses], &nodes[p->nclasses]);
		p->nclasses++;
	}
	lint(ctx, map, p, nodes);
	return true;
}

static const struct cfg_field qos_fields[] = {
	CFG_F_BOOL("enabled", struct qos_policy, enabled),
	CFG_F_UINT("high_limit", struct qos_policy, high_limit, 0, 255),
	CFG_F_CUSTOM("classes", struct qos_policy, classes, parse_classes),
	CFG_F_END
};

bool
sm_qos_parse(struct cfg_ctx *ctx, yaml_node_t *node, void *field)
{
	struct qos_policy *p = field;

	cfg_parse_fields(ctx, node, qos_fields, p);
	return true;
}
