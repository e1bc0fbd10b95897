/*
 * The audit's QoS checker: the SL2VL tables (a switch's per in/out port
 * pair) and the VL arbitration blocks of every port that gets QoS tables,
 * against what the policy gives that port (sm/qos/qos.h); without a policy,
 * the SL2VL tables alone, for an SL in use sent nowhere (and what it
 * reads is what the SM's mirror holds from then on: the sweep does not
 * read a switch's pairs without a policy).  The same tables and
 * the same port rule as qos_program.c, so the audit finds exactly what a
 * heavy sweep would write.  Off when QoS is off: then fabricd wrote none.
 *
 * A switch holds an SL2VL table per (in, out) pair: a 36-port switch has
 * over a thousand.  Reading them all each pass would spend the audit's
 * MAD budget on SL2VL alone, so a pass reads, per out port, its VL
 * arbitration blocks and the SL2VL of one in port, the next one each
 * pass: every pair is read once every (in ports in use) passes, and a CA
 * port (one table) every pass.
 */
#include <stdio.h>
#include <string.h>

#include <iba/ib_types.h>

#include "sm/audit/audit.h"
#include "sm/qos/qos.h"

static size_t
qos_items(struct sm *sm, const struct fabric_node *n)
{
	return sm->cfg.qos.enabled ? (size_t)n->nports + 1 : 0;	/* item k: port k */
}

struct collect {
	const struct fabric_port	*p;
	struct mad_addr			 a;
	struct audit_get		*out;
	size_t				 n;
	unsigned			 sl2vl_seen;	/* SL2VL tables named so far */
	unsigned			 sl2vl_pick;	/* which of them this pass reads */
};

/* qos_port_tables() names every table the SM looks after. */
static void
collect_table(void *arg, const char *what, unsigned in, unsigned block)
{
	struct collect *c = arg;
	struct audit_get *g;
	bool sl2vl = strcmp(what, "sl2vl") == 0;

	if (sl2vl && c->sl2vl_seen++ != c->sl2vl_pick)
		return;
	if (c->n >= AUDIT_MAX_GETS)
		return;
	g = &c->out[c->n++];
	memset(g, 0, sizeof(*g));
	g->addr = c->a;
	g->attr = sl2vl ? UMAD_SM_ATTR_SLVL_TABLE : UMAD_SM_ATTR_VL_ARB_TABLE;
	g->mod = sl2vl ? sm_qos_sl2vl_mod(c->p, in) : sm_qos_vlarb_mod(c->p, block);
	g->port = c->p->num;
	g->block = (uint16_t)(sl2vl ? in : block);	/* the event's "block": in port or block */
}

static void
count_sl2vl(void *arg, const char *what, unsigned in, unsigned block)
{
	unsigned *n = arg;

	*n += strcmp(what, "sl2vl") == 0;
}

static size_t
qos_gets(struct sm *sm, const struct fabric_node *n, size_t k, struct audit_get *out)
{
	struct collect c = { .p = &n->ports[k], .out = out };
	unsigned nin = 0;

	if (!qos_port_programmed(c.p) || !sm_qos_port_addr(c.p, &c.a))
		return 0;
	qos_port_tables(sm->qos_tables, c.p, count_sl2vl, &nin);
	c.sl2vl_pick = nin ? (unsigned)(sm->audit->passes % nin) : 0;
	qos_port_tables(sm->qos_tables, c.p, collect_table, &c);
	return c.n;
}

static enum audit_verdict
qos_check(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data,
    uint8_t *set, char *diff, size_t len)
{
	const struct fabric_port *p = &n->ports[g->port];
	uint8_t want[QOS_VLARB_BLOCK_BYTES];
	struct qos_port_caps c;
	size_t nbytes, i;

	if (!sm->cfg.qos.enabled || !qos_port_programmed(p))
		return AUDIT_SKIP;
	qos_port_caps_of(p, &c);
	if (g->attr == UMAD_SM_ATTR_SLVL_TABLE) {
		/* what was read is what the port holds: the mirror learns it */
		sm_qos_note_held(&n->ports[g->port], g->attr, g->mod, data);
		if (!qos_sl2vl_want(sm->qos_tables, c.op_vls, data, want))
			return AUDIT_SAME;
		nbytes = QOS_SL2VL_BYTES;
	} else if (sm->qos_tables->keep)
		return AUDIT_SKIP;	/* no policy: arbitration left alone */
	else
		nbytes = qos_vlarb_bytes(sm->qos_tables, c.op_vls, c.vl_cap, c.low_cap, c.high_cap,
		    g->block, want);
	if (nbytes == 0)
		return AUDIT_SKIP;
	if (memcmp(data, want, nbytes) == 0)
		return AUDIT_SAME;
	if (g->attr == UMAD_SM_ATTR_SLVL_TABLE) {
		uint8_t sl = 0;

		while (sl < QOS_NUM_SL - 1 && qos_sl2vl_get(data, sl) == qos_sl2vl_get(want, sl))
			sl++;
		snprintf(diff, len, "SL2VL from in port %u: SL %u runs on VL %u, %s VL %u",
		    g->block, sl, qos_sl2vl_get(data, sl), sm->qos_tables->keep ?
		    "where the port does not send it; it goes on" : "the policy says",
		    qos_sl2vl_get(want, sl));
	} else {
		for (i = 0; i + 2 < nbytes && data[i] == want[i] && data[i + 1] == want[i + 1]; i += 2)
			;
		snprintf(diff, len, "VLArb %s block %u: entry %zu holds VL %u weight %u, the policy "
		    "says VL %u weight %u", g->block < 2 ? "low" : "high", g->block & 1, i / 2,
		    data[i] & 0x0F, data[i + 1], want[i] & 0x0F, want[i + 1]);
	}
	memcpy(set, want, nbytes);	/* the rest of the block stays as read */
	return AUDIT_DIFF;
}

/* The SM's mirror of what the port holds follows the repair. */
static void
qos_held(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data)
{
	sm_qos_note_held(&n->ports[g->port], g->attr, g->mod, data);
}

const struct audit_checker audit_qos_checker = {
	.table = "QoS",
	.items = qos_items,
	.gets = qos_gets,
	.check = qos_check,
	.held = qos_held,
};
