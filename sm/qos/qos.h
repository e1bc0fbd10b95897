/*
 * Quality of service on InfiniBand: the policy (named traffic classes in
 * the sm section of the configuration) and the tables it turns into, as
 * pure functions a unit test and issue 15's audit reach without an SM.
 *
 * A class has an SL, the VL that SL runs on, a bandwidth share and a
 * priority; traffic belongs to it by partition (P_Key) or by rdma_cm
 * service (ServiceID ranges).  From the classes come what every port is
 * given, in the shape OpenSM's `qos TRUE` options describe them
 * (qos_sl2vl, qos_vlarb_high, qos_vlarb_low, qos_high_limit), so the two
 * SMs write the same bytes for the same settings:
 *
 *   SL2VL       the class's SL -> its VL; every other SL -> the VL of the
 *               class on SL 0 (VL 0 when there is none)
 *   VLArb high  one entry (VL, weight = share) per high-priority class
 *   VLArb low   one entry per low-priority class, in the order given
 *
 * With no policy at all the tables are left as the ports hold them, as
 * OpenSM leaves them without `qos TRUE`, but for the SLs in use (SL 0:
 * the SA gives it to every path): a table that sends one of those to
 * VL 15 or to a VL the port does not operate gets it on the VL OpenSM's
 * qos defaults give it (SL2VL 0..14 then 7, masked to the port's VLs),
 * the other entries kept.  Factory entries for SLs nobody sends on are no
 * reason to write a table.
 */
#ifndef FABRICD_SM_QOS_H
#define FABRICD_SM_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config.h"
#include "fabric/fabric.h"

#define QOS_MAX_CLASSES		16
#define QOS_CLASS_NAME_LEN	31
#define QOS_MAX_PKEYS		8	/* per class */
#define QOS_MAX_SIDS		8	/* ServiceID ranges per class */
#define QOS_NUM_SL		16
#define QOS_VLARB_ENTRIES	64	/* per priority: two blocks of 32 */
#define QOS_SL2VL_BYTES		8	/* 16 SLs, a nibble each */
#define QOS_VLARB_BLOCK_BYTES	64	/* 32 entries of (VL, weight) */
#define QOS_VLARB_BLOCKS	4	/* low 0-31, low 32-63, high 0-31, high 32-63 */

/* rdma_cm's ServiceIDs: 0x0000000001PPpppp for port space PP (0x06 TCP,
 * 0x02 IPoIB, 0x11 UDP, 0x13 IB), port pppp (kernel cma.c). */
#define QOS_SID_RDMA_TCP(port)	(0x0000000001060000ULL | (uint16_t)(port))

struct qos_sid_range {
	uint64_t	lo, hi;		/* inclusive */
};

struct qos_class {
	char			name[QOS_CLASS_NAME_LEN + 1];
	uint8_t			sl;		/* 0..15 */
	uint8_t			vl;		/* 0..14 */
	uint8_t			share;		/* percent of the link, 0..100 */
	bool			high;		/* served from the high-priority table */
	uint16_t		pkeys[QOS_MAX_PKEYS];	/* 15-bit partition keys */
	size_t			npkeys;
	struct qos_sid_range	sids[QOS_MAX_SIDS];
	size_t			nsids;
};

struct qos_policy {
	bool		 enabled;	/* false: fabricd writes no QoS table at all */
	uint64_t	 high_limit;	/* PortInfo VLHighLimit, 0..255 */
	struct qos_class classes[QOS_MAX_CLASSES];
	size_t		 nclasses;
};

struct qos_vlarb_entry {
	uint8_t	vl, weight;
};

/* What the policy gives every port before masking to its VLs. */
struct qos_tables {
	uint8_t			sl2vl[QOS_NUM_SL];
	struct qos_vlarb_entry	high[QOS_VLARB_ENTRIES];
	struct qos_vlarb_entry	low[QOS_VLARB_ENTRIES];
	uint8_t			high_limit;
	bool			keep;		/* no policy: tables kept but for sl_used */
	uint16_t		sl_used;	/* keep: the SLs in use, bit n for SL n */
};

void qos_policy_init(struct qos_policy *p);
/* Tables for the SM to hold (struct sm keeps a pointer), filled by
 * qos_tables_build at each sweep; free() them. */
struct qos_tables *qos_tables_new(void);
/* The tables of a policy (OpenSM's defaults when it has no class). */
void qos_tables_build(const struct qos_policy *p, struct qos_tables *t);

/* The class of an SL, a P_Key (15-bit compare), a ServiceID, a name; NULL
 * when none. */
const struct qos_class *qos_class_of_sl(const struct qos_policy *p, uint8_t sl);
const struct qos_class *qos_class_by_name(const struct qos_policy *p, const char *name);

/* ---- the SA's choice (qos_select.c) ---- */

/* The class of a path: by ServiceID (when the query has one), then by
 * P_Key (15-bit compare), then the class on SL 0; NULL when none of these
 * (or no policy, or QoS disabled). */
const struct qos_class *qos_select_class(const struct qos_policy *p, bool has_sid,
    uint64_t sid, uint16_t pkey);
/* Its SL; 0 when there is no class. */
uint8_t qos_select_sl(const struct qos_policy *p, bool has_sid, uint64_t sid, uint16_t pkey);

/* ---- per port: what it should hold (PortInfo encodings) ---- */

/* The 8 bytes of a port's SL2VL table with VLs masked to op_vls
 * (OperationalVLs: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14). */
void qos_sl2vl_bytes(const struct qos_tables *t, uint8_t op_vls, uint8_t out[QOS_SL2VL_BYTES]);
/* The table a port holding held (NULL or all 0xFF: unknown) should hold,
 * in out; true when that is a write.  With a policy: its table (unknown
 * is a write).  Without (t->keep): held with the SLs in use that it
 * sends nowhere moved (unknown: nothing known to mend, false). */
bool qos_sl2vl_want(const struct qos_tables *t, uint8_t op_vls, const uint8_t *held,
    uint8_t out[QOS_SL2VL_BYTES]);
/* Bytes all 0xFF: the mirror's "unknown". */
bool qos_unknown(const uint8_t *b, size_t len);
/* VLArb block b (0..3) of a port with these capacities: the entries that
 * count in out[] (the rest zero), returning how many bytes count; 0 when
 * the port has no such block (or one data VL, where there is no
 * arbitration at all). */
size_t qos_vlarb_bytes(const struct qos_tables *t, uint8_t op_vls, uint8_t vl_cap,
    uint8_t low_cap, uint8_t high_cap, unsigned b, uint8_t out[QOS_VLARB_BLOCK_BYTES]);
/* The VL an SL runs on through a held SL2VL table. */
static inline uint8_t
qos_sl2vl_get(const uint8_t tbl[QOS_SL2VL_BYTES], uint8_t sl)
{
	uint8_t b = tbl[(sl & 15) / 2];

	return (sl & 1) ? (b & 0x0F) : (uint8_t)(b >> 4);
}
/* The arbitration weight VL has in a held block's first len bytes. */
unsigned qos_vlarb_weight(const uint8_t *block, size_t len, uint8_t vl);

/* ---- what ports hold (the SM's mirror, one allocation per node) ---- */

/*
 * What a node's ports hold as last read or written (qos_held.c).  Bytes
 * 0xFF mean unknown (never a table we write: VLs are 0..14), so they
 * differ from anything wanted and get written.  Switches: SL2VL per (in,
 * out) pair; CAs and routers: one per port (in = 0).  Each kind keeps the
 * distinct tables once and per slot which of them it holds; the fields
 * are the accessors' own.
 */
struct qos_slots {
	uint32_t	nslots;		/* tables of this kind the node has */
	uint32_t	npool, cap;	/* distinct tables pooled, room for */
	uint16_t	all;		/* no index: the one every slot holds (0 unknown) */
	uint8_t		width;		/* bytes a table */
	bool		has_idx;	/* a pool index per slot */
	bool		wide;		/* two bytes an index */
};

struct qos_held {
	uint8_t		nports;
	bool		sw;
	struct qos_slots s[2];		/* SL2VL, VLArb */
	uint8_t		data[] __attribute__((aligned(8)));
};

#define QOS_HELD_ALL		0x100u	/* qos_held_set_sl2vl(): every port */
#define QOS_HELD_MAX_POOL	0xFFFFu	/* distinct tables of a kind a node records */

/* Everything unknown; freed with free(). */
struct qos_held *qos_held_new(uint8_t nports, bool sw);
/* The table a slot holds (all 0xFF: unknown), valid until h next changes. */
const uint8_t *qos_held_sl2vl_c(const struct qos_held *h, uint8_t in, uint8_t out);
const uint8_t *qos_held_vlarb_c(const struct qos_held *h, uint8_t port, unsigned block);
/* Slots now hold table t (all 0xFF: unknown again): SL2VL of (in, out),
 * either of them QOS_HELD_ALL for every port (in ignored on a CA), or
 * VLArb block 0..3 of a port; out of range, nothing.  They return h,
 * which may have moved (as realloc() does). */
struct qos_held *qos_held_set_sl2vl(struct qos_held *h, unsigned in, unsigned out,
    const uint8_t *t);
struct qos_held *qos_held_set_vlarb(struct qos_held *h, unsigned port, unsigned block,
    const uint8_t *t);
/* What the mirror takes (header included). */
size_t qos_held_bytes(const struct qos_held *h);

/* ---- the checker (issue 15's audit table reuses it) ---- */

/* The port's PortInfo fields the tables depend on. */
struct qos_port_caps {
	uint8_t	op_vls, vl_cap, low_cap, high_cap;
	bool	sl_map;		/* CapabilityMask IsSLMappingSupported */
};
void qos_port_caps_of(const struct fabric_port *p, struct qos_port_caps *c);

/* Tables of one port that differ from what t gives it: calls
 * bad(arg, what, in, block) for each (what "sl2vl" with the in port, or
 * "vlarb" with the block) and returns how many.  A switch port's SL2VL is
 * compared for port 0 and every in port not DOWN.  h may be NULL: nothing is known, all of the
 * port's tables differ. */
typedef void (*qos_diff_fn)(void *arg, const char *what, unsigned in, unsigned block);
/* Every table of the port the SM looks after, the same way (without a
 * policy: the SL2VL tables only; VL arbitration is left alone). */
unsigned qos_port_tables(const struct qos_tables *t, const struct fabric_port *p,
    qos_diff_fn fn, void *arg);
/* Without a policy an unknown table is not a difference: nothing is
 * known to mend. */
unsigned qos_port_diff(const struct qos_tables *t, const struct fabric_port *p,
    const struct qos_held *h, qos_diff_fn bad, void *arg);
/*
 * Can packets on SL leave port p (arriving on in port `in`, 0 for a CA)
 * as the port holds its tables?  1 yes; 0 no, with *vl the VL it maps to
 * and *weight its arbitration weight (VL 15, a VL the port does not
 * operate, or no weight in either table); -1 unknown (tables not read).
 */
int qos_sl_usable(const struct qos_held *h, const struct fabric_port *p, uint8_t in, uint8_t sl,
    uint8_t *vl, unsigned *weight);
/* Does the port get QoS tables at all (OpenSM's rule: switch external
 * ports not DOWN, switch port 0 when enhanced, CA ports with a GUID). */
bool qos_port_programmed(const struct fabric_port *p);

/* ---- what the mirror has read (qos show) ---- */

/* The VLArb blocks a table of cap entries spans: 0, 1 or 2 (a table is
 * blocks 0-1, low, or 2-3, high; 32 entries a block, 64 at most). */
unsigned qos_vlarb_nblocks(unsigned cap);
/* Has the port's table been read (a Get's or a Set's answer) and not
 * forgotten since: SL2VL of (in, p), or VLArb block 0..3 of p.  h NULL:
 * nothing has. */
bool qos_table_read(const struct qos_held *h, const struct fabric_port *p, bool sl2vl,
    unsigned in, unsigned block);
/* Every block holding an entry of p's high (or low) VLArb table read;
 * a table of no entries (cap 0) has nothing to read. */
bool qos_vlarb_read(const struct qos_held *h, const struct fabric_port *p, bool high);
/* The tables `qos show` gives of p, named as qos_port_tables names them:
 * its SL2VL of in port 0 (of every in port of a switch when pairs), if
 * the port maps SLs at all, and the VLArb blocks holding its entries. */
unsigned qos_port_shown(const struct fabric_port *p, bool pairs, qos_diff_fn fn, void *arg);
/* Of the tables qos_port_tables names, those h has not read: whether they
 * differ from t is not known.  fn may be NULL (counted only). */
unsigned qos_port_unread(const struct qos_tables *t, const struct fabric_port *p,
    const struct qos_held *h, qos_diff_fn fn, void *arg);

/* qos_config.c: the sm section's qos key (CFG_F_CUSTOM): a struct
 * qos_policy at field. */
bool sm_qos_parse(struct cfg_ctx *ctx, yaml_node_t *node, void *field);

#endif
