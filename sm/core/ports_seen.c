/*
 * Ports that have had a peer since fabricd started.  A cabled port whose
 * link went down and a port no cable ever reached read the same (Down,
 * Polling: on hardware and under ibsim), and an operator asking for the
 * down ports means the first: 324 uncabled spine ports buried the one
 * pulled cable.  Noted at every publish of a model, O(ports); keyed
 * (node GUID << 8) | port (GUIDs that differ only in their top byte would
 * share a key: a vendor's GUIDs do not).
 */
#include "sm/core/sm_internal.h"

static uint64_t
port_key(uint64_t node_guid, uint8_t port)
{
	return node_guid << 8 | port;
}

void
sm_ports_seen_note(struct sm *sm, const struct fabric *f)
{
	struct fabric_node *n;
	size_t i;

	if (f == NULL)
		return;
	FABRIC_FOREACH_NODE(f, i, n)
		for (unsigned j = 1; j <= n->nports; j++)
			if (n->ports[j].peer != NULL)
				guid_map_put(&sm->linked, port_key(n->guid, (uint8_t)j), (void *)1);
}

bool
sm_port_was_linked(const struct sm *sm, const struct fabric_port *p)
{
	return p->peer != NULL || guid_map_get(&sm->linked, port_key(p->node->guid, p->num));
}

void
sm_ports_seen_free(struct sm *sm)
{
	guid_map_free(&sm->linked);
}
