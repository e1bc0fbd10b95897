/*
 * SM election: who of several subnet managers on one subnet is MASTER.
 * Pure decisions (no MADs, no timers), so that they can be tested alone;
 * sm/core/standby.c applies them.
 *
 * The rules are the IBA's (volume 1, 14.4 "Subnet manager state machine")
 * as OpenSM applies them:
 *   - an SM beats another with a higher priority, or with the same
 *     priority and a lower port GUID;
 *   - a DISCOVERING SM that meets a MASTER, or a higher DISCOVERING or
 *     STANDBY SM, goes STANDBY and polls it;
 *   - a MASTER that meets a higher STANDBY SM hands mastership over to it
 *     (SubnSet(SMInfo) HANDOVER) and goes STANDBY;
 *   - a STANDBY SM whose master stops answering rediscovers the subnet.
 */
#ifndef FABRICD_SM_ELECTION_H
#define FABRICD_SM_ELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SMInfo SMState values (as on the wire). */
enum sm_state {
	SM_STATE_NOTACTIVE = 0,
	SM_STATE_DISCOVERING = 1,
	SM_STATE_STANDBY = 2,
	SM_STATE_MASTER = 3,
};

/* SubnSet(SMInfo) AttributeModifier values. */
enum sm_set_mod {
	SM_MOD_HANDOVER = 1,
	SM_MOD_ACKNOWLEDGE = 2,
	SM_MOD_DISABLE = 3,
	SM_MOD_STANDBY = 4,
	SM_MOD_DISCOVER = 5,
};

/* Another SM as its SMInfo describes it. */
struct sm_peer {
	uint64_t	guid;		/* SMInfo GUID: its port GUID */
	uint8_t		priority;	/* 0..15 */
	uint8_t		state;		/* enum sm_state */
	uint32_t	act_count;
	uint16_t	lid;		/* its port's LID as last read (0 unknown) */
};

/* SMs of one subnet share an SM_Key: one with another key is ignored (as
 * OpenSM does), unless ours is 0 (no key). */
bool sm_elect_key_ok(uint64_t ours, uint64_t theirs);

/* "master", "standby"... */
const char *sm_state_name(uint8_t state);

/* Does SM a beat SM b? */
bool sm_elect_beats(uint8_t pri_a, uint64_t guid_a, uint8_t pri_b, uint64_t guid_b);

enum sm_verdict {
	SM_VERDICT_MASTER,	/* configure the subnet (become or stay MASTER) */
	SM_VERDICT_STANDBY,	/* go STANDBY and poll `peer` */
	SM_VERDICT_HANDOVER,	/* send `peer` HANDOVER, then STANDBY polling it */
	SM_VERDICT_WAIT,	/* stay MASTER, configure nothing: another
				 * (lower) MASTER must hand over first */
};

struct sm_decision {
	enum sm_verdict	 verdict;
	int		 peer;		/* index into the peers, -1 for none */
	bool		 recheck;	/* a higher SM is still DISCOVERING: look again soon */
};

/*
 * After a discovery: what an SM in `own_state` with (pri, guid) does, given
 * the SMs that answered (an SM that did not answer is not in the list).
 * `handover_received`: a MASTER handed over to us during the discovery,
 * so the master we may have seen is no longer one.
 */
struct sm_decision sm_elect_after_discovery(uint8_t own_state, uint8_t pri, uint64_t guid,
    const struct sm_peer *peers, size_t npeers, bool handover_received);

/*
 * With ha the etcd writer lease, not the priority, keeps a master (no
 * SM writes without it): a master that holds the lease stays master beside
 * a higher SM (no handover: it would re-program the fabric from another
 * node for nothing) and beside a second master (which holds no lease and
 * writes nothing); one without the lease follows the SM the election
 * named instead of handing over or waiting, and sends no SMInfo Set.
 * MASTER and STANDBY verdicts stand as they are.
 */
struct sm_decision sm_elect_with_lease(struct sm_decision d, bool lease_held);

/*
 * A STANDBY SM polls the SM it follows: does `answer` (NULL: no answer)
 * show it still alive?  A MASTER is; so is a STANDBY or DISCOVERING SM
 * that beats us (it is taking over after a handover).  Anything else is a
 * miss.
 */
bool sm_elect_poll_alive(uint8_t pri, uint64_t guid, uint64_t polled_guid,
    const struct sm_peer *answer);

/* What a SubnSet(SMInfo) makes an SM do. */
enum sm_set_action {
	SM_SET_REJECT,		/* illegal here: answer with an error status */
	SM_SET_IGNORE,		/* legal, nothing to do (ACKNOWLEDGE) */
	SM_SET_TAKE_OVER,	/* become MASTER now, heavy sweep */
	SM_SET_SWEEP,		/* sweep again (HANDOVER while DISCOVERING or MASTER) */
	SM_SET_DISCOVER,	/* go DISCOVERING, heavy sweep */
	SM_SET_NOTACTIVE,	/* go NOTACTIVE: no polling, no sweeping */
	SM_SET_STANDBY,		/* go STANDBY and poll the sender */
};

/* `mod`: the AttributeModifier; `sender_state`: the SMState in the Set's
 * payload (HANDOVER, DISABLE, STANDBY, DISCOVER come only from a MASTER;
 * ACKNOWLEDGE only from a STANDBY SM). */
enum sm_set_action sm_elect_on_set(uint8_t own_state, uint32_t mod, uint8_t sender_state);

#endif
