/*
 * The SM's insides, shared by the files of sm/ and by nobody else: the
 * SM's only private header.  The pure layers a unit test reaches alone
 * have their own (election.h, model.h, sa.h): they hold no SM state.
 *
 * A sweep is a chain of phases (sweep.c lists them).  Each phase sends its
 * MADs with sm_send() into sm->batch, which passes the SM to every
 * callback and counts the replies; the phase's continuation
 * (sm_phase_wait) runs once the last one is back.  Everything runs on the
 * event loop thread, so no locking.
 */
#ifndef FABRICD_SM_INTERNAL_H
#define FABRICD_SM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <event2/event.h>
#include <infiniband/umad_sm.h>

#include "common/guid.h"
#include "daemon/fabricd.h"
#include "fabric/fabric.h"
#include "ha/ha.h"
#include "sm/core/election.h"
#include "sm/core/mkey.h"
#include "sm/core/port_admin.h"
#include "sm/core/rebalance_window.h"
#include "sm/core/model.h"
#include "mad/batch.h"
#include "mad/mad.h"
#include "fabric/routing.h"
#include "sm/qos/qos.h"	/* sm_config holds the policy */
#include "sm/sm.h"
#include "sm/core/route_job.h"
#include "sm/core/store_model.h"

/* Attribute IDs in host order: libibumad's UMAD_SM_ATTR_* (umad_sm.h);
 * iba/ib_types.h has them in network order. */

#define SM_MAX_ROOTS	64

/* sm.observer: while the SM is off, the fabric as the master's SA tells it
 * (observer.c). */
struct sm_observer_config {
	bool		 enabled;
	uint64_t	 refresh_ms;		/* one read of the whole fabric per period */
	uint64_t	 max_outstanding;	/* SA queries in flight, 1..MAD_WINDOW_MAX */
};

/* One of sm.subnets: a port this daemon serves, and its subnet's name. */
#define SM_MAX_SUBNETS	8
struct sm_subnet_config {
	char		 name[SM_SUBNET_NAME_MAX + 1];
	char		 group[SM_SUBNET_NAME_MAX + 1];	/* its plane group, or "" */
	uint64_t	 guid;			/* the port by GUID, or */
	char		 ca[MAD_CA_NAME_LEN];	/* by device and number */
	unsigned	 port;
};

struct sm_config {
	bool		 enabled;
	uint64_t	 port_guid;		/* 0: first port */
	uint64_t	 priority;		/* 0..15 */
	uint64_t	 sweep_interval_ms;
	int		 routing;		/* enum routing_engine */
	uint64_t	 max_outstanding;	/* MAD window */
	uint64_t	 timeout_ms;		/* per MAD try */
	uint64_t	 retries;
	uint64_t	 updn_roots[SM_MAX_ROOTS];	/* switch node GUIDs; none: detect */
	size_t		 nupdn_roots;
	uint64_t	 standby_poll_ms;	/* 0: the sweep interval */
	uint64_t	 standby_misses;	/* polls missed before taking over */
	uint64_t	 sm_key;		/* SMInfo SM_Key shared by the subnet's SMs */
	uint64_t	 subnet_prefix;		/* GIDPrefix given to every port */
	struct qos_policy qos;			/* traffic classes (qos_config.c) */
	bool		 audit;			/* read back and repair (audit.c) */
	uint64_t	 audit_interval_ms;
	uint64_t	 audit_mad_budget;	/* MADs per interval */
	char		*mkey_secret;		/* the config's; sm->mkey holds the copy */
	uint64_t	 mkey_protect;		/* M_KeyProtectBits 0..3 */
	uint64_t	 mkey_lease_ms;		/* M_KeyLeasePeriod (whole seconds) */
	bool		 ipoib_default;		/* IPoIB broadcast group of 0x7fff */
	struct rebalance_window rebalance_window;	/* unset: never on its own */
	struct sm_observer_config observer;
	struct sm_subnet_config subnets[SM_MAX_SUBNETS];	/* none: one, unnamed */
	size_t		 nsubnets;
};

enum sweep_kind { SWEEP_LIGHT, SWEEP_HEAVY };

struct sweep_record {
	enum sweep_kind	 kind;
	int64_t		 start_ms;
	int64_t		 duration_ms;
	uint64_t	 mads, retries, timeouts;
	unsigned	 changes;		/* events raised */
	unsigned	 lft_blocks;		/* LFT blocks written */
	unsigned	 mft_blocks;		/* MFT blocks written */
	unsigned	 port_sets;		/* PortInfo Sets */
	unsigned	 port_sets_unanswered;	/* of them, no answer after the retries */
	unsigned	 qos_sets;		/* SL2VL and VLArbitration Sets */
	unsigned	 rereg_sets;		/* of them with ClientReregister */
	unsigned	 unreachable;		/* probes that failed */
	char		 unreachable_text[512];	/* first few, for the record */
	bool		 ok;			/* routed and activated everything */
	bool		 periodic;		/* begun by the sweep timer, not by an
						 * event (a trap, a change, a request) */
	bool		 routed;		/* this sweep routed: route below */
	struct routing_repair_stats route;	/* what its routing kept and moved */
	enum routing_rebalance rebalance;	/* what it was asked to do */
	uint64_t	 rebalance_seq;		/* the request it served (0: none) */
};

#define SM_MAX_HOOKS 8
#define SM_DUP_REPORTED_MAX 32	/* duplicate GUIDs reported per discovery */
#define SM_MAX_REMOTES 16

/* Another SM met during discovery (or the one we follow). */
struct sm_remote {
	struct sm_peer	 info;
	struct mad_addr	 addr;		/* directed route to its port */
	bool		 answered;	/* its SMInfo came back */
};
#define SM_MAX_WAITERS 16

struct sweep_step;

/* The audit's state, its own (sm/audit/audit.h): the core holds a pointer. */
struct sm_audit;

/* Where qos_program.c's pass over the model is (one pass at a time). */
struct sm_qos_feed {
	bool		 read;		/* reading unknown tables, else writing */
	bool		 reread;	/* reading: no carry-over */
	size_t		 node;
	unsigned	 port;
	/* the node's first table of each kind; whether it was the policy's */
	bool		 seen_sl2vl, seen_vlarb, ok_sl2vl, ok_vlarb;
};

struct sm_hook {
	sm_hook_fn	 fn;
	void		*arg;
};

/*
 * What the core tells the parts above it (the audit and the control
 * handlers register for it when the SM starts), per SM instance: a heavy
 * sweep starting (it replaces the model, so MADs that point into the old
 * one are forgotten), a sweep finished (sweep --wait is answered), the
 * sweeps over (none follows at once: the audit's targeted checks), a trap
 * naming a node's LID (look at that node now).  Called synchronously, in
 * the order registered; NULL members are skipped.
 */
struct sm;
struct sm_listener {
	void	(*heavy_started)(struct sm *sm);
	void	(*sweep_finished)(struct sm *sm);
	void	(*sweeps_idle)(struct sm *sm);
	void	(*trap_about)(struct sm *sm, uint16_t lid);
};
#define SM_MAX_LISTENERS	4

/* fence.c: who may write the fabric (an ha_get in flight has one of
 * these, so that an answer after the SM stopped finds no SM). */
struct sm_fence_get {
	struct sm	*sm;
};
struct sm_fence {
	struct event		*ev;		/* every FENCE_TICK_MS */
	int64_t			 tick_ms;	/* the last tick: a stall shows as a gap */
	uint8_t			 state_seen;	/* the SM state at the last tick */
	uint64_t		 steps;		/* changes of state seen by the tick */
	uint64_t		 gen;		/* steps when the writer read was sent */
	struct sm_fence_get	*get;		/* the writer key's read in flight */
	bool			 writer_seen;	/* another SM held it since we were standby */
	int64_t			 absent_since;	/* the writer key absent since (0: not) */
	bool			 unprogrammed;	/* MASTER, not yet entitled: nothing written */
	bool			 resuming;	/* entitled now: its heavy sweep asked for */
	uint64_t		 refused;	/* SubnSets held back */
	uint64_t		 refused_told;	/* steps when it was last logged */
};

/* The SA's and multicast's state: opaque here, defined in sm/sa/sa.h and
 * sm/mcast/mcast.h for the files that work on them. */
struct sa_state;
struct sa_ctx;
struct mc_db;

struct sm {
	struct fabricd		*fd;
	/* Which subnet: sm.subnets' name, "" where the daemon serves one.
	 * Its store rows carry it (schemas/150_sm_subnet.sql). */
	char			 subnet[SM_SUBNET_NAME_MAX + 1];
	char			 group[SM_SUBNET_NAME_MAX + 1];	/* sm.subnets' group, or "" */
	/* Its events' source: "sm", or "sm/NAME" under sm.subnets. */
	char			 source[SM_SUBNET_NAME_MAX + 4];
	struct sm		*next_subnet;	/* the daemon's next SM (sm/subnets.c) */
	bool			 own_engine;	/* it opened sm->me, and closes it */
	const struct sm_listener *listeners[SM_MAX_LISTENERS];
	size_t			 nlisteners;
	struct sm_config	 cfg;
	struct mad_engine	*me;
	struct fabric		*fabric;	/* published model */
	struct fabric		*next;		/* model a heavy sweep builds */
	struct routing_table	*rt;		/* routes of the published model */
	struct event		*step_ev;	/* the sweep's next step, next turn */
	struct event		*hook_ev;	/* the next hook, next turn */
	size_t			 activate_node;	/* arm/activate: the next node to feed */
	size_t			 lft_node;	/* LFT programming: the next node to feed */
	unsigned		 lft_stage;	/* ... the stage being written (lft.c) */
	size_t			 lft_inflight;	/* LFT Sets not answered yet */
	struct route_job	*route_job;	/* routing sm->next on a thread */
	void			(*route_then)(struct sm *);
	struct fabric_port	**route_cut;	/* links cut for it (health isolation) */
	size_t			 route_ncut;
	struct routing_memory	*route_mem;	/* the tables repairs start from */
	enum routing_rebalance	 rebalance;	/* asked of the next routing */
	uint64_t		 rebalance_seq;	/* requests so far */
	/* sm.rebalance_window (rebalance_sched.c): the occurrence that had
	 * its rebalance, and the request of it not yet served (0: none) */
	int64_t			 window_done;
	uint64_t		 window_seq;
	uint64_t		 window_hottest;	/* the drift it was asked for */
	bool			 window_dry;	/* window_seq is its dry run */

	uint64_t		 own_guid;	/* our port GUID */
	uint16_t		 own_lid;
	int64_t			 lft_live_ms;	/* tables last read live (sm/lft_live.c) */
	uint8_t			 own_port;
	bool			 subnet_up;
	bool			 topology_changed;
	bool			 client_rereg;	/* first sweep as master: reregister hosts */
	struct sm_lids		 lids;
	struct model_writer	*writer;	/* model rows and LIDs to sqlite */
	struct sa_state		*sa;		/* the SA's subscriptions, services, counters */

	/* multicast (mcast_mft.c) */
	struct mc_db		*mc;		/* the SA's groups */
	struct guid_map		 mft;		/* switch GUID -> what its MFT holds */
	uint64_t		 mc_gen_programmed;	/* mc.gen the MFTs were computed for */
	struct sm_mc_feed {				/* sm_mcast_program's producer */
		struct fabric	*f;
		size_t		 group, node;
		bool		 new_model, cleared;
		unsigned	 nblocks;
		uint16_t	 top;
	} mc_feed;
	uint64_t		 mft_blocks_written;
	uint64_t		 mft_verify_mismatches;	/* sm_mcast_mft_verify() found */

	/* sweep control */
	bool			 sweeping;
	bool			 again, again_heavy;	/* asked for while sweeping */
	/* what asked for the next sweep: the periodic timer, an event, or
	 * both (the sweep's record says periodic only when the timer alone
	 * did) */
	bool			 asked_by_timer, asked_by_event;
	unsigned		 unanswered_resweeps;	/* heavy sweeps in a row for them */
	struct mad_batch	 batch;			/* MADs of the current phase */
	void			(*next_phase)(struct sm *);
	struct mad_batch	 side;			/* standby polls, handover: no phase */
	struct event		*sweep_timer;		/* periodic light sweep */
	struct event		*kick;			/* run a sweep soon */
	const struct sweep_step	*steps;			/* the running sweep's list (sweep.c) */
	size_t			 step;			/* the one running */
	struct sweep_record	 cur, last;
	uint64_t		 sweeps;
	uint64_t		 published;	/* models published (a new sm->fabric) */
	struct mad_counters	 mad_at_start;
	bool			 light_found_change;
	uint64_t		 dup_reported[SM_DUP_REPORTED_MAX];	/* this discovery's */
	size_t			 ndup_reported;
	bool			 roots_warned;	/* told of missing updn roots or a fallback */
	char			 routing_said[192];	/* engine and reason last told */
	bool			 loop_warned;	/* told the tables have a credit loop */
	struct qos_tables	*qos_tables;	/* what the policy gives every port */
	bool			 qos_reread_all;	/* next heavy sweep: no carry-over */
	struct sm_qos_feed	 qos_feed;		/* qos_program.c's cursor */
	unsigned		 sa_lazy_running;	/* SA queries waiting for tables (sa_qos_lazy.c) */
	struct sa_lazy		*sa_lazy;		/* those queries */

	/* election (standby.c) and who may write (fence.c) */
	uint8_t			 state;		/* enum sm_state */
	struct sm_fence		 fence;
	struct sm_remote	 remotes[SM_MAX_REMOTES];	/* this discovery's */
	size_t			 nremotes;
	bool			 handover_received;	/* while DISCOVERING */
	uint64_t		 handover_from;
	bool			 recheck;	/* a higher SM was DISCOVERING */
	struct sm_remote	 polled;	/* the SM we follow (or wait for) */
	bool			 polling, poll_outstanding;
	unsigned		 poll_misses;
	struct event		*poll_timer;
	uint64_t		 key_told_guid, key_told_key;	/* foreign SM_Key, told once */
	uint64_t		 lease_kept_from;	/* with ha: the SM the lease kept us master over */
	int64_t			 reprobe_ms;	/* the silent SMs last asked again */

	/* what the other modules registered with this SM (sm.h): sweep
	 * hooks, the P_Key hand-off (pkey_handoff.c), the IPoIB partitions */
	struct sm_hook		 hooks[2][SM_MAX_HOOKS];
	size_t			 nhooks[2];
	sm_pkey_table_fn	 pkey_table;
	void			*pkey_table_arg;
	sm_pkey_expect_fn	 pkey_expect;
	void			*pkey_expect_arg;
	sm_ipoib_fn		 ipoib_fn;
	void			*ipoib_arg;

	/* the hooks running now (hooks.c) */
	size_t			 hook_next;
	enum sm_hook_point	 hook_point;
	void			(*hooks_then)(struct sm *);

	struct sm_audit		*audit;		/* sm_audit_start() .. sm_audit_stop() */
	struct sm_mkey		 mkey;		/* per-port M_Keys (mkey.c) */
	struct ha_mirror	*mirror;	/* LIDs, M_Keys, disabled ports in etcd (replica.c) */
	json_t			*replica_qos;	/* a standby: the master's QoS policy, as read */
	bool			 qos_differs;	/* ... and ours is not the same */

	/* `port disable|enable` (ctl_port.c): the durable set, and the
	 * batch its Sets go through (apart from any sweep's phase) */
	struct port_disabled_set disabled;
	struct guid_map		 linked;	/* ports that had a peer (ports_seen.c) */
	struct mad_batch	 admin;

	/* loss recovery (recover.c): unreachable nodes' probe backoff */
	unsigned		 lost_backoff, lost_wait;
	bool			 lost_answered;

	/* observer mode (observer.c): the SM is off and this instance only
	 * publishes the fabric another SM's SA describes; NULL for an SM */
	struct sm_observer	*observer;
	struct obs_reports	*obs_reports;	/* observer_reports.c */

	/* `sweep` commands waiting for the end of a sweep */
	struct ctl_req		*waiters[SM_MAX_WAITERS];
	uint64_t		 waiter_sweep[SM_MAX_WAITERS];	/* answered when sweeps >= */
	size_t			 nwaiters;
	/* `routing rebalance` commands waiting for the sweep that routes */
	struct ctl_req		*rebal_waiters[SM_MAX_WAITERS];
	uint64_t		 rebal_seq[SM_MAX_WAITERS];	/* answered when served */
	bool			 rebal_dry[SM_MAX_WAITERS];
	size_t			 nrebal_waiters;
};


/* phase.c: an SMP of the current phase; cb gets the SM as its owner.
 * Returns mad_batch_smp()'s result. */
int sm_send(struct sm *sm, const struct mad_addr *a, uint8_t method, uint16_t attr,
    uint32_t mod, const void *data, mad_batch_cb cb, void *arg);
/* next(sm) once every MAD of the phase has called back (now if none). */
void sm_phase_wait(struct sm *sm, void (*next)(struct sm *));
/* Forget the MADs in flight (stop): their replies reach nobody. */
void sm_phase_cancel(struct sm *sm);
void sm_unreachable(struct sm *sm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sm_path_of(const struct fabric_node *n, struct mad_addr *a);
/* "desc (0xGUID)" or the GUID alone while the description is unknown. */
const char *sm_node_label(const struct fabric_node *n, char *buf, size_t len);

/* phase.c: a sweep soon (once the running one has ended: one more). */
void sm_sweep_request(struct sm *sm, bool heavy);
/* The same from the periodic timer (sweep.c): its sweep is recorded as
 * periodic unless an event asked too. */
void sm_sweep_request_periodic(struct sm *sm, bool heavy);

/* rebalance_sched.c: the next heavy sweep routes afresh (dry: counts what
 * that would move, and keeps the repaired tables); the request's number,
 * which sm->last.rebalance_seq reaches once a sweep's routing served it. */
uint64_t sm_rebalance_ask(struct sm *sm, bool dry);
/* At a sweep's end: sm.rebalance_window's rebalance asked or told. */
void sm_rebalance_window_check(struct sm *sm);
/* A reload's window in place (a changed one may act again today). */
void sm_rebalance_window_set(struct sm *sm, const struct rebalance_window *w);

/* sweep.c: the periodic and kick timers (before any sm_sweep_request). */
/* The running sweep's next step (a step that went on by itself). */
void sm_sweep_next(struct sm *sm);
/* The running sweep's step ("discover", ...), or NULL between sweeps. */
const char *sm_sweep_step_name(const struct sm *sm);
void sm_sweep_start_timer(struct sm *sm);

/* hooks.c: register l (false: no room); tell each listener. */
bool sm_listen(struct sm *sm, const struct sm_listener *l);
void sm_tell_heavy_started(struct sm *sm);
void sm_tell_sweep_finished(struct sm *sm);
void sm_tell_sweeps_idle(struct sm *sm);
void sm_tell_trap_about(struct sm *sm, uint16_t lid);
/* hooks.c: run the hooks of one point in order, then then(sm). */
void sm_run_hooks(struct sm *sm, enum sm_hook_point pt, void (*then)(struct sm *));

/* pkey_handoff.c: what partitions registered (sm_set_pkey_tables,
 * sm_set_pkey_expect): the table reader and its argument (NULL: none);
 * whether committed tables are known; a port's committed table, its
 * count or -1 when not known. */
sm_pkey_table_fn sm_pkey_tables(const struct sm *sm, void **arg);
bool sm_pkey_expect_known(const struct sm *sm);
int sm_pkey_expected(const struct sm *sm, const struct fabric_node *n, uint8_t port,
    uint16_t *entries, size_t max, bool *switch_ext);

/* sa_agent.c: every class-0x03 MAD; the answer goes back through the engine. */
void sa_handle_mad(struct sm *sm, const struct mad_in *in);
/* The same, answered now from what the SM knows (the master's). */
void sa_handle_now(struct sm *sm, const struct mad_in *in);
/* The context the SA answers a request in. */
void sa_ctx_of(struct sm *sm, const struct mad_in *in, struct sa_ctx *ctx);
/* sa_qos_lazy.c: an SL2VL or VLArb record query naming tables the SM has
 * not read (a dry run of its answer in ctx tells): true when they are
 * being read and the query will be answered then, by answer(sm, in) if
 * the SM is still master; false: answer it now. */
bool sa_qos_lazy(struct sm *sm, const struct mad_in *in, const struct sa_ctx *ctx,
    void (*answer)(struct sm *sm, const struct mad_in *in));
/* At the SM's stop: the queries still waiting dropped, their Gets cancelled. */
void sa_qos_lazy_stop(struct sm *sm);

/* inbound.c: every MAD addressed to us (the engine's handler). */
void sm_handle_mad(struct mad_engine *me, const struct mad_in *in, void *arg);

/* The phases' MADs (discover.c, lft.c, activate.c): each sends its MADs
 * into the current phase; sweep.c waits for them. */

/* discover.c: build sm->next from the fabric. */
void sm_discover(struct sm *sm);
/* Light sweep: SwitchInfo of every known switch; sets light_found_change. */
void sm_light_probe(struct sm *sm);
/* Clear SwitchInfo PortStateChange where discovery saw it set but, not yet
 * master, left it (MADs of the current phase). */
void sm_clear_state_changes(struct sm *sm);

/* fence.c: the gate every SubnSet passes (mad_engine_set_gate), the
 * stall and lease checks, a standby's watch of the writer lease. */
void sm_fence_start(struct sm *sm);
void sm_fence_stop(struct sm *sm);
/* Why this SM may not write the fabric now (NULL: it may). */
const char *sm_write_refusal(const struct sm *sm, char *buf, size_t len);
bool sm_may_write(const struct sm *sm);
json_t *sm_fence_json(const struct sm *sm);

/* standby.c */
/* A master that may no longer write (lease lost, stalled): DISCOVERING,
 * and a heavy discovery elects again before anything is written. */
void sm_standby_step_down(struct sm *sm, const char *why);
/* A standby whose master is gone: DISCOVERING, heavy sweep. */
void sm_standby_take_over(struct sm *sm, const char *why);
/* SMInfo Gets to the SM ports that did not answer at the last discovery
 * (a stalled SM wakes): an answer starts a heavy sweep (the election). */
void sm_standby_reprobe(struct sm *sm);
void sm_standby_discovery_start(struct sm *sm);
/* Ask the SM behind this port (IsSM, not ours) for its SMInfo, in the
 * current phase. */
void sm_standby_query(struct sm *sm, const struct fabric_port *p);
/* Light sweep: ask the SMs the last discovery met again; any change sets
 * sm->light_found_change (MADs of the current phase). */
void sm_standby_light_probe(struct sm *sm);
/* After a heavy discovery: true if we are MASTER and go on configuring. */
bool sm_standby_decide(struct sm *sm);
void sm_sminfo_request(struct sm *sm, const struct mad_in *in);
void sm_standby_reload(struct sm *sm);
void sm_standby_stop(struct sm *sm);

/* activate.c: LIDs, SM LID, ARMED then ACTIVE on every link. */
void sm_activate_arm(struct sm *sm);
/* activate.c: M_Key, protection and lease in a PortInfo Set for a port
 * that holds a key of its own; false when it must not be written now. */
bool sm_port_key_fields(struct sm *sm, const struct fabric_port *p, void *pi);
/* replica.c: the SM's records kept alike on every SM node (with ha). */
void sm_replica_start(struct sm *sm);
void sm_replica_stop(struct sm *sm);
/* The configuration was reloaded: the master puts its policy again, a
 * standby compares its own with the master's. */
void sm_replica_config_changed(struct sm *sm);
/* For status: whose QoS policy this node holds; NULL without ha. */
const char *sm_replica_qos_verdict(const struct sm *sm);

/* ports_seen.c: the ports that have had a peer since the start (a pulled
 * cable, not a port no cable reached), noted at each published model. */
void sm_ports_seen_note(struct sm *sm, const struct fabric *f);
bool sm_port_was_linked(const struct sm *sm, const struct fabric_port *p);
void sm_ports_seen_free(struct sm *sm);

/* port_disabled.c: the operator disabled this port (it stays down). */
bool sm_port_disabled(const struct sm *sm, const struct fabric_port *p);
void sm_port_admin_stop(struct sm *sm);
void sm_activate_active(struct sm *sm);

/* The MADs a producer of sm->batch keeps pending (mad_batch_feed): twice
 * the window, so the engine's queue is never empty while it waits. */
static inline size_t
sm_feed_cap(const struct sm *sm)
{
	return 2 * (size_t)sm->cfg.max_outstanding + 8;
}

/* lft.c */
void sm_lft_readback(struct sm *sm);
/* Compute routes (on a thread: sm->next must stay as it is until then
 * runs) and queue the blocks that differ; they are MADs of the current
 * phase, so a sm_phase_wait() after then() waits for them. */
void sm_lft_program(struct sm *sm, void (*then)(struct sm *));
/* The SM stops: wait for a routing job and drop its tables. */
void sm_lft_abandon(struct sm *sm);
/* Light sweep: write again the published switches' blocks that differ
 * from the routes (unknown ones: a reply lost); returns the blocks sent. */
size_t sm_lft_mend(struct sm *sm);
/* A block of n's copy becomes unknown (ROUTING_UNKNOWN_PORT) until a
 * reply says what the switch holds. */
void sm_lft_mark_unknown(struct fabric_node *n, unsigned block);

/* qos_program.c: learn what the ports hold (first sight), then write the
 * SL2VL and VLArb tables that differ; MADs of the current phase. */
void sm_qos_readback(struct sm *sm);
void sm_qos_program(struct sm *sm);
/* qos_program.c, for the audit's checker (audit_qos.c): where a port's
 * tables are read and written, and what a reply says the port holds. */
bool sm_qos_port_addr(const struct fabric_port *p, struct mad_addr *a);
uint32_t sm_qos_sl2vl_mod(const struct fabric_port *p, unsigned in);
uint32_t sm_qos_vlarb_mod(const struct fabric_port *p, unsigned block);
void sm_qos_note_held(struct fabric_port *p, uint16_t attr, uint32_t mod, const uint8_t *data);
/* qos_reread.c, for `qos show` of a node: read these tables (SL2VL of
 * (at.in, at.port), or VLArb block `block` of at.port) into the mirror;
 * as sm_qos_reread, 0 with done(arg) called once every answer is in, -1
 * when not master, QoS off or nothing to read (done is not called). */
struct sm_qos_table {
	struct sm_qos_target	at;
	uint8_t			block;
	bool			sl2vl;
};
int sm_qos_read(struct sm *sm, const struct sm_qos_table *t, size_t n, sm_qos_done_fn done,
    void *arg);
/* activate.c: the OperationalVLs a link port should run (both ends' VLCap). */
uint8_t sm_qos_op_vls(const struct fabric_port *p);

/* recover.c: MAD loss.  Discovery tries a failed probe SM_PROBE_TRIES
 * more times; then the last model's view is kept: */
#define SM_PROBE_TRIES	3
/* a port's PortInfo (false: none known) */
bool sm_recover_port(struct sm *sm, struct fabric_port *p);
/* a node's NodeDescription and SwitchInfo (false: none known) */
bool sm_recover_node(struct sm *sm, struct fabric_node *n);
/* the node that answered behind `from` (link up) before: kept, unreachable;
 * a switch with the CAs it was cabled to, linked to the neighbours found */
void sm_recover_peer(struct sm *sm, struct fabric_port *from);
/* Light sweep: probe the unreachable again, with backoff. */
void sm_recover_light_probe(struct sm *sm);
void sm_recover_sweep_done(struct sm *sm);

/* audit.c: the background read-back and repair (sm/audit/audit.h). */
void sm_audit_start(struct sm *sm);
void sm_audit_reload(struct sm *sm);
void sm_audit_stop(struct sm *sm);
json_t *sm_audit_json(struct sm *sm);

/* mcast_mft.c: the SM's IPoIB broadcast groups (before anyone joins). */
void sm_mcast_ensure_groups(struct sm *sm);
/* Trees of every group over f, and the MFT blocks and MulticastFDBTop
 * that differ (MADs of the current phase).  new_model: f is the model a
 * heavy sweep built (switches new to it have their tables read again). */
void sm_mcast_program(struct sm *sm, struct fabric *f, bool new_model);
/* Read back every MFT block the SM wrote and compare (MADs of the current
 * phase); mismatches counted in mft_verify_mismatches and rewritten by the
 * next sm_mcast_program().  Returns the blocks asked for. */
unsigned sm_mcast_mft_verify(struct sm *sm, struct fabric *f);
/* The audit's view of the MFTs (audit_mft.c).  Item k of a switch is one
 * block (32 MLIDs) at one port mask position (16 ports) of those in use. */
#define SM_MFT_BLOCK_MLIDS	32
size_t sm_mcast_mft_items(struct sm *sm, const struct fabric_node *n);
bool sm_mcast_mft_item(struct sm *sm, const struct fabric_node *n, size_t k, unsigned *block,
    unsigned *pos);
/* The block the SM computed for n, as SMP data; false while what the
 * switch holds there is not known (a read or write under way). */
bool sm_mcast_mft_want(struct sm *sm, const struct fabric_node *n, unsigned block, unsigned pos,
    uint8_t data[64]);
/* The switch holds data in that block now (a repair it kept). */
void sm_mcast_mft_note_held(struct sm *sm, const struct fabric_node *n, unsigned block,
    unsigned pos, const uint8_t *data);
uint32_t sm_mcast_mft_mod(unsigned block, unsigned pos);
/* The SA's MFTRecord (struct sa_ctx mft_blocks, mft_block; arg: the sm). */
unsigned sm_mcast_mft_sa_blocks(void *arg, const struct fabric_node *n);
bool sm_mcast_mft_sa_block(void *arg, const struct fabric_node *n, unsigned block, unsigned pos,
    uint16_t ports[SM_MFT_BLOCK_MLIDS]);
void sm_mcast_free(struct sm *sm);
/* The i-th partition registered for IPoIB (sm_set_ipoib_partitions). */
bool sm_ipoib_partition(const struct sm *sm, size_t i, struct sm_ipoib *out);

/* sa_report.c: Reports of traps 64/65 for the CA ports that came into or
 * went out of service between two models, to their subscribers. */
void sm_report_gid_changes(struct sm *sm, const struct fabric *old, const struct fabric *cur);
/* A generic trap sent to the SM, forwarded to its subscribers. */
void sm_report_forward(struct sm *sm, const void *notice_attr);
/* Reports of traps 66/67 for the groups made or deleted since last time. */
void sm_report_group_changes(struct sm *sm);

/* observer.c: an instance that runs no SM (sm.enabled false) and
 * publishes as sm->fabric what the master SM's SA answers, read again
 * every sm.observer.refresh; it sends SA Gets and one SMP Get of its own
 * PortInfo, never a Set. */
struct sm_observer;
void sm_observer_start(struct sm *sm);
void sm_observer_reload(struct sm *sm, const struct sm_observer_config *cfg);
void sm_observer_stop(struct sm *sm);
json_t *sm_observer_json(const struct sm *sm);
/* The master SM the observer follows: its port GUID and LID (0: none known). */
void sm_observer_master(const struct sm *sm, uint64_t *guid, uint16_t *lid);
/* When the observer's view was read (event_now_ms()), 0: none yet. */
int64_t sm_observer_view_ms(const struct sm *sm);
/* A Report of trap 64, 65 or 128 (its Notice): what it names read again
 * within 2 s (observer_patch.c). */
void sm_observer_patch(struct sm *sm, uint16_t trap, const void *notice);
/* observer_reports.c: subscriptions to the master SA's traps 64, 65 and
 * 128 (InformInfo Sets, sent again to a new master) and the Reports they
 * bring, answered; the engine's request handler while observing. */
struct obs_reports;
void sm_observer_reports_start(struct sm *sm, void (*on_report)(struct sm *sm, uint16_t trap,
    const void *notice));
void sm_observer_reports_stop(struct sm *sm);
void sm_observer_subscribe(struct sm *sm, uint16_t sa_lid);
json_t *sm_observer_reports_json(const struct sm *sm);

/* sm_store.c */
void sm_store_sweep(struct sm *sm, bool write_model);

/* ctl.c */
struct ctl_req;
/* The published model, or NULL after answering "unavailable". */
struct fabric *sm_ctl_fabric(struct ctl_req *req);

/* status.c */
json_t *sm_guid_json(uint64_t guid);
json_t *sm_sweep_json(const struct sweep_record *r);
/* The source its events carry (struct sm's source). */
static inline const char *sm_source(const struct sm *sm) { return sm->source; }
json_t *sm_status_json(struct sm *sm);
/* metrics.c: the module's metrics callback */
struct prom;
void sm_metrics(struct fabricd *fd, struct prom *p);

#endif
