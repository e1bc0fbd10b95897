/*
 * The cabling-plan diff (fabric/topology_diff.c) and the hostlist
 * compression behind the Slurm export, on the hand-built fixture
 * (tests/unit/fabric_route_fixture.h): a plan that is the fixture has no
 * difference; a plan whose h2 and h3 sit on each other's sw2 port is one
 * swap; a plan with a cable the fabric lacks is one missing; plan lines
 * neither format reads say FILE:LINE:COLUMN.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/hostlist.h"
#include "fabric/topology_diff.h"
#include "fabric/topology_export.h"
#include "tests/unit/fabric_route_fixture.h"

static const char plan_ok[] =
    "# the fixture, as an operator would write it\n"
    "node,port,node,port\n"
    "h1,1,sw1,1\nsw2,1,h2,1\nh3,2,sw2,3\nsw1,7,sw2,7\nsw1, 8 ,sw2,8\n";

static json_t *
diff_of(struct rfix *x, const char *text)
{
	struct topology_plan plan, live;
	char err[256];
	json_t *res;

	assert_int_equal(topology_plan_parse("plan.csv", text, &plan, err, sizeof(err)), 0);
	topology_plan_of_fabric(x->f, &live);
	res = topology_diff(&plan, &live);
	topology_plan_free(&plan);
	topology_plan_free(&live);
	return res;
}

static void
test_same(void **state)
{
	json_t *r = diff_of(*state, plan_ok);

	assert_int_equal(json_integer_value(json_object_get(r, "matching")), 5);
	assert_int_equal(json_integer_value(json_object_get(r, "exit_code")), 0);
	assert_string_equal(json_string_value(json_object_get(r, "format")), "csv");
	json_decref(r);
}

static void
test_swap_and_missing(void **state)
{
	json_t *r = diff_of(*state, "h1,1,sw1,1\nsw2,1,h3,2\nh2,1,sw2,3\nsw1,7,sw2,7\n"
	    "sw1,8,sw2,8\nsw1,2,sw2,2\n");
	json_t *sw = json_array_get(json_object_get(r, "swapped"), 0), *m;
	char *s;

	assert_int_equal(json_array_size(json_object_get(r, "swapped")), 1);
	assert_int_equal(json_array_size(json_object_get(r, "extra")), 0);
	assert_int_equal(json_array_size(m = json_object_get(r, "missing")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 0), "a")), "sw1:2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 0), "b")), "sw2:2");
	s = json_dumps(sw, JSON_COMPACT);
	assert_string_equal(s, "{\"plan\":[{\"a\":\"h2:1\",\"b\":\"sw2:3\"},{\"a\":\"h3:2\",\"b\":\"sw2:1\"}],"
	    "\"live\":[{\"a\":\"h2:1\",\"b\":\"sw2:1\"},{\"a\":\"h3:2\",\"b\":\"sw2:3\"}]}");
	free(s);
	assert_int_equal(json_integer_value(json_object_get(r, "exit_code")), 1);
	json_decref(r);
}

/* The fixture's own ibnetdiscover export read back as a plan. */
static void
test_ibnetdiscover_plan(void **state)
{
	struct rfix *x = *state;
	char *t = topology_text(x->f, TOPOLOGY_IBNETDISCOVER, 0, NULL);
	json_t *r = diff_of(x, t);

	assert_string_equal(json_string_value(json_object_get(r, "format")), "ibnetdiscover");
	assert_int_equal(json_integer_value(json_object_get(r, "plan_cables")), 5);
	assert_int_equal(json_integer_value(json_object_get(r, "exit_code")), 0);
	json_decref(r);
	free(t);
}

static void
test_bad_lines(void **state)
{
	struct topology_plan p;
	char err[256];

	(void)state;
	assert_int_equal(topology_plan_parse("p.csv", "a,1,b,1\na,1,b\n", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "p.csv:2:1: expected node,port,node,port");
	assert_int_equal(topology_plan_parse("p.csv", "a,1,b,1\na,1,b,300\n", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "p.csv:2:7: port must be a number 1-254, not \"300\"");
	assert_int_equal(topology_plan_parse("p.csv", "# nothing\n", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "p.csv:1:1: no cable in the plan");
	assert_int_equal(topology_plan_parse("p", "Switch 8 \"s\"\n[1 \"x\"\n", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "p:2:1: expected [PORT] \"PEER\"[PORT]");
}

static void
test_hostlist_compress(void **state)
{
	const char *v[] = { "gpu010", "gpu002", "gpu001", "gpu003", "login", "n1", "n10", "gpu001" };
	char *s = hostlist_compress(v, 8);

	(void)state;
	assert_string_equal(s, "gpu[001-003,010],login,n[1,10]");
	free(s);
	s = hostlist_compress(v, 0);
	assert_string_equal(s, "");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_swap_and_missing, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_ibnetdiscover_plan, rfix_setup, rfix_teardown),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_hostlist_compress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
