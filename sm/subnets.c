/*
 * Several subnets in one daemon (issue 43): sm.subnets names the ports
 * fabricd serves, each with its subnet's name, and each port gets an SM
 * of its own: its LIDs, routing, SA, M_Keys, sweeps and election, its
 * rows in the store tagged with the name (schemas/150_sm_subnet.sql).
 *
 *   sm:
 *     enabled: true
 *     subnets:
 *       - name: plane1
 *         port: mlx5_0:1              # a device and its port, or
 *       - name: plane2
 *         port: 0x0002c90300000a02    # a port GUID
 *
 * The first subnet's SM is the daemon's (struct fabricd's sm), on the
 * engine the daemon opens: partitions, health and validation serve it,
 * as they serve the only SM without sm.subnets.  The others follow it on
 * sm->next_subnet, each on an engine it opens itself and closes at stop.
 * The SM's control commands take the subnet the request names
 * (sm_of_req, fabricctl --subnet).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/log.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "mad/mad.h"
#include "sm/core/sm_internal.h"
#include "sm/subnets.h"

_Static_assert(SM_SUBNET_NAME_MAX == CTL_SUBNET_NAME_MAX, "one length for a subnet's name");

static bool
name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > SM_SUBNET_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* "mlx5_0:1" or a GUID: false after recording why. */
static bool
parse_port(struct cfg_ctx *ctx, yaml_node_t *node, struct sm_subnet_config *sc)
{
	const char *s = cfg_scalar(ctx, node, "a port: DEVICE:PORT or a port GUID");
	const char *colon;
	char *end;
	unsigned long port;

	if (s == NULL)
		return false;
	if ((colon = strrchr(s, ':')) == NULL) {
		if (guid_parse(s, &sc->guid) == 0 && sc->guid != 0)
			return true;
		cfg_error(ctx, node, "expected DEVICE:PORT (mlx5_0:1) or a port GUID "
		    "(0x0002c90300000a01), found \"%s\"", s);
		return false;
	}
	port = strtoul(colon + 1, &end, 10);
	if (colon == s || (size_t)(colon - s) >= sizeof(sc->ca) || *end != '\0' ||
	    colon[1] == '\0' || port < 1 || port > 254) {
		cfg_error(ctx, node, "expected DEVICE:PORT with a device name of at most %zu "
		    "characters and a port 1-254 (mlx5_0:1), found \"%s\"", sizeof(sc->ca) - 1, s);
		return false;
	}
	memcpy(sc->ca, s, (size_t)(colon - s));
	sc->ca[colon - s] = '\0';
	sc->port = (unsigned)port;
	return true;
}

static bool
same_port(const struct sm_subnet_config *a, const struct sm_subnet_config *b)
{
	if (a->guid || b->guid)
		return a->guid == b->guid;
	return strcmp(a->ca, b->ca) == 0 && a->port == b->port;
}

/* A subnet's or a group's name into out (SM_SUBNET_NAME_MAX + 1 bytes);
 * false after recording why. */
static bool
parse_name(struct cfg_ctx *ctx, yaml_node_t *v, const char *what, char *out)
{
	const char *s = cfg_scalar(ctx, v, what);

	if (s != NULL && name_valid(s)) {
		snprintf(out, SM_SUBNET_NAME_MAX + 1, "%s", s);
		return true;
	}
	if (s)
		cfg_error(ctx, v, "%s is 1-%d letters, digits, '-', '_' or '.', found \"%s\"", what,
		    SM_SUBNET_NAME_MAX, s);
	return false;
}

/* One item: {name, port[, group]}; false after recording why. */
static bool
parse_one(struct cfg_ctx *ctx, yaml_node_t *item, struct sm_config *c)
{
	struct sm_subnet_config sc = { .name = "" };
	bool have_port = false, ok = true;
	yaml_node_pair_t *p;

	if (!cfg_expect_mapping(ctx, item, "a subnet: {name, port}"))
		return false;
	for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		yaml_node_t *k = cfg_node(ctx, p->key), *v = cfg_node(ctx, p->value);
		const char *key = cfg_scalar(ctx, k, "a key");

		if (key == NULL)
			ok = false;
		else if (strcmp(key, "name") == 0)
			ok = parse_name(ctx, v, "a subnet name", sc.name) && ok;
		else if (strcmp(key, "group") == 0)
			ok = parse_name(ctx, v, "a plane group's name", sc.group) && ok;
		else if (strcmp(key, "port") == 0)
			ok = (have_port = parse_port(ctx, v, &sc)) && ok;
		else {
			cfg_error(ctx, k, "unknown key \"%s\" in a subnet (name, port, group)", key);
			ok = false;
		}
	}
	if (ok && (sc.name[0] == '\0' || !have_port)) {
		cfg_error(ctx, item, "a subnet needs a name and a port");
		ok = false;
	}
	for (size_t i = 0; ok && i < c->nsubnets; i++) {
		if (strcmp(c->subnets[i].name, sc.name) == 0) {
			cfg_error(ctx, item, "subnet \"%s\" is named twice", sc.name);
			ok = false;
		} else if (same_port(&c->subnets[i], &sc)) {
			cfg_error(ctx, item, "subnets \"%s\" and \"%s\" name the same port",
			    c->subnets[i].name, sc.name);
			ok = false;
		}
	}
	if (ok)
		c->subnets[c->nsubnets++] = sc;
	return ok;
}

bool
sm_subnets_parse(struct cfg_ctx *ctx, yaml_node_t *seq, void *field)
{
	struct sm_config *c = (struct sm_config *)((char *)field -
	    offsetof(struct sm_config, subnets));
	yaml_node_item_t *it;
	bool ok = true;

	c->nsubnets = 0;
	if (!cfg_expect_sequence(ctx, seq, "subnets"))
		return false;
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		if (c->nsubnets == SM_MAX_SUBNETS) {
			cfg_error(ctx, cfg_node(ctx, *it), "at most %d subnets", SM_MAX_SUBNETS);
			return false;
		}
		ok = parse_one(ctx, cfg_node(ctx, *it), c) && ok;
	}
	if (ok && c->nsubnets == 0)
		cfg_error(ctx, seq, "subnets is empty: leave it out for one subnet");
	return ok;
}

void
sm_subnets_check(struct cfg_ctx *ctx, yaml_node_t *section, const struct sm_config *c)
{
	if (c->nsubnets == 0)
		return;
	if (c->port_guid)
		cfg_error(ctx, section, "port_guid and subnets both name ports: give each "
		    "port in subnets");
	if (!c->enabled && !c->observer.enabled)
		cfg_error(ctx, section, "subnets needs enabled: true, or an observer a subnet "
		    "(observer.enabled, the default with enabled: false)");
}

bool
sm_subnets_same(const struct sm_config *a, const struct sm_config *b)
{
	if (a->nsubnets != b->nsubnets)
		return false;
	for (size_t i = 0; i < a->nsubnets; i++) {
		const struct sm_subnet_config *x = &a->subnets[i], *y = &b->subnets[i];

		if (strcmp(x->name, y->name) != 0 || strcmp(x->group, y->group) != 0 ||
		    x->guid != y->guid ||
		    strcmp(x->ca, y->ca) != 0 || x->port != y->port)
			return false;
	}
	return true;
}

void
sm_subnet_engine_config(const struct sm_config *cfg, size_t i, struct mad_engine_config *mc)
{
	const struct sm_subnet_config *sc = &cfg->subnets[i];

	*mc = (struct mad_engine_config){
		.port_guid = sc->guid, .ca_port = sc->port,
		.window = (unsigned)cfg->max_outstanding,
		.timeout_ms = (unsigned)cfg->timeout_ms, .retries = (unsigned)cfg->retries,
		.no_issm = !cfg->enabled,	/* an observer reads: not the port's SM */
	};
	snprintf(mc->ca, sizeof(mc->ca), "%s", sc->ca);
}

/* The subnets after the first, each on an engine of its own; one that
 * cannot start is reported and left out, the others run. */
void
sm_subnets_start(struct fabricd *fd, const struct sm_config *cfg, sm_subnet_start_fn start)
{
	const char *names[SM_MAX_SUBNETS], *group = cfg->subnets[0].group;
	bool planes[SM_MAX_SUBNETS] = { true };
	struct sm **tail = &fd->sm->next_subnet;

	names[0] = cfg->subnets[0].name;
	for (size_t i = 1; i < cfg->nsubnets; i++) {
		struct mad_engine_config mc;
		struct mad_engine *me;
		struct sm *sm;

		names[i] = cfg->subnets[i].name;
		planes[i] = group[0] && strcmp(cfg->subnets[i].group, group) == 0;
		sm_subnet_engine_config(cfg, i, &mc);
		if ((me = mad_engine_open(fd->base, &mc)) == NULL) {
			event_post(EV_ERROR, "sm", NULL, "subnet %s: its port could not be opened; "
			    "its SM does not run", cfg->subnets[i].name);
			continue;
		}
		sm = start(fd, cfg, me, cfg->subnets[i].name);
		sm->own_engine = true;
		*tail = sm;
		tail = &sm->next_subnet;
	}
	control_set_subnets(names, planes, cfg->nsubnets);
}

void
sm_subnets_stop(struct fabricd *fd, void (*stop)(struct sm *))
{
	struct sm *next;

	control_set_subnets(NULL, NULL, 0);
	if (fd->sm == NULL)
		return;
	for (struct sm *sm = fd->sm->next_subnet; sm; sm = next) {
		struct mad_engine *me = sm->me;

		next = sm->next_subnet;
		stop(sm);
		mad_engine_close(me);	/* after its SM: its callbacks reach nobody */
	}
	fd->sm->next_subnet = NULL;
}

/* An observer's row: its view of the subnet for the SM's figures. */
static json_t *
observer_row(struct sm *sm, json_t *st)
{
	json_t *o = json_object_get(st, "observer");

	return json_pack("{s:s, s:s, s:O*, s:O*, s:o, s:O*, s:O*, s:O*}",
	    "name", sm->subnet, "state", "observer", "view", json_object_get(o, "view"),
	    "lid", json_object_get(o, "lid"), "port_guid", json_sprintf(GUID_FMT, sm->own_guid),
	    "master_lid", json_object_get(o, "master_lid"), "nodes", json_object_get(o, "nodes"),
	    "links", json_object_get(o, "links"));
}

/* One row a subnet, flat, so that `fabricctl status` shows a table:
 * the whole of an SM's status is its own (sm_status_json). */
static json_t *
subnet_row(struct sm *sm, json_t *st)
{
	json_t *sub = json_object_get(st, "subnet"), *mads = json_object_get(st, "mads");

	if (sm->observer)
		return observer_row(sm, st);
	return json_pack("{s:s, s:O*, s:O*, s:O*, s:o, s:O*, s:O*, s:O*, s:O*, s:O*}",
	    "name", sm->subnet, "state", json_object_get(st, "state"),
	    "subnet_state", json_object_get(sub, "state"), "lid", json_object_get(st, "lid"),
	    "port_guid", json_sprintf(GUID_FMT, sm->own_guid),
	    "switches", json_object_get(sub, "switches"), "cas", json_object_get(sub, "cas"),
	    "active_links", json_object_get(sub, "active_links"),
	    "sweeps", json_object_get(sub, "sweeps"), "mads_sent", json_object_get(mads, "sent"));
}

json_t *
sm_subnets_status(struct sm *first, json_t *(*status)(struct sm *))
{
	json_t *a = json_array();

	for (struct sm *sm = first; sm; sm = sm->next_subnet) {
		json_t *st = status(sm);

		json_array_append_new(a, subnet_row(sm, st));
		json_decref(st);
	}
	return a;
}
