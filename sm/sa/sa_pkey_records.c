/*
 * The SA's P_KeyTableRecord (0x0033): the 32-entry blocks of a port's
 * P_Key table as the partitions module committed and verified it
 * (ctx->pkey_entries, the table the audit also checks), or the factory
 * table (0xFFFF alone at index 0) where partitions are off.  Keyed as
 * IBA and OpenSM key it: a CA port by its LID (PortNum ignored), a switch
 * by its LID and PortNum (0: the management port, else the enforcement
 * table of an external port), BlockNum narrowing both.
 *
 * P_Key tables say who may talk to whom, so IBA gives them only to
 * trusted requests: a request without the SA key is refused with
 * REQ_INVALID before it gets here (sa_build_records), as OpenSM refuses
 * it.  A port whose committed table is not known (a change in flight) is
 * left out rather than guessed.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/sa/sa.h"

#define PKEY_BLOCK	32
#define PKEY_MAX	(64 * PKEY_BLOCK)

/* The table of port num of n: entries, count (0: not known). */
static size_t
port_table(const struct sa_ctx *ctx, const struct fabric_node *n, uint8_t num, uint16_t *e)
{
	bool ext = false;
	int cnt;

	memset(e, 0, PKEY_MAX * sizeof(*e));
	if (ctx->pkey_entries == NULL) {
		e[0] = 0xFFFF;
		return 1;
	}
	cnt = ctx->pkey_entries(n->guid, num, e, PKEY_MAX, &ext, ctx->pkey_entries_arg);
	return cnt > 0 ? (size_t)cnt : 0;
}

static bool
put_port(const struct sa_ctx *ctx, const struct fabric_port *p, const struct sa_query *q,
    struct sa_sink *out)
{
	const ib_pkey_table_record_t *t = (const ib_pkey_table_record_t *)q->tmpl;
	const struct fabric_node *n = p->node;
	bool sw = n->type == FABRIC_SWITCH;
	uint16_t e[PKEY_MAX];
	size_t cnt = port_table(ctx, n, p->num, e);

	for (size_t b = 0; b * PKEY_BLOCK < cnt; b++) {
		ib_pkey_table_record_t r;

		if ((q->mask & IB_PKEY_COMPMASK_BLOCK) && be16toh(t->block_num) != b)
			continue;
		memset(&r, 0, sizeof(r));
		r.lid = htobe16(sw ? n->lid : p->lid);
		r.block_num = htobe16((uint16_t)b);
		r.port_num = sw ? p->num : 0;
		for (unsigned i = 0; i < PKEY_BLOCK; i++)
			r.pkey_tbl.pkey_entry[i] = htobe16(e[b * PKEY_BLOCK + i]);
		if (!sa_sink_put(out, &r))
			return false;
	}
	return true;
}

static bool
node_pkeys(const struct sa_ctx *ctx, const struct fabric_node *n, const struct fabric_port *only,
    const struct sa_query *q, struct sa_sink *out)
{
	const ib_pkey_table_record_t *t = (const ib_pkey_table_record_t *)q->tmpl;
	bool sw = n->type == FABRIC_SWITCH;

	if (sw && n->lid == 0)
		return true;
	for (unsigned j = sw ? 0 : 1; j <= n->nports; j++) {
		const struct fabric_port *p = &n->ports[j];

		if (sw ? ((q->mask & IB_PKEY_COMPMASK_PORT) && t->port_num != j) :
		    ((only && only != p) || !p->guid || !p->lid))
			continue;
		if (!put_port(ctx, p, q, out))
			return false;
	}
	return true;
}

uint16_t
sa_pkey_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_pkey_table_record_t *t = (const ib_pkey_table_record_t *)q->tmpl;
	const struct fabric_port *only = NULL;
	struct fabric_node *n;
	size_t i;

	if (q->mask & IB_PKEY_COMPMASK_LID) {
		if ((only = fabric_port_by_lid(ctx->f, be16toh(t->lid))) == NULL)
			return 0;
		node_pkeys(ctx, only->node, only->node->type == FABRIC_SWITCH ? NULL : only, q, out);
		return 0;
	}
	FABRIC_FOREACH_NODE(ctx->f, i, n)
		if (!node_pkeys(ctx, n, NULL, q, out))
			return 0;
	return 0;
}
