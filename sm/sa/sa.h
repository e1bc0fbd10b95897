/*
 * The subnet administrator (SA, class 0x03 on QP1): answers the queries
 * real clients send (saquery, libibumad/rdma-cm path resolution) from the
 * SM's published fabric model, never from a fresh look at the fabric.
 *
 *   ClassPortInfo (Get), NodeRecord, PortInfoRecord, SMInfoRecord,
 *   LinkRecord, PathRecord, SwitchInfo, LFT, MFT, GUIDInfo, SL2VL, VLArb
 *   and P_Key table records (Get and GetTable), MultiPathRecord
 *   (GetMulti), and more (docs/multicast-sa.md).
 *
 * Pure (no I/O, no struct sm): every attribute is one line of
 * sa_attrs.def (size, methods, builder, whether it wants the SA key),
 * and its builder (sa_records.c, sa_path.c, sa_tables.c, ...) puts the
 * records that match a query's component mask into a sink (sa_sink.c);
 * sa_answer.c checks the request against that table and frames the
 * response (status, AttributeOffset, the RMPP header of a GetTableResp).
 * The SM's side, sa_agent.c, gives it the context (what the SM holds) and
 * sends the answer with the engine's mad_respond().
 *
 * A new record type: a line in sa_attrs.def and its builder, in a file of
 * its own or beside its kin.
 *
 * Two ways to answer a table.  Where the port's kernel does RMPP (real
 * hardware: ib_umad with RMPP registered), sa_answer_rmpp() gives the
 * whole table, up to SA_RMPP_MAX_RECORDS records, for the kernel to send
 * in as many segments as it needs.  Where it does not (ibsim), sa_answer()
 * sends one MAD: a single RMPP DATA segment (Active, First and Last,
 * segment 1) holding as many whole records as fit in SA_TABLE_BYTES:
 * 1 NodeRecord, 2 PortInfoRecords, 2 PathRecords, 5 SMInfoRecords,
 * 21 LinkRecords; the rest of a longer table is not sent.
 *
 * Why 168 bytes and not the 200 a MAD has room for: under ibsim a client
 * receives at most 224 bytes of any MAD intact (umad2sim's receive thread
 * reads into a buffer of sizeof(struct sim_request) = 288 bytes and keeps
 * 288 - umad_size() = 224 bytes of MAD; the rest is whatever the heap
 * held), and it does no RMPP, so a 256-byte answer shows saquery a last
 * record of garbage.  224 - 56 = 168.  On real hardware this costs at
 * most one record of a table that is cut short anyway.
 */
#ifndef FABRICD_SM_SA_H
#define FABRICD_SM_SA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <iba/ib_types.h>

#include "fabric/fabric.h"
#include "sm/qos/qos.h"
#include "sm/sm.h"

struct mc_db;

/* InformInfo subscriptions (sa_inform.c). */
struct sa_sub {
	uint16_t	lid;		/* the subscriber's, where Reports go */
	uint64_t	port_guid;
	uint32_t	qpn;
	bool		generic;	/* false: a vendor trap, never forwarded */
	uint16_t	trap;		/* 0xFFFF: every generic trap */
	uint16_t	lid_begin, lid_end;	/* 0xFFFF: every LID */
	uint8_t		inform[36];	/* the InformInfo as given */
};
struct sa_subs {
	struct sa_sub	*v;
	size_t		 n, cap;
};

/* Registered services (sa_service.c). */
struct sa_service {
	ib_service_record_t	 rec;
	int64_t			 expires_ms;	/* 0: never */
};
struct sa_services {
	struct sa_service	*v;
	size_t			 n, cap;
};
struct _ib_member_rec;

#define SA_TABLE_BYTES	168	/* records per GetTableResp: see above */

/* Every attribute of sa_attrs.def, counted one by one (`fabricctl sa`),
 * and "other" for the rest. */
enum {
	SA_NATTR = 1
#define SA_ATTR(id, name, size, methods, key, build, change) + 1
#include "sm/sa/sa_attrs.def"
#undef SA_ATTR
};
/* Index of attr_id (host order) in the table and the counters,
 * SA_NATTR - 1 for others; the name and ID (host order, 0 for "other")
 * of an index. */
unsigned sa_attr_index(uint16_t attr_id);
const char *sa_attr_name(unsigned idx);
uint16_t sa_attr_id(unsigned idx);

/* What the SA saw, for `status` and the logs. */
struct sa_counters {
	struct {
		uint64_t	requests, errors;
	} attr[SA_NATTR];
	uint64_t requests;	/* SA requests answered */
	uint64_t records;	/* records sent */
	uint64_t errors;	/* answered with an error status */
	uint64_t malformed;	/* short, bad version, bad RMPP, bad template, wrong SM_Key */
	uint64_t truncated;	/* GetTable answers cut to one MAD */
};
/* What the SA keeps between requests, held by the SM (struct sm keeps a
 * pointer): the subscriptions, the registered services, the counters. */
struct sa_state {
	struct sa_subs		subs;		/* InformInfo subscriptions */
	struct sa_services	services;	/* registered ServiceRecords */
	struct sa_counters	counters;	/* for status */
	uint64_t		reports_sent;
};
struct sa_state *sa_state_new(void);
void sa_state_free(struct sa_state *st);	/* NULL: nothing */

struct sa_ctx {
	const struct fabric	*f;		/* NULL: no model yet (answer busy) */
	uint64_t		 sm_guid;	/* our port GUID */
	uint16_t		 sm_lid;
	uint8_t			 sm_priority;
	uint8_t			 sm_state;	/* IB_SMINFO_STATE_* */
	uint32_t		 sm_act_count;
	sm_pkey_table_fn	 pkey_table;	/* NULL: 0xFFFF alone everywhere */
	void			*pkey_arg;
	/* A port's whole committed P_Key table (what partitions registered
	 * with sm_set_pkey_expect): count or -1 when not known; NULL: 0xFFFF
	 * alone everywhere. */
	sm_pkey_expect_fn	 pkey_entries;
	void			*pkey_entries_arg;
	struct sa_counters	*counters;	/* what sa_answer() saw; NULL: not counted */
	const struct qos_policy	*qos;		/* the SL of a path's class; NULL: SL 0 */
	struct mc_db		*mc;		/* multicast groups; NULL: none, joins refused */
	uint16_t		 requester_lid;	/* SLID of the request; 0: unknown (anyone) */
	uint64_t		 sa_key;	/* SM_Key a trusted requester sends; 0: none */
	struct sa_subs		*subs;		/* InformInfo; NULL: refused */
	struct sa_services	*services;	/* ServiceRecord; NULL: refused */
	int64_t			 now_ms;	/* for leases */
	/* A QoS table the SM does not know (never read): left out of the
	 * answer, and told here (sa_qos_lazy.c reads it and asks again);
	 * sl2vl: in port `in` to p, else VLArb block `block` of p. */
	void			(*qos_unknown)(void *arg, const struct fabric_port *p, bool sl2vl,
				    unsigned in, unsigned block);
	void			*qos_unknown_arg;
	/* The MFT the SM programmed into switch n: how many 32-MLID blocks
	 * hold an entry (0: none), and one block at one port mask position
	 * (16 ports) as the switch holds it, false while not known (a write
	 * under way).  NULL: no multicast forwarding known. */
	unsigned		(*mft_blocks)(void *arg, const struct fabric_node *n);
	bool			(*mft_block)(void *arg, const struct fabric_node *n, unsigned block,
				    unsigned pos, uint16_t ports[32]);
	void			*mft_arg;
};

/*
 * A query as the records see it: the template record of the request
 * (SA data, zero padded to IB_SA_DATA_SIZE), its component mask
 * and the attribute modifier (PortInfoRecord: bit 31 makes the
 * CapabilityMask match any of the bits given).
 */
struct sa_query {
	const uint8_t	*tmpl;
	uint64_t	 mask;		/* as in the MAD: network order */
	uint32_t	 attr_mod;
	bool		 trusted;	/* the request carried the SA key */
};

/*
 * Where matching records go: up to `max` are copied into buf (each
 * rec_size bytes, the attribute's size rounded to 8), and every match is
 * counted in total.  A builder stops looking once total reaches `stop`
 * (0: never): a Get only needs to know whether there are 0, 1 or more.
 */
struct sa_sink {
	uint8_t		*buf;
	size_t		 rec_size;
	size_t		 max;
	size_t		 n;
	size_t		 total;
	size_t		 stop;
	size_t		 grow_to;	/* > max: buf is malloc'd and grows up to this */
};

/* Room for more records in a growing sink (sa_sink.c). */
void sa_sink_grow(struct sa_sink *s);

/* Add one record; false once the builder should stop. */
/* Inline: both record builders (sa_records.c, sa_path.c) fill sinks, and
 * neither should need the other for it. */
static inline bool
sa_sink_put(struct sa_sink *s, const void *rec)
{
	if (s->n == s->max && s->grow_to > s->max)
		sa_sink_grow(s);
	if (s->n < s->max)
		memcpy(s->buf + s->n++ * s->rec_size, rec, s->rec_size);
	s->total++;
	return s->stop == 0 || s->total < s->stop;
}

/*
 * The attribute table (sa_attrs.def, sa_attrs.c).  A builder answers
 * Get, GetTable and GetMulti: the records matching q into out, 0 or an SA
 * status in host order (IB_SA_MAD_STATUS_*: ERR_REQ_INVALID for a
 * malformed template, ERR_INSUFFICIENT_COMPONENTS and so on).  A change
 * answers Set (set) or Delete: the one record of the answer into rec
 * (the attribute's record size), 0 or an SA status.
 */
typedef uint16_t sa_build_fn(const struct sa_ctx *ctx, const struct sa_query *q,
    struct sa_sink *out);
typedef uint16_t sa_change_fn(const struct sa_ctx *ctx, const struct sa_query *q, bool set,
    void *rec);

enum {
	SA_M_GET = 1 << 0, SA_M_GETTABLE = 1 << 1, SA_M_GETMULTI = 1 << 2,
	SA_M_SET = 1 << 3, SA_M_DELETE = 1 << 4, SA_M_GETTRACETABLE = 1 << 5,
};

struct sa_attr {
	uint16_t	 id;		/* network order, as ib_types.h */
	const char	*name;
	uint16_t	 rec_size;
	uint8_t		 methods;	/* SA_M_* */
	bool		 needs_key;
	sa_build_fn	*build;
	sa_change_fn	*change;
};

#define SA_ATTR(id, name, size, methods, key, build, change) sa_build_fn build; sa_change_fn change;
#include "sm/sa/sa_attrs.def"
#undef SA_ATTR
sa_build_fn sa_no_build;
sa_change_fn sa_no_change;

/* The attribute attr_id (host order), NULL when not served. */
const struct sa_attr *sa_attr_of(uint16_t attr_id);
/* SA_M_* of an SA method, 0 for a method the SA does not know. */
uint8_t sa_method_bit(uint8_t method);
/* Record sizes (bytes, multiples of 8); 0 for an attribute not served. */
size_t sa_record_size(uint16_t attr_id);

/* The records of attribute attr_id (host order) matching q, through the
 * table: its builder, or ERR_REQ_INVALID (not served, or the SA key
 * missing where the attribute wants it). */
uint16_t sa_build_records(const struct sa_ctx *ctx, uint16_t attr_id,
    const struct sa_query *q, struct sa_sink *out);

/*
 * The PathRecord of one (src, dst) pair for a PathRecord query q (its
 * template and mask: selectors, P_Key, SL, Reversible, partitions of the
 * requester), as a PathRecord query would return it; false if none.
 * MultiPathRecord (sa_multipath.c) builds its paths with it.
 */
bool sa_path_pair(const struct sa_ctx *ctx, const struct sa_query *q,
    const struct fabric_port *src, const struct fabric_port *dst, ib_path_rec_t *r);
/* The port a GID names (a switch: its port 0), NULL when none has a LID. */
const struct fabric_port *sa_path_end_by_gid(const struct fabric *f, const ib_gid_t *gid);


/*
 * The entry (membership bit included) port p holds for P_Key base (15
 * bits), 0 when it holds none: the registered tables, or 0xFFFF alone.
 */
uint16_t sa_port_pkey_entry(const struct sa_ctx *ctx, const struct fabric_port *p,
    uint16_t base);

/* The port a request came from (by its SLID), NULL when unknown. */
const struct fabric_port *sa_requester(const struct sa_ctx *ctx);
/* Do a and b share a partition, one of them a full member?  (OpenSM's
 * osm_physp_share_pkey.)  What a requester may see of another port. */
bool sa_ports_share_partition(const struct sa_ctx *ctx, const struct fabric_port *a,
    const struct fabric_port *b);

/*
 * What a PathRecord (or MultiPathRecord) request asks of a path beyond its
 * ends, as rdma_cm and ibacm send it: ServiceID, QoSClass, TClass, SL.
 */
struct sa_path_req {
	bool		has_service_id, has_qos_class, has_tclass, has_sl;
	uint64_t	service_id;
	uint16_t	qos_class;	/* 12 bits */
	uint8_t		tclass;
	uint8_t		sl;
	uint16_t	pkey;		/* the path's, chosen before */
};
/*
 * The one place the SL of a PathRecord and a MultiPathRecord is chosen
 * (a QoS policy hooks in here): false when the request cannot be given a
 * path (an SL asked for that the path cannot have).  The SL is the QoS
 * policy's for the request's ServiceID or P_Key (qos_select_sl, ctx->qos),
 * SL 0 without a policy.
 */
bool sa_path_sl(const struct sa_ctx *ctx, const struct sa_path_req *req,
    const struct fabric_port *src, const struct fabric_port *dst, uint8_t *sl);

/* InformInfo Set: subscribe or unsubscribe the requester; resp (len
 * bytes) gets the InformInfo back.  0 or an SA status. */
uint16_t sa_inform_set(const struct sa_ctx *ctx, const struct sa_query *q, uint8_t *resp,
    size_t len);
/* Does sub want trap about lid? */
bool sa_sub_wants(const struct sa_sub *sub, uint16_t trap, uint16_t lid);
void sa_subs_free(struct sa_subs *s);

/* ServiceRecord Set (register) and Delete, at time now (leases). */
uint16_t sa_service_set(const struct sa_ctx *ctx, const struct sa_query *q, int64_t now,
    ib_service_record_t *resp);
uint16_t sa_service_delete(const struct sa_ctx *ctx, const struct sa_query *q, int64_t now,
    ib_service_record_t *resp);
void sa_services_free(struct sa_services *sv);

/* MCMemberRecord (sa_mcast.c): Set (join), Delete (leave) fill resp with
 * the one record of the answer and return 0 or an SA status (host order). */
uint16_t sa_mcast_join(const struct sa_ctx *ctx, const struct sa_query *q,
    struct _ib_member_rec *resp);
uint16_t sa_mcast_leave(const struct sa_ctx *ctx, const struct sa_query *q,
    struct _ib_member_rec *resp);

/*
 * Answer one SA request: req is the MAD as received (len bytes, the
 * buffer zero padded to 256), resp gets the full response and *resp_len
 * its exact length (56 + records).  Returns false when the MAD is not a
 * request that wants an answer (a response, a Report, too short to carry
 * a transaction ID, an SM_Key neither 0 nor sa_key): nothing is sent.
 */
bool sa_answer(const struct sa_ctx *ctx, const uint8_t *req, size_t len,
    uint8_t *resp, size_t *resp_len);

/*
 * The same for a port whose kernel does RMPP: a GetTableResp carries the
 * whole table (at most SA_RMPP_MAX_RECORDS records) with only
 * RMPPFlags.Active set, for the kernel to segment, in *resp (malloc'd,
 * the caller frees it; other answers are one MAD as above).
 */
#define SA_RMPP_MAX_RECORDS	65536
bool sa_answer_rmpp(const struct sa_ctx *ctx, const uint8_t *req, size_t len,
    uint8_t **resp, size_t *resp_len);


#endif
