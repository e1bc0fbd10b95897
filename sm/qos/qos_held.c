/*
 * What a node's ports hold of their QoS tables: the SM's mirror
 * (sm/qos/qos.h), small however many tables the node has.
 *
 * A 36-port switch has 1,369 SL2VL slots (one per (in, out) pair) and 148
 * VLArb blocks, and nearly all of them hold one of a few tables: the
 * factory's, or the policy's for the out port's VLs; without a policy most
 * are never read at all.  Holding every slot's bytes (20 kB a switch) made
 * QoS the largest share of the SM's memory.  So each kind of table keeps a
 * pool of the distinct tables its slots hold and, per slot, the index of
 * its table in the pool (0: unknown), a byte (two past 255 tables); and no
 * index at all while every slot holds the same table (all unknown, or one
 * Set for every pair), which is how a node starts.
 *
 * The node's model frees the mirror with free() (fabric/ knows nothing of
 * QoS), so it is one allocation, laid out anew when a table the pool does
 * not have comes (the pool grows by half, the tables no slot holds any
 * more are dropped then) or when the slots stop holding the same; the
 * setters return it, maybe moved, as realloc() does.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sm/qos/qos.h"

enum { K_SL2VL, K_VLARB };

/* A table the mirror does not know: all 0xFF (held here, the lowest
 * of the QoS files, so that the tables and the mirror do not call each
 * other). */
bool
qos_unknown(const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (b[i] != 0xFF)
			return false;
	return true;
}

static const uint8_t unknown_bytes[QOS_VLARB_BLOCK_BYTES] = {
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

static size_t
round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static size_t
idx_bytes(const struct qos_slots *s)
{
	return s->has_idx ? round8((size_t)s->nslots * (s->wide ? 2 : 1)) : 0;
}

static size_t
pool_bytes(const struct qos_slots *s)
{
	return (size_t)s->cap * s->width;	/* widths are 8 and 64 */
}

/* The block after the header: SL2VL index, SL2VL pool, VLArb index, VLArb pool. */
static size_t
kind_offset(const struct qos_held *h, unsigned k)
{
	return k == K_SL2VL ? 0 : idx_bytes(&h->s[K_SL2VL]) + pool_bytes(&h->s[K_SL2VL]);
}

static uint8_t *
idx_of(const struct qos_held *h, unsigned k)
{
	return (uint8_t *)h->data + kind_offset(h, k);
}

static uint8_t *
pool_of(const struct qos_held *h, unsigned k)
{
	return idx_of(h, k) + idx_bytes(&h->s[k]);
}

/* The pool index (1-based, 0 unknown) slot i holds. */
static uint32_t
slot_get(const struct qos_held *h, unsigned k, uint32_t i)
{
	const struct qos_slots *s = &h->s[k];
	const uint8_t *idx = idx_of(h, k);

	if (!s->has_idx)
		return s->all;
	return s->wide ? ((const uint16_t *)(const void *)idx)[i] : idx[i];
}

static void
slot_put(struct qos_held *h, unsigned k, uint32_t i, uint32_t v)
{
	uint8_t *idx = idx_of(h, k);

	if (h->s[k].wide)
		((uint16_t *)(void *)idx)[i] = (uint16_t)v;
	else
		idx[i] = (uint8_t)v;
}

static const uint8_t *
value_of(const struct qos_held *h, unsigned k, uint32_t v)
{
	return v == 0 ? unknown_bytes : pool_of(h, k) + (size_t)(v - 1) * h->s[k].width;
}

/* The pool index of table t; 0 for unknown bytes, -1 when not pooled. */
static long
lookup(const struct qos_held *h, unsigned k, const uint8_t *t)
{
	const struct qos_slots *s = &h->s[k];

	if (qos_unknown(t, s->width))
		return 0;
	for (uint32_t v = 1; v <= s->npool; v++)
		if (memcmp(value_of(h, k, v), t, s->width) == 0)
			return (long)v;
	return -1;
}

static size_t
held_size(const struct qos_held *h)
{
	return sizeof(*h) + kind_offset(h, K_VLARB) + idx_bytes(&h->s[K_VLARB]) +
	    pool_bytes(&h->s[K_VLARB]);
}

/*
 * Kind k laid out anew: the pool holds the tables its slots hold (all
 * unknown first when clear) and t (NULL: none), with room for half as many
 * again; an index unless every slot holds the same and need_idx is false.
 * The other kind is copied as it is.
 */
static struct qos_held *
relayout(struct qos_held *h, unsigned k, const uint8_t *t, bool clear, bool need_idx)
{
	const struct qos_slots *o = &h->s[k];
	uint32_t *map = xcalloc((size_t)o->npool + 1, sizeof(*map)), n = 0, first;
	struct qos_held tmp = *h, *nh;
	struct qos_slots *s = &tmp.s[k];
	bool same = true;
	long tv;

	/* which pooled tables are held, and their new index */
	for (uint32_t i = 0; !clear && i < o->nslots; i++)
		map[slot_get(h, k, i)] = 1;
	map[0] = 0;		/* unknown stays unknown */
	for (uint32_t v = 1; v <= o->npool; v++)
		map[v] = map[v] ? ++n : 0;
	tv = t ? lookup(h, k, t) : 0;
	if (tv < 0 || (tv > 0 && map[tv] == 0))
		n++;		/* t comes in, last */
	first = clear ? 0 : map[slot_get(h, k, 0)];
	for (uint32_t i = 1; !clear && same && i < o->nslots; i++)
		same = map[slot_get(h, k, i)] == first;
	s->npool = n;
	s->cap = n + n / 2 > QOS_HELD_MAX_POOL ? QOS_HELD_MAX_POOL : n + n / 2;
	s->has_idx = need_idx || !same;
	s->wide = s->cap > 255;
	s->all = s->has_idx ? 0 : (uint16_t)first;
	nh = xmalloc(held_size(&tmp));
	*nh = tmp;
	memcpy(idx_of(nh, !k), idx_of(h, !k), idx_bytes(&h->s[!k]) + pool_bytes(&h->s[!k]));
	for (uint32_t v = 1; v <= o->npool; v++)
		if (map[v])
			memcpy(pool_of(nh, k) + (size_t)(map[v] - 1) * o->width, value_of(h, k, v),
			    o->width);
	if (t && !qos_unknown(t, o->width) && (tv < 0 || map[tv] == 0))
		memcpy(pool_of(nh, k) + (size_t)(n - 1) * o->width, t, o->width);
	for (uint32_t i = 0; s->has_idx && i < o->nslots; i++)
		slot_put(nh, k, i, clear ? 0 : map[slot_get(h, k, i)]);
	free(map);
	free(h);
	return nh;
}

struct qos_held *
qos_held_new(uint8_t nports, bool sw)
{
	struct qos_held *h = xcalloc(1, sizeof(*h));
	uint32_t np = (uint32_t)nports + 1;

	h->nports = nports;
	h->sw = sw;
	h->s[K_SL2VL] = (struct qos_slots){ .nslots = sw ? np * np : np, .width = QOS_SL2VL_BYTES };
	h->s[K_VLARB] = (struct qos_slots){ .nslots = np * QOS_VLARB_BLOCKS,
	    .width = QOS_VLARB_BLOCK_BYTES };
	return h;
}

size_t
qos_held_bytes(const struct qos_held *h)
{
	return h ? held_size(h) : 0;
}

/* Slots lo..hi step `step` of kind k (every slot: clear and fill) hold t. */
static struct qos_held *
set_slots(struct qos_held *h, unsigned k, uint32_t lo, uint32_t hi, uint32_t step,
    const uint8_t *table)
{
	const struct qos_slots *s = &h->s[k];
	bool every = lo == 0 && hi + 1 == s->nslots && step == 1;
	uint8_t t[QOS_VLARB_BLOCK_BYTES];	/* table may lie in h's pool */
	long v;

	memcpy(t, table, s->width);
	v = lookup(h, k, t);
	if (v < 0 && s->npool >= QOS_HELD_MAX_POOL) {
		/* more distinct tables than an index can name (never on a real
		 * switch): not recorded, the slots are unknown and read again */
		memset(t, 0xFF, sizeof(t));
		v = 0;
	}

	if (every) {
		if (s->has_idx || v < 0 || (uint32_t)v != s->all)
			h = relayout(h, k, t, true, false);
		h->s[k].all = (uint16_t)lookup(h, k, t);
		return h;
	}
	if (!s->has_idx && v >= 0 && (uint32_t)v == s->all)
		return h;	/* they hold it already */
	if (v < 0 && s->has_idx && s->npool < s->cap) {
		memcpy(pool_of(h, k) + (size_t)h->s[k].npool * s->width, t, s->width);
		v = ++h->s[k].npool;
	} else if (v < 0 || !s->has_idx) {
		h = relayout(h, k, t, false, true);
		v = lookup(h, k, t);
	}
	for (uint32_t i = lo; i <= hi; i += step)
		slot_put(h, k, i, (uint32_t)v);
	return h;
}

struct qos_held *
qos_held_set_sl2vl(struct qos_held *h, unsigned in, unsigned out, const uint8_t *t)
{
	uint32_t np = (uint32_t)h->nports + 1;

	if (!h->sw)
		return out < np ? set_slots(h, K_SL2VL, out, out, 1, t) : h;
	if ((in >= np && in != QOS_HELD_ALL) || (out >= np && out != QOS_HELD_ALL))
		return h;
	if (in == QOS_HELD_ALL && out == QOS_HELD_ALL)
		return set_slots(h, K_SL2VL, 0, np * np - 1, 1, t);
	if (in == QOS_HELD_ALL)
		return set_slots(h, K_SL2VL, out, (np - 1) * np + out, np, t);
	if (out == QOS_HELD_ALL)
		return set_slots(h, K_SL2VL, in * np, in * np + np - 1, 1, t);
	return set_slots(h, K_SL2VL, in * np + out, in * np + out, 1, t);
}

struct qos_held *
qos_held_set_vlarb(struct qos_held *h, unsigned port, unsigned block, const uint8_t *t)
{
	uint32_t i = (uint32_t)port * QOS_VLARB_BLOCKS + block;

	if (port > h->nports || block >= QOS_VLARB_BLOCKS)
		return h;
	return set_slots(h, K_VLARB, i, i, 1, t);
}

const uint8_t *
qos_held_sl2vl_c(const struct qos_held *h, uint8_t in, uint8_t out)
{
	uint32_t np = (uint32_t)h->nports + 1;

	if (out >= np || (h->sw && in >= np))
		return unknown_bytes;
	return value_of(h, K_SL2VL, slot_get(h, K_SL2VL, h->sw ? in * np + out : out));
}

const uint8_t *
qos_held_vlarb_c(const struct qos_held *h, uint8_t port, unsigned block)
{
	if (port > h->nports || block >= QOS_VLARB_BLOCKS)
		return unknown_bytes;
	return value_of(h, K_VLARB, slot_get(h, K_VLARB, (uint32_t)port * QOS_VLARB_BLOCKS + block));
}
