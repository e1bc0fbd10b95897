/*
 * The fabric model: nodes in an array, found by GUID through open-addressing
 * hash tables and by LID through a flat array (49151 pointers: cheaper than
 * any cleverness, and O(1)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/xmalloc.h"
#include "fabric/fabric.h"

struct fabric {
	struct fabric_node	**nodes;
	size_t			 nnodes, cap;
	struct guid_map		 by_guid, by_port_guid;
	struct fabric_port	*by_lid[FABRIC_MAX_LID + 1];
	uint64_t		 serial;	/* fabric_serial() */
};

struct fabric *
fabric_new(void)
{
	static uint64_t made;
	struct fabric *f = xcalloc(1, sizeof(struct fabric));

	f->serial = ++made;
	return f;
}

uint64_t
fabric_serial(const struct fabric *f)
{
	return f->serial;
}

void
fabric_free(struct fabric *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nnodes; i++) {
		free(f->nodes[i]->ports);
		free(f->nodes[i]->lft);
		free(f->nodes[i]->qos);
		free(f->nodes[i]);
	}
	free(f->nodes);
	guid_map_free(&f->by_guid);
	guid_map_free(&f->by_port_guid);
	free(f);
}

struct fabric_node *
fabric_add_node(struct fabric *f, uint64_t guid, enum fabric_node_type type, uint8_t nports)
{
	struct fabric_node *n = xcalloc(1, sizeof(*n));
	unsigned i;

	n->guid = guid;
	n->type = type;
	n->nports = nports;
	n->ports = xcalloc(nports + 1, sizeof(*n->ports));
	for (i = 0; i <= nports; i++) {
		n->ports[i].node = n;
		n->ports[i].num = i;
	}
	if (f->nnodes == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->nodes = xreallocarray(f->nodes, f->cap, sizeof(*f->nodes));
	}
	f->nodes[f->nnodes++] = n;
	guid_map_put(&f->by_guid, guid, n);
	return n;
}

int
fabric_index_port_guid(struct fabric *f, struct fabric_port *p)
{
	struct fabric_port *old = guid_map_get(&f->by_port_guid, p->guid);

	if (old && old != p)
		return -1;
	guid_map_put(&f->by_port_guid, p->guid, p);
	return 0;
}

void
fabric_set_lid(struct fabric *f, struct fabric_port *p, uint16_t lid)
{
	if (p->lid && p->lid <= FABRIC_MAX_LID && f->by_lid[p->lid] == p)
		f->by_lid[p->lid] = NULL;
	p->lid = lid;
	if (p->node->type == FABRIC_SWITCH && p->num == 0)
		p->node->lid = lid;
	else if (p->node->type != FABRIC_SWITCH &&
	    (p->num == p->node->path_port || p->node->lid == 0))
		p->node->lid = lid;
	if (lid && lid <= FABRIC_MAX_LID)
		f->by_lid[lid] = p;
}

void
fabric_link(struct fabric_port *a, struct fabric_port *b)
{
	a->peer = b;
	b->peer = a;
}

static int
node_cmp(const void *a, const void *b)
{
	const struct fabric_node *x = *(struct fabric_node *const *)a;
	const struct fabric_node *y = *(struct fabric_node *const *)b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

void
fabric_sort(struct fabric *f)
{
	if (f->nnodes > 1)
		qsort(f->nodes, f->nnodes, sizeof(*f->nodes), node_cmp);
}

void
fabric_lft_reserve(struct fabric_node *sw, size_t n)
{
	if (n <= sw->lft_len)
		return;
	n = (n + 63) & ~(size_t)63;
	sw->lft = xreallocarray(sw->lft, n, 1);
	memset(sw->lft + sw->lft_len, 0xFF, n - sw->lft_len);
	sw->lft_len = n;
}

bool
fabric_port_path(const struct fabric_port *p, uint8_t *path, uint8_t *hops)
{
	const struct fabric_node *n = p->node;
	const struct fabric_port *peer;

	if (n->type == FABRIC_SWITCH || p->num == n->path_port) {
		memcpy(path, n->path, sizeof(n->path));
		*hops = n->hops;
		return true;
	}
	/* Another port of a CA: a path cannot transit the CA, so go through
	 * the switch on the other end of that port's cable. */
	peer = p->peer;
	if (peer == NULL || peer->node->type != FABRIC_SWITCH ||
	    peer->node->hops + 1 >= FABRIC_MAX_HOPS)
		return false;
	memcpy(path, peer->node->path, sizeof(peer->node->path));
	*hops = peer->node->hops + 1;
	path[*hops] = peer->num;
	return true;
}

const char *
fabric_node_type_name(enum fabric_node_type t)
{
	switch (t) {
	case FABRIC_CA:		return "ca";
	case FABRIC_SWITCH:	return "switch";
	case FABRIC_ROUTER:	return "router";
	}
	return "unknown";
}

static const struct {
	const char	*name, *key;
} port_states[] = {
	[FABRIC_PORT_NOP] = { "NOP", "?" },
	[FABRIC_PORT_DOWN] = { "DOWN", "down" },
	[FABRIC_PORT_INIT] = { "INIT", "init" },
	[FABRIC_PORT_ARMED] = { "ARMED", "armed" },
	[FABRIC_PORT_ACTIVE] = { "ACTIVE", "active" },
};

const char *
fabric_port_state_name(uint8_t state)
{
	return state <= FABRIC_PORT_ACTIVE ? port_states[state].name : "?";
}

const char *
fabric_port_state_key(uint8_t state)
{
	return state <= FABRIC_PORT_ACTIVE ? port_states[state].key : "?";
}

const char *
fabric_phys_state_name(uint8_t phys)
{
	static const char *const names[] = { "NoChange", "Sleep", "Polling", "Disabled",
	    "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest" };

	return phys < sizeof(names) / sizeof(names[0]) ? names[phys] : "unknown";
}

const char *
fabric_width_name(uint8_t width)
{
	switch (width) {
	case 1:		return "1x";
	case 2:		return "4x";
	case 4:		return "8x";
	case 8:		return "12x";
	case 16:	return "2x";
	}
	return "?";
}

const char *
fabric_speed_name(const struct fabric_port *p)
{
	/* An extended speed, when active, overrides LinkSpeedActive. */
	switch (p->ext_speed_active) {
	case 1: return "FDR";
	case 2: return "EDR";
	case 4: return "HDR";
	case 8: return "NDR";
	}
	switch (p->speed_active) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	}
	return "?";
}

struct fabric_node *
fabric_node_by_guid(const struct fabric *f, uint64_t guid)
{
	return guid_map_get(&f->by_guid, guid);
}

struct fabric_port *
fabric_port_by_guid(const struct fabric *f, uint64_t port_guid)
{
	return guid_map_get(&f->by_port_guid, port_guid);
}

struct fabric_port *
fabric_port_by_lid(const struct fabric *f, uint16_t lid)
{
	return lid && lid <= FABRIC_MAX_LID ? f->by_lid[lid] : NULL;
}

struct fabric_node *
fabric_node_lookup(const struct fabric *f, const char *name)
{
	struct fabric_port *p;
	char *end;
	unsigned long long v;
	size_t i;

	for (i = 0; i < f->nnodes; i++)
		if (strcmp(f->nodes[i]->desc, name) == 0)
			return f->nodes[i];
	errno = 0;
	v = strtoull(name, &end, 0);
	if (errno || *name == 0 || *end != 0)
		return NULL;
	if (v <= FABRIC_MAX_LID && (p = fabric_port_by_lid(f, (uint16_t)v)) != NULL)
		return p->node;
	if (fabric_node_by_guid(f, v))
		return fabric_node_by_guid(f, v);
	if ((p = fabric_port_by_guid(f, v)) != NULL)
		return p->node;
	return NULL;
}

/* The text after the colon, as a port number: -1 with why set. */
static int
port_number(const char *spec, const char *num, char *why, size_t len)
{
	const char *d = num + (*num == '-');
	unsigned long v;
	char *end;

	if (*num == '\0') {
		snprintf(why, len, "\"%s\": no port number after the colon (expected NODE:PORT, "
		    "PORT a number up to %d)", spec, FABRIC_MAX_PORT);
		return -1;
	}
	errno = 0;
	v = strtoul(d, &end, 10);
	/* digits only: strtoul would take "+1", " 1" and "-1" as numbers */
	if (*d < '0' || *d > '9' || *end != '\0')
		snprintf(why, len, "\"%s\": \"%s\" after the colon is not a port number "
		    "(expected NODE:PORT, PORT a number up to %d)", spec, num, FABRIC_MAX_PORT);
	else if (d != num)
		snprintf(why, len, "\"%s\": port %s is negative (expected NODE:PORT, PORT a number "
		    "up to %d)", spec, num, FABRIC_MAX_PORT);
	else if (errno == ERANGE || v > FABRIC_MAX_PORT)
		snprintf(why, len, "\"%s\": port %s is out of range (expected NODE:PORT, PORT a "
		    "number up to %d)", spec, num, FABRIC_MAX_PORT);
	else
		return (int)v;
	return -1;
}

enum fabric_port_arg
fabric_port_arg(const char *spec, size_t *node_len, int *port, char *why, size_t why_len)
{
	const char *colon = strrchr(spec, ':');

	*port = -1;
	*node_len = strlen(spec);
	if (colon == NULL)
		return FABRIC_ARG_NO_PORT;
	if (colon == spec) {
		snprintf(why, why_len, "\"%s\": no node before the colon (expected NODE:PORT, NODE "
		    "a name, GUID or LID)", spec);
		return FABRIC_ARG_BAD;
	}
	if ((*port = port_number(spec, colon + 1, why, why_len)) < 0)
		return FABRIC_ARG_BAD;
	*node_len = (size_t)(colon - spec);
	return FABRIC_ARG_OK;
}

enum fabric_spec
fabric_port_spec(const struct fabric *f, const char *spec, struct fabric_node **n, int *port,
    char *why, size_t why_len)
{
	enum fabric_port_arg a;
	size_t nl;
	char *s;

	*n = NULL;
	a = fabric_port_arg(spec, &nl, port, why, why_len);
	if (a == FABRIC_ARG_OK) {
		s = xstrndup(spec, nl);
		*n = fabric_node_lookup(f, s);
		free(s);
		if (*n == NULL) {
			snprintf(why, why_len, "no node \"%.*s\" in the fabric (NODE:PORT, NODE a "
			    "name, GUID or LID)", (int)nl, spec);
			return FABRIC_SPEC_NO_NODE;
		}
		if (*port > (*n)->nports) {
			snprintf(why, why_len, "%s has ports 1-%u, not %d", (*n)->desc, (*n)->nports,
			    *port);
			return FABRIC_SPEC_RANGE;
		}
		return FABRIC_SPEC_OK;
	}
	/* NODE alone, or a description that holds a colon and no port */
	*port = -1;
	*n = fabric_node_lookup(f, spec);
	if (*n == NULL && a == FABRIC_ARG_BAD)
		return FABRIC_SPEC_BAD;
	snprintf(why, why_len, "\"%s\": expected NODE:PORT (NODE a name, GUID or LID, PORT a "
	    "number)", spec);
	return FABRIC_SPEC_NO_PORT;
}

size_t
fabric_node_count(const struct fabric *f)
{
	return f->nnodes;
}

struct fabric_node *
fabric_node_at(const struct fabric *f, size_t i)
{
	return i < f->nnodes ? f->nodes[i] : NULL;
}
