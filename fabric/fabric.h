/*
 * The in-memory fabric model: the live truth of what the SM discovered and
 * programmed.  Nodes and ports are found in O(1) by GUID and by LID.  Other
 * modules read it (through sm/sm.h) but never change it; only the SM's
 * sweeps do.  sqlite holds the durable copy and the history.
 *
 * Encodings follow the IB spec (as in iba/ib_types.h): port states 1 DOWN,
 * 2 INIT, 3 ARMED, 4 ACTIVE; widths and speeds are the spec's bit masks
 * (LinkWidth 1=1x 2=4x 4=8x 8=12x 16=2x; LinkSpeed 1=SDR 2=DDR 4=QDR;
 * LinkSpeedExt 1=FDR 2=EDR 4=HDR 8=NDR).
 */
#ifndef FABRICD_FABRIC_FABRIC_H
#define FABRICD_FABRIC_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#define FABRIC_MAX_HOPS		64	/* IB_SUBNET_PATH_HOPS_MAX */
#define FABRIC_MAX_LID		0xBFFF	/* highest unicast LID */
#define FABRIC_NODE_DESC_LEN	64

enum fabric_node_type { FABRIC_CA = 1, FABRIC_SWITCH = 2, FABRIC_ROUTER = 3 };

/* PortInfo PortState, the spec's values (IB_LINK_* in iba/ib_types.h), for
 * the modules that do not read ib_types.h. */
enum fabric_port_state {
	FABRIC_PORT_NOP = 0, FABRIC_PORT_DOWN = 1, FABRIC_PORT_INIT = 2,
	FABRIC_PORT_ARMED = 3, FABRIC_PORT_ACTIVE = 4,
};

struct fabric_node;

struct fabric_port {
	struct fabric_node	*node;
	uint8_t			 num;		/* 0 = switch management port */
	uint64_t		 guid;		/* port GUID (switch ports: the node's port GUID) */
	uint16_t		 lid;		/* CA ports; switch external ports hold 0 */
	uint8_t			 state;		/* 1 DOWN .. 4 ACTIVE */
	uint8_t			 phys_state;	/* 5 = LinkUp */
	uint8_t			 width_active, width_supported, width_enabled;
	uint8_t			 speed_active, speed_supported, speed_enabled;
	uint8_t			 ext_speed_active, ext_speed_supported, ext_speed_enabled;
	bool			 degraded;	/* active below what both ends support */
	struct fabric_port	*peer;		/* cabled remote port, NULL if none */
	/* SM bookkeeping (sm/ only) */
	uint16_t		 sm_lid;	/* MasterSMLID the port holds */
	uint8_t			 lmc;
	bool			 linkup;	/* PortPhysicalState LinkUp */
	uint8_t			 probe_tries;	/* discovery's extra tries of this port's MADs */
	uint8_t			 pi[64] __attribute__((aligned(8)));	/* PortInfo as last read, for Sets */
};

struct fabric_node {
	uint64_t		 guid;		/* node GUID */
	enum fabric_node_type	 type;
	uint8_t			 nports;	/* external ports; ports[] has nports+1 */
	char			 desc[FABRIC_NODE_DESC_LEN + 1];
	struct fabric_port	*ports;		/* ports[0] is switch port 0; CAs use 1..n */
	uint16_t		 lid;		/* switch: port 0 LID; CA: first port's LID */
	uint8_t			 path[FABRIC_MAX_HOPS];	/* directed route from the SM */
	uint8_t			 hops;
	uint16_t		 partition_cap;	/* NodeInfo PartitionCap */
	/* switches only */
	uint16_t		 lft_cap;	/* SwitchInfo LinearFDBCap */
	uint16_t		 lft_top;	/* LinearFDBTop as programmed */
	uint16_t		 partition_enforcement_cap;
	uint8_t			*lft;		/* [0..lft_len): egress port per LID, 0xFF none */
	bool			 seen;		/* touched by the current sweep */
	/* SM bookkeeping (sm/ only) */
	size_t			 lft_len;	/* entries allocated in lft */
	bool			 lft_known;	/* lft mirrors the switch (read or written) */
	uint8_t			 path_port;	/* CA: the port its path enters by */
	uint8_t			 pending;	/* discovery MADs still out for it */
	uint8_t			 probe_tries;	/* discovery's extra tries of its node MADs */
	bool			 unreachable;	/* link up but not answering: kept from the
						   last model with its routes (discover.c) */
	uint8_t			 si[64] __attribute__((aligned(8)));	/* SwitchInfo as last read */
	uint64_t		 port_guid;	/* NodeInfo PortGUID (CA: of path_port) */
	uint32_t		 vendor_id;
	uint16_t		 device_id;
	uint64_t		 sys_guid;	/* NodeInfo SystemImageGUID */
	uint32_t		 revision;	/* NodeInfo Revision */
	void			*qos;		/* sm/ only: the QoS tables its ports hold (one
						 * allocation, freed with the node) */
};

struct fabric;

struct fabric *fabric_new(void);
void fabric_free(struct fabric *f);
/* A number no other model of this process had: a holder of pointers into
 * a model over several turns of the loop compares it, as a model freed at
 * a heavy sweep and a new one can share an address. */
uint64_t fabric_serial(const struct fabric *f);

struct fabric_node *fabric_node_by_guid(const struct fabric *f, uint64_t guid);
struct fabric_port *fabric_port_by_guid(const struct fabric *f, uint64_t port_guid);
struct fabric_port *fabric_port_by_lid(const struct fabric *f, uint16_t lid);
/* Node by NodeDescription (first match), by GUID text or by LID text. */
struct fabric_node *fabric_node_lookup(const struct fabric *f, const char *name);
/*
 * The syntax of a "NODE:PORT" argument, whatever the fabric holds: the
 * last colon splits (a description may hold one), *node_len is NODE's
 * length and *port the number.  FABRIC_ARG_NO_PORT: no colon at all;
 * FABRIC_ARG_BAD: it cannot name a port (no node before the colon, no
 * number after it, a number that is negative, not digits or above
 * FABRIC_MAX_PORT), with why the message an invalid_argument reply says.
 */
#define FABRIC_MAX_PORT	254	/* port numbers are 8 bits, 255 reserved */
enum fabric_port_arg { FABRIC_ARG_OK, FABRIC_ARG_NO_PORT, FABRIC_ARG_BAD };
enum fabric_port_arg fabric_port_arg(const char *spec, size_t *node_len, int *port, char *why,
    size_t why_len);
/*
 * "NODE:PORT" to a node of the model (NODE as fabric_node_lookup takes
 * it).  FABRIC_SPEC_NO_NODE: well-formed, no such node (not_found);
 * FABRIC_SPEC_NO_PORT: no ":PORT" (*n set when the whole argument names
 * a node); FABRIC_SPEC_BAD: malformed (fabric_port_arg); FABRIC_SPEC_RANGE:
 * a number above the node's ports.  *port is -1 unless a number was read;
 * why says what is wrong for every result but FABRIC_SPEC_OK.
 */
enum fabric_spec { FABRIC_SPEC_OK, FABRIC_SPEC_NO_NODE, FABRIC_SPEC_NO_PORT, FABRIC_SPEC_RANGE,
	FABRIC_SPEC_BAD };
enum fabric_spec fabric_port_spec(const struct fabric *f, const char *spec,
    struct fabric_node **n, int *port, char *why, size_t why_len);

/* Building the model (the SM's sweeps only). */
struct fabric_node *fabric_add_node(struct fabric *f, uint64_t guid,
    enum fabric_node_type type, uint8_t nports);
/* Register a CA port's GUID (switch ports share the node's port GUID);
 * -1 when another port already has it. */
int fabric_index_port_guid(struct fabric *f, struct fabric_port *p);
/* Index a port's LID (0 removes); the previous holder loses the entry. */
void fabric_set_lid(struct fabric *f, struct fabric_port *p, uint16_t lid);
void fabric_link(struct fabric_port *a, struct fabric_port *b);
/* Put nodes in node-GUID order, so every walk of the model is the same
 * whatever order the replies came back in. */
void fabric_sort(struct fabric *f);
/* Make sw->lft hold at least n entries (new ones 0xFF). */
void fabric_lft_reserve(struct fabric_node *sw, size_t n);
/* Path to a port for directed-route SMPs (the node's path for a switch;
 * for a CA port not on the node's path, through the peer switch).
 * Returns false if the port cannot be reached. */
bool fabric_port_path(const struct fabric_port *p, uint8_t *path, uint8_t *hops);
const char *fabric_node_type_name(enum fabric_node_type t);
/* A port state in messages ("DOWN" .. "ACTIVE", "NOP"), and as the control
 * protocol's JSON spells it ("down" .. "active", "?" for NOP); "?" for a
 * value the spec does not have.  One table behind both. */
const char *fabric_port_state_name(uint8_t state);
const char *fabric_port_state_key(uint8_t state);
/* "4x", "12x"... for a LinkWidth bit ("?" when not one of the spec's). */
const char *fabric_width_name(uint8_t width);
/* PortInfo's PortPhysicalState by name ("Polling", "Disabled", "LinkUp"). */
const char *fabric_phys_state_name(uint8_t phys);
/* The active speed as the diags print it: "QDR", "HDR"... ("?" unknown). */
const char *fabric_speed_name(const struct fabric_port *p);

size_t fabric_node_count(const struct fabric *f);
struct fabric_node *fabric_node_at(const struct fabric *f, size_t i);

#define FABRIC_FOREACH_NODE(f, i, n) \
	for ((i) = 0; (i) < fabric_node_count(f) && ((n) = fabric_node_at((f), (i))); (i)++)

#endif
