/*
 * From a QoS policy to the bytes of each port's SL2VL and VL arbitration
 * tables, and the compare of what a port holds with what it should (the
 * checker the SM's sweep and the audit share).  Pure: no SM, no I/O.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/xmalloc.h"
#include "sm/qos/qos.h"

void
qos_policy_init(struct qos_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->enabled = true;
}

/* OpenSM's qos defaults (osm_base.h OSM_DEFAULT_QOS_*): the tables a
 * fabric without a policy gets. */
static void
tables_default(struct qos_tables *t)
{
	for (unsigned sl = 0; sl < QOS_NUM_SL; sl++)
		t->sl2vl[sl] = sl < 15 ? (uint8_t)sl : 7;
	/* "0:4,1:0,2:0,...,14:0" and "0:0,1:4,2:4,...,14:4": the zero
	 * weights are entries too, naming their VL. */
	for (unsigned vl = 0; vl < 15; vl++) {
		t->high[vl] = (struct qos_vlarb_entry){ (uint8_t)vl, vl == 0 ? 4 : 0 };
		t->low[vl] = (struct qos_vlarb_entry){ (uint8_t)vl, vl == 0 ? 0 : 4 };
	}
}

struct qos_tables *
qos_tables_new(void)
{
	return xcalloc(1, sizeof(struct qos_tables));
}

void
qos_tables_build(const struct qos_policy *p, struct qos_tables *t)
{
	const struct qos_class *def;
	size_t nhigh = 0, nlow = 0;

	memset(t, 0, sizeof(*t));
	t->high_limit = (uint8_t)p->high_limit;
	if (p->nclasses == 0) {
		tables_default(t);
		t->keep = true;
		t->sl_used = 1u << 0;	/* the SA's SL for every path without a class */
		return;
	}
	def = qos_class_of_sl(p, 0);
	for (unsigned sl = 0; sl < QOS_NUM_SL; sl++) {
		const struct qos_class *c = qos_class_of_sl(p, (uint8_t)sl);

		t->sl2vl[sl] = c ? c->vl : def ? def->vl : 0;
	}
	for (size_t i = 0; i < p->nclasses; i++) {
		const struct qos_class *c = &p->classes[i];
		struct qos_vlarb_entry e = { c->vl, c->share };

		if (c->high && nhigh < QOS_VLARB_ENTRIES)
			t->high[nhigh++] = e;
		else if (!c->high && nlow < QOS_VLARB_ENTRIES)
			t->low[nlow++] = e;
	}
}

const struct qos_class *
qos_class_of_sl(const struct qos_policy *p, uint8_t sl)
{
	for (size_t i = 0; i < p->nclasses; i++)
		if (p->classes[i].sl == sl)
			return &p->classes[i];
	return NULL;
}

const struct qos_class *
qos_class_by_name(const struct qos_policy *p, const char *name)
{
	for (size_t i = 0; i < p->nclasses; i++)
		if (strcmp(p->classes[i].name, name) == 0)
			return &p->classes[i];
	return NULL;
}

/* ---- per port ---- */

/* The VLs a port operates, as a mask of VL numbers (OpenSM's vl_mask):
 * op_vls 4 (VL0-7) gives 7, so VL 9 becomes VL 1. */
static uint8_t
vl_mask(uint8_t op_vls)
{
	if (op_vls == 0)
		op_vls = 1;
	if (op_vls > 5)
		op_vls = 5;
	return (uint8_t)((1u << (op_vls - 1)) - 1);
}

static uint8_t
masked(uint8_t vl, uint8_t mask)
{
	return vl == 15 ? vl : (uint8_t)(vl & mask);
}

void
qos_sl2vl_bytes(const struct qos_tables *t, uint8_t op_vls, uint8_t out[QOS_SL2VL_BYTES])
{
	uint8_t mask = vl_mask(op_vls);

	for (unsigned i = 0; i < QOS_SL2VL_BYTES; i++)
		out[i] = (uint8_t)(masked(t->sl2vl[2 * i], mask) << 4 |
		    masked(t->sl2vl[2 * i + 1], mask));
}

/* Set the VL of one SL in an SL2VL table. */
static void
sl2vl_put(uint8_t tbl[QOS_SL2VL_BYTES], uint8_t sl, uint8_t vl)
{
	uint8_t *b = &tbl[(sl & 15) / 2];

	*b = (sl & 1) ? (uint8_t)((*b & 0xF0) | vl) : (uint8_t)((*b & 0x0F) | vl << 4);
}

bool
qos_sl2vl_want(const struct qos_tables *t, uint8_t op_vls, const uint8_t *held,
    uint8_t out[QOS_SL2VL_BYTES])
{
	uint8_t mask = vl_mask(op_vls);
	bool unknown = held == NULL || qos_unknown(held, QOS_SL2VL_BYTES), fixed = false;

	if (!t->keep) {
		qos_sl2vl_bytes(t, op_vls, out);
		return unknown || memcmp(held, out, QOS_SL2VL_BYTES) != 0;
	}
	if (unknown) {
		memset(out, 0xFF, QOS_SL2VL_BYTES);
		return false;
	}
	memcpy(out, held, QOS_SL2VL_BYTES);
	for (uint8_t sl = 0; sl < QOS_NUM_SL; sl++) {
		uint8_t vl = qos_sl2vl_get(held, sl);

		if (!(t->sl_used & (1u << sl)) || (vl != 15 && vl <= mask))
			continue;
		sl2vl_put(out, sl, masked(t->sl2vl[sl], mask));
		fixed = true;
	}
	return fixed;
}

size_t
qos_vlarb_bytes(const struct qos_tables *t, uint8_t op_vls, uint8_t vl_cap,
    uint8_t low_cap, uint8_t high_cap, unsigned b, uint8_t out[QOS_VLARB_BLOCK_BYTES])
{
	const struct qos_vlarb_entry *src = b < 2 ? t->low : t->high;
	unsigned cap = b < 2 ? low_cap : high_cap, first = (b & 1) * 32, n;
	uint8_t mask = vl_mask(op_vls);

	memset(out, 0, QOS_VLARB_BLOCK_BYTES);
	if (vl_cap <= 1 || b >= QOS_VLARB_BLOCKS || cap <= first)
		return 0;	/* one data VL: nothing to arbitrate */
	/* OpenSM sends cap % 32 entries in a second block: a cap of 64
	 * means none there (kept, so both write the same). */
	n = first == 0 ? (cap < 32 ? cap : 32) : cap % 32;
	if (n == 0)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = (uint8_t)(src[first + i].vl & mask);
		out[2 * i + 1] = src[first + i].weight;
	}
	return 2 * n;
}

unsigned
qos_vlarb_weight(const uint8_t *block, size_t len, uint8_t vl)
{
	unsigned w = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		if ((block[i] & 0x0F) == vl)
			w += block[i + 1];
	return w;
}

/* ---- the checker ---- */

void
qos_port_caps_of(const struct fabric_port *p, struct qos_port_caps *c)
{
	const ib_port_info_t *pi = (const ib_port_info_t *)p->pi;
	const struct fabric_port *capp = p->node->type == FABRIC_SWITCH ? &p->node->ports[0] : p;

	c->op_vls = ib_port_info_get_op_vls(pi);
	c->vl_cap = ib_port_info_get_vl_cap(pi);
	c->low_cap = pi->vl_arb_low_cap;
	c->high_cap = pi->vl_arb_high_cap;
	/* Switch external ports report no CapabilityMask: port 0 speaks. */
	c->sl_map = (((const ib_port_info_t *)capp->pi)->capability_mask &
	    IB_PORT_CAP_HAS_SL_MAP) != 0;
}

bool
qos_port_programmed(const struct fabric_port *p)
{
	const struct fabric_node *n = p->node;

	if (n->type != FABRIC_SWITCH)
		return p->num > 0 && p->guid != 0 && p->linkup;
	if (p->num == 0)
		return ib_switch_info_is_enhanced_port0((const ib_switch_info_t *)n->si);
	return p->state != IB_LINK_DOWN;
}

/* An in port whose table matters: port 0 (the switch's own traffic) or
 * one not DOWN.  OpenSM writes the DOWN ones too; nothing arrives there,
 * and the heavy sweep a port coming up causes writes its tables then. */
static bool
in_port_used(const struct fabric_node *n, unsigned in)
{
	return n->type != FABRIC_SWITCH || in == 0 || n->ports[in].state != IB_LINK_DOWN;
}

unsigned
qos_port_tables(const struct qos_tables *t, const struct fabric_port *p, qos_diff_fn fn,
    void *arg)
{
	uint8_t want[QOS_VLARB_BLOCK_BYTES];
	struct qos_port_caps c;
	unsigned n = 0, nin;

	if (!qos_port_programmed(p))
		return 0;
	qos_port_caps_of(p, &c);
	for (unsigned b = 0; !t->keep && b < QOS_VLARB_BLOCKS; b++)
		if (qos_vlarb_bytes(t, c.op_vls, c.vl_cap, c.low_cap, c.high_cap, b, want)) {
			fn(arg, "vlarb", 0, b);
			n++;
		}
	if (!c.sl_map)
		return n;
	nin = p->node->type == FABRIC_SWITCH ? p->node->nports + 1u : 1u;
	for (unsigned in = 0; in < nin; in++)
		if (in_port_used(p->node, in)) {
			fn(arg, "sl2vl", in, 0);
			n++;
		}
	return n;
}

struct diff_args {
	const struct qos_tables	*t;
	const struct fabric_port *p;
	const struct qos_held	*h;
	qos_diff_fn		 bad;
	void			*arg;
	unsigned		 n;
};

static void
diff_one(void *arg, const char *what, unsigned in, unsigned block)
{
	struct diff_args *d = arg;
	uint8_t want[QOS_VLARB_BLOCK_BYTES];
	struct qos_port_caps c;
	bool differs;

	qos_port_caps_of(d->p, &c);
	if (strcmp(what, "sl2vl") == 0)
		differs = qos_sl2vl_want(d->t, c.op_vls, d->h ?
		    qos_held_sl2vl_c(d->h, (uint8_t)in, d->p->num) : NULL, want);
	else {
		size_t len = qos_vlarb_bytes(d->t, c.op_vls, c.vl_cap, c.low_cap, c.high_cap,
		    block, want);

		differs = d->h == NULL || memcmp(qos_held_vlarb_c(d->h, d->p->num, block), want, len);
	}
	if (differs) {
		d->bad(d->arg, what, in, block);
		d->n++;
	}
}

unsigned
qos_port_diff(const struct qos_tables *t, const struct fabric_port *p,
    const struct qos_held *h, qos_diff_fn bad, void *arg)
{
	struct diff_args d = { .t = t, .p = p, .h = h, .bad = bad, .arg = arg };

	qos_port_tables(t, p, diff_one, &d);
	return d.n;
}

int
qos_sl_usable(const struct qos_held *h, const struct fabric_port *p, uint8_t in, uint8_t sl,
    uint8_t *vl, unsigned *weight)
{
	struct qos_port_caps c;
	const uint8_t *t;
	bool known = false;

	*vl = 0;
	*weight = 0;
	qos_port_caps_of(p, &c);
	if (h == NULL || p->num > h->nports || in > h->nports)
		return -1;
	if (c.sl_map) {
		t = qos_held_sl2vl_c(h, h->sw ? in : 0, p->num);
		for (size_t i = 0; i < QOS_SL2VL_BYTES; i++)
			known |= t[i] != 0xFF;
		if (!known)
			return -1;
		*vl = qos_sl2vl_get(t, sl);
	}
	if (*vl == 15 || *vl > vl_mask(c.op_vls))
		return 0;	/* dropped: VL 15 is management only, or no such VL */
	if (c.vl_cap <= 1)
		return 1;	/* one data VL: nothing to arbitrate */
	/* a block the mirror does not know weighs nothing, and says nothing:
	 * the model a heavy sweep publishes knows a CA port's SL2VL table
	 * and not yet its VL arbitration (a pre-flight over that sweep read
	 * "no arbitration weight" on the SM's own port) */
	known = false;
	for (unsigned b = 0; b < QOS_VLARB_BLOCKS; b++) {
		unsigned cap = b < 2 ? c.low_cap : c.high_cap, first = (b & 1) * 32;
		size_t n = cap <= first ? 0 : first == 0 ? (cap < 32 ? cap : 32) : cap % 32;
		const uint8_t *block = qos_held_vlarb_c(h, p->num, b);

		if (n == 0 || qos_unknown(block, 2 * n))
			continue;
		known = true;
		*weight += qos_vlarb_weight(block, 2 * n, *vl);
	}
	if (!known)
		return -1;
	return *weight > 0;
}

/* ---- what the mirror has read ---- */

unsigned
qos_vlarb_nblocks(unsigned cap)
{
	return cap == 0 ? 0 : cap <= 32 ? 1 : 2;
}

/* The mirror's "unknown" is the whole table 0xFF (qos_held.c), so that is
 * what is compared, not the first entry: a block read from a port may
 * begin with anything. */
bool
qos_table_read(const struct qos_held *h, const struct fabric_port *p, bool sl2vl, unsigned in,
    unsigned block)
{
	if (h == NULL || p->num > h->nports || in > h->nports || block >= QOS_VLARB_BLOCKS)
		return false;
	if (sl2vl)
		return !qos_unknown(qos_held_sl2vl_c(h, (uint8_t)in, p->num), QOS_SL2VL_BYTES);
	return !qos_unknown(qos_held_vlarb_c(h, p->num, block), QOS_VLARB_BLOCK_BYTES);
}

bool
qos_vlarb_read(const struct qos_held *h, const struct fabric_port *p, bool high)
{
	struct qos_port_caps c;
	unsigned first = high ? 2 : 0, n;

	qos_port_caps_of(p, &c);
	n = qos_vlarb_nblocks(high ? c.high_cap : c.low_cap);
	for (unsigned b = first; b < first + n; b++)
		if (!qos_table_read(h, p, false, 0, b))
			return false;
	return true;
}

unsigned
qos_port_shown(const struct fabric_port *p, bool pairs, qos_diff_fn fn, void *arg)
{
	struct qos_port_caps c;
	unsigned n = 0, nin = pairs && p->node->type == FABRIC_SWITCH ? p->node->nports + 1u : 1u;

	qos_port_caps_of(p, &c);
	for (unsigned in = 0; c.sl_map && in < nin; in++, n++)
		fn(arg, "sl2vl", in, 0);
	for (unsigned b = 0; b < QOS_VLARB_BLOCKS; b++)
		if (b % 2 < qos_vlarb_nblocks(b < 2 ? c.low_cap : c.high_cap)) {
			fn(arg, "vlarb", 0, b);
			n++;
		}
	return n;
}

struct unread_args {
	const struct fabric_port *p;
	const struct qos_held	*h;
	qos_diff_fn		 fn;
	void			*arg;
	unsigned		 n;
};

static void
unread_one(void *arg, const char *what, unsigned in, unsigned block)
{
	struct unread_args *u = arg;

	if (qos_table_read(u->h, u->p, strcmp(what, "sl2vl") == 0, in, block))
		return;
	if (u->fn != NULL)
		u->fn(u->arg, what, in, block);
	u->n++;
}

unsigned
qos_port_unread(const struct qos_tables *t, const struct fabric_port *p,
    const struct qos_held *h, qos_diff_fn fn, void *arg)
{
	struct unread_args u = { .p = p, .h = h, .fn = fn, .arg = arg };

	qos_port_tables(t, p, unread_one, &u);
	return u.n;
}
