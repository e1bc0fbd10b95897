/*
 * SA records built from the fabric model, filtered by the component mask
 * (sm/sa/sa.h).  A record is built whole, then compared with the request's
 * template on the fields the mask names: the byte-aligned fields through a
 * table of (mask bit, offset, length), the few nibble fields by hand.
 * Mask bits for fields not listed here are ignored, as OpenSM ignores
 * most of them.
 */
#include <stddef.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "sm/sa/sa.h"

/* ---- component mask ---- */

struct sa_field {
	ib_net64_t	bit;	/* as in the MAD: network order */
	uint16_t	off;
	uint16_t	len;
};

#define F(bit, type, member, n)	{ bit, offsetof(type, member), n }

static const struct sa_field node_fields[] = {
	F(IB_NR_COMPMASK_LID, ib_node_record_t, lid, 2),
	F(IB_NR_COMPMASK_BASEVERSION, ib_node_record_t, node_info.base_version, 1),
	F(IB_NR_COMPMASK_CLASSVERSION, ib_node_record_t, node_info.class_version, 1),
	F(IB_NR_COMPMASK_NODETYPE, ib_node_record_t, node_info.node_type, 1),
	F(IB_NR_COMPMASK_NUMPORTS, ib_node_record_t, node_info.num_ports, 1),
	F(IB_NR_COMPMASK_SYSIMAGEGUID, ib_node_record_t, node_info.sys_guid, 8),
	F(IB_NR_COMPMASK_NODEGUID, ib_node_record_t, node_info.node_guid, 8),
	F(IB_NR_COMPMASK_PORTGUID, ib_node_record_t, node_info.port_guid, 8),
	F(IB_NR_COMPMASK_PARTCAP, ib_node_record_t, node_info.partition_cap, 2),
	F(IB_NR_COMPMASK_DEVID, ib_node_record_t, node_info.device_id, 2),
	F(IB_NR_COMPMASK_REV, ib_node_record_t, node_info.revision, 4),
	/* LocalPortNum is the first byte of port_num_vendor_id, VendorID the
	 * other three. */
	F(IB_NR_COMPMASK_PORTNUM, ib_node_record_t, node_info.port_num_vendor_id, 1),
	{ IB_NR_COMPMASK_VENDID, offsetof(ib_node_record_t, node_info.port_num_vendor_id) + 1, 3 },
	F(IB_NR_COMPMASK_NODEDESC, ib_node_record_t, node_desc, IB_NODE_DESCRIPTION_SIZE),
};

static const struct sa_field portinfo_fields[] = {
	F(IB_PIR_COMPMASK_LID, ib_portinfo_record_t, lid, 2),
	F(IB_PIR_COMPMASK_PORTNUM, ib_portinfo_record_t, port_num, 1),
	F(IB_PIR_COMPMASK_MKEY, ib_portinfo_record_t, port_info.m_key, 8),
	F(IB_PIR_COMPMASK_GIDPRE, ib_portinfo_record_t, port_info.subnet_prefix, 8),
	F(IB_PIR_COMPMASK_BASELID, ib_portinfo_record_t, port_info.base_lid, 2),
	F(IB_PIR_COMPMASK_SMLID, ib_portinfo_record_t, port_info.master_sm_base_lid, 2),
	F(IB_PIR_COMPMASK_DIAGCODE, ib_portinfo_record_t, port_info.diag_code, 2),
	F(IB_PIR_COMPMASK_MKEYLEASEPRD, ib_portinfo_record_t, port_info.m_key_lease_period, 2),
	F(IB_PIR_COMPMASK_LOCALPORTNUM, ib_portinfo_record_t, port_info.local_port_num, 1),
	F(IB_PIR_COMPMASK_LINKWIDTHENABLED, ib_portinfo_record_t, port_info.link_width_enabled, 1),
	F(IB_PIR_COMPMASK_LNKWIDTHSUPPORT, ib_portinfo_record_t, port_info.link_width_supported, 1),
	F(IB_PIR_COMPMASK_LNKWIDTHACTIVE, ib_portinfo_record_t, port_info.link_width_active, 1),
};

static const struct sa_field sminfo_fields[] = {
	F(IB_SMIR_COMPMASK_LID, ib_sminfo_record_t, lid, 2),
	F(IB_SMIR_COMPMASK_GUID, ib_sminfo_record_t, sm_info.guid, 8),
	F(IB_SMIR_COMPMASK_SMKEY, ib_sminfo_record_t, sm_info.sm_key, 8),
	F(IB_SMIR_COMPMASK_ACTCOUNT, ib_sminfo_record_t, sm_info.act_count, 4),
};

static const struct sa_field link_fields[] = {
	F(IB_LR_COMPMASK_FROM_LID, ib_link_record_t, from_lid, 2),
	F(IB_LR_COMPMASK_FROM_PORT, ib_link_record_t, from_port_num, 1),
	F(IB_LR_COMPMASK_TO_PORT, ib_link_record_t, to_port_num, 1),
	F(IB_LR_COMPMASK_TO_LID, ib_link_record_t, to_lid, 2),
};

#undef F
#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

static bool
fields_match(const struct sa_field *t, size_t n, ib_net64_t mask, const void *rec,
    const uint8_t *tmpl)
{
	for (size_t i = 0; i < n; i++)
		if ((mask & t[i].bit) &&
		    memcmp((const uint8_t *)rec + t[i].off, tmpl + t[i].off, t[i].len) != 0)
			return false;
	return true;
}

/* The LID a port answers on: a switch's port 0 LID for any of its ports. */
static uint16_t
port_lid(const struct fabric_port *p)
{
	return p->node->type == FABRIC_SWITCH ? p->node->lid : p->lid;
}

/* CA ports worth a record: known (GUID) and addressed (LID). */
static bool
ca_port_addressed(const struct fabric_port *p)
{
	return p->guid != 0 && p->lid != 0;
}

/* ---- NodeRecord ---- */

static void
node_record(const struct fabric_node *n, const struct fabric_port *p, ib_node_record_t *r)
{
	ib_node_info_t *ni = &r->node_info;

	memset(r, 0, sizeof(*r));
	r->lid = htobe16(port_lid(p));
	ni->base_version = 1;
	ni->class_version = 1;
	ni->node_type = n->type == FABRIC_SWITCH ? IB_NODE_TYPE_SWITCH :
	    n->type == FABRIC_ROUTER ? IB_NODE_TYPE_ROUTER : IB_NODE_TYPE_CA;
	ni->num_ports = n->nports;
	ni->sys_guid = htobe64(n->sys_guid);
	ni->node_guid = htobe64(n->guid);
	ni->port_guid = htobe64(p->guid);
	ni->partition_cap = htobe16(n->partition_cap);
	ni->device_id = htobe16(n->device_id);
	ni->revision = htobe32(n->revision);
	ni->port_num_vendor_id = htobe32(((uint32_t)p->num << 24) | (n->vendor_id & 0xFFFFFF));
	memcpy(r->node_desc.description, n->desc, IB_NODE_DESCRIPTION_SIZE);
}

static bool
put_node(const struct sa_ctx *ctx, const struct fabric_node *n, const struct fabric_port *p,
    const struct sa_query *q, struct sa_sink *out)
{
	const struct fabric_port *req = sa_requester(ctx);
	ib_node_record_t r;

	/* a requester sees only the ports it shares a partition with (OpenSM) */
	if (req && !sa_ports_share_partition(ctx, req, p))
		return true;
	node_record(n, p, &r);
	if (!fields_match(node_fields, NFIELDS(node_fields), q->mask, &r, q->tmpl))
		return true;
	return sa_sink_put(out, &r);
}

/* One record per addressed port: a switch's port 0, every CA port. */
uint16_t
sa_node_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const struct fabric *f = ctx->f;
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(f, i, n) {
		if (n->type == FABRIC_SWITCH) {
			if (n->lid && !put_node(ctx, n, &n->ports[0], q, out))
				return 0;
			continue;
		}
		for (unsigned j = 1; j <= n->nports; j++)
			if (ca_port_addressed(&n->ports[j]) && !put_node(ctx, n, &n->ports[j], q, out))
				return 0;
	}
	return 0;
}

/* ---- PortInfoRecord ---- */

static bool
capmask_match(const struct sa_query *q, const ib_portinfo_record_t *r)
{
	const ib_portinfo_record_t *t = (const ib_portinfo_record_t *)q->tmpl;
	uint32_t want = be32toh(t->port_info.capability_mask);
	uint32_t have = be32toh(r->port_info.capability_mask);

	if (!(q->mask & IB_PIR_COMPMASK_CAPMASK))
		return true;
	/* saquery -s: attribute modifier bit 31 asks for "any of these bits". */
	if (q->attr_mod & (1u << 31))
		return (want & have) != 0;
	return want == have;
}

static bool
put_portinfo(const struct fabric_port *p, const struct sa_query *q, struct sa_sink *out)
{
	ib_portinfo_record_t r;

	memset(&r, 0, sizeof(r));
	r.lid = htobe16(port_lid(p));
	r.port_num = p->num;
	memcpy(&r.port_info, p->pi, sizeof(r.port_info));
	if (!fields_match(portinfo_fields, NFIELDS(portinfo_fields), q->mask, &r, q->tmpl) ||
	    !capmask_match(q, &r))
		return true;
	return sa_sink_put(out, &r);
}

/* Every port of a switch under its LID; every addressed CA port. */
uint16_t
sa_portinfo_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const struct fabric *f = ctx->f;
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(f, i, n) {
		bool sw = n->type == FABRIC_SWITCH;

		if (sw && n->lid == 0)
			continue;
		for (unsigned j = sw ? 0 : 1; j <= n->nports; j++) {
			if (!sw && !ca_port_addressed(&n->ports[j]))
				continue;
			if (!put_portinfo(&n->ports[j], q, out))
				return 0;
		}
	}
	return 0;
}

/* ---- LinkRecord ---- */

/* Both directions of every cabled, physically up link whose ends have LIDs. */
uint16_t
sa_link_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const struct fabric *f = ctx->f;
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(f, i, n)
		for (unsigned j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j], *r = p->peer;
			ib_link_record_t lr;

			if (r == NULL || !p->linkup || port_lid(p) == 0 || port_lid(r) == 0)
				continue;
			memset(&lr, 0, sizeof(lr));
			lr.from_lid = htobe16(port_lid(p));
			lr.from_port_num = p->num;
			lr.to_port_num = r->num;
			lr.to_lid = htobe16(port_lid(r));
			if (fields_match(link_fields, NFIELDS(link_fields), q->mask, &lr, q->tmpl) &&
			    !sa_sink_put(out, &lr))
				return 0;
		}
	return 0;
}

/* ---- SMInfoRecord: the one SM this SA knows, itself ---- */

uint16_t
sa_sminfo_records(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	const ib_sminfo_record_t *t = (const ib_sminfo_record_t *)q->tmpl;
	ib_sminfo_record_t r;

	memset(&r, 0, sizeof(r));
	r.lid = htobe16(ctx->sm_lid);
	r.sm_info.guid = htobe64(ctx->sm_guid);
	r.sm_info.sm_key = 0;	/* never shown to an untrusted requester */
	r.sm_info.act_count = htobe32(ctx->sm_act_count);
	r.sm_info.pri_state = (uint8_t)((ctx->sm_priority << 4) | (ctx->sm_state & 0x0F));
	if (!fields_match(sminfo_fields, NFIELDS(sminfo_fields), q->mask, &r, q->tmpl))
		return 0;
	if ((q->mask & IB_SMIR_COMPMASK_PRIORITY) &&
	    (t->sm_info.pri_state >> 4) != (r.sm_info.pri_state >> 4))
		return 0;
	if ((q->mask & IB_SMIR_COMPMASK_SMSTATE) &&
	    (t->sm_info.pri_state & 0x0F) != (r.sm_info.pri_state & 0x0F))
		return 0;
	sa_sink_put(out, &r);
	return 0;
}

/* ---- ClassPortInfo ---- */

#define SA_RESP_TIME	18	/* 4.096 us * 2^18 ~ 1 s, OpenSM's default */

/* SA CapabilityMask bits (IBA 15.2.1.1; OpenSM's osm_base.h OSM_CAP_*):
 * only what this SA does; 0x2602, as OpenSM's. */
#define SA_CAP_NOTICE		(1u << 1)	/* InformInfo Set, Reports */
#define SA_CAP_UD_MCAST		(1u << 9)	/* MCMemberRecord, multicast */
#define SA_CAP_MULTIPATH	(1u << 10)	/* MultiPathRecord (sa_multipath.c) */
#define SA_CAP_CAPMASK_MATCH	(1u << 13)	/* PortInfoRecord "any of" (saquery -s) */
#define SA_CAP2_MCAST_TOP	(1u << 3)	/* switches get MulticastFDBTop */
#define SA_QP1_QKEY		0x80010000u	/* IB_QP1_WELL_KNOWN_Q_KEY */

uint16_t
sa_class_port_info(const struct sa_ctx *ctx, const struct sa_query *q, struct sa_sink *out)
{
	ib_class_port_info_t cpi;

	(void)ctx, (void)q;
	memset(&cpi, 0, sizeof(cpi));
	cpi.base_ver = 1;
	cpi.class_ver = 2;
	cpi.cap_mask = htobe16(SA_CAP_NOTICE | SA_CAP_UD_MCAST | SA_CAP_MULTIPATH |
	    SA_CAP_CAPMASK_MATCH);
	ib_class_set_resp_time_val(&cpi, SA_RESP_TIME);
	ib_class_set_cap_mask2(&cpi, SA_CAP2_MCAST_TOP);
	cpi.redir_qkey = htobe32(SA_QP1_QKEY);
	cpi.trap_qkey = htobe32(SA_QP1_QKEY);
	sa_sink_put(out, &cpi);
	return 0;
}
