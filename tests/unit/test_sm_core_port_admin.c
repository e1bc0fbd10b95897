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

static void
spec_forms(void **state)
{
	struct rfix *x = *state;
	struct fabric_node *n;
	int port;

	assert_int_equal(fabric_port_spec(x->f, "sw1:7", &n, &port), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->sw1);
	assert_int_equal(port, 7);
	/* by LID (sw2 is 11) and by node GUID */
	assert_int_equal(fabric_port_spec(x->f, "11:8", &n, &port), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->sw2);
	assert_int_equal(port, 8);
	assert_int_equal(fabric_port_spec(x->f, "0x200:1", &n, &port), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->sw1);
	/* port 0 parses: the handlers refuse it themselves */
	assert_int_equal(fabric_port_spec(x->f, "sw1:0", &n, &port), FABRIC_SPEC_OK);
	assert_int_equal(port, 0);
	assert_int_equal(fabric_port_spec(x->f, "h1:1", &n, &port), FABRIC_SPEC_OK);
	assert_ptr_equal(n, x->h1);
}

static void
spec_errors(void **state)
{
	struct rfix *x = *state;
	struct fabric_node *n;
	int port;

	assert_int_equal(fabric_port_spec(x->f, "nosuch:1", &n, &port), FABRIC_SPEC_NO_NODE);
	assert_null(n);
	assert_int_equal(fabric_port_spec(x->f, "sw1:9", &n, &port), FABRIC_SPEC_RANGE);
	assert_ptr_equal(n, x->sw1);
	assert_int_equal(port, 9);
	assert_int_equal(fabric_port_spec(x->f, "h1:2", &n, &port), FABRIC_SPEC_RANGE);
	/* a node without a port, a port that is not a number, one above 255 */
	assert_int_equal(fabric_port_spec(x->f, "sw1", &n, &port), FABRIC_SPEC_NO_PORT);
	assert_ptr_equal(n, x->sw1);
	assert_int_equal(port, -1);
	assert_int_equal(fabric_port_spec(x->f, "sw1:", &n, &port), FABRIC_SPEC_NO_NODE);
	assert_int_equal(fabric_port_spec(x->f, "sw1:x", &n, &port), FABRIC_SPEC_NO_NODE);
	assert_int_equal(fabric_port_spec(x->f, "sw1:256", &n, &port), FABRIC_SPEC_RANGE);
	assert_int_equal(fabric_port_spec(x->f, "sw1:99999999999999999999", &n, &port),
	    FABRIC_SPEC_RANGE);
	assert_int_equal(fabric_port_spec(x->f, "sw1:+1", &n, &port), FABRIC_SPEC_NO_NODE);
	assert_int_equal(fabric_port_spec(x->f, "sw1:-1", &n, &port), FABRIC_SPEC_NO_NODE);
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
	assert_int_equal(pds_load(&s, st), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(pds_store_add(st, &e), 0);
	e.port = 1;
	assert_int_equal(pds_store_add(st, &e), 0);
	assert_int_equal(pds_store_add(st, &e), 0);		/* again: one row */
	store_close(st);

	/* a restart: a new store over the same file */
	assert_int_equal(store_open(dir, &st), 0);
	assert_int_equal(pds_load(&back, st), 0);
	assert_int_equal(back.n, 2);
	assert_non_null(pds_get(&back, 0xfffe000000000001ull, 36));
	assert_string_equal(pds_get(&back, 0xfffe000000000001ull, 1)->desc, "leaf \"7\"; 'x'");
	assert_int_equal(pds_get(&back, 0xfffe000000000001ull, 1)->set_ms, 1234);
	assert_int_equal(pds_store_remove(st, 0xfffe000000000001ull, 36), 0);
	assert_int_equal(pds_store_remove(st, 0xfffe000000000001ull, 36), 0);	/* no row: fine */
	pds_free(&back);
	assert_int_equal(pds_load(&back, st), 0);
	assert_int_equal(back.n, 1);
	assert_null(pds_get(&back, 0xfffe000000000001ull, 36));
	/* the schema refuses port 0 and 255 */
	e.port = 0;
	assert_int_not_equal(pds_store_add(st, &e), 0);
	e.port = 255;
	assert_int_not_equal(pds_store_add(st, &e), 0);
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
		cmocka_unit_test_setup_teardown(spec_errors, rfix_setup, rfix_teardown),
		cmocka_unit_test(set_in_memory),
		cmocka_unit_test(set_in_store),
	};

	log_init("test", LOG_LVL_ERROR);
	if (mkdtemp(dir) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, teardown);
}
