/*
 * Credit loops in computed tables (see fabric/routing.h): the channel
 * dependency graph of every CA-to-CA route.  A channel is one direction
 * of an inter-switch link; a route entering a switch by channel a and
 * leaving by b makes a wait on b.  A cycle of such waits can deadlock a
 * lossless fabric when the buffers fill, whatever the traffic pattern that
 * fills them, so a cycle is reported even if no job has met it yet.
 *
 * Routes are destination-based, so the routes to one LID form a tree:
 * walking it once from every switch with CAs, and stopping where an
 * earlier walk already went, costs one step per switch and LID.
 */
#include <stdio.h>
#include <string.h>

#include "fabric/routing.h"

struct cdg {
	const struct routing_table *t;
	uint64_t	*edge;		/* open-addressed set of (from << 32 | to) + 1 */
	size_t		 emask, nedge;
	uint32_t	*seen;		/* [nswitches] stamp: walked for this LID */
};

/* Switch index of a node in t (tables are sorted by GUID), or -1. */
static long
sw_index(const struct routing_table *t, const struct fabric_node *n)
{
	const struct routing_lft *l = n ? routing_lft_of(t, n->guid) : NULL;

	return l ? l - t->lfts : -1;
}

static int
edge_add(struct cdg *c, uint32_t from, uint32_t to)
{
	uint64_t key = ((uint64_t)from << 32 | to) + 1;
	size_t h;

	if (2 * (c->nedge + 1) > c->emask + 1) {
		size_t nsize = (c->emask + 1) * 2;
		uint64_t *n = calloc(nsize, sizeof(*n)), *old = c->edge;

		if (n == NULL)
			return -1;
		for (size_t i = 0; i <= c->emask; i++)
			if (old[i]) {
				for (h = (old[i] * 0x9E3779B97F4A7C15ULL) >> 20 & (nsize - 1); n[h];
				    h = (h + 1) & (nsize - 1))
					;
				n[h] = old[i];
			}
		free(old);
		c->edge = n;
		c->emask = nsize - 1;
	}
	for (h = (key * 0x9E3779B97F4A7C15ULL) >> 20 & c->emask; c->edge[h];
	    h = (h + 1) & c->emask)
		if (c->edge[h] == key)
			return 0;
	c->edge[h] = key;
	c->nedge++;
	return 0;
}

/* The channel out of switch s by port p, when p leads to a switch. */
static long
channel(const struct routing_table *t, size_t s, uint8_t p, long *next)
{
	const struct fabric_node *sw = t->lfts[s].sw;

	if (p == 0 || p > sw->nports || sw->ports[p].peer == NULL)
		return -1;
	*next = sw_index(t, sw->ports[p].peer->node);
	return *next < 0 ? -1 : (long)(s * 256 + p);
}

/* Walk the routes to lid from every switch with CAs. */
static int
walk_lid(struct cdg *c, uint16_t lid, uint32_t stamp, const bool *has_ca)
{
	const struct routing_table *t = c->t;

	for (size_t s0 = 0; s0 < t->nswitches; s0++) {
		long prev = -1, next = -1;
		size_t s = s0;

		if (!has_ca[s0])
			continue;
		for (size_t hops = 0; hops <= t->nswitches; hops++) {
			const struct routing_lft *l = &t->lfts[s];
			bool was_seen = c->seen[s] == stamp;
			long ch;

			c->seen[s] = stamp;
			ch = lid <= l->top ? channel(t, s, l->port[lid], &next) : -1;
			if (ch < 0)
				break;
			if (prev >= 0 && edge_add(c, (uint32_t)prev, (uint32_t)ch) < 0)
				return -1;
			if (was_seen)
				break;	/* the rest of the way is an earlier walk's */
			prev = ch;
			s = (size_t)next;
		}
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Kahn's algorithm: peel channels nothing waits on; what is left holds a
 * cycle.  Returns the number of channels left (0: acyclic), -1 no memory. */
static long
leftover(struct cdg *c, uint32_t nch, uint32_t *first_left)
{
	uint64_t *e = malloc((c->nedge + 1) * sizeof(*e));
	uint32_t *indeg = calloc(nch, sizeof(*indeg)), *queue = malloc(nch * sizeof(*queue));
	size_t *at = calloc((size_t)nch + 1, sizeof(*at)), n = 0, head = 0, tail = 0, done = 0;
	long rc = -1;

	if (!e || !indeg || !queue || !at)
		goto out;
	for (size_t i = 0; i <= c->emask; i++)
		if (c->edge[i])
			e[n++] = c->edge[i] - 1;
	qsort(e, n, sizeof(*e), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		at[(e[i] >> 32) + 1]++;
		indeg[(uint32_t)e[i]]++;
	}
	for (uint32_t v = 0; v < nch; v++) {
		at[v + 1] += at[v];
		if (indeg[v] == 0)
			queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t v = queue[head++];
		done++;
		for (size_t i = at[v]; i < at[v + 1]; i++)
			if (--indeg[(uint32_t)e[i]] == 0)
				queue[tail++] = (uint32_t)e[i];
	}
	for (uint32_t v = 0; v < nch; v++)
		if (indeg[v]) {
			*first_left = v;
			break;
		}
	rc = (long)(nch - done);
out:
	free(e);
	free(indeg);
	free(queue);
	free(at);
	return rc;
}

int
routing_credit_loop(const struct routing_table *t, char *where, size_t len)
{
	struct cdg c = { .t = t, .emask = 1023 };
	bool *has_ca = calloc(t->nswitches + 1, sizeof(*has_ca));
	bool *ca_lid = calloc((size_t)t->top + 1, sizeof(*ca_lid));
	uint32_t nch = (uint32_t)(t->nswitches * 256), first = 0;
	long left = -1;

	if (len)
		where[0] = '\0';
	c.edge = calloc(c.emask + 1, sizeof(*c.edge));
	c.seen = calloc(t->nswitches + 1, sizeof(*c.seen));
	if (!has_ca || !ca_lid || !c.edge || !c.seen)
		goto out;
	for (size_t s = 0; s < t->nswitches; s++) {
		const struct fabric_node *sw = t->lfts[s].sw;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct fabric_port *pr = sw->ports[p].peer;
			if (pr && pr->node->type != FABRIC_SWITCH && pr->lid && pr->lid <= t->top) {
				has_ca[s] = true;
				ca_lid[pr->lid] = true;
			}
		}
	}
	for (uint32_t lid = 1, stamp = 1; lid <= t->top; lid++)
		if (ca_lid[lid] && walk_lid(&c, (uint16_t)lid, stamp++, has_ca) < 0)
			goto out;
	left = leftover(&c, nch, &first);
	if (left > 0) {
		const struct fabric_node *sw = t->lfts[first / 256].sw;
		snprintf(where, len, "%ld link directions on or behind a cycle of "
		    "dependencies, the first %s:%u", left,
		    sw->desc[0] ? sw->desc : "a switch", first % 256);
	}
out:
	free(has_ca);
	free(ca_lid);
	free(c.edge);
	free(c.seen);
	return left < 0 ? -1 : left > 0;
}
