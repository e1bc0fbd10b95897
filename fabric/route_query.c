/*
 * `route SRC DST` over the programmed forwarding tables (fabric/route_query.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "fabric/route_query.h"
#include "fabric/routing.h"

static json_t *
guid_json(uint64_t g)
{
	char buf[24];

	guid_format(g, buf, sizeof(buf));
	return json_string(buf);
}

json_t *
route_text_json(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j)
		return j;
	/* Not UTF-8 (a NodeDescription is 64 raw bytes): keep the ASCII. */
	copy = strdup(s);
	if (copy == NULL)
		return json_null();
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

/* The port a node stands for when it is named as a whole. */
static const struct fabric_port *
node_port(const struct fabric_node *n, const char **why)
{
	unsigned j;

	if (n->type == FABRIC_SWITCH)
		return &n->ports[0];
	for (j = 1; j <= n->nports; j++)
		if (n->ports[j].peer && n->ports[j].lid)
			return &n->ports[j];
	*why = "the node has no cabled port with a LID";
	return NULL;
}

/* A switch answers on port 0 whichever of its ports was named. */
static const struct fabric_port *
as_endpoint(const struct fabric_port *p)
{
	return p->node->type == FABRIC_SWITCH ? &p->node->ports[0] : p;
}

const struct fabric_port *
route_endpoint(const struct fabric *f, const char *name, const char **why)
{
	const struct fabric_port *p;
	const struct fabric_node *n;
	unsigned long long v;
	char *end;
	size_t i;

	*why = "no node has this name, GUID or LID";
	for (i = 0; i < fabric_node_count(f); i++)
		if (strcmp(fabric_node_at(f, i)->desc, name) == 0)
			return node_port(fabric_node_at(f, i), why);
	errno = 0;
	v = strtoull(name, &end, 0);
	if (errno || *name == 0 || *end != 0 || *name == '-')
		return NULL;
	if (v <= FABRIC_MAX_LID && (p = fabric_port_by_lid(f, (uint16_t)v)) != NULL)
		return as_endpoint(p);
	if ((n = fabric_node_by_guid(f, v)) != NULL)
		return node_port(n, why);
	if ((p = fabric_port_by_guid(f, v)) != NULL)
		return as_endpoint(p);
	return NULL;
}

static uint16_t
endpoint_lid(const struct fabric_port *p)
{
	return p->node->type == FABRIC_SWITCH ? p->node->lid : p->lid;
}

static json_t *
endpoint_json(const struct fabric_port *p)
{
	const struct fabric_node *n = p->node;

	return json_pack("{s:o, s:s, s:o, s:o, s:i, s:i}",
	    "name", route_text_json(n->desc), "type", fabric_node_type_name(n->type),
	    "node_guid", guid_json(n->guid), "port_guid", guid_json(p->guid),
	    "port", p->num, "lid", endpoint_lid(p));
}

/* A port number, or null where the walk has none (no entry). */
static json_t *
port_num_json(uint8_t num, const struct fabric_node *n)
{
	return num > n->nports ? json_null() : json_integer(num);
}

static json_t *
hop_json(const struct routing_hop *h)
{
	const struct fabric_node *n = h->node;
	uint8_t at = h->in_port ? h->in_port : h->out_port;
	uint16_t lid = n->lid;

	/* A CA's LID is its port's, and the walk says which port. */
	if (n->type != FABRIC_SWITCH && at >= 1 && at <= n->nports)
		lid = n->ports[at].lid;
	return json_pack("{s:o, s:o, s:s, s:i, s:o, s:o}",
	    "node", route_text_json(n->desc), "guid", guid_json(n->guid),
	    "type", fabric_node_type_name(n->type), "lid", lid,
	    "in_port", port_num_json(h->in_port, n), "out_port", port_num_json(h->out_port, n));
}

static const struct fabric_port *
resolve(const struct fabric *f, const char *which, const char *name, enum proto_error *code,
    char *err, size_t errlen)
{
	const char *why;
	const struct fabric_port *p = route_endpoint(f, name, &why);

	if (p != NULL && endpoint_lid(p) == 0 && strcmp(which, "dst") == 0) {
		why = "it has no LID yet";
		p = NULL;
	}
	if (p == NULL) {
		*code = PERR_NOT_FOUND;
		snprintf(err, errlen, "%s: %s: %s", which, name, why);
	}
	return p;
}

json_t *
route_query(const struct fabric *f, const char *src, const char *dst, enum proto_error *code,
    char *err, size_t errlen)
{
	struct routing_hop hops[FABRIC_MAX_HOPS + 2];
	const struct fabric_port *s, *d;
	enum routing_walk_status st;
	json_t *rows;
	size_t nh, i;

	if ((s = resolve(f, "src", src, code, err, errlen)) == NULL ||
	    (d = resolve(f, "dst", dst, code, err, errlen)) == NULL)
		return NULL;
	st = routing_walk(s, endpoint_lid(d), routing_lookup_programmed, NULL, hops,
	    sizeof(hops) / sizeof(hops[0]), &nh);
	rows = json_array();
	for (i = 0; i < nh; i++)
		json_array_append_new(rows, hop_json(&hops[i]));
	return json_pack("{s:o, s:o, s:s, s:s, s:o, s:i}",
	    "src", endpoint_json(s), "dst", endpoint_json(d),
	    "status", routing_walk_status_code(st), "message", routing_walk_status_str(st),
	    "hops", rows, "exit_code", st == ROUTING_WALK_OK ? 0 : 1);
}
