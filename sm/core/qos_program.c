/*
 * The QoS tables on the fabric: learn what ports hold, write only the
 * SL2VL and VL arbitration tables that must change (sm/qos/qos.h), as the
 * LFTs are written.
 *
 * What a port holds is known because we wrote it (the Set's answer is the
 * table as the port now holds it: that is the read back), carried from
 * the previous model while the node keeps its ports, or read.  An
 * operator's `sweep --heavy` forgets it all (no carry-over), so tables
 * another tool changed are found again; the pre-flight reads the ports of
 * a job's routes.
 *
 * What it costs.  A switch holds an SL2VL table per (in, out) pair: 1,332
 * on a 36-port switch, so reading and writing every pair is what a sweep
 * cannot afford.  So:
 *
 *  - No policy (qos_tables keep): the tables are left alone except where
 *    an SL in use goes nowhere.  The sweep reads each CA port's one table
 *    (a MAD a port, as PortInfo costs); a switch's pairs are checked by
 *    the audit (a pair per out port a pass), by the pre-flight on a job's
 *    routes and read when the SA is asked for them (sa_qos_lazy.c).
 *  - A policy, on a switch whose SwitchInfo says OptimizedSLtoVL
 *    MappingProgramming: one Set with the attribute modifier's "all input
 *    ports, all output ports" bits gives every pair the table of the most
 *    common OperationalVLs, and one "all input ports" Set per out port
 *    running other VLs, as OpenSM's osm_qos.c does.
 *  - A policy, per pair: of each node the first SL2VL table and the first
 *    VLArb block are read first (before the LIDs).  Where that one already
 *    is the policy's (a restart, another SM before us), the node's other
 *    unknown tables of that kind are read and only those that differ are
 *    written; where it is not (factory tables), they are written without
 *    being read, the answer being the read back.  So a table costs one
 *    MAD, not two.
 *
 * MADs are generated as the window frees (mad_batch_feed): a sweep of a
 * million tables holds a few hundred in memory, not a million.
 *
 * Switch pairs whose in port is DOWN are left out (nothing arrives there;
 * a port coming up is a heavy sweep, which finds its tables unknown).
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "sm/qos/qos.h"
#include "sm/core/sm_internal.h"

/* SLtoVLMappingTable attribute modifier bits of a switch with
 * OptimizedSLtoVLMappingProgramming: the table goes to every input port
 * (bit 17), to every output port (bit 16). */
#define SL2VL_ALL_IN	0x20000u
#define SL2VL_ALL_OUT	0x10000u

/* MADs in flight for the QoS tables at most (a few windows). */

/* The SL2VL slots of switch h a modifier names: pair (in, out), or every
 * in port and/or every out port (the optimized form). */
static struct qos_held *
note_sl2vl(struct qos_held *h, uint32_t mod, const uint8_t *data)
{
	unsigned in = (mod & SL2VL_ALL_IN) ? QOS_HELD_ALL : (mod >> 8) & 0xFF;
	unsigned out = (mod & SL2VL_ALL_OUT) ? QOS_HELD_ALL : mod & 0xFF;

	return qos_held_set_sl2vl(h, in, out, data);
}

void
sm_qos_note_held(struct fabric_port *p, uint16_t attr, uint32_t mod, const uint8_t *data)
{
	struct fabric_node *n = p->node;
	bool sw = n->type == FABRIC_SWITCH;
	unsigned port, block;

	if (n->qos == NULL)
		return;
	if (attr == UMAD_SM_ATTR_SLVL_TABLE) {
		n->qos = sw ? note_sl2vl(n->qos, mod, data) : qos_held_set_sl2vl(n->qos, 0, p->num, data);
		return;
	}
	block = mod >> 16;
	port = sw ? (mod & 0xFF) : p->num;
	if (block >= 1 && block <= QOS_VLARB_BLOCKS)
		n->qos = qos_held_set_vlarb(n->qos, port, block - 1, data);
}

/* A Get's or a Set's answer: what the port holds now.  Rejected or no
 * answer: the table stays unknown (send_table() forgot it when it was
 * sent), and the audit or the next heavy sweep looks again. */
static void
on_qos_reply(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_port *p = arg;
	const ib_smp_t *smp = (const ib_smp_t *)res->mad;

	if (!mad_reply_ok(res)) {
		sm_unreachable(sm, "QoS table of %s:%u (%s)",
		    sm_node_label(p->node, name, sizeof(name)), p->num,
		    res->status ? "no answer" : "rejected");
		return;
	}
	sm_qos_note_held(p, be16toh(smp->attr_id), be32toh(smp->attr_mod), smp->data);
}

bool
sm_qos_port_addr(const struct fabric_port *p, struct mad_addr *a)
{
	if (p->node->type == FABRIC_SWITCH) {
		sm_path_of(p->node, a);
		return true;
	}
	a->directed = true;
	return fabric_port_path(p, a->path, &a->hops);
}

uint32_t
sm_qos_sl2vl_mod(const struct fabric_port *p, unsigned in)
{
	return p->node->type == FABRIC_SWITCH ? (uint32_t)(in << 8 | p->num) : 0;
}

uint32_t
sm_qos_vlarb_mod(const struct fabric_port *p, unsigned block)
{
	return (uint32_t)(block + 1) << 16 | (p->node->type == FABRIC_SWITCH ? p->num : 0);
}

/* ---- which tables, and what they should hold ---- */

/* The table port p should hold there, in data; true when that is a
 * write.  what/in/block as qos_port_tables() names it. */
static bool
table_want(const struct sm *sm, const struct fabric_port *p, bool sl2vl, unsigned in,
    unsigned block, uint8_t data[IB_SMP_DATA_SIZE])
{
	const struct qos_held *h = p->node->qos;
	struct qos_port_caps c;
	size_t len;

	memset(data, 0, IB_SMP_DATA_SIZE);
	qos_port_caps_of(p, &c);
	if (sl2vl)
		return qos_sl2vl_want(sm->qos_tables, c.op_vls,
		    h ? qos_held_sl2vl_c(h, (uint8_t)in, p->num) : NULL, data);
	len = qos_vlarb_bytes(sm->qos_tables, c.op_vls, c.vl_cap, c.low_cap, c.high_cap, block, data);
	return h == NULL || memcmp(qos_held_vlarb_c(h, p->num, block), data, len) != 0;
}

static bool
table_known(const struct fabric_port *p, bool sl2vl, unsigned in, unsigned block)
{
	const struct qos_held *h = p->node->qos;

	if (h == NULL)
		return false;
	return sl2vl ? !qos_unknown(qos_held_sl2vl_c(h, (uint8_t)in, p->num), QOS_SL2VL_BYTES) :
	    !qos_unknown(qos_held_vlarb_c(h, p->num, block), 2);
}

/* The slots a Get or Set of (attr, mod) names are unknown until its
 * answer says what the port holds: a Set that gets no answer may or may
 * not have landed, and the timeout carries no MAD to find the slots by. */
static void
forget_held(const struct fabric_port *p, uint16_t attr, uint32_t mod)
{
	uint8_t unknown[IB_SMP_DATA_SIZE];

	memset(unknown, 0xFF, sizeof(unknown));
	sm_qos_note_held((struct fabric_port *)p, attr, mod, unknown);
}

static void
send_table(struct sm *sm, const struct fabric_port *p, uint8_t method, bool sl2vl, unsigned in,
    unsigned block, const uint8_t *data, mad_batch_cb cb)
{
	uint16_t attr = sl2vl ? UMAD_SM_ATTR_SLVL_TABLE : UMAD_SM_ATTR_VL_ARB_TABLE;
	uint32_t mod = sl2vl ? sm_qos_sl2vl_mod(p, in) : sm_qos_vlarb_mod(p, block);
	struct mad_addr a;

	if (!sm_qos_port_addr(p, &a))
		return;
	if (method == IB_MAD_METHOD_SET)
		sm->cur.qos_sets++;
	forget_held(p, attr, mod);
	sm_send(sm, &a, method, attr, mod, data, cb, (void *)p);
}

/* A switch the all-ports form programs (with a policy). */
static bool
optimized(const struct sm *sm, const struct fabric_node *n)
{
	return !sm->qos_tables->keep && n->type == FABRIC_SWITCH &&
	    ib_switch_info_get_opt_sl2vlmapping((const ib_switch_info_t *)n->si);
}

/* A Get of the per-pair path: the table is what it is; written when the
 * policy wants another (the Set's answer is the read back). */
static void
on_get_then_fix(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct fabric_port *p = arg;
	const ib_smp_t *smp = (const ib_smp_t *)res->mad;
	uint8_t data[IB_SMP_DATA_SIZE] MAD_ALIGNED;
	uint32_t mod;
	bool sl2vl;
	unsigned in, block;

	on_qos_reply(res, owner, arg);
	if (!mad_reply_ok(res))
		return;
	mod = be32toh(smp->attr_mod);
	sl2vl = be16toh(smp->attr_id) == UMAD_SM_ATTR_SLVL_TABLE;
	in = sl2vl && p->node->type == FABRIC_SWITCH ? (mod >> 8) & 0xFF : 0;
	block = sl2vl ? 0 : (mod >> 16) - 1;
	if (table_want(sm, p, sl2vl, in, block, data))
		send_table(sm, p, IB_MAD_METHOD_SET, sl2vl, in, block, data, on_qos_reply);
}

/* ---- the cursor: one port's tables per step, as the window frees ---- */

struct port_step {
	struct sm		*sm;
	struct sm_qos_feed	*c;
	const struct fabric_port *p;
};

/* Reading: the node's first table of each kind (with a policy), or a CA
 * port's SL2VL table (without). */
static void
read_one(void *arg, const char *what, unsigned in, unsigned block)
{
	struct port_step *s = arg;
	struct sm_qos_feed *c = s->c;
	bool sl2vl = strcmp(what, "sl2vl") == 0;

	if (s->sm->qos_tables->keep) {
		if (sl2vl && s->p->node->type != FABRIC_SWITCH)
			send_table(s->sm, s->p, IB_MAD_METHOD_GET, true, in, 0, NULL, on_qos_reply);
		return;
	}
	if (sl2vl && optimized(s->sm, s->p->node))
		return;		/* one Set for every pair: nothing to learn first */
	if (sl2vl ? c->seen_sl2vl : c->seen_vlarb)
		return;
	*(sl2vl ? &c->seen_sl2vl : &c->seen_vlarb) = true;
	send_table(s->sm, s->p, IB_MAD_METHOD_GET, sl2vl, in, block, NULL, on_qos_reply);
}

/* Writing: what must change; an unknown table read first or written
 * blind by its node's sample (see the top of the file). */
static void
write_one(void *arg, const char *what, unsigned in, unsigned block)
{
	struct port_step *s = arg;
	struct sm_qos_feed *c = s->c;
	uint8_t data[IB_SMP_DATA_SIZE] MAD_ALIGNED;
	bool sl2vl = strcmp(what, "sl2vl") == 0, known = table_known(s->p, sl2vl, in, block);
	bool differs = table_want(s->sm, s->p, sl2vl, in, block, data);
	bool *seen = sl2vl ? &c->seen_sl2vl : &c->seen_vlarb;
	bool *ok = sl2vl ? &c->ok_sl2vl : &c->ok_vlarb;

	if (sl2vl && optimized(s->sm, s->p->node))
		return;		/* optimized_sl2vl() did them all */
	if (!*seen) {		/* the node's first of this kind: its sample */
		*seen = true;
		*ok = known && !differs;
	}
	if (!differs)
		return;
	if (!known && *ok && !s->sm->qos_tables->keep)
		send_table(s->sm, s->p, IB_MAD_METHOD_GET, sl2vl, in, block, NULL, on_get_then_fix);
	else
		send_table(s->sm, s->p, IB_MAD_METHOD_SET, sl2vl, in, block, data, on_qos_reply);
}

/* The most common OperationalVLs of a switch's ports with tables. */
static uint8_t
common_op_vls(const struct fabric_node *n)
{
	unsigned count[16] = { 0 }, best = 0;

	for (unsigned j = 1; j <= n->nports; j++)
		if (qos_port_programmed(&n->ports[j]))
			count[ib_port_info_get_op_vls((const ib_port_info_t *)n->ports[j].pi) & 15]++;
	for (unsigned v = 1; v < 16; v++)
		if (count[v] > count[best])
			best = v;
	return (uint8_t)best;
}

struct any_ctx {
	const struct sm		*sm;
	const struct fabric_port *p;
	bool			 any;
};

static void
any_sl2vl(void *arg, const char *what, unsigned in, unsigned block)
{
	struct any_ctx *a = arg;
	uint8_t data[IB_SMP_DATA_SIZE];

	if (strcmp(what, "sl2vl") == 0 && !a->any)
		a->any = table_want(a->sm, a->p, true, in, 0, data);
}

/* The all-ports form: every pair of the switch in one Set, then the out
 * ports running other VLs, when any pair is not the policy's. */
static void
optimized_sl2vl(struct sm *sm, const struct fabric_node *n)
{
	struct any_ctx a = { .sm = sm };
	uint8_t data[IB_SMP_DATA_SIZE] MAD_ALIGNED;
	struct mad_addr addr;
	uint8_t common = common_op_vls(n);

	for (unsigned j = 0; j <= n->nports && !a.any; j++) {
		a.p = &n->ports[j];
		qos_port_tables(sm->qos_tables, a.p, any_sl2vl, &a);
	}
	if (!a.any || common == 0 || !sm_qos_port_addr(&n->ports[0], &addr))
		return;
	memset(data, 0, sizeof(data));
	qos_sl2vl_bytes(sm->qos_tables, common, data);
	sm->cur.qos_sets++;
	forget_held(&n->ports[0], UMAD_SM_ATTR_SLVL_TABLE, SL2VL_ALL_IN | SL2VL_ALL_OUT);
	sm_send(sm, &addr, IB_MAD_METHOD_SET, UMAD_SM_ATTR_SLVL_TABLE, SL2VL_ALL_IN | SL2VL_ALL_OUT, data,
	    on_qos_reply, &n->ports[0]);
	for (unsigned j = 0; j <= n->nports; j++) {
		const struct fabric_port *p = &n->ports[j];
		uint8_t op = ib_port_info_get_op_vls((const ib_port_info_t *)p->pi);

		if (!qos_port_programmed(p) || op == common)
			continue;
		qos_sl2vl_bytes(sm->qos_tables, op, data);
		sm->cur.qos_sets++;
		forget_held(p, UMAD_SM_ATTR_SLVL_TABLE, SL2VL_ALL_IN | j);
		sm_send(sm, &addr, IB_MAD_METHOD_SET, UMAD_SM_ATTR_SLVL_TABLE, SL2VL_ALL_IN | j, data,
		    on_qos_reply, (void *)p);
	}
}

/* Take over what the previous model knew of this node's ports. */
static bool
carry_over(struct sm *sm, struct fabric_node *n)
{
	struct fabric_node *old;

	if (sm->fabric == NULL || (old = fabric_node_by_guid(sm->fabric, n->guid)) == NULL ||
	    old->qos == NULL || old->nports != n->nports || old->type != n->type)
		return false;
	free(n->qos);
	n->qos = old->qos;
	old->qos = NULL;
	return true;
}

/* A node is entered: reading, it gets its mirror (carried or new). */
static bool
node_enter(struct sm *sm, struct sm_qos_feed *c, struct fabric_node *n)
{
	c->seen_sl2vl = c->seen_vlarb = c->ok_sl2vl = c->ok_vlarb = false;
	if (c->read) {
		if (!c->reread && carry_over(sm, n))
			return false;	/* known: nothing to read */
		free(n->qos);
		n->qos = qos_held_new(n->nports, n->type == FABRIC_SWITCH);
		return true;
	}
	if (n->qos == NULL)
		return false;
	if (optimized(sm, n))
		optimized_sl2vl(sm, n);
	return true;
}

/* The producer: one port's tables a call. */
static bool
feed(void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_qos_feed *c = arg;
	struct fabric *f = sm->next;
	struct fabric_node *n;
	struct port_step s = { .sm = sm, .c = c };

	if (f == NULL || c->node >= fabric_node_count(f))
		return false;
	n = fabric_node_at(f, c->node);
	if (c->port == 0 && !node_enter(sm, c, n)) {
		c->node++;
		return true;
	}
	s.p = &n->ports[c->port];
	qos_port_tables(sm->qos_tables, s.p, c->read ? read_one : write_one, &s);
	if (++c->port > n->nports) {
		c->port = 0;
		c->node++;
	}
	return true;
}

static void
start(struct sm *sm, bool read, bool reread)
{
	sm->qos_feed = (struct sm_qos_feed){ .read = read, .reread = reread };
	mad_batch_feed(&sm->batch, sm_feed_cap(sm), feed, &sm->qos_feed);
}

void
sm_qos_readback(struct sm *sm)
{
	bool reread = sm->qos_reread_all;

	if (!sm->cfg.qos.enabled)
		return;
	sm->qos_reread_all = false;
	start(sm, true, reread);
}

void
sm_qos_program(struct sm *sm)
{
	if (!sm->cfg.qos.enabled)
		return;
	start(sm, false, false);
}
