/*
 * The audit's PortInfo checker: the fields the SM programmed on every
 * port it activated: LID, LMC, MasterSMLID and the subnet prefix on the
 * ports that carry a LID, the port state of every link, and partition
 * enforcement on the switch ports the partitions module gave a table.
 *
 * LID, LMC, SM LID and prefix are put back with one Set that changes
 * nothing else (every "no change" encoding, as activate.c writes).  A
 * link that left ACTIVE is not mended by a Set: it is told and a heavy
 * sweep walks it up again.  Enforcement is expected only once the port
 * has been seen to hold it: a port that never kept the bits (ibsim keeps
 * none) is not written every pass.
 *
 * A port an operator disabled (`port disable`, ctl_port.c) is read too,
 * link or none: if it is no longer Disabled (someone enabled it behind
 * fabricd's back) the repair disables it again, and once it reads back
 * Disabled a heavy sweep drops the link it had brought up.
 */
#include <stdio.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/audit/audit.h"

#define ENFORCE_BITS	0x0c	/* PartitionEnforcementInbound | Outbound */
#define PHYS_LINKUP	5

bool
audit_port_audited(const struct fabric_port *p)
{
	return p->node->type == FABRIC_SWITCH ? p->num == 0 : p->guid != 0;
}

static bool
link_active_expected(const struct fabric_port *p)
{
	return p->num > 0 && p->peer && p->linkup && p->peer->linkup && p->state == IB_LINK_ACTIVE;
}

static size_t
pi_items(struct sm *sm, const struct fabric_node *n)
{
	return (size_t)n->nports + 1;
}

static size_t
pi_gets(struct sm *sm, const struct fabric_node *n, size_t k, struct audit_get *out)
{
	const struct fabric_port *p = &n->ports[k];

	if (n->type != FABRIC_SWITCH && k == 0)
		return 0;
	if (!audit_port_audited(p) && !link_active_expected(p) && !sm_port_disabled(sm, p))
		return 0;
	memset(out, 0, sizeof(*out));
	out->addr.directed = true;
	if (!fabric_port_path(p, out->addr.path, &out->addr.hops))
		return 0;
	out->attr = UMAD_SM_ATTR_PORT_INFO;
	out->mod = (uint32_t)k;
	out->port = (uint8_t)k;
	return 1;
}

static uint64_t
enforce_key(const struct fabric_node *n, uint8_t port)
{
	uint64_t k = (n->guid << 8 | port) * 0x9E3779B97F4A7C15ull;

	return k ? k : 1;
}

/* The Set that changes only what the SM programs. */
static void
no_change_encodings(ib_port_info_t *pi)
{
	ib_port_info_set_port_state(pi, IB_LINK_NO_CHANGE);
	ib_port_info_set_port_phys_state(0, pi);
	pi->link_width_enabled = 0;
	ib_port_info_set_link_speed_enabled(pi, 0);
	ib_port_info_set_link_speed_ext_enabled(pi, 0);
}

static bool
lid_fields_wrong(const struct sm *sm, const struct fabric_port *p, const ib_port_info_t *pi,
    char *diff, size_t len)
{
	uint16_t lid = p->node->type == FABRIC_SWITCH ? p->node->lid : p->lid;

	if (be16toh(pi->base_lid) != lid)
		snprintf(diff, len, "LID %u, assigned %u", be16toh(pi->base_lid), lid);
	else if (be16toh(pi->master_sm_base_lid) != sm->own_lid)
		snprintf(diff, len, "SM LID %u, the SM is at %u", be16toh(pi->master_sm_base_lid),
		    sm->own_lid);
	else if (ib_port_info_get_lmc(pi) != 0)
		snprintf(diff, len, "LMC %u, programmed 0", ib_port_info_get_lmc(pi));
	else if (be64toh(pi->subnet_prefix) != sm->cfg.subnet_prefix)
		snprintf(diff, len, "subnet prefix 0x%016llx, programmed 0x%016llx",
		    (unsigned long long)be64toh(pi->subnet_prefix),
		    (unsigned long long)sm->cfg.subnet_prefix);
	else
		return false;
	return true;
}

static enum audit_verdict
pi_check(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data,
    uint8_t *set, char *diff, size_t len)
{
	const struct fabric_port *p = &n->ports[g->port];
	const ib_port_info_t *pi = (const ib_port_info_t *)data;
	ib_port_info_t *out = (ib_port_info_t *)set;
	uint16_t entries[1];
	bool ext;

	if (g->port > 0 && sm_port_disabled(sm, p)) {
		uint8_t phys = ib_port_info_get_port_phys_state(pi);

		if (phys == PORT_PHYS_DISABLED)
			return AUDIT_SAME;
		snprintf(diff, len, "PortPhysicalState %u (%s), disabled by an operator", phys,
		    phys == PHYS_LINKUP ? "LinkUp" : phys == PORT_PHYS_POLLING ? "Polling" : "not Disabled");
		port_phys_set_build(data, PORT_PHYS_DISABLED, set);
		if (n->type != FABRIC_SWITCH && !sm_port_key_fields(sm, p, set))
			return AUDIT_REPORT;	/* its M_Key lease first (mkey.c) */
		return AUDIT_DIFF;
	}
	if (audit_port_audited(p) && lid_fields_wrong(sm, p, pi, diff, len)) {
		out->base_lid = htobe16(n->type == FABRIC_SWITCH ? n->lid : p->lid);
		out->master_sm_base_lid = htobe16(sm->own_lid);
		ib_port_info_set_lmc(out, 0);
		out->subnet_prefix = htobe64(sm->cfg.subnet_prefix);
		no_change_encodings(out);
		return AUDIT_DIFF;
	}
	if (link_active_expected(p) && (ib_port_info_get_port_state(pi) != IB_LINK_ACTIVE ||
	    ib_port_info_get_port_phys_state(pi) != PHYS_LINKUP)) {
		snprintf(diff, len, "link %s, activated ACTIVE; a heavy sweep brings it up",
		    fabric_port_state_name(ib_port_info_get_port_state(pi)));
		sm_sweep_request(sm, true);
		return AUDIT_REPORT;
	}
	if (n->type == FABRIC_SWITCH && g->port > 0 &&
	    sm_pkey_expected(sm, n, g->port, entries, 1, &ext) > 0 && ext) {
		bool held = (pi->vl_enforce & ENFORCE_BITS) == ENFORCE_BITS;

		if (held) {
			guid_map_put(&sm->audit->enforce_seen, enforce_key(n, g->port), (void *)1);
			return AUDIT_SAME;
		}
		if (guid_map_get(&sm->audit->enforce_seen, enforce_key(n, g->port)) == NULL)
			return AUDIT_SKIP;	/* never kept the bits: nothing to put back */
		snprintf(diff, len, "partition enforcement off (0x%02x), was on",
		    pi->vl_enforce & ENFORCE_BITS);
		out->vl_enforce |= ENFORCE_BITS;
		no_change_encodings(out);
		return AUDIT_DIFF;
	}
	return AUDIT_SAME;
}

/* A disabled port the model still holds a link for (it came up behind
 * fabricd's back and was swept in): once it is Disabled again, a heavy
 * sweep drops the link and routes around it. */
static void
pi_held(struct sm *sm, struct fabric_node *n, const struct audit_get *g, const uint8_t *data)
{
	const struct fabric_port *p = &n->ports[g->port];

	if (g->port > 0 && p->linkup && sm_port_disabled(sm, p) &&
	    ib_port_info_get_port_phys_state((const ib_port_info_t *)data) == PORT_PHYS_DISABLED)
		sm_sweep_request(sm, true);
}

const struct audit_checker audit_portinfo_checker = {
	.table = "PortInfo",
	.items = pi_items,
	.gets = pi_gets,
	.check = pi_check,
	.held = pi_held,
};
