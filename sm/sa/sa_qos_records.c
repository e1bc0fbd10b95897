/*
 * The SA's QoS table records, from the SM's mirror of what each port holds
 * (n->qos, read back or written by sm/core/qos_program.c), never from a fresh
 * look at the fabric:
 *
 *   SLtoVLMappingTableRecord  a CA port's table (in and out port 0 in
 *                             the record, LID of the port), a switch's per
 *                             (in, out) port pair under the switch's LID
 *   VLArbitrationTableRecord  blocks 1-4 (low 0-31, low 32-63, high 0-31,
 *                             high 32-63) of a port
 *
 * As OpenSM answers them: a CA is asked by its LID alone (the port number
 * of the template is ignored, the LID names the port), a switch by its
 * LID and the port numbers the component mask gives; the requester sees
 * only ports it shares a partition with (a switch: its port 0, as for the
 * other switch records).  Unlike OpenSM, which answers whatever its own
 * copy holds, a table the SM does not know (never read: without a QoS
 * policy the sweep leaves a switch's pairs alone) is read first
 * (sa_qos_lazy.c), and left out rather than made up when it cannot be;
 * a VLArb block beyond the port's table capacity holds no entry and is
 * answered as zeros, as the port reads it.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/sa/sa.h"

static bool
visible(const struct sa_ctx *ctx, const struct fabric_port *p)
{
	const struct fabric_port *req = sa_requester(ctx);

	return req == NULL || sa_ports_share_partition(ctx, req, p);
}

/* All 0xFF: the mirror's "unknown" (sm/qos/qos.h). */
static bool
known(const uint8_t *b, size_t len)
{
	return !qos_unknown(b, len);
}

static void
tell_unknown(const struct sa_ctx *ctx, const struct fabric_port *p, bool sl2vl, unsigned in,
    unsigned block)
{
	if (ctx->qos_unknown)
		ctx->qos_unknown(ctx->qos_unknown_arg, p, sl2vl, in, block);
}

/* The nodes a query's LID names: that one (its port in *only for a CA),
 * or every node. */
static bool
lid_target(const struct sa_ctx *ctx, bool has_lid, uint16_t lid,
    const struct fabric_port **only)
{
	*only = NULL;
	if (!has_lid)
		return true;
	*only = fabric_port_by_lid(ctx->f, lid);
	return *only != NULL;
}

static bool
put_sl2vl(const struct sa_ctx *ctx, const struct fabric_port *p, uint8_t in, struct sa_sink *out)
{
	const struct fabric_node *n = p->node;
	const uint8_t *tbl = qos_held_sl2vl_c(n->qos, in, p->num);
	ib_slvl_table_record_t r;
	bool sw = n->type == FABRIC_SWITCH;

	if (!known(tbl, QOS_SL2VL_BYTES)) {
		tell_unknown(ctx, p, true, in, 0);
		return true;
	}
	memset(&r, 0, sizeof(r));
	r.lid = htobe16(sw ? n->lid : p->lid);
	r.in_port_num = sw ? in : 0;
	r.out_port_num = sw ? p->num : 0;
	memcpy(r.slvl_tbl.raw_vl_by_sl, tbl, QOS_SL2VL_BYTES);
	return sa_sink_put(out, &r);
}

/* One node's SL2VL records; false once the sink is full. */
static bool
node_sl2vl(const struct sa_ctx *ctx, const struct fabric_node *n, const struct fabric_port *only,
    const struct sa_query *q, struct sa_sink *out)
{
	const ib_slvl_table_record_t *t = (const ib_slvl_table_record_t *)q->tmpl;
	unsigned in_lo = 0, in_hi = n->nports, out_lo = 0, out_hi = n->nports;

	if (n->qos == NULL)
		return true;
	if (n->type != FABRIC_SWITCH) {
		for (unsigned j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j];

			if ((only && only != p) || !p->guid || !p->lid || !visible(ctx, p))
				continue;
			if (!put_sl2vl(ctx, p, 0, out))
				return false;
		}
		return true;
	}
	if (n->lid == 0 || !visible(ctx, &n->ports[0]))
		return true;
	if (q->mask & IB_SLVL_COMPMASK_IN_PORT)
		in_lo = in_hi = t->in_port_num;
	if (q->mask & IB_SLVL_COMPMASK_OUT_PORT)
		out_lo = out_hi = t->out_port_num;
	for (unsigned o = out_lo; o <= out_hi && o <= n->nports; o++)
		for (unsigned i = in_lo; i <= in_hi && i <= n->nports; i++)
			if (!put_sl2vl(ctx, &n->ports[o], (uint8_t)i, out))
				return false;
	return true;
}

uint16_t
sa_sl2vl_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_slvl_table_record_t *t = (const ib_slvl_table_record_t *)q->tmpl;
	const struct fabric_port *only;
	struct fabric_node *n;
	size_t i;

	if (!lid_target(ctx, q->mask & IB_SLVL_COMPMASK_LID, be16toh(t->lid), &only))
		return 0;
	if (only) {
		node_sl2vl(ctx, only->node, only->node->type == FABRIC_SWITCH ? NULL : only, q, out);
		return 0;
	}
	FABRIC_FOREACH_NODE(ctx->f, i, n)
		if (!node_sl2vl(ctx, n, NULL, q, out))
			return 0;
	return 0;
}

/* The records of port p's blocks the query asks for (1-4). */
static bool
port_vlarb(const struct sa_ctx *ctx, const struct fabric_port *p, const struct sa_query *q,
    struct sa_sink *out)
{
	const ib_vl_arb_table_record_t *t = (const ib_vl_arb_table_record_t *)q->tmpl;
	const struct fabric_node *n = p->node;
	struct qos_port_caps c;
	uint8_t want[QOS_VLARB_BLOCK_BYTES];
	struct qos_tables none;

	if (n->qos == NULL || !visible(ctx, n->type == FABRIC_SWITCH ? &n->ports[0] : p))
		return true;
	memset(&none, 0, sizeof(none));
	qos_port_caps_of(p, &c);
	for (unsigned b = 0; b < QOS_VLARB_BLOCKS; b++) {
		const uint8_t *held = qos_held_vlarb_c(n->qos, p->num, b);
		ib_vl_arb_table_record_t r;
		/* how many bytes of block b the port has: 0 beyond its capacity */
		size_t len = qos_vlarb_bytes(&none, c.op_vls, c.vl_cap, c.low_cap, c.high_cap, b, want);

		if ((q->mask & IB_VLA_COMPMASK_BLOCK) && t->block_num != b + 1)
			continue;
		if (len && !known(held, len)) {
			tell_unknown(ctx, p, false, 0, b);
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.lid = htobe16(n->type == FABRIC_SWITCH ? n->lid : p->lid);
		r.port_num = p->num;
		r.block_num = (uint8_t)(b + 1);
		memcpy(&r.vl_arb_tbl, held, len);
		if (!sa_sink_put(out, &r))
			return false;
	}
	return true;
}

static bool
node_vlarb(const struct sa_ctx *ctx, const struct fabric_node *n, const struct fabric_port *only,
    const struct sa_query *q, struct sa_sink *out)
{
	const ib_vl_arb_table_record_t *t = (const ib_vl_arb_table_record_t *)q->tmpl;
	bool sw = n->type == FABRIC_SWITCH;

	if (sw && (n->lid == 0 || ((q->mask & IB_VLA_COMPMASK_OUT_PORT) && t->port_num > n->nports)))
		return true;
	for (unsigned j = sw ? 0 : 1; j <= n->nports; j++) {
		const struct fabric_port *p = &n->ports[j];

		if (sw ? ((q->mask & IB_VLA_COMPMASK_OUT_PORT) && t->port_num != j) :
		    ((only && only != p) || !p->guid || !p->lid))
			continue;
		if (!port_vlarb(ctx, p, q, out))
			return false;
	}
	return true;
}

uint16_t
sa_vlarb_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_vl_arb_table_record_t *t = (const ib_vl_arb_table_record_t *)q->tmpl;
	const struct fabric_port *only;
	struct fabric_node *n;
	size_t i;

	if (!lid_target(ctx, q->mask & IB_VLA_COMPMASK_LID, be16toh(t->lid), &only))
		return 0;
	if (only) {
		node_vlarb(ctx, only->node, only->node->type == FABRIC_SWITCH ? NULL : only, q, out);
		return 0;
	}
	FABRIC_FOREACH_NODE(ctx->f, i, n)
		if (!node_vlarb(ctx, n, NULL, q, out))
			return 0;
	return 0;
}
