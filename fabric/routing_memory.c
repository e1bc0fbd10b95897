/*
 * The route memory (see fabric/routing.h): per switch GUID, the balanced
 * reference (base) and the last tables given (cur).  Pure bookkeeping; the
 * repair that reads it is routing_repair.c.
 *
 * An update builds the new array of switches aside and swaps it in only
 * when every allocation succeeded, so that running out of memory leaves
 * the memory as it was rather than half updated.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/routing.h"

struct routing_memory *
routing_memory_new(void)
{
	struct routing_memory *m = calloc(1, sizeof(*m));

	if (m)
		m->engine = -1;
	return m;
}

static void
sw_free(struct routing_memory_sw *s)
{
	free(s->base);
	free(s->cur);
}

void
routing_memory_free(struct routing_memory *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->n; i++)
		sw_free(&m->sw[i]);
	free(m->sw);
	free(m);
}

const struct routing_memory_sw *
routing_memory_find(const struct routing_memory *m, uint64_t guid)
{
	size_t lo = 0, hi = m ? m->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->sw[mid].guid == guid)
			return &m->sw[mid];
		if (m->sw[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int
cmp_sw(const void *a, const void *b)
{
	const struct routing_memory_sw *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* A row of len entries, none routed. */
static uint8_t *
row_new(size_t len)
{
	uint8_t *r = malloc(len ? len : 1);

	if (r)
		memset(r, ROUTING_NO_PORT, len);
	return r;
}

/* What a switch's held table says, as a memory row: entries the SM does
 * not know (a lost reply) are no route, to be repaired. */
static uint8_t *
row_from_held(const struct fabric_node *n)
{
	uint8_t *r = row_new(n->lft_len);

	if (r == NULL)
		return NULL;
	for (size_t i = 0; i < n->lft_len; i++)
		r[i] = n->lft[i] == ROUTING_UNKNOWN_PORT ? ROUTING_NO_PORT : n->lft[i];
	return r;
}

static void
swap_in(struct routing_memory *m, struct routing_memory_sw *sw, size_t n, int engine)
{
	for (size_t i = 0; i < m->n; i++)
		sw_free(&m->sw[i]);
	free(m->sw);
	m->sw = sw;
	m->n = n;
	m->engine = engine;
}

int
routing_memory_seed(struct routing_memory *m, struct fabric_node *const *nodes, size_t n)
{
	struct routing_memory_sw *sw = calloc(n ? n : 1, sizeof(*sw));
	size_t k = 0;

	if (sw == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct fabric_node *nd = nodes[i];
		struct routing_memory_sw *s = &sw[k];

		if (nd->type != FABRIC_SWITCH || !nd->lft_known || nd->lft == NULL)
			continue;
		s->guid = nd->guid;
		s->len = nd->lft_len;
		s->base = row_from_held(nd);
		s->cur = row_from_held(nd);
		k++;
		if (s->base == NULL || s->cur == NULL)
			goto nomem;
	}
	qsort(sw, k, sizeof(*sw), cmp_sw);
	swap_in(m, sw, k, -1);
	return 0;
nomem:
	for (size_t i = 0; i < k; i++)
		sw_free(&sw[i]);
	free(sw);
	return -1;
}

/* The new memory row of one routed switch: cur is the table given; base is
 * that table too after routing afresh for a new reference, else the old
 * base with only its empty entries filled in (new LIDs, a switch seen for
 * the first time).  The rank stays the reference's (a repair routed with
 * it; a routing afresh only to avoid a credit loop did not). */
static int
sw_from_table(struct routing_memory_sw *s, const struct routing_memory_sw *old,
    const struct routing_lft *l, bool afresh)
{
	size_t tlen = (size_t)l->nblocks * ROUTING_BLOCK_SIZE;
	size_t len = old && old->len > tlen && !afresh ? old->len : tlen;

	s->guid = l->sw->guid;
	s->rank = afresh || old == NULL || !old->ranked ? l->rank : old->rank;
	s->ranked = true;
	s->len = len;
	s->base = row_new(len);
	s->cur = row_new(len);
	if (s->base == NULL || s->cur == NULL)
		return -1;
	memcpy(s->cur, l->port, tlen);
	if (afresh || old == NULL) {
		memcpy(s->base, l->port, tlen);
		return 0;
	}
	memcpy(s->base, old->base, old->len < len ? old->len : len);
	for (size_t i = 0; i < tlen; i++)
		if (s->base[i] == ROUTING_NO_PORT || s->base[i] == ROUTING_UNKNOWN_PORT)
			s->base[i] = l->port[i];
	return 0;
}

/* Copy of a switch the routing did not see (gone for now): kept as it was,
 * so that its return finds its routes. */
static int
sw_copy(struct routing_memory_sw *s, const struct routing_memory_sw *old)
{
	*s = *old;
	s->base = row_new(old->len);
	s->cur = row_new(old->len);
	if (s->base == NULL || s->cur == NULL)
		return -1;
	memcpy(s->base, old->base, old->len);
	memcpy(s->cur, old->cur, old->len);
	return 0;
}

int
routing_memory_update(struct routing_memory *m, const struct routing_table *t)
{
	bool afresh = t->repair.rebased;
	size_t cap = t->nswitches + (afresh ? 0 : m->n), k = 0;
	struct routing_memory_sw *sw = calloc(cap ? cap : 1, sizeof(*sw));

	if (sw == NULL)
		return -1;
	for (size_t i = 0; i < t->nswitches; i++) {
		const struct routing_lft *l = &t->lfts[i];

		if (sw_from_table(&sw[k++], routing_memory_find(m, l->sw->guid), l, afresh) < 0)
			goto nomem;
	}
	/* After a repair, the switches it did not see keep their rows; a
	 * fresh routing is a new reference, and rows of the old one would
	 * not fit it. */
	for (size_t i = 0; !afresh && i < m->n; i++)
		if (routing_lft_of(t, m->sw[i].guid) == NULL && sw_copy(&sw[k++], &m->sw[i]) < 0)
			goto nomem;
	qsort(sw, k, sizeof(*sw), cmp_sw);
	swap_in(m, sw, k, t->engine);
	return 0;
nomem:
	for (size_t i = 0; i < k; i++)
		sw_free(&sw[i]);
	free(sw);
	return -1;
}
