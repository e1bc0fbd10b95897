/*
 * Planning: from the model and a view of the fabric to the exact P_Key
 * table every affected port must hold.
 *
 * End ports (CA ports, switch management ports) get their memberships;
 * the switch external port facing an end port gets the same table, which
 * is what switch partition enforcement checks inbound and outbound.  Each
 * P_Key has one index on every port that holds it, so NCCL_IB_PKEY (an
 * index) is the same on all of a tenant's hosts; an index, once given, is
 * kept across changes whenever that is possible.  The default partition
 * is always at index 0.
 *
 * Every check that can refuse a change lives here, before anything is
 * sent: capacity (NodeInfo PartitionCap for end ports, SwitchInfo
 * PartitionEnforcementCap for the facing switch port: never turn
 * enforcement off to make keys fit), members that match nothing, and the
 * SM's own full membership of the default partition.
 */
#ifndef FABRICD_PARTITIONS_PLAN_H
#define FABRICD_PARTITIONS_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "partitions/model.h"
#include "fabric/fabric.h"
#include "mad/mad.h"

#define PT_BLOCK		32	/* P_Keys per P_KeyTable block */
#define PT_CAP_UNKNOWN_ENTRIES	32	/* what we assume when a node reports 0 */

struct pt_index {
	uint16_t pkey;
	uint16_t index;
};

struct pt_port_plan {
	uint8_t		 plane;		/* the subnet it is on (partitions' planes) */
	uint64_t	 node_guid;
	uint8_t		 port;		/* 0 = switch management port */
	uint64_t	 port_guid;
	bool		 switch_ext;	/* enforcement table on a switch external port */
	bool		 is_sm;		/* the SM's own port */
	char		 label[FABRIC_NODE_DESC_LEN + 8];	/* "desc:port" */
	struct mad_addr	 addr;		/* directed route to the node */
	uint32_t	 attr_mod_port;	/* port << 16 on switch external ports, else 0 */
	uint16_t	 cap;		/* entries the port holds */
	uint16_t	 nblocks;
	uint16_t	*want;		/* nblocks * PT_BLOCK entries, membership bit included */
	uint16_t	*have;		/* same size, or NULL when not known (read first) */
};

struct pt_plan {
	struct pt_port_plan	*ports;
	size_t			 nports;
	struct pt_index		*index;		/* every user P_Key in use, sorted by pkey */
	size_t			 nindex;
};

/* What the caller knows of a port's current table (the committed state):
 * fill nentries entries and return true, or return false when unknown. */
typedef bool (*pt_have_fn)(void *arg, uint64_t node_guid, uint8_t port,
    uint16_t *entries, size_t nentries);

struct pt_plan_input {
	const struct pt_config		 *config;
	struct fabric_node *const	 *nodes;
	size_t				  nnodes;
	uint64_t			  sm_port_guid;	/* 0: no SM port check */
	const struct pt_index		 *prev_index;	/* indices given before */
	size_t				  nprev_index;
	bool				  strict_members;	/* a member matching nothing is an error */
	const struct pt_config		 *committed;	/* with strict: only members not in it
							 * are checked (a host that is down
							 * does not block other changes) */
	pt_have_fn			  have;
	void				 *have_arg;
	uint8_t				  plane;	/* stamped on every port planned */
};

int pt_plan_build(const struct pt_plan_input *in, struct pt_plan *out, struct pt_err *e);
/*
 * The fallback when in->config cannot be planned: ports whose tables are
 * known keep them; ports not known (new ones) get the default partition
 * alone, with the configured membership, instead of going ACTIVE with the
 * factory table (0xffff, a full member able to reach every limited one).
 * The plan carries no index map.
 */
int pt_plan_quarantine(const struct pt_plan_input *in, struct pt_plan *out, struct pt_err *e);
void pt_plan_free(struct pt_plan *p);
/* The directed route P_KeyTable MADs for port fp of n take. */
void pt_plan_port_addr(const struct fabric_node *n, const struct fabric_port *fp,
    struct mad_addr *a);

/* The index of pkey in the plan, or -1. */
int pt_plan_index_of(const struct pt_plan *p, uint16_t pkey);
struct pt_port_plan *pt_plan_port(const struct pt_plan *p, uint64_t node_guid, uint8_t port);

/* Does block b of port differ from what it holds (or is that unknown)? */
bool pt_block_dirty(const struct pt_port_plan *pp, uint16_t b);
/* Number of (port, block) pairs to write; ports whose table is unknown
 * count every block that is not all zeros. */
size_t pt_plan_dirty_blocks(const struct pt_plan *p);

#endif
