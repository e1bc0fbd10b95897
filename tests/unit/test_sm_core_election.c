/*
 * SM election (sm/core/election.h): who beats whom (priority, then the lower
 * GUID), what a DISCOVERING or MASTER SM decides after a discovery, when
 * a polled master counts as alive, and which SubnSet(SMInfo) modifiers are
 * legal in which state.  Expected outcomes are the IBA's rules as OpenSM
 * applies them, written out by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sm/core/election.h"

#define US_GUID	0x0002c90300000100ULL
#define US_PRI	8

static struct sm_peer
peer(uint64_t guid, uint8_t pri, uint8_t state)
{
	struct sm_peer p = { .guid = guid, .priority = pri, .state = state };

	return p;
}

static void
test_beats(void **state)
{
	assert_true(sm_elect_beats(9, 0xFFFF, 8, 0x1));		/* priority first */
	assert_false(sm_elect_beats(8, 0x1, 9, 0xFFFF));
	assert_true(sm_elect_beats(8, 0x1, 8, 0x2));		/* then the lower GUID */
	assert_false(sm_elect_beats(8, 0x2, 8, 0x1));
	assert_false(sm_elect_beats(8, 0x5, 8, 0x5));		/* nobody beats itself */
	assert_true(sm_elect_beats(15, 0, 0, 0));
	assert_true(sm_elect_key_ok(1, 1));			/* SM_Key */
	assert_false(sm_elect_key_ok(1, 0));
	assert_false(sm_elect_key_ok(1, 2));
	assert_true(sm_elect_key_ok(0, 7));			/* we have none */
	assert_string_equal(sm_state_name(SM_STATE_MASTER), "master");
	assert_string_equal(sm_state_name(SM_STATE_STANDBY), "standby");
	assert_string_equal(sm_state_name(SM_STATE_DISCOVERING), "discovering");
	assert_string_equal(sm_state_name(SM_STATE_NOTACTIVE), "notactive");
	assert_string_equal(sm_state_name(9), "?");
}

static void
test_discovering(void **state)
{
	struct sm_peer p[4];
	struct sm_decision d;

	/* alone, or only lower/inactive SMs: master */
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, NULL, 0, false);
	assert_int_equal(d.verdict, SM_VERDICT_MASTER);
	assert_int_equal(d.peer, -1);
	p[0] = peer(0x10, 3, SM_STATE_STANDBY);
	p[1] = peer(0x11, 15, SM_STATE_NOTACTIVE);
	p[2] = peer(US_GUID + 1, US_PRI, SM_STATE_DISCOVERING);	/* same priority, higher GUID */
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, p, 3, false);
	assert_int_equal(d.verdict, SM_VERDICT_MASTER);

	/* a master, even a lower one, wins over an SM that just started */
	p[3] = peer(0x20, 1, SM_STATE_MASTER);
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, p, 4, false);
	assert_int_equal(d.verdict, SM_VERDICT_STANDBY);
	assert_int_equal(d.peer, 3);

	/* ... unless that master has just handed over to us */
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, p, 4, true);
	assert_int_equal(d.verdict, SM_VERDICT_WAIT);	/* it still says master: wait for it */
	p[3].state = SM_STATE_STANDBY;
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, p, 4, true);
	assert_int_equal(d.verdict, SM_VERDICT_MASTER);

	/* a higher standby or discovering SM: we follow it */
	p[0] = peer(0x30, US_PRI, SM_STATE_STANDBY);	/* same priority, lower GUID */
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, p, 1, false);
	assert_int_equal(d.verdict, SM_VERDICT_STANDBY);
	assert_int_equal(d.peer, 0);
	p[1] = peer(0x40, 12, SM_STATE_DISCOVERING);	/* the highest of two */
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, p, 2, false);
	assert_int_equal(d.verdict, SM_VERDICT_STANDBY);
	assert_int_equal(d.peer, 1);
}

static void
test_master(void **state)
{
	struct sm_peer p[3];
	struct sm_decision d;

	/* a lower standby changes nothing */
	p[0] = peer(0x10, 2, SM_STATE_STANDBY);
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, p, 1, false);
	assert_int_equal(d.verdict, SM_VERDICT_MASTER);
	assert_false(d.recheck);

	/* a higher standby gets the subnet */
	p[1] = peer(0x11, 14, SM_STATE_STANDBY);
	p[2] = peer(0x12, 15, SM_STATE_STANDBY);
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, p, 3, false);
	assert_int_equal(d.verdict, SM_VERDICT_HANDOVER);
	assert_int_equal(d.peer, 2);

	/* a higher SM still discovering: not yet, look again */
	p[2].state = SM_STATE_DISCOVERING;
	p[1].state = SM_STATE_NOTACTIVE;
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, p, 3, false);
	assert_int_equal(d.verdict, SM_VERDICT_MASTER);
	assert_true(d.recheck);

	/* two masters: the lower one waits for ... */
	p[0] = peer(0x10, 2, SM_STATE_MASTER);
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, p, 1, false);
	assert_int_equal(d.verdict, SM_VERDICT_WAIT);
	assert_int_equal(d.peer, 0);
	/* ... the higher one's handover */
	p[0].priority = 9;
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, p, 1, false);
	assert_int_equal(d.verdict, SM_VERDICT_HANDOVER);
	assert_int_equal(d.peer, 0);
}

static void
test_poll(void **state)
{
	struct sm_peer a = peer(0x50, 3, SM_STATE_MASTER);

	assert_false(sm_elect_poll_alive(US_PRI, US_GUID, 0x50, NULL));	/* no answer */
	assert_true(sm_elect_poll_alive(US_PRI, US_GUID, 0x50, &a));	/* a master, even lower */
	assert_false(sm_elect_poll_alive(US_PRI, US_GUID, 0x51, &a));	/* another port answered */
	a.state = SM_STATE_STANDBY;					/* a lower one gave up */
	assert_false(sm_elect_poll_alive(US_PRI, US_GUID, 0x50, &a));
	a.priority = 12;						/* a higher one taking over */
	assert_true(sm_elect_poll_alive(US_PRI, US_GUID, 0x50, &a));
	a.state = SM_STATE_DISCOVERING;
	assert_true(sm_elect_poll_alive(US_PRI, US_GUID, 0x50, &a));
	a.state = SM_STATE_NOTACTIVE;
	assert_false(sm_elect_poll_alive(US_PRI, US_GUID, 0x50, &a));
}

static void
test_set(void **state)
{
	/* only a master may hand over, disable, demote, rediscover */
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, SM_MOD_HANDOVER, SM_STATE_STANDBY),
	    SM_SET_REJECT);
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, SM_MOD_HANDOVER, SM_STATE_MASTER),
	    SM_SET_TAKE_OVER);
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, SM_MOD_DISCOVER, SM_STATE_MASTER),
	    SM_SET_DISCOVER);
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, SM_MOD_DISABLE, SM_STATE_MASTER),
	    SM_SET_NOTACTIVE);
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, SM_MOD_STANDBY, SM_STATE_MASTER),
	    SM_SET_REJECT);
	/* only a standby acknowledges */
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, SM_MOD_ACKNOWLEDGE, SM_STATE_STANDBY),
	    SM_SET_IGNORE);
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, SM_MOD_ACKNOWLEDGE, SM_STATE_MASTER),
	    SM_SET_REJECT);
	/* notactive wakes only to STANDBY */
	assert_int_equal(sm_elect_on_set(SM_STATE_NOTACTIVE, SM_MOD_STANDBY, SM_STATE_MASTER),
	    SM_SET_STANDBY);
	assert_int_equal(sm_elect_on_set(SM_STATE_NOTACTIVE, SM_MOD_HANDOVER, SM_STATE_MASTER),
	    SM_SET_REJECT);
	/* discovering and master: a handover means "sweep again" */
	assert_int_equal(sm_elect_on_set(SM_STATE_DISCOVERING, SM_MOD_HANDOVER, SM_STATE_MASTER),
	    SM_SET_SWEEP);
	assert_int_equal(sm_elect_on_set(SM_STATE_DISCOVERING, SM_MOD_DISABLE, SM_STATE_MASTER),
	    SM_SET_REJECT);
	assert_int_equal(sm_elect_on_set(SM_STATE_MASTER, SM_MOD_HANDOVER, SM_STATE_MASTER),
	    SM_SET_SWEEP);
	assert_int_equal(sm_elect_on_set(SM_STATE_MASTER, SM_MOD_DISCOVER, SM_STATE_MASTER),
	    SM_SET_REJECT);
	/* unknown modifiers */
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, 0, SM_STATE_MASTER), SM_SET_REJECT);
	assert_int_equal(sm_elect_on_set(SM_STATE_STANDBY, 6, SM_STATE_MASTER), SM_SET_REJECT);
}

/*
 * With ha (issue 38): a master that holds the writer lease keeps the
 * subnet beside a higher SM and beside a second master; one without it
 * follows the SM the election named and sends no SMInfo Set.  The stalled
 * master's case: A (15) wakes MASTER beside B (5) MASTER.
 */
static void
test_with_lease(void **state)
{
	struct sm_peer higher_standby[] = { peer(US_GUID + 1, US_PRI + 1, SM_STATE_STANDBY) };
	struct sm_peer lower_master[] = { peer(US_GUID + 1, US_PRI - 1, SM_STATE_MASTER) };
	struct sm_peer higher_master[] = { peer(US_GUID + 1, US_PRI + 1, SM_STATE_MASTER) };
	struct sm_decision d, l;

	/* a higher standby: IBA hands over; the lease holder stays */
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, higher_standby, 1, false);
	assert_int_equal(d.verdict, SM_VERDICT_HANDOVER);
	l = sm_elect_with_lease(d, true);
	assert_int_equal(l.verdict, SM_VERDICT_MASTER);
	l = sm_elect_with_lease(d, false);	/* no lease: follow it, no Set */
	assert_int_equal(l.verdict, SM_VERDICT_STANDBY);
	assert_int_equal(l.peer, 0);

	/* a second, lower master (the stalled one, or B seen by A): IBA waits */
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, lower_master, 1, false);
	assert_int_equal(d.verdict, SM_VERDICT_WAIT);
	assert_int_equal(sm_elect_with_lease(d, true).verdict, SM_VERDICT_MASTER);
	l = sm_elect_with_lease(d, false);
	assert_int_equal(l.verdict, SM_VERDICT_STANDBY);
	assert_int_equal(l.peer, 0);

	/* a higher master beside a lease holder: IBA hands over to it */
	d = sm_elect_after_discovery(SM_STATE_MASTER, US_PRI, US_GUID, higher_master, 1, false);
	assert_int_equal(d.verdict, SM_VERDICT_HANDOVER);
	assert_int_equal(sm_elect_with_lease(d, true).verdict, SM_VERDICT_MASTER);
	assert_int_equal(sm_elect_with_lease(d, false).verdict, SM_VERDICT_STANDBY);

	/* MASTER and STANDBY verdicts stand, lease or not */
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, higher_master, 1,
	    false);
	assert_int_equal(d.verdict, SM_VERDICT_STANDBY);
	assert_int_equal(sm_elect_with_lease(d, true).verdict, SM_VERDICT_STANDBY);
	d = sm_elect_after_discovery(SM_STATE_DISCOVERING, US_PRI, US_GUID, NULL, 0, false);
	assert_int_equal(d.verdict, SM_VERDICT_MASTER);
	assert_int_equal(sm_elect_with_lease(d, false).verdict, SM_VERDICT_MASTER);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beats),
		cmocka_unit_test(test_discovering),
		cmocka_unit_test(test_master),
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_with_lease),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
