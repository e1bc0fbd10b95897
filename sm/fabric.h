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
#ifndef FABRICD_SM_FABRIC_H
#define FABRICD_SM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#define FABRIC_MAX_HOPS		64	/* IB_SUBNET_PATH_HOPS_MAX */
#define FABRIC_MAX_LID		0xBFFF	/* highest unicast LID */
#define FABRIC_NODE_DESC_LEN	64

enum fabric_node_type { FABRIC_CA = 1, FABRIC_SWITCH = 2, FABRIC_ROUTER = 3 };

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
	uint8_t			*lft;		/* [0..lft_cap): egress port per LID, 0xFF none */
	bool			 seen;		/* touched by the current sweep */
};

struct fabric;

struct fabric *fabric_new(void);
void fabric_free(struct fabric *f);

struct fabric_node *fabric_node_by_guid(const struct fabric *f, uint64_t guid);
struct fabric_port *fabric_port_by_guid(const struct fabric *f, uint64_t port_guid);
struct fabric_port *fabric_port_by_lid(const struct fabric *f, uint16_t lid);
/* Node by NodeDescription (first match), by GUID text or by LID text. */
struct fabric_node *fabric_node_lookup(const struct fabric *f, const char *name);

size_t fabric_node_count(const struct fabric *f);
struct fabric_node *fabric_node_at(const struct fabric *f, size_t i);

#define FABRIC_FOREACH_NODE(f, i, n) \
	for ((i) = 0; (i) < fabric_node_count(f) && ((n) = fabric_node_at((f), (i))); (i)++)

#endif
