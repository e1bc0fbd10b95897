/*
 * The subnet manager's public door for the rest of fabricd.
 *
 * Partitions and health do not run their own sweeps: they register hooks
 * that the SM calls at fixed points of each sweep.  They send MADs through
 * the daemon's engine (fabricd_mad()), as the SM does.
 */
#ifndef FABRICD_SM_SM_H
#define FABRICD_SM_SM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "mad/io.h"
#include "mad/mad.h"

struct sm;	/* one subnet manager: the daemon's (struct fabricd's sm) */

/* A subnet's name (sm.subnets): letters, digits, '-', '_', '.'. */
#define SM_SUBNET_NAME_MAX	31

/*
 * Every function below takes the SM it asks; sm may be NULL (the SM is
 * disabled): then there is no fabric, no master, no QoS, and a
 * registration is not kept.
 */

/* NULL while the SM is disabled or has not swept yet. */
struct fabric *sm_fabric(const struct sm *sm);
/* Under sm.subnets, the daemon's SMs follow its first: the next one (NULL
 * after the last, and without sm.subnets), and the subnet's name ("" for
 * the one subnet of a daemon without sm.subnets). */
struct sm *sm_next_subnet(const struct sm *sm);
const char *sm_subnet_name(const struct sm *sm);
bool sm_subnet_up(const struct sm *sm);
/* The plane group sm.subnets gives the subnet ("": none).  Partitions
 * keep the first subnet's group as one tenant space. */
const char *sm_subnet_group(const struct sm *sm);
/* The engine this SM's MADs go through (each subnet has its own). */
struct mad_io sm_mad_io(const struct sm *sm);
/* Only the master SM writes to the fabric: while another SM is master (we
 * are STANDBY) or before the first discovery has decided, modules send no
 * Set and keep their changes for the first sweep as master. */
bool sm_is_master(const struct sm *sm);
/* Why this SM's SubnSets are held back now (NULL: they go): not master,
 * or with ha not holding a valid writer lease (sm/core/fence.c). */
const char *sm_fabric_write_refusal(const struct sm *sm, char *buf, size_t len);
/* The SM a standby follows: its port GUID and LID (0 while none is
 * known: discovering, or the master stopped answering).  An observer:
 * the master whose SA it reads. */
void sm_master_seen(const struct sm *sm, uint64_t *guid, uint16_t *lid);
/* Observer mode (sm.enabled false, sm.observer on): the fabric is read
 * from another SM's SA and nothing is written from here.  Returns why,
 * for an `unavailable` answer ("observer mode: the SM is 0x... (LID n)
 * elsewhere"), in buf; NULL when sm is no observer. */
const char *sm_observer_refusal(const struct sm *sm, char *buf, size_t len);
/* An observer: how long until its next read of the SA starts (0: under
 * way, or not an observer). */
int64_t sm_observer_next_read_in_ms(const struct sm *sm);
/* An observer's own node and port as its own port answered (a CA; false
 * until known, on a switch, or not an observer): health polls it before
 * the first view. */
bool sm_observer_own_node(const struct sm *sm, uint64_t *guid, const char **desc, uint8_t *port,
    uint16_t *lid);
uint16_t sm_own_lid(const struct sm *sm);
uint64_t sm_own_port_guid(const struct sm *sm);
/* An operator disabled this port (`fabricctl port disable`): its link is
 * down on purpose. */
bool sm_port_is_disabled(const struct sm *sm, uint64_t node_guid, uint8_t port);
/* A heavy sweep soon: routes recomputed (health's isolated ports changed). */
void sm_reroute(struct sm *sm);

/*
 * Sweep hooks.  before_activate runs after discovery and LID assignment,
 * before ports are moved to ARMED/ACTIVE (partitions program P_Key tables
 * here); after_sweep runs when a sweep has finished.  A hook that starts
 * MADs calls done() when they have all completed; the sweep waits for it.
 */
enum sm_hook_point { SM_HOOK_BEFORE_ACTIVATE, SM_HOOK_AFTER_SWEEP };
typedef void (*sm_hook_fn)(struct fabric *f, bool topology_changed,
    void (*done)(void *token), void *token, void *arg);
void sm_add_hook(struct sm *sm, enum sm_hook_point point, sm_hook_fn fn, void *arg);

/*
 * Partition membership, for the SA's PathRecords (a path exists in a
 * partition only between two members, one of them full).  The partitions
 * module registers the tables it has verified on the ports: fn copies the
 * P_Keys end port p holds (membership bit included, zero entries left
 * out) into keys, at most max, and returns how many, or -1 when the port's
 * table is not known (the SA then takes the factory table, 0xFFFF alone).
 * With nothing registered every port holds 0xFFFF alone, as without
 * partitions.  fn NULL unregisters.
 */
typedef int (*sm_pkey_table_fn)(const struct fabric_port *p, uint16_t *keys,
    size_t max, void *arg);
void sm_set_pkey_tables(struct sm *sm, sm_pkey_table_fn fn, void *arg);

/*
 * QoS (sm/qos*.c, docs/qos.md).  The pre-flight reads the tables of the
 * ports on a job's routes again (sm_qos_reread: SL2VL of the in/out pair,
 * the first block of both VL arbitration tables) and then asks, port by
 * port, whether the job's SL can leave it.
 */
struct sm_qos_target {
	uint64_t	node_guid;
	uint8_t		port;		/* the egress port */
	uint8_t		in;		/* switches: the port the packets arrive on */
};
typedef void (*sm_qos_done_fn)(void *arg);
/* 0: done(arg) is called once every answer is in; -1: not master, QoS
 * off or nothing to read (done is not called). */
int sm_qos_reread(struct sm *sm, const struct sm_qos_target *t, size_t n, sm_qos_done_fn done,
    void *arg);
/*
 * An observer's pre-flight reads the ports on a job's routes live (one
 * PortInfo Get each, sm/ports_live.c): its view and the master's SA may be
 * older than a pulled cable.  done(res, n, arg) once every answer is in;
 * res[i] is t[i]'s port, answered false when it did not answer (a port
 * silent through a read, every engine retry of it, is read again, up to
 * four reads).  -1: not
 * an observer, no view or nothing to read (done is not called).
 */
struct sm_port_live {
	uint64_t	node_guid;
	uint8_t		port;
	bool		answered;
	uint8_t		reads;		/* PortInfo Gets sent it, each with its retries */
	uint8_t		state;		/* PortInfo PortState: 1 Down .. 4 Active */
	uint8_t		phys_state;	/* PortPhysicalState: 5 LinkUp, 2 Polling, 3 Disabled */
};
typedef void (*sm_live_done_fn)(const struct sm_port_live *res, size_t n, void *arg);
int sm_ports_read_live(struct sm *sm, const struct sm_qos_target *t, size_t n,
    sm_live_done_fn done, void *arg);
/*
 * The forwarding tables the switches hold now, for some LIDs (sm/
 * lft_live.c): from every switch of the view, the blocks holding lids[],
 * one LinearForwardingTable Get each, written into the view (sm->fabric:
 * newer than any copy).  For an observer, whose copy is as old as its last
 * read of the SA, before it walks a job's routes.  done(res, arg) once
 * every answer is in; -1: no view or no LID (done is not called).
 */
struct sm_lft_live {
	size_t		switches, blocks;	/* asked: every switch, these blocks */
	size_t		blocks_read, blocks_failed;
	size_t		entries_changed;	/* entries that differed from the copy */
	uint64_t	unread_guid;		/* the first switch that did not answer */
	int64_t		read_ms;		/* event_now_ms() when the last answer came */
};
typedef void (*sm_lft_done_fn)(const struct sm_lft_live *res, void *arg);
int sm_lft_read_live(struct sm *sm, const uint16_t *lids, size_t nlids, sm_lft_done_fn done,
    void *arg);
/* When tables were last read live (sm_lft_read_live), 0: never. */
int64_t sm_lft_live_ms(const struct sm *sm);
/* 1: SL leaves p (from in) on a VL with weight; 0: not, why says how;
 * -1: unknown (QoS off, tables never read). */
int sm_qos_sl_usable(const struct sm *sm, const struct fabric_port *p, uint8_t in, uint8_t sl,
    char *why, size_t len);
/* The SL of a class of the policy, -1 when there is none (or QoS off);
 * *sid (may be NULL) the first ServiceID the class names, 0 for none. */
int sm_qos_class_sl(const struct sm *sm, const char *name);
int sm_qos_class_info(const struct sm *sm, const char *name, uint64_t *sid);
/* The SL the SA answers for a path with this ServiceID (has_sid) in
 * partition pkey (0: none): the same choice sa_path.c makes. */
int sm_qos_path_sl(const struct sm *sm, bool has_sid, uint64_t sid, uint16_t pkey);

/*
 * What the audit compares P_Key tables with: the partitions module hands
 * over the table it committed for a port (node GUID, port number; switch
 * external ports included): fn copies up to max entries (membership bit
 * included, zeros kept: the whole table) into entries, sets *switch_ext,
 * and returns how many, or -1 when that port's table is not known or a
 * change is on the fabric (the audit then leaves the port alone).
 */
typedef int (*sm_pkey_expect_fn)(uint64_t node_guid, uint8_t port, uint16_t *entries,
    size_t max, bool *switch_ext, void *arg);
void sm_set_pkey_expect(struct sm *sm, sm_pkey_expect_fn fn, void *arg);

/*
 * IPoIB (as OpenSM's `ipoib` partition flag): the SM creates the IPv4
 * broadcast group of each partition registered here, with these
 * parameters, before any host asks.  fn fills out for the i-th such
 * partition and returns false past the last; fn NULL unregisters.  The
 * default partition's group comes from sm.ipoib_broadcast.
 */
struct sm_ipoib {
	uint16_t	pkey;		/* 15 bits */
	uint8_t		mtu;		/* IB_MTU_LEN_* code */
	uint8_t		rate;		/* IB_PATH_RECORD_RATE_* code */
	uint8_t		sl;
	uint32_t	qkey;
};
typedef bool (*sm_ipoib_fn)(size_t i, struct sm_ipoib *out, void *arg);
void sm_set_ipoib_partitions(struct sm *sm, sm_ipoib_fn fn, void *arg);

/*
 * Unit tests: the next sm start sends through io (a fake fabric) instead
 * of the daemon's engine, as the port port_guid, number port_num.  io NULL
 * goes back to the engine.
 */

void sm_test_use_io(const struct mad_io *io, uint64_t port_guid, uint8_t port_num);

#endif
