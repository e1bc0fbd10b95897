/*
 * The audit's P_Key checker: the P_KeyTable blocks of every port the
 * partitions module committed a table for (end ports, switch port 0 and
 * the switch ports facing end ports), against that committed table.
 * The table itself comes through sm_set_pkey_expect(): partitions sits
 * above the SM and registers it, so sm/ reads no partitions code.
 */
#include <stdio.h>
#include <string.h>

#include <iba/ib_types.h>

#include "sm/audit/audit.h"

#define PKEY_BLOCK	32
#define PKEY_MAX	(AUDIT_MAX_GETS * PKEY_BLOCK)

static size_t
pkey_items(struct sm *sm, const struct fabric_node *n)
{
	return sm_pkey_expect_known(sm) ? (size_t)n->nports + 1 : 0;	/* item k: port k */
}

static size_t
pkey_gets(struct sm *sm, const struct fabric_node *n, size_t k, struct audit_get *out)
{
	uint16_t entries[PKEY_MAX];
	const struct fabric_port *p = &n->ports[k];
	struct mad_addr a = { .directed = true };
	bool ext;
	int cnt;
	size_t b, nb;

	if (n->type != FABRIC_SWITCH && (k == 0 || p->guid == 0))
		return 0;
	if ((cnt = sm_pkey_expected(sm, n, (uint8_t)k, entries, PKEY_MAX, &ext)) <= 0)
		return 0;
	if (!fabric_port_path(p, a.path, &a.hops))
		return 0;
	nb = ((size_t)cnt + PKEY_BLOCK - 1) / PKEY_BLOCK;
	for (b = 0; b < nb; b++) {
		memset(&out[b], 0, sizeof(out[b]));
		out[b].addr = a;
		out[b].attr = UMAD_SM_ATTR_PKEY_TABLE;
		out[b].mod = (n->type == FABRIC_SWITCH && k > 0 ? (uint32_t)k << 16 : 0) | (uint32_t)b;
		out[b].port = (uint8_t)k;
		out[b].block = (uint16_t)b;
	}
	return nb;
}

static uint16_t
entry_at(const uint8_t *d, unsigned i)
{
	return (uint16_t)(d[2 * i] << 8 | d[2 * i + 1]);
}

static enum audit_verdict
pkey_check(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data,
    uint8_t *set, char *diff, size_t len)
{
	uint16_t entries[PKEY_MAX];
	unsigned i, from = g->block * PKEY_BLOCK, ndiff = 0, first = 0;
	bool ext;
	int cnt = sm_pkey_expected(sm, n, g->port, entries, PKEY_MAX, &ext);

	if (cnt <= 0 || (unsigned)cnt <= from)
		return AUDIT_SKIP;
	for (i = 0; i < PKEY_BLOCK && from + i < (unsigned)cnt; i++) {
		if (entry_at(data, i) == entries[from + i])
			continue;
		if (ndiff++ == 0)
			first = i;
		/* only the entries the port holds are written; the rest of
		 * the block stays as read */
		set[2 * i] = (uint8_t)(entries[from + i] >> 8);
		set[2 * i + 1] = (uint8_t)entries[from + i];
	}
	if (ndiff == 0)
		return AUDIT_SAME;
	snprintf(diff, len, "%u entr%s: index %u holds 0x%04x, committed 0x%04x%s", ndiff,
	    ndiff == 1 ? "y" : "ies", from + first, entry_at(data, first), entries[from + first],
	    ext ? " (switch port enforcing for its host)" : "");
	return AUDIT_DIFF;
}

const struct audit_checker audit_pkey_checker = {
	.table = "P_KeyTable",
	.items = pkey_items,
	.gets = pkey_gets,
	.check = pkey_check,
	.held = NULL,
};
