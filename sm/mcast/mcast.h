/*
 * Multicast groups as the SA keeps them: one group per MGID with the
 * parameters its creator gave (Q_Key, MTU, rate, SL, FlowLabel, TClass,
 * P_Key, scope), its MLID and its member ports with their JoinState.
 *
 * Pure data (no fabric, no MADs), so unit tests reach it alone: the
 * MCMemberRecord logic (sa_mcast.c) and the forwarding trees
 * (mcast_tree.c) work on it.  Nothing is stored: after a restart the
 * hosts, told by ClientReregister, join again and rebuild it.
 *
 * MLIDs come from 0xC000 upwards, the lowest free one; a group created by
 * a host is freed (with its MLID) when its last member leaves, a group the
 * SM created (IPoIB broadcast groups) stays.
 */
#ifndef FABRICD_SM_MCAST_H
#define FABRICD_SM_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MC_MLID_BASE	0xC000
#define MC_MLID_MAX	1024	/* MLIDs served: ibsim's MulticastFDBCap; most HCAs' too */

/* JoinState bits (IBA 15.2.5.17) */
#define MC_JOIN_FULL		0x01
#define MC_JOIN_NON		0x02
#define MC_JOIN_SENDONLY_NON	0x04
#define MC_JOIN_SENDONLY_FULL	0x08
/* Members that receive the group's packets (send-only ones only send). */
#define MC_JOIN_RECEIVES	(MC_JOIN_FULL | MC_JOIN_NON)

struct mc_member {
	uint64_t	port_guid;	/* the port that joined */
	uint8_t		port_gid[16];	/* as it gave it */
	uint8_t		join_state;	/* MC_JOIN_* bits */
	bool		proxy;
};

/* The group's parameters, as an MCMemberRecord carries them. */
struct mc_params {
	uint32_t	qkey;
	uint16_t	pkey;		/* membership bit as given */
	uint8_t		mtu;		/* IB_MTU_LEN_* code */
	uint8_t		rate;		/* IB_PATH_RECORD_RATE_* code */
	uint8_t		pkt_life;
	uint8_t		sl;
	uint32_t	flow_label;	/* 20 bits */
	uint8_t		hop_limit;
	uint8_t		tclass;
	uint8_t		scope;		/* 4 bits */
};

struct mc_group {
	uint8_t			 mgid[16];
	uint16_t		 mlid;
	struct mc_params	 p;
	bool			 sm_owned;	/* never freed when empty */
	struct mc_member	*members;
	size_t			 nmembers, cap;
};

/* A group made or deleted since the SM last looked (traps 66 and 67). */
#define MC_EVENTS_MAX 32
struct mc_event {
	uint8_t		mgid[16];
	bool		created;
};

struct mc_db {
	struct mc_event		  events[MC_EVENTS_MAX];
	size_t			  nevents;	/* more are dropped until taken */
	struct mc_group		**groups;
	size_t			  ngroups, cap;
	uint8_t			  mlid_used[MC_MLID_MAX / 8];
	uint64_t		  gen;		/* bumped on every change of a tree's input */
	uint64_t		  created, deleted;	/* groups, since start */
};

void mc_db_init(struct mc_db *db);
void mc_db_free(struct mc_db *db);	/* the groups; db itself is the caller's */
/* The SM's database, on the heap (struct sm holds only a pointer). */
struct mc_db *mc_db_new(void);
void mc_db_delete(struct mc_db *db);	/* NULL: nothing */

struct mc_group *mc_find(const struct mc_db *db, const uint8_t mgid[16]);
struct mc_group *mc_find_mlid(const struct mc_db *db, uint16_t mlid);
/* A new group with the lowest free MLID; NULL when every MLID is taken. */
struct mc_group *mc_create(struct mc_db *db, const uint8_t mgid[16], const struct mc_params *p,
    bool sm_owned);
/* Remove the group and free its MLID. */
void mc_delete(struct mc_db *db, struct mc_group *g);

struct mc_member *mc_member_find(const struct mc_group *g, uint64_t port_guid);
/* Add join state bits (a new member or more bits for one); returns the member. */
struct mc_member *mc_member_join(struct mc_db *db, struct mc_group *g, uint64_t port_guid,
    const uint8_t port_gid[16], uint8_t join_state, bool proxy);
/* Take join state bits away; the member goes when none is left.  Returns
 * the bits it held before. */
uint8_t mc_member_leave(struct mc_db *db, struct mc_group *g, uint64_t port_guid,
    uint8_t join_state);
/* Does any member receive (full or non-member)? */
bool mc_group_receives(const struct mc_group *g);

/*
 * The forwarding tree of one group (mcast_tree.c): a spanning tree over
 * the switches and ACTIVE switch-to-switch links that reaches the switch
 * of every member, pruned to what it needs, plus the switch ports that
 * face receiving members (full and non-members; send-only members only
 * send, so their switch is in the tree but their port is not).
 *
 * The result is, per switch (in FABRIC_FOREACH_NODE order), the set of
 * ports the MFT entry of the group's MLID holds: ports[i] is NULL for a
 * switch outside the tree, else a bitmap of MC_TREE_PORT_WORDS words.
 */
struct fabric;
#define MC_TREE_PORT_WORDS 4	/* 256 ports */
struct mc_tree {
	size_t		  nnodes;
	uint64_t	(*ports)[MC_TREE_PORT_WORDS];	/* [nnodes] */
	bool		 *in_tree;			/* [nnodes] */
	size_t		  nswitches;			/* in the tree */
	size_t		  nmembers_reached;		/* member ports the tree reaches */
};

/* Compute the tree of g over f; false (tree empty) when no member can be
 * reached.  mc_tree_free() in both cases. */
bool mc_tree_compute(const struct fabric *f, const struct mc_group *g, struct mc_tree *t);
void mc_tree_free(struct mc_tree *t);
static inline bool
mc_tree_has(const struct mc_tree *t, size_t node, unsigned port)
{
	return t->in_tree[node] && (t->ports[node][port / 64] >> (port % 64) & 1);
}

/* The IPoIB MGID of a partition: ff1<scope>:401b:<pkey>::ffff:ffff (the
 * IPv4 broadcast group ipoib joins; pkey with its membership bit). */
void mc_ipoib_broadcast_mgid(uint16_t pkey, uint8_t scope, uint8_t mgid[16]);
/* An MGID with the IPoIB signature (0x401b IPv4, 0x601b IPv6): true and
 * *pkey from bytes 4-5. */
bool mc_mgid_ipoib_pkey(const uint8_t mgid[16], uint16_t *pkey);
/* "ff12:401b:ffff:0000:0000:0000:ffff:ffff" (40 bytes). */
char *mc_mgid_format(const uint8_t mgid[16], char *buf, size_t len);

#endif
