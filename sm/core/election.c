/*
 * SM election: the pure decisions of sm/core/election.h.
 */
#include "sm/core/election.h"

const char *
sm_state_name(uint8_t state)
{
	static const char *const names[] = { "notactive", "discovering", "standby", "master" };

	return state < 4 ? names[state] : "?";
}

bool
sm_elect_key_ok(uint64_t ours, uint64_t theirs)
{
	return ours == 0 || theirs == ours;
}

bool
sm_elect_beats(uint8_t pri_a, uint64_t guid_a, uint8_t pri_b, uint64_t guid_b)
{
	return pri_a > pri_b || (pri_a == pri_b && guid_a < guid_b);
}

/* The highest peer in one of the states of `mask` (bit per state), or -1. */
static int
highest(const struct sm_peer *peers, size_t npeers, unsigned mask)
{
	int best = -1;
	size_t i;

	for (i = 0; i < npeers; i++) {
		if (peers[i].state > SM_STATE_MASTER || !(mask & (1u << peers[i].state)))
			continue;
		if (best < 0 || sm_elect_beats(peers[i].priority, peers[i].guid,
		    peers[best].priority, peers[best].guid))
			best = (int)i;
	}
	return best;
}

/* The highest peer of `mask` if it beats us, else -1. */
static int
higher_than_us(uint8_t pri, uint64_t guid, const struct sm_peer *peers, size_t npeers,
    unsigned mask)
{
	int i = highest(peers, npeers, mask);

	if (i >= 0 && !sm_elect_beats(peers[i].priority, peers[i].guid, pri, guid))
		i = -1;
	return i;
}

#define BIT(s) (1u << (s))

static struct sm_decision
decide(enum sm_verdict v, int peer, bool recheck)
{
	struct sm_decision d = { .verdict = v, .peer = peer, .recheck = recheck };

	return d;
}

/*
 * A MASTER hands over only to a higher SM that has settled (STANDBY, or a
 * second MASTER): one still DISCOVERING may already have seen us as MASTER
 * and be about to go STANDBY itself, and a handover to it then leaves both
 * SMs STANDBY until one of them times out.  It reports in (trap 144, or
 * our next look) once it is STANDBY.
 */
static struct sm_decision
as_master(uint8_t pri, uint64_t guid, const struct sm_peer *peers, size_t npeers)
{
	int i;

	i = higher_than_us(pri, guid, peers, npeers, BIT(SM_STATE_STANDBY) | BIT(SM_STATE_MASTER));
	if (i >= 0)
		return decide(SM_VERDICT_HANDOVER, i, false);
	if ((i = highest(peers, npeers, BIT(SM_STATE_MASTER))) >= 0)
		return decide(SM_VERDICT_WAIT, i, false);
	return decide(SM_VERDICT_MASTER, -1,
	    higher_than_us(pri, guid, peers, npeers, BIT(SM_STATE_DISCOVERING)) >= 0);
}

struct sm_decision
sm_elect_after_discovery(uint8_t own_state, uint8_t pri, uint64_t guid,
    const struct sm_peer *peers, size_t npeers, bool handover_received)
{
	int i;

	if (own_state == SM_STATE_MASTER)
		return as_master(pri, guid, peers, npeers);
	if (handover_received)		/* the master made us master */
		return as_master(pri, guid, peers, npeers);
	/* Any MASTER wins over an SM that has just started, whatever the
	 * priorities: the running subnet is not disturbed; the master hands
	 * over to us later if we are the higher. */
	if ((i = highest(peers, npeers, BIT(SM_STATE_MASTER))) >= 0)
		return decide(SM_VERDICT_STANDBY, i, false);
	i = higher_than_us(pri, guid, peers, npeers,
	    BIT(SM_STATE_DISCOVERING) | BIT(SM_STATE_STANDBY));
	if (i >= 0)
		return decide(SM_VERDICT_STANDBY, i, false);
	return decide(SM_VERDICT_MASTER, -1, false);
}

struct sm_decision
sm_elect_with_lease(struct sm_decision d, bool lease_held)
{
	if (d.verdict != SM_VERDICT_HANDOVER && d.verdict != SM_VERDICT_WAIT)
		return d;
	if (lease_held)
		return decide(SM_VERDICT_MASTER, d.peer, d.recheck);
	return decide(SM_VERDICT_STANDBY, d.peer, d.recheck);
}

bool
sm_elect_poll_alive(uint8_t pri, uint64_t guid, uint64_t polled_guid,
    const struct sm_peer *answer)
{
	if (answer == NULL || answer->guid != polled_guid)
		return false;
	if (answer->state == SM_STATE_MASTER)
		return true;
	return (answer->state == SM_STATE_STANDBY || answer->state == SM_STATE_DISCOVERING) &&
	    sm_elect_beats(answer->priority, answer->guid, pri, guid);
}

static bool
set_legal(uint32_t mod, uint8_t sender_state)
{
	switch (mod) {
	case SM_MOD_ACKNOWLEDGE:
		return sender_state == SM_STATE_STANDBY;
	case SM_MOD_HANDOVER:
	case SM_MOD_DISABLE:
	case SM_MOD_STANDBY:
	case SM_MOD_DISCOVER:
		return sender_state == SM_STATE_MASTER;
	default:
		return false;
	}
}

enum sm_set_action
sm_elect_on_set(uint8_t own_state, uint32_t mod, uint8_t sender_state)
{
	if (!set_legal(mod, sender_state))
		return SM_SET_REJECT;
	switch (own_state) {
	case SM_STATE_DISCOVERING:
		return mod == SM_MOD_HANDOVER ? SM_SET_SWEEP : SM_SET_REJECT;
	case SM_STATE_STANDBY:
		switch (mod) {
		case SM_MOD_HANDOVER:	return SM_SET_TAKE_OVER;
		case SM_MOD_DISCOVER:	return SM_SET_DISCOVER;
		case SM_MOD_DISABLE:	return SM_SET_NOTACTIVE;
		case SM_MOD_ACKNOWLEDGE:	return SM_SET_IGNORE;
		default:		return SM_SET_REJECT;
		}
	case SM_STATE_NOTACTIVE:
		return mod == SM_MOD_STANDBY ? SM_SET_STANDBY : SM_SET_REJECT;
	case SM_STATE_MASTER:
		/* Another master hands over to us: look at the subnet again. */
		return mod == SM_MOD_HANDOVER ? SM_SET_SWEEP : SM_SET_REJECT;
	default:
		return SM_SET_REJECT;
	}
}
