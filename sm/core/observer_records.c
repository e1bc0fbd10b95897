/*
 * Observer mode's queries to the master's SA and what their answers put in
 * the model being read (observer_internal.h; the read's life is
 * observer.c's).
 *
 * Two ways to read.  Record by record (SubnAdmGet), breadth first from
 * our own port: the NodeRecord of a LID, then that node's PortInfoRecords
 * and LinkRecords (the LIDs at their far ends are the next NodeRecords),
 * and a switch's SwitchInfoRecord and its LFTRecords up to LinearFDBTop:
 * what works under ibsim, which cuts every answer to 224 bytes and does no
 * RMPP.  Or, where the kernel reassembles RMPP (mad_engine_kernel_rmpp:
 * every kernel with registration flags, 3.19 on), table by table
 * (SubnAdmGetTable with no component): the NodeRecords, then the
 * PortInfoRecords, LinkRecords, SwitchInfoRecords and LFTRecords, five
 * queries a read where the 1,296-host tree costs 21,709 one at a time.  A
 * table's records are taken a slice at a time by the batch's producer, so
 * that a table of thousands holds no step of the loop long;
 * tests/integration/observer_gettable.sh shows it below the API, through a
 * double that answers GetTable as the kernel hands over a reassembled
 * transfer (tests/fixtures/mad/sa_gettable.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sa.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "sm/core/observer_internal.h"

void sm_port_update(struct fabric_port *p, const uint8_t *data);	/* discover.c */

/* The callbacks' argument: a query packed into a pointer (no allocation
 * per MAD): kind 3 bits, LID 16, argument 12 (a block <= 767, a port, a
 * hop count). */
static void *
pack(enum obs_kind kind, uint16_t lid, uint16_t arg)
{
	return (void *)(uintptr_t)((uint32_t)kind | (uint32_t)lid << 3 | (uint32_t)(arg & 0xFFF) << 19);
}

static struct obs_query
unpack(void *p)
{
	uint32_t v = (uint32_t)(uintptr_t)p;

	return (struct obs_query){ .kind = v & 7, .lid = (v >> 3) & 0xFFFF, .arg = (v >> 19) & 0xFFF };
}

void
obs_error(struct sm_observer *o, const char *fmt, ...)
{
	va_list ap;

	o->cur.errors++;
	o->errors_total++;
	va_start(ap, fmt);
	vsnprintf(o->last_error, sizeof(o->last_error), fmt, ap);
	va_end(ap);
}

void
obs_push(struct sm_observer *o, enum obs_kind kind, uint16_t lid, uint16_t arg)
{
	if (o->table && lid != 0)
		return;
	if (o->qlen == o->qcap) {
		o->qcap = o->qcap ? 2 * o->qcap : 256;
		o->q = xreallocarray(o->q, o->qcap, sizeof(*o->q));
	}
	o->q[o->qlen++] = (struct obs_query){ kind, lid, arg };
}


/* ---- queries ---- */

static void on_record(const struct mad_result *res, void *owner, void *arg);
static void table_slice(struct sm_observer *o);

/* The batch's producer: the next queries, while fewer than max are out. */
static bool
feed(void *owner, void *arg)
{
	struct sm_observer *o = arg;
	static const struct { uint16_t attr; uint64_t mask; } what[] = {
		[Q_NODE] = { UMAD_SA_ATTR_NODE_REC, 1 },		/* LID */
		[Q_PORT] = { UMAD_SA_ATTR_PORT_INFO_REC, 3 },	/* EndportLID, PortNum */
		[Q_LINK] = { UMAD_SA_ATTR_LINK_REC, 3 },	/* FromLID, FromPort */
		[Q_SWITCH] = { UMAD_SA_ATTR_SWITCH_INFO_REC, 1 },	/* LID */
		[Q_LFT] = { UMAD_SA_ATTR_LINEAR_FT_REC, 3 },	/* LID, Block */
	};
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)mad;
	struct obs_query q;
	uint16_t be;

	(void)owner;
	if (o->tab != NULL) {
		table_slice(o);
		return true;
	}
	if (o->qhead == o->qlen)
		return false;
	q = o->q[o->qhead++];
	memset(mad, 0, sizeof(mad));
	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = UMAD_SA_CLASS_VERSION;
	sa->attr_id = htobe16(what[q.kind].attr);
	o->cur.queries++;
	if (q.lid == 0) {		/* the whole table, no component */
		sa->method = IB_MAD_METHOD_GETTABLE;
		mad_batch_raw(&o->batch, o->master_lid, 1, SA_QKEY, mad, sizeof(mad), on_record,
		    pack(q.kind, 0, 0));
		return true;
	}
	sa->method = IB_MAD_METHOD_GET;
	sa->comp_mask = htobe64(what[q.kind].mask);
	/* every record starts with its LID; the second field differs */
	be = htobe16(q.lid);
	memcpy(sa->data, &be, 2);
	if (q.kind == Q_PORT || q.kind == Q_LINK)
		sa->data[2] = (uint8_t)q.arg;		/* PortNum, FromPort */
	else if (q.kind == Q_LFT) {
		be = htobe16(q.arg);			/* BlockNum */
		memcpy(sa->data + 2, &be, 2);
	}
	mad_batch_raw(&o->batch, o->master_lid, 1, SA_QKEY, mad, sizeof(mad), on_record,
	    pack(q.kind, q.lid, q.arg));
	return true;
}

void
obs_kick(struct sm_observer *o)
{
	if (o->batch.feed == NULL && (o->qhead < o->qlen || o->tab != NULL))
		mad_batch_feed(&o->batch, (size_t)o->cfg.max_outstanding, feed, o);
}

/* ---- records into the model ---- */

static const char *
kind_name(enum obs_kind k)
{
	static const char *const names[] = { "NodeRecord", "PortInfoRecord", "LinkRecord",
	    "SwitchInfoRecord", "LFTRecord" };

	return names[k];
}

/* The node whose LID a record names (its switch, or the CA port's node). */
static struct fabric_node *
node_of(struct sm_observer *o, uint16_t lid)
{
	struct fabric_port *p = fabric_port_by_lid(o->next, lid);

	return p ? p->node : NULL;
}

static void
node_record(struct sm_observer *o, const ib_node_record_t *r, uint16_t lid, uint8_t hops)
{
	const ib_node_info_t *ni = &r->node_info;
	uint64_t guid = be64toh(ni->node_guid);
	uint8_t q = ib_node_info_get_local_port_num(ni);
	struct fabric_node *n;
	unsigned i;

	if (guid == 0 || ni->num_ports == 0 || q > ni->num_ports) {
		obs_error(o, "NodeRecord of LID %u: bad NodeInfo", lid);
		return;
	}
	if ((n = fabric_node_by_guid(o->next, guid)) == NULL) {
		n = fabric_add_node(o->next, guid, ni->node_type == IB_NODE_TYPE_SWITCH ?
		    FABRIC_SWITCH : ni->node_type == IB_NODE_TYPE_ROUTER ? FABRIC_ROUTER : FABRIC_CA,
		    ni->num_ports);
		n->seen = true;
		n->hops = hops;
		n->port_guid = be64toh(ni->port_guid);
		n->partition_cap = be16toh(ni->partition_cap);
		n->vendor_id = be32toh(ni->port_num_vendor_id) & 0x00FFFFFF;
		n->device_id = be16toh(ni->device_id);
		n->sys_guid = be64toh(ni->sys_guid);
		n->revision = be32toh(ni->revision);
		n->path_port = q;
		memcpy(n->desc, r->node_desc.description, FABRIC_NODE_DESC_LEN);
		n->desc[FABRIC_NODE_DESC_LEN] = 0;
		for (i = 0; n->desc[i]; i++)	/* as discovery keeps it */
			if (!isprint((unsigned char)n->desc[i]))
				n->desc[i] = '?';
		if (n->type == FABRIC_SWITCH) {
			for (i = 0; i <= n->nports; i++)
				n->ports[i].guid = n->port_guid;
			fabric_index_port_guid(o->next, &n->ports[0]);
		}
	} else if ((n->type == FABRIC_SWITCH) != (ni->node_type == IB_NODE_TYPE_SWITCH) ||
	    n->nports != ni->num_ports) {
		obs_error(o, "NodeRecord of LID %u: GUID " GUID_FMT " seen as another node",
		    lid, guid);
		return;
	}
	if (n->type == FABRIC_SWITCH) {
		fabric_set_lid(o->next, &n->ports[0], lid);
		obs_push(o, Q_SWITCH, lid, 0);
		for (i = 0; i <= n->nports; i++)
			obs_push(o, Q_PORT, lid, (uint16_t)i);
		for (i = 1; i <= n->nports; i++)
			obs_push(o, Q_LINK, lid, (uint16_t)i);
		return;
	}
	n->ports[q].guid = be64toh(ni->port_guid);
	if (fabric_index_port_guid(o->next, &n->ports[q]) < 0) {
		obs_error(o, "NodeRecord of LID %u: port GUID " GUID_FMT " twice", lid,
		    n->ports[q].guid);
		return;
	}
	fabric_set_lid(o->next, &n->ports[q], lid);
	obs_push(o, Q_PORT, lid, q);
	obs_push(o, Q_LINK, lid, q);
}

static void
switch_record(struct sm_observer *o, const ib_switch_info_record_t *r, uint16_t lid)
{
	struct fabric_node *n = node_of(o, lid);
	uint16_t top = be16toh(r->switch_info.lin_top);
	unsigned b, blocks;

	if (n == NULL || n->type != FABRIC_SWITCH)
		return;
	memcpy(n->si, &r->switch_info, sizeof(r->switch_info));
	n->lft_cap = be16toh(r->switch_info.lin_cap);
	n->partition_enforcement_cap = be16toh(r->switch_info.enforce_cap);
	if (top > FABRIC_MAX_LID)
		top = FABRIC_MAX_LID;
	n->lft_top = top;
	blocks = top / ROUTING_BLOCK_SIZE + 1;
	fabric_lft_reserve(n, (size_t)blocks * ROUTING_BLOCK_SIZE);
	n->lft_known = true;
	for (b = 0; b < blocks; b++) {
		sm_lft_mark_unknown(n, b);	/* until its record is in */
		obs_push(o, Q_LFT, lid, (uint16_t)b);
	}
}

static void
link_record(struct sm_observer *o, const ib_link_record_t *r)
{
	struct fabric_node *from = node_of(o, be16toh(r->from_lid));
	uint16_t to = be16toh(r->to_lid);

	if (o->nlinks == o->links_cap) {
		o->links_cap = o->links_cap ? 2 * o->links_cap : 256;
		o->links = xreallocarray(o->links, o->links_cap, sizeof(*o->links));
	}
	o->links[o->nlinks++] = (struct obs_link){ be16toh(r->from_lid), to, r->from_port_num,
	    r->to_port_num };
	if (to == 0 || to > FABRIC_MAX_LID || o->asked[to])
		return;
	o->asked[to] = 1;
	obs_push(o, Q_NODE, to, from ? (uint16_t)(from->hops + 1) : 0);
}

/* One record into the model: lid and arg are the Get's (a record's), or
 * the record's own fields (a table's). */
void
obs_record_take(struct sm_observer *o, enum obs_kind kind, const uint8_t *rec, uint16_t lid,
    uint16_t arg)
{
	uint8_t pi[64] __attribute__((aligned(8)));
	struct fabric_node *n;

	o->cur.records++;
	switch (kind) {
	case Q_NODE:
		node_record(o, (const ib_node_record_t *)rec, lid, (uint8_t)arg);
		break;
	case Q_PORT:
		/* PortInfo sits 4 bytes into the record: copied to where its
		 * 64-bit fields are aligned */
		memcpy(pi, rec + offsetof(ib_portinfo_record_t, port_info), sizeof(pi));
		if ((n = node_of(o, lid)) != NULL && arg <= n->nports)
			sm_port_update(&n->ports[arg], pi);
		break;
	case Q_LINK:
		link_record(o, (const ib_link_record_t *)rec);
		break;
	case Q_SWITCH:
		switch_record(o, (const ib_switch_info_record_t *)rec, lid);
		break;
	case Q_LFT:
		if ((n = node_of(o, lid)) != NULL && n->lft &&
		    ((size_t)arg + 1) * ROUTING_BLOCK_SIZE <= n->lft_len)
			memcpy(n->lft + (size_t)arg * ROUTING_BLOCK_SIZE,
			    ((const ib_lft_record_t *)rec)->lft, ROUTING_BLOCK_SIZE);
		break;
	}
}

/* A LinkRecord's end in the model read: a switch's port, or a CA's own
 * port (the one its LID is on). */
static struct fabric_port *
end_of(struct fabric *f, uint16_t lid, uint8_t port)
{
	struct fabric_port *p = lid ? fabric_port_by_lid(f, lid) : NULL;

	if (p == NULL || port > p->node->nports)
		return NULL;
	if (p->node->type != FABRIC_SWITCH && port != p->num)
		return NULL;
	return &p->node->ports[port];
}

void
obs_links_apply(struct sm_observer *o)
{
	for (size_t i = 0; i < o->nlinks; i++) {
		const struct obs_link *l = &o->links[i];
		struct fabric_port *a = end_of(o->next, l->from_lid, l->from_port);
		struct fabric_port *b = end_of(o->next, l->to_lid, l->to_port);

		if (a && b)
			fabric_link(a, b);
	}
}

/* ---- table mode ---- */

/* The records of each table in the order they can be taken (ports and
 * links need their nodes, LFT blocks their SwitchInfo), and their least
 * size. */
static const size_t record_size[] = {
	[Q_NODE] = sizeof(ib_node_record_t), [Q_PORT] = sizeof(ib_portinfo_record_t),
	[Q_LINK] = sizeof(ib_link_record_t), [Q_SWITCH] = sizeof(ib_switch_info_record_t),
	[Q_LFT] = sizeof(ib_lft_record_t),
};

bool
obs_sa_table(const uint8_t *mad, size_t len, size_t min_size, struct obs_sa_table *t)
{
	const ib_sa_mad_t *sa = (const ib_sa_mad_t *)mad;

	if (mad == NULL || len < SA_REC_OFFSET)
		return false;
	t->rec = mad + SA_REC_OFFSET;
	t->stride = (size_t)be16toh(sa->attr_offset) * 8;
	t->n = 0;
	if (len == SA_REC_OFFSET)
		return true;
	if (t->stride == 0 || t->stride < min_size)
		return false;
	t->n = (len - SA_REC_OFFSET) / t->stride;
	return true;
}

/* A table's answer: its records kept, taken by the producer's slices. */
static void
table_answer(struct sm_observer *o, enum obs_kind kind, const struct mad_result *res)
{
	struct obs_sa_table t = { 0 };

	if (res->mad_status != SA_NO_RECORDS &&
	    !obs_sa_table(res->mad, res->len, record_size[kind], &t)) {
		obs_error(o, "%s table: %zu bytes, records of %zu: not a table", kind_name(kind),
		    res->len, t.stride);
		return;
	}
	o->tab = xmalloc(t.n * t.stride + 1);
	if (t.n > 0)
		memcpy(o->tab, t.rec, t.n * t.stride);
	o->tab_n = t.n;
	o->tab_next = 0;
	o->tab_stride = t.stride;
	o->tab_kind = (uint8_t)kind;
}

/* What a table record says of itself: its LID (every record's first
 * field) and its second key (a port, an LFT block). */
static void
record_keys(enum obs_kind kind, const uint8_t *rec, uint16_t *lid, uint16_t *arg)
{
	uint16_t be;

	memcpy(&be, rec, 2);
	*lid = be16toh(be);
	*arg = 0;
	if (kind == Q_PORT)
		*arg = rec[offsetof(ib_portinfo_record_t, port_num)];
	else if (kind == Q_LFT) {
		memcpy(&be, rec + offsetof(ib_lft_record_t, block_num), 2);
		*arg = be16toh(be);
	}
}

/* Records are taken TABLE_SLICE_US at a time (the batch yields to the loop
 * between its producer's calls): 7,956 PortInfoRecords at 1,296 hosts are
 * more than a step of the loop should hold. */
#define TABLE_SLICE_US	500

static void
table_slice(struct sm_observer *o)
{
	int64_t end = clock_mono_us() + TABLE_SLICE_US;
	enum obs_kind kind = o->tab_kind;
	uint16_t lid, arg;

	while (o->tab_next < o->tab_n) {
		const uint8_t *rec = o->tab + o->tab_next++ * o->tab_stride;

		record_keys(kind, rec, &lid, &arg);
		obs_record_take(o, kind, rec, lid, arg);
		if ((o->tab_next & 63) == 0 && clock_mono_us() >= end)
			return;
	}
	obs_table_drop(o);
	if (kind < Q_LFT)
		obs_push(o, kind + 1, 0, 0);	/* the next table */
}

void
obs_table_drop(struct sm_observer *o)
{
	free(o->tab);
	o->tab = NULL;
	o->tab_n = o->tab_next = 0;
}

void
obs_hops(struct fabric *f, uint16_t own_lid)
{
	struct fabric_port *self = fabric_port_by_lid(f, own_lid);
	size_t n = fabric_node_count(f), head = 0, tail = 0, i;
	struct fabric_node **q, *nd;
	unsigned j;

	FABRIC_FOREACH_NODE(f, i, nd)
		nd->hops = UINT8_MAX;
	q = xcalloc(n + 1, sizeof(*q));
	if (self != NULL) {
		self->node->hops = 0;
		q[tail++] = self->node;
	}
	while (head < tail) {
		nd = q[head++];
		for (j = 1; j <= nd->nports; j++) {
			struct fabric_port *peer = nd->ports[j].peer;
			if (peer == NULL || peer->node->hops != UINT8_MAX || nd->hops + 1 >= UINT8_MAX)
				continue;
			peer->node->hops = (uint8_t)(nd->hops + 1);
			q[tail++] = peer->node;
		}
	}
	FABRIC_FOREACH_NODE(f, i, nd)
		if (nd->hops == UINT8_MAX)
			nd->hops = 0;	/* no cable to us: as a table gives it */
	free(q);
}

/* ---- answers ---- */

static void
on_record(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_observer *o = sm->observer;
	struct obs_query q = unpack(arg);
	const char *what = q.lid == 0 ? "table" : "of LID";

	if (res->status != 0 || res->mad == NULL || res->len < SA_REC_OFFSET) {
		obs_error(o, "%s %s %u: %s", kind_name(q.kind), what, q.lid,
		    res->status == -ETIMEDOUT ? "no answer" : "not sent or cut short");
		goto out;
	}
	if (res->mad_status != 0 && res->mad_status != SA_NO_RECORDS) {
		obs_error(o, "%s %s %u: SA status 0x%04x", kind_name(q.kind), what, q.lid,
		    res->mad_status);
		goto out;
	}
	if (q.lid == 0) {
		table_answer(o, q.kind, res);
		goto out;
	}
	if (res->mad_status == SA_NO_RECORDS) {
		/* a port without a cable has no LinkRecord: not an error */
		if (q.kind != Q_LINK)
			obs_error(o, "%s of LID %u: no such record", kind_name(q.kind), q.lid);
		goto out;
	}
	obs_record_take(o, q.kind, res->mad + SA_REC_OFFSET, q.lid, q.arg);
out:
	obs_kick(o);
}
