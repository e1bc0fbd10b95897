/*
 * Link loads from the programmed tables (see fabric/routing_loads.h).
 *
 * Routes are destination-based, so for each destination LID the routes
 * from every CA of one switch share their way: each switch with CAs is
 * walked once per destination and counts for all its CAs.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/routing.h"
#include "fabric/routing_loads.h"

struct swmap {
	const struct fabric_node **sw;	/* sorted by pointer, for bsearch */
	size_t			  n;
	size_t			 *at;	/* [n + 1] offsets: one slot per port */
	uint32_t		 *ncas;	/* CA ports with a LID on each switch */
	uint16_t		 *level;
	uint64_t		 *load;	/* [at[n]] by switch and port */
	int32_t			 *next;	/* [at[n]]: the peer switch's index, or
					   NEXT_CA, or NEXT_NONE */
};

#define NEXT_NONE	(-1)
#define NEXT_CA		(-2)

static int
cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const void *const *)a, y = (uintptr_t)*(const void *const *)b;

	return x < y ? -1 : x > y;
}

static long
sw_of(const struct swmap *m, const struct fabric_node *n)
{
	const struct fabric_node **hit = bsearch(&n, m->sw, m->n, sizeof(*m->sw), cmp_ptr);

	return hit ? hit - m->sw : -1;
}

static bool
is_ca_port(const struct fabric_port *p)
{
	return p && p->node->type != FABRIC_SWITCH && p->lid;
}

/* Levels: breadth-first from the switches with CAs. */
static void
levels(struct swmap *m, uint32_t *queue)
{
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < m->n; s++) {
		m->level[s] = m->ncas[s] ? 0 : UINT16_MAX;
		if (m->ncas[s])
			queue[tail++] = (uint32_t)s;
	}
	while (head < tail) {
		const struct fabric_node *n = m->sw[queue[head++]];
		uint16_t lv = m->level[sw_of(m, n)];

		for (unsigned p = 1; p <= n->nports; p++) {
			long v = n->ports[p].peer ? sw_of(m, n->ports[p].peer->node) : -1;
			if (v >= 0 && m->level[v] == UINT16_MAX) {
				m->level[v] = lv + 1;
				queue[tail++] = (uint32_t)v;
			}
		}
	}
}

/* Each port's peer as an index, found once: the walks below take one hop
 * per table lookup, and a search per hop was most of `routing`'s time
 * (21-31 ms at 1,296 hosts, on the loop). */
static void
next_build(struct swmap *m)
{
	for (size_t s = 0; s < m->n; s++)
		for (unsigned p = 0; p <= m->sw[s]->nports; p++) {
			const struct fabric_port *peer = p ? m->sw[s]->ports[p].peer : NULL;
			int32_t *slot = &m->next[m->at[s] + p];

			if (peer == NULL)
				*slot = NEXT_NONE;
			else if (peer->node->type != FABRIC_SWITCH)
				*slot = NEXT_CA;
			else
				*slot = (int32_t)sw_of(m, peer->node);	/* NEXT_NONE if unknown */
		}
}

static int
map_build(struct swmap *m, const struct fabric *f)
{
	size_t i, k = 0;
	struct fabric_node *n;
	uint32_t *queue;

	FABRIC_FOREACH_NODE(f, i, n)
		m->n += n->type == FABRIC_SWITCH;
	m->sw = calloc(m->n + 1, sizeof(*m->sw));
	m->at = calloc(m->n + 1, sizeof(*m->at));
	m->ncas = calloc(m->n + 1, sizeof(*m->ncas));
	m->level = calloc(m->n + 1, sizeof(*m->level));
	queue = calloc(m->n + 1, sizeof(*queue));
	if (!m->sw || !m->at || !m->ncas || !m->level || !queue) {
		free(queue);
		return -1;
	}
	FABRIC_FOREACH_NODE(f, i, n)
		if (n->type == FABRIC_SWITCH)
			m->sw[k++] = n;
	qsort(m->sw, m->n, sizeof(*m->sw), cmp_ptr);
	for (size_t s = 0; s < m->n; s++) {
		m->at[s + 1] = m->at[s] + m->sw[s]->nports + 1u;
		for (unsigned p = 1; p <= m->sw[s]->nports; p++)
			m->ncas[s] += is_ca_port(m->sw[s]->ports[p].peer);
	}
	m->load = calloc(m->at[m->n] + 1, sizeof(*m->load));
	m->next = calloc(m->at[m->n] + 1, sizeof(*m->next));
	if (m->load && m->next) {
		next_build(m);
		levels(m, queue);
	}
	free(queue);
	return m->load && m->next ? 0 : -1;
}

/* Walk lid's routes from switch s (carrying its CAs) to the end. */
static bool
walk(struct swmap *m, size_t s, uint16_t lid)
{
	size_t x = s;

	for (unsigned hops = 0; hops <= FABRIC_MAX_HOPS; hops++) {
		const struct fabric_node *xn = m->sw[x];
		uint8_t p = routing_lookup_programmed(xn, lid, NULL);
		int32_t v;

		if (p == ROUTING_NO_PORT || p == 0 || p > xn->nports)
			return false;
		if ((v = m->next[m->at[x] + p]) == NEXT_CA)
			return xn->ports[p].peer->lid == lid;
		if (v < 0)
			return false;
		m->load[m->at[x] + p] += m->ncas[s];
		x = (size_t)v;
	}
	return false;
}

static int
collect(struct swmap *m, struct routing_loads *out)
{
	size_t k = 0;

	for (size_t s = 0; s < m->n; s++)
		for (unsigned p = 1; p <= m->sw[s]->nports; p++)
			k += m->sw[s]->ports[p].peer && sw_of(m, m->sw[s]->ports[p].peer->node) >= 0;
	out->links = calloc(k + 1, sizeof(*out->links));
	if (out->links == NULL)
		return -1;
	for (size_t s = 0; s < m->n; s++)
		for (unsigned p = 1; p <= m->sw[s]->nports; p++) {
			const struct fabric_port *peer = m->sw[s]->ports[p].peer;
			long v = peer ? sw_of(m, peer->node) : -1;

			if (v < 0)
				continue;
			out->links[out->nlinks++] = (struct routing_link_load){
				m->sw[s], (uint8_t)p, peer->node, peer->num, m->level[s], m->level[v],
				m->load[m->at[s] + p] };
		}
	return 0;
}

int
routing_loads_compute(const struct fabric *f, struct routing_loads *out)
{
	struct swmap m = { 0 };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (map_build(&m, f) < 0)
		goto done;
	for (size_t d = 0; d < m.n; d++)
		for (unsigned q = 1; q <= m.sw[d]->nports; q++) {
			const struct fabric_port *dst = m.sw[d]->ports[q].peer;

			if (!is_ca_port(dst))
				continue;
			out->pairs += m.ncas[d] - 1;	/* the dest's neighbours: no link */
			for (size_t s = 0; s < m.n; s++) {
				if (s == d || m.ncas[s] == 0)
					continue;
				if (walk(&m, s, dst->lid))
					out->pairs += m.ncas[s];
				else
					out->failed += m.ncas[s];
			}
		}
	rc = collect(&m, out);
done:
	free(m.sw);
	free(m.at);
	free(m.ncas);
	free(m.level);
	free(m.load);
	free(m.next);
	return rc;
}

void
routing_loads_free(struct routing_loads *l)
{
	free(l->links);
	memset(l, 0, sizeof(*l));
}
