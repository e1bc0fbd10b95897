/*
 * The QoS tables on the fabric: learn what every port holds, write only
 * the SL2VL and VL arbitration tables that differ from the policy's
 * (sm/qos.h), as the LFTs are written.
 *
 * What a port holds is known because we wrote it (the Set's answer is the
 * table as the port now holds it: that is the read back) and carried from
 * the previous model while the node keeps its ports, or because we read
 * it on first sight.  So a restart, or fabricd after another SM that gave
 * the same tables, writes none.  An operator's `sweep --heavy` reads every
 * table again (no carry-over), so it restores what another tool changed
 * behind our back; the pre-flight reads the ports of a job's routes.
 *
 * Switches hold an SL2VL table per (in, out) pair.  OpenSM writes every
 * in port of every out port not DOWN; we leave out the in ports that are
 * DOWN (nothing arrives on them, and a port coming up is a heavy sweep,
 * which finds its tables unknown and writes them): a 36-port switch with
 * 20 links costs 21 x 20 MADs, not 37 x 20.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "sm/qos.h"
#include "sm/sm_internal.h"


static struct qos_held *
held_of(struct fabric_node *n)
{
	return n->qos;
}

/* Where a table of port p is stored, from the attribute modifier the
 * answer carries (switches address pairs and ports by it; a CA's port is
 * the one the SMP went to). */
static uint8_t *
held_slot(struct fabric_port *p, uint16_t attr, uint32_t mod, size_t *len)
{
	struct qos_held *h = held_of(p->node);
	bool sw = p->node->type == FABRIC_SWITCH;

	if (h == NULL)
		return NULL;
	if (attr == SM_ATTR_SLVL) {
		uint8_t in = sw ? (uint8_t)(mod >> 8) : 0, out = sw ? (uint8_t)mod : p->num;

		if (in > h->nports || out > h->nports)
			return NULL;
		*len = QOS_SL2VL_BYTES;
		return qos_held_sl2vl(h, in, out);
	}
	if ((mod >> 16) < 1 || (mod >> 16) > QOS_VLARB_BLOCKS)
		return NULL;
	*len = QOS_VLARB_BLOCK_BYTES;
	return qos_held_vlarb(h, sw ? (uint8_t)(mod & 0xFF) : p->num, (mod >> 16) - 1);
}

/* A Get's or a Set's answer: what the port holds now.  No answer: unknown
 * (0xFF), written at the next heavy sweep. */
static void
on_qos_reply(const struct mad_result *res, void *owner, void *arg)
{
	char name[FABRIC_NODE_DESC_LEN + 24];
	struct sm *sm = owner;
	struct fabric_port *p = arg;
	const ib_smp_t *smp = (const ib_smp_t *)res->mad;
	size_t len = 0;
	uint8_t *slot;

	if (!mad_reply_ok(res)) {
		if (smp && smp->method == IB_MAD_METHOD_GET_RESP &&
		    (slot = held_slot(p, be16toh(smp->attr_id), be32toh(smp->attr_mod), &len)))
			memset(slot, 0xFF, len);
		sm_unreachable(sm, "QoS table of %s:%u (%s)",
		    sm_node_label(p->node, name, sizeof(name)), p->num,
		    res->status ? "no answer" : "rejected");
		return;
	}
	sm_qos_note_held(p, be16toh(smp->attr_id), be32toh(smp->attr_mod), smp->data);
}

void
sm_qos_note_held(struct fabric_port *p, uint16_t attr, uint32_t mod, const uint8_t *data)
{
	size_t len = 0;
	uint8_t *slot = held_slot(p, attr, mod, &len);

	if (slot)
		memcpy(slot, data, len);
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

/* ---- read back ---- */

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

struct diff_ctx {
	struct sm		*sm;
	struct fabric_port	*p;
	struct mad_addr		 a;
	const struct qos_tables	*t;
	uint8_t			 method;
};

/* The checker calls this for every table of a port that differs (or is
 * unknown): read it, or write what the policy gives. */
static void
on_diff(void *arg, const char *what, unsigned in, unsigned block)
{
	struct diff_ctx *d = arg;
	struct qos_port_caps c;
	uint8_t data[IB_SMP_DATA_SIZE] MAD_ALIGNED, *slot;
	bool sl2vl = strcmp(what, "sl2vl") == 0;
	uint16_t attr;
	uint32_t mod;
	size_t len = 0;

	memset(data, 0, sizeof(data));
	if (d->method == IB_MAD_METHOD_SET) {
		qos_port_caps_of(d->p, &c);
		if (sl2vl)
			qos_sl2vl_bytes(d->t, c.op_vls, data);
		else
			qos_vlarb_bytes(d->t, c.op_vls, c.vl_cap, c.low_cap, c.high_cap, block, data);
		d->sm->cur.qos_sets++;
	}
	attr = sl2vl ? SM_ATTR_SLVL : SM_ATTR_VLARB;
	mod = sl2vl ? sm_qos_sl2vl_mod(d->p, in) : sm_qos_vlarb_mod(d->p, block);
	/* Unknown until the answer says what the port holds: a Set that gets
	 * no answer may or may not have landed (the timeout has no MAD to
	 * find the slot by in on_qos_reply). */
	if ((slot = held_slot(d->p, attr, mod, &len)) != NULL)
		memset(slot, 0xFF, len);
	sm_send(d->sm, &d->a, d->method, attr, mod,
	    d->method == IB_MAD_METHOD_SET ? data : NULL, on_qos_reply, d->p);
}

static void
each_port(struct sm *sm, struct fabric_node *n, uint8_t method)
{
	struct diff_ctx d = { .sm = sm, .t = &sm->qos_tables, .method = method };

	for (unsigned j = 0; j <= n->nports; j++) {
		d.p = &n->ports[j];
		if (!qos_port_programmed(d.p) || !sm_qos_port_addr(d.p, &d.a))
			continue;
		/* Reading: every table the port has (no held mirror, so all
		 * "differ"); writing: those that differ. */
		qos_port_diff(&sm->qos_tables, d.p, method == IB_MAD_METHOD_GET ? NULL : held_of(n),
		    on_diff, &d);
	}
}

void
sm_qos_readback(struct sm *sm)
{
	struct fabric_node *n;
	size_t i;

	bool reread = sm->qos_reread_all;

	if (!sm->cfg.qos.enabled)
		return;
	sm->qos_reread_all = false;
	FABRIC_FOREACH_NODE(sm->next, i, n) {
		if (!reread && carry_over(sm, n))
			continue;
		free(n->qos);
		n->qos = qos_held_new(n->nports, n->type == FABRIC_SWITCH);
		each_port(sm, n, IB_MAD_METHOD_GET);
	}
}

void
sm_qos_program(struct sm *sm)
{
	struct fabric_node *n;
	size_t i;

	if (!sm->cfg.qos.enabled)
		return;
	FABRIC_FOREACH_NODE(sm->next, i, n)
		if (n->qos)
			each_port(sm, n, IB_MAD_METHOD_SET);
}
