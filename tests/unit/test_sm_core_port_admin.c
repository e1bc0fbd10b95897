/*
 * `port disable|enable|reset-counters` (sm/core/port_admin.c, fabric_port_spec):
 * NODE:PORT resolved by name, LID and GUID with the errors the handlers
 * turn into not_found and invalid_argument; the set of disabled ports in
 * memory and through a restart of the store (a fresh database, migrated).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/log.h"
#include "sm/core/port_admin.h"
#include "fabric_route_fixture.h"

static char dir[] = "/tmp/fabricd-portadmin-XXXXXX";

/* fabric_port_spec on the fixture, into the caller's n, port and why */
#define SPEC(s)	fabric_port_spec(x->f, (s), &n, &port, why, sizeof(why))

static void
spec_forms(void **state)
{
	struct rfix *x = *state;
	struct fabric_node *n;
	char why[256];
	int port;

	assert_int_equal(SPEC("sw1:7"), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->sw1);
	assert_int_equal(port, 7);
	/* by LID (sw2 is 11) and by node GUID */
	assert_int_equal(SPEC("11:8"), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->sw2);
	assert_int_equal(port, 8);
	assert_int_equal(SPEC("0x200:1"), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->sw1);
	/* port 0 parses: the handlers refuse it themselves */
	assert_int_equal(SPEC("sw1:0"), FABRIC_SPEC_OK);
	assert_int_equal(port, 0);
	assert_int_equal(SPEC("h1:1"), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->h1);
}

static void
spec_errors(void **state)
{
	struct rfix *x = *state;
	struct fabric_node *n;
	char why[256];
	int port;

	assert_int_equal(SPEC("nosuch:1"), FABRIC_SPEC_NO_NODE);
	assert_null(n);
	assert_string_equal(why, "no node \"nosuch\" in the fabric (NODE:PORT, NODE a name, GUID "
	    "or LID)");
	assert_int_equal(SPEC("sw1:9"), FABRIC_SPEC_RANGE);
	assert_ptr_equal(n, x->sw1);
	assert_int_equal(port, 9);
	assert_int_equal(SPEC("h1:2"), FABRIC_SPEC_RANGE);
	assert_string_equal(why, "h1 has ports 1-1, not 2");
	/* a node without a port; a node not in the fabric without one */
	assert_int_equal(SPEC("sw1"), FABRIC_SPEC_NO_PORT);
	assert_ptr_equal(n, x->sw1);
	assert_int_equal(port, -1);
	assert_int_equal(SPEC("nosuch"), FABRIC_SPEC_NO_PORT);
	assert_null(n);
	assert_string_equal(why, "\"nosuch\": expected NODE:PORT (NODE a name, GUID or LID, "
	    "PORT a number)");
}

/*
 * What cannot name a port on any fabric is malformed (invalid_argument,
 * exit 2), not a node that is not there (not_found, exit 1): ":1",
 * "sw1:-1" and "::" answered "no node" before (issue 42 point 4).
 */
static void
spec_malformed(void **state)
{
	static const char *const bad[] = { ":1", "::", "sw1:", "sw1:x", "sw1:-1", "sw1:+1",
	    "sw1: 1", "sw1:1x", "sw1:255", "sw1:256", "sw1:99999999999999999999", "nosuch:-1",
	    "nosuch:300", ":" };
	struct rfix *x = *state;
	struct fabric_node *n;
	char why[256];
	int port;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (SPEC(bad[i]) != FABRIC_SPEC_BAD)
			fail_msg("\"%s\" is not FABRIC_SPEC_BAD", bad[i]);
		assert_null(n);
		assert_int_equal(port, -1);
		assert_true(strncmp(why, "\"", 1) == 0 && strstr(why, bad[i]) != NULL);
	}
	/* the real reason, each */
	SPEC(":1");
	assert_string_equal(why, "\":1\": no node before the colon (expected NODE:PORT, NODE a "
	    "name, GUID or LID)");
	SPEC("::");
	assert_string_equal(why, "\"::\": no port number after the colon (expected NODE:PORT, "
	    "PORT a number up to 254)");
	SPEC("sw1:-1");
	assert_string_equal(why, "\"sw1:-1\": port -1 is negative (expected NODE:PORT, PORT a "
	    "number up to 254)");
	SPEC("sw1:x");
	assert_string_equal(why, "\"sw1:x\": \"x\" after the colon is not a port number "
	    "(expected NODE:PORT, PORT a number up to 254)");
	SPEC("sw1:256");
	assert_string_equal(why, "\"sw1:256\": port 256 is out of range (expected NODE:PORT, "
	    "PORT a number up to 254)");
	/* the highest number parses; the node says it has fewer ports */
	assert_int_equal(SPEC("sw1:254"), FABRIC_SPEC_RANGE);
}

/* The syntax alone (fabric_port_arg), with no fabric: where NODE ends,
 * the number, and a description's own colon kept in NODE. */
static void
arg_syntax(void **state)
{
	char why[256];
	size_t nl;
	int port;

	(void)state;
	assert_int_equal(fabric_port_arg("sw-l1:7", &nl, &port, why, sizeof(why)), FABRIC_ARG_OK);
	assert_int_equal(nl, 5);
	assert_int_equal(port, 7);
	assert_int_equal(fabric_port_arg("MF0;sw-l1:MQM8700/U1:36", &nl, &port, why, sizeof(why)),
	    FABRIC_ARG_OK);
	assert_int_equal(nl, strlen("MF0;sw-l1:MQM8700/U1"));
	assert_int_equal(port, 36);
	assert_int_equal(fabric_port_arg("0x0002c903000e0b72:0", &nl, &port, why, sizeof(why)),
	    FABRIC_ARG_OK);
	assert_int_equal(port, 0);
	assert_int_equal(fabric_port_arg("sw-l1:007", &nl, &port, why, sizeof(why)), FABRIC_ARG_OK);
	assert_int_equal(port, 7);
	assert_int_equal(fabric_port_arg("sw-l1", &nl, &port, why, sizeof(why)),
	    FABRIC_ARG_NO_PORT);
	assert_int_equal(nl, 5);
	assert_int_equal(port, -1);
	assert_int_equal(fabric_port_arg("", &nl, &port, why, sizeof(why)), FABRIC_ARG_NO_PORT);
	assert_int_equal(fabric_port_arg("sw-l1:-", &nl, &port, why, sizeof(why)), FABRIC_ARG_BAD);
	assert_int_equal(port, -1);
	assert_int_equal(fabric_port_arg("sw-l1:--1", &nl, &port, why, sizeof(why)),
	    FABRIC_ARG_BAD);
	assert_int_equal(fabric_port_arg("MF0;sw-l1:MQM8700/U1", &nl, &port, why, sizeof(why)),
	    FABRIC_ARG_BAD);
	/* a message longer than the buffer is cut, not overrun */
	assert_int_equal(fabric_port_arg("sw-l1:x", &nl, &port, why, 8), FABRIC_ARG_BAD);
	assert_string_equal(why, "\"sw-l1:");
}

static void
set_in_memory(void **state)
{
	struct port_disabled_set s = { 0 };

	(void)state;
	assert_null(pds_get(&s, 0x200, 7));
	assert_true(pds_add(&s, 0x200, 7, "sw1", 100));
	assert_false(pds_add(&s, 0x200, 7, "sw1 renamed", 200));	/* refreshed, not doubled */
	assert_int_equal(s.n, 1);
	assert_string_equal(pds_get(&s, 0x200, 7)->desc, "sw1 renamed");
	for (unsigned p = 1; p <= 20; p++)		/* grows past its first block */
		assert_true(pds_add(&s, 0x300, (uint8_t)p, "sw2", 300));
	assert_int_equal(s.n, 21);
	assert_null(pds_get(&s, 0x200, 8));
	assert_null(pds_get(&s, 0x201, 7));
	/* found by description or GUID once the node is out of the model */
	assert_ptr_equal(pds_find(&s, "sw2", 5), pds_get(&s, 0x300, 5));
	assert_ptr_equal(pds_find(&s, "0x300", 20), pds_get(&s, 0x300, 20));
	assert_ptr_equal(pds_find(&s, "768", 1), pds_get(&s, 0x300, 1));
	assert_null(pds_find(&s, "sw2", 21));
	assert_null(pds_find(&s, "sw9", 1));
	assert_true(pds_remove(&s, 0x300, 5));
	assert_false(pds_remove(&s, 0x300, 5));
	assert_null(pds_get(&s, 0x300, 5));
	assert_non_null(pds_get(&s, 0x300, 6));
	assert_int_equal(s.n, 20);
	pds_free(&s);
	assert_int_equal(s.n, 0);
}

static void
set_in_store(void **state)
{
	struct port_disabled_set s = { 0 }, back = { 0 };
	struct port_disabled e = { .node_guid = 0xfffe000000000001ull, .port = 36,
		.desc = "leaf \"7\"; 'x'", .set_ms = 1234 };
	struct store *st;

	(void)state;
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(pds_load(&s, st, ""), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(pds_store_add(st, "", &e), 0);
	e.port = 1;
	assert_int_equal(pds_store_add(st, "", &e), 0);
	assert_int_equal(pds_store_add(st, "", &e), 0);		/* again: one row */
	store_close(st);

	/* a restart: a new store over the same file */
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(pds_load(&back, st, ""), 0);
	assert_int_equal(back.n, 2);
	assert_non_null(pds_get(&back, 0xfffe000000000001ull, 36));
	assert_string_equal(pds_get(&back, 0xfffe000000000001ull, 1)->desc, "leaf \"7\"; 'x'");
	assert_int_equal(pds_get(&back, 0xfffe000000000001ull, 1)->set_ms, 1234);
	assert_int_equal(pds_store_remove(st, "", 0xfffe000000000001ull, 36), 0);
	assert_int_equal(pds_store_remove(st, "", 0xfffe000000000001ull, 36), 0);	/* no row: fine */
	pds_free(&back);
	assert_int_equal(pds_load(&back, st, ""), 0);
	assert_int_equal(back.n, 1);
	assert_null(pds_get(&back, 0xfffe000000000001ull, 36));
	/* the schema refuses port 0 and 255 */
	e.port = 0;
	assert_int_not_equal(pds_store_add(st, "", &e), 0);
	e.port = 255;
	assert_int_not_equal(pds_store_add(st, "", &e), 0);
	store_close(st);
	pds_free(&back);
	pds_free(&s);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(spec_forms, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(spec_malformed, rfix_setup, rfix_teardown),
		cmocka_unit_test(arg_syntax),
		cmocka_unit_test_setup_teardown(spec_errors, rfix_setup, rfix_teardown),
		cmocka_unit_test(set_in_memory),
		cmocka_unit_test(set_in_store),
	};

	log_init("test", LOG_LVL_ERROR);
	if (mkdtemp(dir) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, teardown);
}
