/*
 * The ports the routing engines route around: health isolates a failing
 * link by naming its ports here and asking the SM for a heavy sweep.  The
 * engine itself is untouched: for the one routing_compute_fabric() call the
 * SM makes, both ends of an excluded link lose their peer (the header's
 * "callers that want to route around links leave peer NULL"), and get it
 * back right after, so discovery, the SA and route queries still see the
 * cable as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fabric/routing.h"

struct excl {
	uint64_t	guid;
	uint8_t		port;
};
static struct excl *excl;
static size_t nexcl;

void
routing_exclude_set(const uint64_t *guids, const uint8_t *ports, size_t n)
{
	free(excl);
	excl = n ? xcalloc(n, sizeof(*excl)) : NULL;
	for (size_t i = 0; i < n; i++)
		excl[i] = (struct excl){ guids[i], ports[i] };
	nexcl = n;
}

bool
routing_excluded(uint64_t node_guid, uint8_t port)
{
	for (size_t i = 0; i < nexcl; i++)
		if (excl[i].guid == node_guid && excl[i].port == port)
			return true;
	return false;
}

/* Unhook both ends of every excluded link; *cut gets them in pairs
 * (port, its peer) for routing_exclude_restore().  Returns the pair count. */
size_t
routing_exclude_cut(struct fabric *f, struct fabric_port ***cut)
{
	struct fabric_node *n;
	size_t i, k = 0;

	*cut = nexcl ? xcalloc(2 * nexcl, sizeof(**cut)) : NULL;
	if (nexcl == 0)
		return 0;
	FABRIC_FOREACH_NODE(f, i, n)
		for (unsigned p = 1; p <= n->nports && k < nexcl; p++) {
			struct fabric_port *pt = &n->ports[p];
			if (pt->peer == NULL || !routing_excluded(n->guid, (uint8_t)p))
				continue;
			(*cut)[2 * k] = pt;
			(*cut)[2 * k + 1] = pt->peer;
			pt->peer->peer = NULL;
			pt->peer = NULL;
			k++;
		}
	return k;
}

void
routing_exclude_restore(struct fabric_port **cut, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		cut[2 * k]->peer = cut[2 * k + 1];
		cut[2 * k + 1]->peer = cut[2 * k];
	}
	free(cut);
}
