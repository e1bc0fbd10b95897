/*
 * What validation reads of the fabric, through the SM's public headers
 * only: a host's ports (CA nodes whose NodeDescription starts with the
 * host name, OFED's "<host> <hca>" convention) and the walk of a route
 * through the programmed forwarding tables.
 *
 * The SM's symbols are weak references: a daemon linked without the SM
 * (or a unit test) sees them as NULL and every check that needs the
 * fabric says "skipped: module not available" instead of guessing.
 */
#include <stdio.h>
#include <string.h>

#include "sm/routing.h"
#include "sm/sm.h"
#include "validation/fabric_view.h"

#pragma weak sm_fabric
#pragma weak fabric_node_count
#pragma weak fabric_node_at

struct fabric *
view_fabric(void)
{
	if (sm_fabric == NULL || fabric_node_count == NULL || fabric_node_at == NULL)
		return NULL;
	return sm_fabric();
}

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

const char *
view_port_state_name(uint8_t state)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };

	return state < 5 ? names[state] : "?";
}

void
view_port_name(const struct fabric_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s port %u", p->node->desc[0] ? p->node->desc : "?", p->num);
}

int
view_walk(const struct fabric_port *src, const struct fabric_port *dst,
    struct routing_hop *hops, size_t max, size_t *nhops)
{
	return (int)routing_walk(src, dst->lid, routing_lookup_programmed, NULL, hops, max, nhops);
}
