/*
 * The pre-flight's route walk a slice at a time (pf_routes_begin, _step,
 * _end in validation/preflight_checks.c), on the hand-built model of
 * tests/unit/fabric_route_fixture.h.  Cut as fine as it goes (a deadline
 * already past: one clock check's worth of pairs a step), it walks the
 * same pairs, finds the same faults and the same route ports as in one
 * step, in as many steps as its pairs need: up to PAIRS_EXHAUSTIVE_MAX
 * hosts every ordered pair, above a star and a ring.  A run that holds
 * pointers into a model over several turns compares the model's serial:
 * a model freed and one made after it differ even at the same address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "validation/preflight_checks.h"
#include "tests/unit/fabric_route_fixture.h"

struct walk_out {
	char		 detail[400];
	char		*faults;	/* the faults' JSON, keys sorted */
	struct route_ports rp;
	size_t		 steps;
};

static void
walk(struct rfix *x, size_t n, bool sliced, struct walk_out *o)
{
	const struct fabric_port *ends[3] = { &x->h1->ports[1], &x->h2->ports[1],
	    &x->h3->ports[2] };
	struct host_view *hv = calloc(n, sizeof(*hv));
	char (*names)[32] = calloc(n, sizeof(*names));
	struct route_walk *w;
	struct check c;

	assert_non_null(hv);
	assert_non_null(names);
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "host%zu", i);
		hv[i].host = names[i];
		hv[i].first_active = ends[i % 3];
	}
	memset(o, 0, sizeof(*o));
	pf_check_init(&c, "routes");
	w = pf_routes_begin(&c, NULL, hv, n, &o->rp);
	for (o->steps = 1; !pf_routes_step(w, sliced ? 0 : INT64_MAX); o->steps++)
		assert_true(o->steps < 100000);
	pf_routes_end(w);
	pf_check_done(&c);
	snprintf(o->detail, sizeof(o->detail), "%s", c.detail);
	o->faults = json_dumps(c.faults, JSON_SORT_KEYS);
	json_decref(c.faults);
	free(hv);
	free(names);
}

static void
walk_out_free(struct walk_out *o)
{
	free(o->faults);
	free(o->rp.t);
}

/* The walk of n hosts in one step and in the finest slices: the same. */
static void
same_cut_or_not(struct rfix *x, size_t n, const char *detail, size_t sliced_steps)
{
	struct walk_out whole, cut;

	walk(x, n, false, &whole);
	walk(x, n, true, &cut);
	assert_int_equal(whole.steps, 1);
	assert_int_equal(cut.steps, sliced_steps);
	assert_string_equal(whole.detail, detail);
	assert_string_equal(cut.detail, detail);
	assert_string_equal(cut.faults, whole.faults);
	assert_int_equal(cut.rp.n, whole.rp.n);
	assert_true(whole.rp.n > 0);
	for (size_t i = 0; i < whole.rp.n; i++) {	/* field by field: the padding is junk */
		assert_int_equal(cut.rp.t[i].node_guid, whole.rp.t[i].node_guid);
		assert_int_equal(cut.rp.t[i].port, whole.rp.t[i].port);
		assert_int_equal(cut.rp.t[i].in, whole.rp.t[i].in);
	}
	/* h1 -> h3 leaves sw1 by its degraded port 8 */
	assert_non_null(strstr(whole.faults, "RouteLinkDegraded"));
	walk_out_free(&whole);
	walk_out_free(&cut);
}

static void
test_three_hosts_every_pair(void **state)
{
	/* 9 ordered pairs less the 3 of a host with itself; one step */
	same_cut_or_not(*state, 3, "6 routes walked over the programmed LFTs", 1);
}

static void
test_many_hosts_every_pair(void **state)
{
	/* 32 x 32 positions, 32 a step, and the step that finds the end */
	same_cut_or_not(*state, PAIRS_EXHAUSTIVE_MAX,
	    "992 routes walked over the programmed LFTs", 33);
}

static void
test_more_hosts_a_star_and_a_ring(void **state)
{
	/* 40 hosts: (0, j) 39, (i, 0) 39, (i, i + 1) 38; 117 positions (the
	 * ring's last has no i + 1) in steps of 32 */
	same_cut_or_not(*state, 40, "116 routes walked over the programmed LFTs", 4);
}

static void
test_no_hosts(void **state)
{
	struct walk_out o;

	walk(*state, 0, true, &o);
	assert_int_equal(o.steps, 1);
	/* nothing to walk is no pass (issue 42): skipped, saying why */
	assert_string_equal(o.detail, "skipped: no route between two hosts in the fabric to walk");
	assert_int_equal(o.rp.n, 0);
	walk_out_free(&o);
}

static void
test_a_new_model_has_a_new_serial(void **state)
{
	struct fabric *a = fabric_new(), *b;
	uint64_t sa = fabric_serial(a);

	(void)state;
	fabric_free(a);
	b = fabric_new();	/* often at a's address */
	assert_true(fabric_serial(b) != sa);
	assert_true(fabric_serial(b) != 0 && sa != 0);
	fabric_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_three_hosts_every_pair, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_many_hosts_every_pair, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_more_hosts_a_star_and_a_ring, rfix_setup,
		    rfix_teardown),
		cmocka_unit_test_setup_teardown(test_no_hosts, rfix_setup, rfix_teardown),
		cmocka_unit_test(test_a_new_model_has_a_new_serial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
