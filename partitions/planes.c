/*
 * The planes partitions serve (pt_state.planes: the first subnet and its
 * plane group), each a fabric, an SM and an engine: what the change
 * pipeline (change.c) and the sweep hook (sweep.c) both ask of them.
 */
#include <stdint.h>
#include <string.h>

#include "common/xmalloc.h"
#include "daemon/fabricd.h"
#include "partitions/internal.h"
#include "sm/sm.h"

/* NULL while the plane's SM is disabled or not master (another SM owns
 * its P_Key tables): changes are then stored and applied at the first
 * sweep as master. */
struct fabric *
pt_plane_fabric(size_t plane)
{
	struct sm *sm = plane < pt_state.nplanes ? pt_state.planes[plane] : NULL;

	return fabricd_mad() != NULL && sm_is_master(sm) ? sm_fabric(sm) : NULL;
}

struct fabric *
pt_fabric_now(void)
{
	return pt_plane_fabric(0);
}

struct sm *
pt_plane_sm(size_t plane)
{
	return plane < pt_state.nplanes ? pt_state.planes[plane] : NULL;
}

struct fabric_node **
pt_nodes_of(struct fabric *f, size_t *n)
{
	struct fabric_node **nodes, *node;
	size_t i;

	*n = fabric_node_count(f);
	nodes = xcalloc(*n ? *n : 1, sizeof(*nodes));
	FABRIC_FOREACH_NODE(f, i, node)
		nodes[i] = node;
	return nodes;
}

void
pt_plan_input(struct pt_plan_input *in, const struct pt_config *c, struct fabric_node **nodes,
    size_t n, bool strict, size_t plane)
{
	memset(in, 0, sizeof(*in));
	in->config = c;
	in->nodes = nodes;
	in->nnodes = n;
	in->plane = (uint8_t)plane;
	in->have_arg = (void *)(uintptr_t)plane;
	in->sm_port_guid = sm_own_port_guid(pt_plane_sm(plane));
	in->prev_index = pt_state.index;
	in->nprev_index = pt_state.nindex;
	in->strict_members = strict;
	in->committed = pt_state.model;
	in->have = pt_have_committed;
}

/* Each plane's MADs through its own SM's engine (the first: the daemon's). */
size_t
pt_plane_ios(struct mad_io *ios, const char **names)
{
	ios[0] = mad_io_engine(fabricd_mad());
	names[0] = pt_plane_name(0);
	for (size_t i = 1; i < pt_state.nplanes; i++) {
		ios[i] = sm_mad_io(pt_state.planes[i]);
		names[i] = pt_plane_name(i);
	}
	return pt_state.nplanes ? pt_state.nplanes : 1;
}
