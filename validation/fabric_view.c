/*
 * What validation reads of the fabric, through the SM's public headers
 * only: a host's ports (CA nodes whose NodeDescription starts with the
 * host name, OFED's "<host> <hca>" convention) and the walk of a route
 * through the programmed forwarding tables.
 *
 * The SM is the daemon's, handed over by validation's start
 * (view_attach); its fabric is NULL while the SM is disabled or has not
 * swept: every check that needs the fabric then says so instead of
 * guessing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

#include <jansson.h>

#include "fabric/routing.h"
#include "sm/sm.h"
#include "validation/fabric_view.h"


/*
 * Where each host port was last cabled.  A host whose cable is pulled
 * drops out of the fabric model altogether; this memory lets pre-flight
 * still name the port (and the switch port it hung off).  Refreshed after
 * every SM sweep and before every check; lost at restart.
 */
struct remembered {
	char		 host[FABRIC_NODE_DESC_LEN + 1];
	char		 hca[VIEW_NAME_LEN];
	uint8_t		 port;
	uint64_t	 peer_guid;
	uint8_t		 peer_port;
	char		 peer_desc[FABRIC_NODE_DESC_LEN + 1];
	size_t		 chain;		/* next entry in its hash bucket, or NONE */
};
static struct remembered *memory;
static size_t nmemory;
/* The entries hashed by host name: a scan of every entry for each of
 * 1,296 hosts' ports held the loop 3-6 ms after each sweep. */
#define NONE	((size_t)-1)
static size_t *buckets;
static size_t nbuckets;		/* a power of two, at least twice nmemory */

static struct sm *served;	/* view_attach() */

void view_attach(struct sm *sm) { served = sm; }
struct sm *view_sm(void) { return served; }
struct fabric *view_fabric(void) { return sm_fabric(served); }

/* "host1" or "host1 mlx5_0" (any further words ignored). */
static bool
desc_host(const char *desc, const char *host, char *hca, size_t hcalen)
{
	size_t hl = strlen(host);
	const char *rest;

	if (strncmp(desc, host, hl) != 0 || (desc[hl] != '\0' && desc[hl] != ' '))
		return false;
	rest = desc + hl;
	while (*rest == ' ')
		rest++;
	snprintf(hca, hcalen, "%.*s", (int)strcspn(rest, " "), rest);
	return true;
}

size_t
view_host_ports(struct fabric *f, const char *host, struct view_port *out, size_t max)
{
	struct fabric_node *n;
	size_t i, w = 0;
	uint8_t p;

	FABRIC_FOREACH_NODE(f, i, n) {
		char hca[VIEW_NAME_LEN];
		if (n->type != FABRIC_CA || !desc_host(n->desc, host, hca, sizeof(hca)))
			continue;
		for (p = 1; p <= n->nports && w < max; p++) {
			out[w].port = &n->ports[p];
			snprintf(out[w].hca, sizeof(out[w].hca), "%s", hca);
			w++;
		}
	}
	return w;
}

/*
 * The fabric's CA nodes by host name, for a request that looks up many
 * hosts: view_host_ports() walks every node, and a pre-flight over 1,296
 * hosts did that 1,296 times on the loop.  Built for one request and
 * freed with it (a model is replaced by each heavy sweep).
 */
struct view_hosts {
	struct fabric	*f;
	size_t		 nbuckets;	/* a power of two */
	size_t		*bucket;	/* first node of a bucket, or NONE */
	size_t		*next;		/* the next node of its bucket, by node index */
};

static size_t
name_bucket(const char *name, size_t len, size_t nb)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h & (nb - 1);
}

struct view_hosts *
view_hosts_new(struct fabric *f)
{
	struct view_hosts *vh = xcalloc(1, sizeof(*vh));
	size_t n = f ? fabric_node_count(f) : 0, i;

	vh->f = f;
	for (vh->nbuckets = 64; vh->nbuckets < 2 * n; vh->nbuckets *= 2)
		;
	vh->bucket = xreallocarray(NULL, vh->nbuckets, sizeof(*vh->bucket));
	vh->next = xreallocarray(NULL, n ? n : 1, sizeof(*vh->next));
	for (i = 0; i < vh->nbuckets; i++)
		vh->bucket[i] = NONE;
	/* from the last node back, so that each chain runs in node order */
	for (i = n; i-- > 0;) {
		const struct fabric_node *node = fabric_node_at(f, i);
		size_t b;

		if (node->type != FABRIC_CA)
			continue;
		b = name_bucket(node->desc, strcspn(node->desc, " "), vh->nbuckets);
		vh->next[i] = vh->bucket[b];
		vh->bucket[b] = i;
	}
	return vh;
}

size_t
view_hosts_ports(const struct view_hosts *vh, const char *host, struct view_port *out,
    size_t max)
{
	size_t i, w = 0;
	uint8_t p;

	if (vh->f == NULL)
		return 0;
	for (i = vh->bucket[name_bucket(host, strlen(host), vh->nbuckets)]; i != NONE;
	    i = vh->next[i]) {
		struct fabric_node *n = fabric_node_at(vh->f, i);
		char hca[VIEW_NAME_LEN];

		if (!desc_host(n->desc, host, hca, sizeof(hca)))
			continue;
		for (p = 1; p <= n->nports && w < max; p++) {
			out[w].port = &n->ports[p];
			snprintf(out[w].hca, sizeof(out[w].hca), "%s", hca);
			w++;
		}
	}
	return w;
}

void
view_hosts_free(struct view_hosts *vh)
{
	if (vh == NULL)
		return;
	free(vh->bucket);
	free(vh->next);
	free(vh);
}

void
view_port_name(const struct fabric_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", p->node->desc[0] ? p->node->desc : "?", p->num);
}

int
view_walk(const struct fabric_port *src, const struct fabric_port *dst,
    struct routing_hop *hops, size_t max, size_t *nhops)
{
	return (int)routing_walk(src, dst->lid, routing_lookup_programmed, NULL, hops, max, nhops);
}

static size_t
host_bucket(const char *host)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*host)
		h = (h ^ (uint8_t)*host++) * 16777619u;
	return h & (nbuckets - 1);
}

static void
rehash(size_t want)
{
	size_t i;

	free(buckets);
	buckets = xreallocarray(NULL, want, sizeof(*buckets));
	nbuckets = want;
	for (i = 0; i < nbuckets; i++)
		buckets[i] = NONE;
	for (i = 0; i < nmemory; i++) {
		size_t b = host_bucket(memory[i].host);
		memory[i].chain = buckets[b];
		buckets[b] = i;
	}
}

/* The first entry of host's bucket (then follow chain, comparing hosts). */
static size_t
bucket_head(const char *host)
{
	return nbuckets ? buckets[host_bucket(host)] : NONE;
}

static struct remembered *
recall_slot(const char *host, uint8_t port)
{
	size_t i, b;

	for (i = bucket_head(host); i != NONE; i = memory[i].chain)
		if (memory[i].port == port && strcmp(memory[i].host, host) == 0)
			return &memory[i];
	memory = xreallocarray(memory, nmemory + 1, sizeof(*memory));
	memset(&memory[nmemory], 0, sizeof(*memory));
	snprintf(memory[nmemory].host, sizeof(memory[nmemory].host), "%s", host);
	memory[nmemory].port = port;
	nmemory++;
	if (nmemory * 2 > nbuckets)
		rehash(nbuckets ? nbuckets * 2 : 64);
	else {
		b = host_bucket(host);
		memory[nmemory - 1].chain = buckets[b];
		buckets[b] = nmemory - 1;
	}
	return &memory[nmemory - 1];
}

/* One host port's cable; most are as the last sweep found them. */
static void
remember_port(const char *host, const char *hca, uint8_t port, const struct fabric_port *peer)
{
	struct remembered *r = recall_slot(host, port);

	if (r->peer_guid == peer->node->guid && r->peer_port == peer->num &&
	    strcmp(r->hca, hca) == 0 && strcmp(r->peer_desc, peer->node->desc) == 0)
		return;
	snprintf(r->hca, sizeof(r->hca), "%s", hca);
	r->peer_guid = peer->node->guid;
	r->peer_port = peer->num;
	snprintf(r->peer_desc, sizeof(r->peer_desc), "%s", peer->node->desc);
}

void
view_remember(struct fabric *f)
{
	struct fabric_node *n;
	size_t i, hl;
	uint8_t p;

	if (f == NULL)
		return;
	FABRIC_FOREACH_NODE(f, i, n) {
		char host[FABRIC_NODE_DESC_LEN + 1];
		const char *hca;

		if (n->type != FABRIC_CA)
			continue;
		hl = strcspn(n->desc, " ");
		if (hl >= sizeof(host))
			hl = sizeof(host) - 1;
		memcpy(host, n->desc, hl);
		host[hl] = '\0';
		hca = n->desc + hl + (n->desc[hl] ? 1 : 0);
		for (p = 1; p <= n->nports; p++)
			if (n->ports[p].peer != NULL)
				remember_port(host, hca, p, n->ports[p].peer);
	}
}

size_t
view_recall(struct fabric *f, const char *host, struct view_lost *out, size_t max)
{
	size_t mine[256], n = 0, i, w = 0;

	/* a bucket's chain runs newest first: collect, then oldest first */
	for (i = bucket_head(host); i != NONE && n < 256; i = memory[i].chain)
		if (strcmp(memory[i].host, host) == 0)
			mine[n++] = i;
	while (n > 0 && w < max) {
		const struct remembered *r = &memory[mine[--n]];
		struct fabric_node *sw;

		memset(&out[w], 0, sizeof(out[w]));
		out[w].port = r->port;
		snprintf(out[w].hca, sizeof(out[w].hca), "%s", r->hca);
		snprintf(out[w].peer_desc, sizeof(out[w].peer_desc), "%s", r->peer_desc);
		out[w].peer_port = r->peer_port;
		sw = fabric_node_by_guid(f, r->peer_guid);
		if (sw != NULL && r->peer_port <= sw->nports)
			out[w].peer = &sw->ports[r->peer_port];
		w++;
	}
	return w;
}

static void
after_sweep(struct fabric *f, bool topology_changed, void (*done)(void *token), void *token,
    void *arg)
{
	view_remember(f);
	done(token);
}

void
view_hook_install(void)
{
	sm_add_hook(served, SM_HOOK_AFTER_SWEEP, after_sweep, NULL);
}

void
view_forget(void)
{
	free(memory);
	memory = NULL;
	nmemory = 0;
	free(buckets);
	buckets = NULL;
	nbuckets = 0;
	served = NULL;
}

json_t *
view_route_json(struct fabric *f, const char *a, const char *b,
    const char *(*port_health)(const struct fabric_port *))
{
	struct view_port pa[VIEW_MAX_PORTS], pb[VIEW_MAX_PORTS];
	struct routing_hop hops[FABRIC_MAX_HOPS];
	size_t na, nb, nh = 0, i;
	json_t *route = json_array();
	int st;

	if (f == NULL)
		return route;
	na = view_host_ports(f, a, pa, VIEW_MAX_PORTS);
	nb = view_host_ports(f, b, pb, VIEW_MAX_PORTS);
	if (na == 0 || nb == 0 || pb[0].port->lid == 0)
		return route;
	st = view_walk(pa[0].port, pb[0].port, hops, FABRIC_MAX_HOPS, &nh);
	for (i = 0; i < nh; i++) {
		const struct fabric_node *n = hops[i].node;
		const struct fabric_port *p;
		json_t *hop;
		if (hops[i].out_port == 0 || hops[i].out_port > n->nports)
			continue;
		p = &n->ports[hops[i].out_port];
		hop = json_pack("{s:s, s:i, s:s, s:b}", "node", n->desc, "port", p->num, "state",
		    fabric_port_state_name(p->state), "degraded", p->degraded);
		if (port_health != NULL)
			json_object_set_new(hop, "health", json_string(port_health(p)));
		json_array_append_new(route, hop);
	}
	if (st != ROUTING_WALK_OK)
		json_array_append_new(route, json_pack("{s:s}", "error",
		    routing_walk_status_str((enum routing_walk_status)st)));
	return route;
}
