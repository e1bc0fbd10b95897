/*
 * Planning P_Key tables.  See plan.h for the rules; the steps are
 *   1. list the end ports and the switch ports that face them,
 *   2. give each end port its memberships (default partition first),
 *   3. give each P_Key one index shared by all its ports,
 *   4. write the tables, checking capacity on both ends of each link.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/xmalloc.h"
#include "partitions/plan.h"

/* One end port while planning: its memberships before indices exist. */
struct end_port {
	struct fabric_node	*node;
	struct fabric_port	*fp;
	size_t			 plan_i;	/* its entry in plan->ports */
	ssize_t			 facing_i;	/* facing switch port's entry, or -1 */
	uint16_t		 cap;		/* min of its own and the facing port's */
	uint16_t		*keys;		/* pkey | full bit, default excluded */
	size_t			 nkeys;
};

struct planner {
	const struct pt_plan_input	*in;
	struct pt_plan			*plan;
	struct end_port			*ends;
	size_t				 nends;
	struct pt_err			*e;
	size_t				 ports_cap;	/* plan->ports allocated */
};

static uint16_t
cap_or_default(uint16_t cap)
{
	return cap == 0 ? PT_CAP_UNKNOWN_ENTRIES : cap;
}

/* The directed route to a port's node: CA ports are reached through the
 * switch port they are cabled to, so each port of a multi-port HCA is
 * addressed on its own link. */
void
pt_plan_port_addr(const struct fabric_node *n, const struct fabric_port *fp, struct mad_addr *a)
{
	const struct fabric_node *via = n;
	uint8_t extra = 0;

	memset(a, 0, sizeof(*a));
	a->directed = true;
	if (n->type != FABRIC_SWITCH && fp->peer != NULL &&
	    fp->peer->node->type == FABRIC_SWITCH && n->hops > 0) {
		via = fp->peer->node;
		extra = fp->peer->num;
	}
	a->hops = via->hops;
	memcpy(a->path, via->path, sizeof(a->path));
	if (extra != 0 && a->hops + 1 < (int)sizeof(a->path))
		a->path[++a->hops] = extra;
}

static size_t
plan_add_port(struct planner *pl, struct fabric_node *n, struct fabric_port *fp,
    bool switch_ext, uint16_t cap)
{
	struct pt_plan *p = pl->plan;
	struct pt_port_plan *pp;

	/* doubling: one port more at a time copied the array each time, 2,770
	 * ports at 1,296 hosts (seconds a plan under ASan, whose realloc
	 * always moves) */
	if (p->nports == pl->ports_cap) {
		pl->ports_cap = pl->ports_cap ? 2 * pl->ports_cap : 64;
		p->ports = xreallocarray(p->ports, pl->ports_cap, sizeof(*p->ports));
	}
	pp = &p->ports[p->nports];
	memset(pp, 0, sizeof(*pp));
	pp->plane = pl->in->plane;
	pp->node_guid = n->guid;
	pp->port = fp->num;
	pp->port_guid = fp->guid;
	pp->switch_ext = switch_ext;
	pp->is_sm = !switch_ext && pl->in->sm_port_guid != 0 && fp->guid == pl->in->sm_port_guid;
	snprintf(pp->label, sizeof(pp->label), "%s:%u", n->desc[0] ? n->desc : "?", fp->num);
	pt_plan_port_addr(n, fp, &pp->addr);
	pp->attr_mod_port = switch_ext ? (uint32_t)fp->num << 16 : 0;
	pp->cap = cap;
	pp->nblocks = (uint16_t)((cap + PT_BLOCK - 1) / PT_BLOCK);
	pp->want = xcalloc((size_t)pp->nblocks * PT_BLOCK, sizeof(uint16_t));
	return p->nports++;
}

static bool
is_end_port(const struct pt_plan_input *in, const struct fabric_node *n,
    const struct fabric_port *fp)
{
	if (n->type == FABRIC_SWITCH)
		return fp->num == 0;
	if (fp->num == 0)
		return false;
	return fp->peer != NULL || (in->sm_port_guid != 0 && fp->guid == in->sm_port_guid);
}

static void
collect_ports(struct planner *pl)
{
	const struct pt_plan_input *in = pl->in;

	for (size_t i = 0; i < in->nnodes; i++) {
		struct fabric_node *n = in->nodes[i];

		for (unsigned k = 0; k <= n->nports; k++) {
			struct fabric_port *fp = &n->ports[k];
			struct end_port *ep;
			uint16_t cap = cap_or_default(n->partition_cap);

			if (!is_end_port(in, n, fp))
				continue;
			pl->ends = xreallocarray(pl->ends, pl->nends + 1, sizeof(*pl->ends));
			ep = &pl->ends[pl->nends++];
			memset(ep, 0, sizeof(*ep));
			ep->node = n;
			ep->fp = fp;
			ep->facing_i = -1;
			if (n->type != FABRIC_SWITCH && fp->peer != NULL &&
			    fp->peer->node->type == FABRIC_SWITCH) {
				struct fabric_node *sw = fp->peer->node;
				uint16_t scap = cap_or_default(sw->partition_enforcement_cap);

				ep->facing_i = (ssize_t)plan_add_port(pl, sw, fp->peer, true, scap);
				if (scap < cap)
					cap = scap;
			}
			ep->cap = cap;
			ep->plan_i = plan_add_port(pl, n, fp, false, cap_or_default(n->partition_cap));
		}
	}
}

static bool
member_matches(const struct pt_member *m, const struct end_port *ep)
{
	switch (m->kind) {
	case PT_MEMBER_GUID:
		return ep->fp->guid == m->guid;
	case PT_MEMBER_NODE:
		return fnmatch(m->pattern, ep->node->desc, 0) == 0;
	case PT_MEMBER_ALL_CAS:
		return ep->node->type == FABRIC_CA;
	case PT_MEMBER_SWITCHES:
		return ep->node->type == FABRIC_SWITCH;
	}
	return false;
}

static void
end_add_key(struct end_port *ep, uint16_t pkey, bool full)
{
	for (size_t i = 0; i < ep->nkeys; i++)
		if ((ep->keys[i] & ~PT_PKEY_FULL) == pkey) {
			if (full)	/* full wins over limited */
				ep->keys[i] |= PT_PKEY_FULL;
			return;
		}
	ep->keys = xreallocarray(ep->keys, ep->nkeys + 1, sizeof(*ep->keys));
	ep->keys[ep->nkeys++] = (uint16_t)(pkey | (full ? PT_PKEY_FULL : 0));
}

/* Was m already a member of the partition in the committed set? */
static bool
member_known(const struct pt_config *committed, const char *partition, const struct pt_member *m)
{
	const struct pt_partition *p;

	if (committed == NULL || (p = pt_find(committed, partition)) == NULL)
		return false;
	for (size_t i = 0; i < p->nmembers; i++)
		if (pt_member_same(&p->members[i], m))
			return true;
	return false;
}

static int
cmp_end_guid(const void *a, const void *b)
{
	uint64_t x = (*(struct end_port *const *)a)->fp->guid;
	uint64_t y = (*(struct end_port *const *)b)->fp->guid;

	return x < y ? -1 : x > y;
}

/* The end ports a GUID member names, found in byguid (sorted by GUID):
 * a job partition lists its hosts' ports one GUID each, and comparing
 * each with every end port of the fabric was most of a plan's time. */
static size_t
add_guid_member(struct end_port **byguid, size_t n, const struct pt_member *m, uint16_t pkey)
{
	struct fabric_port fp = { .guid = m->guid };
	struct end_port key = { .fp = &fp }, *kp = &key, **hit;
	size_t hits = 0;

	if ((hit = bsearch(&kp, byguid, n, sizeof(*byguid), cmp_end_guid)) == NULL)
		return 0;
	while (hit > byguid && hit[-1]->fp->guid == m->guid)
		hit--;
	for (; hit < byguid + n && (*hit)->fp->guid == m->guid; hit++, hits++)
		end_add_key(*hit, pkey, m->full);
	return hits;
}

static int
assign_members(struct planner *pl)
{
	const struct pt_config *c = pl->in->config;
	struct end_port **byguid = xcalloc(pl->nends ? pl->nends : 1, sizeof(*byguid));
	char buf[80];

	for (size_t k = 0; k < pl->nends; k++)
		byguid[k] = &pl->ends[k];
	qsort(byguid, pl->nends, sizeof(*byguid), cmp_end_guid);
	for (size_t i = 0; i < c->nparts; i++) {
		const struct pt_partition *p = &c->parts[i];

		for (size_t j = 0; j < p->nmembers; j++) {
			const struct pt_member *m = &p->members[j];
			size_t hits = 0;

			if (m->kind == PT_MEMBER_GUID)
				hits = add_guid_member(byguid, pl->nends, m, p->pkey);
			else
				for (size_t k = 0; k < pl->nends; k++)
					if (member_matches(m, &pl->ends[k])) {
						end_add_key(&pl->ends[k], p->pkey, m->full);
						hits++;
					}
			if (hits == 0 && pl->in->strict_members &&
			    m->kind != PT_MEMBER_ALL_CAS && m->kind != PT_MEMBER_SWITCHES &&
			    !member_known(pl->in->committed, p->name, m)) {
				pt_err_set(pl->e, PERR_NOT_FOUND,
				    "partition \"%s\": member %s matches no port of the fabric",
				    p->name, pt_member_text(m, buf, sizeof(buf)));
				free(byguid);
				return -1;
			}
		}
	}
	free(byguid);
	return 0;
}

static bool
end_holds(const struct end_port *ep, uint16_t pkey)
{
	for (size_t i = 0; i < ep->nkeys; i++)
		if ((ep->keys[i] & ~PT_PKEY_FULL) == pkey)
			return true;
	return false;
}

/* Is index free on every end port holding pkey (within their capacity)? */
static bool
index_free(struct planner *pl, uint16_t pkey, uint16_t idx)
{
	for (size_t k = 0; k < pl->nends; k++) {
		const struct end_port *ep = &pl->ends[k];

		if (!end_holds(ep, pkey))
			continue;
		if (idx >= ep->cap || pl->plan->ports[ep->plan_i].want[idx] != 0)
			return false;
	}
	return true;
}

/* Is idx given to any key already, or kept for one that had it before? */
static bool
index_taken(const struct planner *pl, uint16_t idx)
{
	for (size_t i = 0; i < pl->plan->nindex; i++)
		if (pl->plan->index[i].index == idx)
			return true;
	for (size_t i = 0; i < pl->in->nprev_index; i++)
		if (pl->in->prev_index[i].index == idx &&
		    pt_find_pkey(pl->in->config, pl->in->prev_index[i].pkey) != NULL)
			return true;
	return false;
}

static int
prev_index_of(const struct pt_plan_input *in, uint16_t pkey)
{
	for (size_t i = 0; i < in->nprev_index; i++)
		if (in->prev_index[i].pkey == pkey)
			return in->prev_index[i].index;
	return -1;
}

static void
place_key(struct planner *pl, uint16_t pkey, uint16_t idx)
{
	struct pt_plan *p = pl->plan;

	for (size_t k = 0; k < pl->nends; k++) {
		const struct end_port *ep = &pl->ends[k];

		for (size_t i = 0; i < ep->nkeys; i++)
			if ((ep->keys[i] & ~PT_PKEY_FULL) == pkey)
				p->ports[ep->plan_i].want[idx] = ep->keys[i];
	}
	p->index = xreallocarray(p->index, p->nindex + 1, sizeof(*p->index));
	p->index[p->nindex].pkey = pkey;
	p->index[p->nindex].index = idx;
	p->nindex++;
}

static int
cmp_prev_first(const void *a, const void *b, void *arg)
{
	const struct pt_plan_input *in = arg;
	uint16_t ka = *(const uint16_t *)a, kb = *(const uint16_t *)b;
	int ia = prev_index_of(in, ka), ib = prev_index_of(in, kb);

	/* keys that had an index keep their turn by that index; new ones after */
	if ((ia < 0) != (ib < 0))
		return ia < 0 ? 1 : -1;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	return ka < kb ? -1 : ka > kb;
}

static int
cmp_index_pkey(const void *a, const void *b)
{
	const struct pt_index *x = a, *y = b;

	return x->pkey < y->pkey ? -1 : x->pkey > y->pkey;
}

static const struct end_port *
first_holder(const struct planner *pl, uint16_t pkey)
{
	for (size_t k = 0; k < pl->nends; k++)
		if (end_holds(&pl->ends[k], pkey))
			return &pl->ends[k];
	return NULL;
}

static uint32_t
holders_min_cap(const struct planner *pl, uint16_t pkey)
{
	uint32_t cap = 0xffff;

	for (size_t k = 0; k < pl->nends; k++)
		if (end_holds(&pl->ends[k], pkey) && pl->ends[k].cap < cap)
			cap = pl->ends[k].cap;
	return cap;
}

/* Name the tightest port among those holding pkey, and which table limits it. */
static void
capacity_error(struct planner *pl, uint16_t pkey)
{
	const struct end_port *worst = NULL;
	const struct pt_port_plan *pp, *sw;
	char swtext[FABRIC_NODE_DESC_LEN + 64] = "";

	for (size_t k = 0; k < pl->nends; k++)
		if (end_holds(&pl->ends[k], pkey) && (worst == NULL || pl->ends[k].cap < worst->cap))
			worst = &pl->ends[k];
	pp = &pl->plan->ports[worst->plan_i];
	sw = worst->facing_i >= 0 ? &pl->plan->ports[worst->facing_i] : NULL;
	if (sw != NULL)
		snprintf(swtext, sizeof(swtext), ", facing switch port %s "
		    "PartitionEnforcementCap %u", sw->label, sw->cap);
	pt_err_set(pl->e, PERR_CAPACITY,
	    "P_Key 0x%04x finds no index free on all of its ports: port %s "
	    "(" GUID_FMT ") would hold %zu P_Keys but has room for %u "
	    "(PartitionCap %u%s); enforcement is never turned off to make keys fit",
	    pkey, pp->label, pp->port_guid, worst->nkeys + 1, worst->cap, pp->cap, swtext);
}

static int
assign_indices(struct planner *pl)
{
	const struct pt_config *c = pl->in->config;
	uint16_t *keys = NULL;
	size_t nkeys = 0;
	int rc = 0;

	for (size_t i = 0; i < c->nparts; i++)
		if (first_holder(pl, c->parts[i].pkey) != NULL) {
			keys = xreallocarray(keys, nkeys + 1, sizeof(*keys));
			keys[nkeys++] = c->parts[i].pkey;
		}
	if (nkeys > 1)
		qsort_r(keys, nkeys, sizeof(*keys), cmp_prev_first, (void *)pl->in);
	for (size_t i = 0; i < nkeys && rc == 0; i++) {
		int prev = prev_index_of(pl->in, keys[i]);
		uint32_t idx, limit = holders_min_cap(pl, keys[i]);

		if (prev > 0 && index_free(pl, keys[i], (uint16_t)prev)) {
			place_key(pl, keys[i], (uint16_t)prev);
			continue;
		}
		/* a fresh index first, so that later member changes never move
		 * a key; sharing an index with a disjoint key only when full */
		for (idx = 1; idx < limit; idx++)
			if (!index_taken(pl, (uint16_t)idx) && index_free(pl, keys[i], (uint16_t)idx))
				break;
		if (idx >= limit)
			for (idx = 1; idx < limit; idx++)
				if (index_free(pl, keys[i], (uint16_t)idx))
					break;
		if (idx < limit) {
			place_key(pl, keys[i], (uint16_t)idx);
			continue;
		}
		capacity_error(pl, keys[i]);
		rc = -1;
	}
	free(keys);
	if (rc == 0 && pl->plan->nindex > 1)
		qsort(pl->plan->index, pl->plan->nindex, sizeof(*pl->plan->index), cmp_index_pkey);
	return rc;
}

static void
place_defaults(struct planner *pl)
{
	bool others_full = pl->in->config->default_policy == PT_DEFAULT_OTHERS_FULL;

	for (size_t k = 0; k < pl->nends; k++) {
		struct pt_port_plan *pp = &pl->plan->ports[pl->ends[k].plan_i];
		bool full = pp->is_sm || others_full;

		pp->want[0] = (uint16_t)(PT_PKEY_DEFAULT | (full ? PT_PKEY_FULL : 0));
	}
}

static void
copy_to_facing(struct planner *pl)
{
	for (size_t k = 0; k < pl->nends; k++) {
		const struct end_port *ep = &pl->ends[k];
		struct pt_port_plan *end, *sw;

		if (ep->facing_i < 0)
			continue;
		end = &pl->plan->ports[ep->plan_i];
		sw = &pl->plan->ports[ep->facing_i];
		/* ep->cap already bounds every index by the switch's cap */
		memcpy(sw->want, end->want, (size_t)(end->cap < sw->cap ? end->cap : sw->cap) *
		    sizeof(uint16_t));
	}
}

/* The SM must stay a full member of the default partition, and every
 * other end port must stay a member of it, or SA queries stop working. */
static int
check_sm_access(struct planner *pl)
{
	bool seen_sm = false;

	for (size_t k = 0; k < pl->nends; k++) {
		const struct pt_port_plan *pp = &pl->plan->ports[pl->ends[k].plan_i];

		if ((pp->want[0] & ~PT_PKEY_FULL) != PT_PKEY_DEFAULT ||
		    (pp->is_sm && !(pp->want[0] & PT_PKEY_FULL))) {
			pt_err_set(pl->e, PERR_CHECK_FAILED,
			    "port %s would lose its default-partition membership "
			    "and with it the SM's reach", pp->label);
			return -1;
		}
		seen_sm |= pp->is_sm;
	}
	if (pl->in->sm_port_guid != 0 && pl->nends > 0 && !seen_sm) {
		pt_err_set(pl->e, PERR_CHECK_FAILED,
		    "the SM's own port " GUID_FMT " is not in the fabric view; "
		    "refusing to plan without it", pl->in->sm_port_guid);
		return -1;
	}
	return 0;
}

static void
fill_have(struct planner *pl)
{
	const struct pt_plan_input *in = pl->in;

	if (in->have == NULL)
		return;
	for (size_t i = 0; i < pl->plan->nports; i++) {
		struct pt_port_plan *pp = &pl->plan->ports[i];
		size_t n = (size_t)pp->nblocks * PT_BLOCK;

		pp->have = xcalloc(n, sizeof(uint16_t));
		if (!in->have(in->have_arg, pp->node_guid, pp->port, pp->have, n)) {
			free(pp->have);
			pp->have = NULL;
		}
	}
}

int
pt_plan_build(const struct pt_plan_input *in, struct pt_plan *out, struct pt_err *e)
{
	struct planner pl = { .in = in, .plan = out, .e = e };
	int rc;

	memset(out, 0, sizeof(*out));
	collect_ports(&pl);
	place_defaults(&pl);
	rc = assign_members(&pl);
	if (rc == 0)
		rc = assign_indices(&pl);
	if (rc == 0)
		rc = check_sm_access(&pl);
	if (rc == 0) {
		copy_to_facing(&pl);
		fill_have(&pl);
	}
	for (size_t k = 0; k < pl.nends; k++)
		free(pl.ends[k].keys);
	free(pl.ends);
	if (rc != 0)
		pt_plan_free(out);
	return rc;
}

int
pt_plan_quarantine(const struct pt_plan_input *in, struct pt_plan *out, struct pt_err *e)
{
	struct pt_plan_input bare_in = *in;
	struct pt_config *bare = pt_config_new();
	int rc;

	bare->default_policy = in->config->default_policy;
	bare_in.config = bare;
	bare_in.prev_index = NULL;
	bare_in.nprev_index = 0;
	bare_in.strict_members = false;
	rc = pt_plan_build(&bare_in, out, e);
	pt_config_free(bare);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < out->nports; i++) {
		struct pt_port_plan *pp = &out->ports[i];

		if (pp->have != NULL)
			memcpy(pp->want, pp->have, (size_t)pp->nblocks * PT_BLOCK * sizeof(uint16_t));
	}
	return 0;
}

void
pt_plan_free(struct pt_plan *p)
{
	for (size_t i = 0; i < p->nports; i++) {
		free(p->ports[i].want);
		free(p->ports[i].have);
	}
	free(p->ports);
	free(p->index);
	memset(p, 0, sizeof(*p));
}

int
pt_plan_index_of(const struct pt_plan *p, uint16_t pkey)
{
	for (size_t i = 0; i < p->nindex; i++)
		if (p->index[i].pkey == pkey)
			return p->index[i].index;
	return pkey == PT_PKEY_DEFAULT ? 0 : -1;
}

struct pt_port_plan *
pt_plan_port(const struct pt_plan *p, uint64_t node_guid, uint8_t port)
{
	for (size_t i = 0; i < p->nports; i++)
		if (p->ports[i].node_guid == node_guid && p->ports[i].port == port)
			return &p->ports[i];
	return NULL;
}

bool
pt_block_dirty(const struct pt_port_plan *pp, uint16_t b)
{
	size_t first = (size_t)b * PT_BLOCK;

	if (pp->have == NULL)
		return true;
	for (size_t i = first; i < first + PT_BLOCK && i < pp->cap; i++)
		if (pp->want[i] != pp->have[i])
			return true;
	return false;
}

size_t
pt_plan_dirty_blocks(const struct pt_plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nports; i++)
		for (uint16_t b = 0; b < p->ports[i].nblocks; b++)
			n += pt_block_dirty(&p->ports[i], b);
	return n;
}
