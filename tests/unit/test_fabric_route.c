/*
 * `route SRC DST` (fabric/route_query.c) on a hand-built model whose tables
 * were set by hand (tests/unit/fabric_route_fixture.h): the hops the reply
 * lists are the ones the fixture's tables spell out, ends are named every
 * way the command accepts, broken tables give the status that names the
 * fault, and the programmed-table lookup never reads what the model does
 * not hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/route_query.h"
#include "tests/unit/fabric_route_fixture.h"

static const char *
jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	assert_non_null(s);
	return s;
}

static long long
jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static json_t *
query_ok(struct rfix *x, const char *src, const char *dst)
{
	enum proto_error code = PERR_NONE;
	char err[128] = "";
	json_t *r = route_query(x->f, src, dst, &code, err, sizeof(err));

	if (r == NULL)
		fail_msg("route %s %s: %s", src, dst, err);
	return r;
}

/* hop i is node NAME, entered by IN and left by OUT (-1: null). */
static void
assert_hop(json_t *r, size_t i, const char *name, int in, int out)
{
	json_t *h = json_array_get(json_object_get(r, "hops"), i);

	assert_non_null(h);
	assert_string_equal(jstr(h, "node"), name);
	assert_int_equal(jint(h, "in_port"), in);
	if (out < 0)
		assert_true(json_is_null(json_object_get(h, "out_port")));
	else
		assert_int_equal(jint(h, "out_port"), out);
}

static void
test_route_by_name(void **state)
{
	json_t *r = query_ok(*state, "h1", "h2");

	assert_string_equal(jstr(r, "status"), "ok");
	assert_int_equal(jint(r, "exit_code"), 0);
	assert_int_equal(json_array_size(json_object_get(r, "hops")), 4);
	assert_hop(r, 0, "h1", 0, 1);
	assert_hop(r, 1, "sw1", 1, 7);
	assert_hop(r, 2, "sw2", 7, 1);
	assert_hop(r, 3, "h2", 1, 0);
	assert_string_equal(jstr(json_object_get(r, "src"), "port_guid"), "0x0000000000000101");
	assert_int_equal(jint(json_object_get(r, "dst"), "lid"), 2);
	assert_int_equal(jint(json_array_get(json_object_get(r, "hops"), 1), "lid"), 10);
	assert_string_equal(jstr(json_array_get(json_object_get(r, "hops"), 2), "type"), "switch");
	json_decref(r);
}

/* h3 by LID, node GUID and port GUID: its cabled port 2 each time, and
 * sw1 sends LID 3 over the other (degraded) uplink. */
static void
test_route_by_lid_and_guid(void **state)
{
	const char *names[] = { "3", "0x120", "0x122" };

	for (size_t i = 0; i < 3; i++) {
		json_t *r = query_ok(*state, "0x101", names[i]);

		assert_string_equal(jstr(r, "status"), "ok");
		assert_hop(r, 1, "sw1", 1, 8);
		assert_hop(r, 2, "sw2", 8, 3);
		assert_hop(r, 3, "h3", 2, 0);
		assert_int_equal(jint(json_object_get(r, "dst"), "port"), 2);
		assert_int_equal(jint(json_object_get(r, "dst"), "lid"), 3);
		json_decref(r);
	}
}

/* A switch as either end answers on port 0: by name, by LID. */
static void
test_route_switch_ends(void **state)
{
	json_t *r = query_ok(*state, "h2", "sw1");

	assert_string_equal(jstr(r, "status"), "ok");
	assert_int_equal(json_array_size(json_object_get(r, "hops")), 3);
	assert_hop(r, 2, "sw1", 7, 0);
	assert_int_equal(jint(json_object_get(r, "dst"), "port"), 0);
	json_decref(r);
	r = query_ok(*state, "11", "h1");
	assert_string_equal(jstr(r, "status"), "ok");
	assert_hop(r, 0, "sw2", 0, 7);
	assert_hop(r, 2, "h1", 1, 0);
	json_decref(r);
}

static void
test_route_broken_tables(void **state)
{
	struct rfix *x = *state;
	json_t *r;

	x->sw2->lft[2] = ROUTING_NO_PORT;
	r = query_ok(x, "h1", "h2");
	assert_string_equal(jstr(r, "status"), "no_entry");
	assert_int_equal(jint(r, "exit_code"), 1);
	assert_int_equal(json_array_size(json_object_get(r, "hops")), 3);
	assert_hop(r, 2, "sw2", 7, -1);
	json_decref(r);

	x->sw2->lft[2] = 8;	/* back to sw1, which sends it to sw2 again */
	r = query_ok(x, "h1", "h2");
	assert_string_equal(jstr(r, "status"), "loop");
	assert_int_equal(jint(r, "exit_code"), 1);
	json_decref(r);

	x->sw2->lft[2] = 5;	/* an uncabled port */
	r = query_ok(x, "h1", "h2");
	assert_string_equal(jstr(r, "status"), "bad_port");
	assert_hop(r, 2, "sw2", 7, 5);
	json_decref(r);

	x->sw2->lft[2] = 3;	/* to h3, which does not hold LID 2 */
	r = query_ok(x, "h1", "h2");
	assert_string_equal(jstr(r, "status"), "dead_end");
	assert_hop(r, 3, "h3", 2, 0);
	json_decref(r);
}

/* Entries beyond what is held are no entry: above LinearFDBTop, beyond
 * the entries allocated (whatever sits in memory after them), or in a
 * table the model does not mirror. */
static void
test_lookup_bounds(void **state)
{
	struct rfix *x = *state;
	struct fabric_node *sw1 = x->sw1;
	json_t *r;

	fabric_set_lid(x->f, &x->h2->ports[1], 100);
	x->sw2->lft_top = 100;
	fabric_lft_reserve(x->sw2, 128);
	x->sw2->lft[100] = 1;
	/* sw1 holds 64 entries; memory past them says "port 7" */
	sw1->lft = realloc(sw1->lft, 128);
	memset(sw1->lft + 64, 7, 64);
	sw1->lft_top = 100;
	r = query_ok(x, "h1", "h2");
	assert_string_equal(jstr(r, "status"), "no_entry");
	assert_hop(r, 1, "sw1", 1, -1);
	json_decref(r);

	sw1->lft_len = 128;	/* now held: the walk arrives */
	r = query_ok(x, "h1", "h2");
	assert_string_equal(jstr(r, "status"), "ok");
	json_decref(r);

	sw1->lft_top = 99;	/* above LinearFDBTop */
	assert_int_equal(routing_lookup_programmed(sw1, 100, NULL), ROUTING_NO_PORT);
	sw1->lft_top = 100;
	sw1->lft_known = false;
	assert_int_equal(routing_lookup_programmed(sw1, 100, NULL), ROUTING_NO_PORT);
	assert_int_equal(routing_lookup_programmed(sw1, 1, NULL), ROUTING_NO_PORT);
	sw1->lft_known = true;
	assert_int_equal(routing_lookup_programmed(sw1, 1, NULL), 1);
}

static void
test_unknown_ends(void **state)
{
	struct rfix *x = *state;
	enum proto_error code = PERR_NONE;
	char err[128] = "";

	assert_null(route_query(x->f, "nosuch", "h2", &code, err, sizeof(err)));
	assert_int_equal(code, PERR_NOT_FOUND);
	assert_memory_equal(err, "src:", 4);
	code = PERR_NONE;
	assert_null(route_query(x->f, "h1", "0x999", &code, err, sizeof(err)));
	assert_int_equal(code, PERR_NOT_FOUND);
	assert_memory_equal(err, "dst:", 4);
	/* h3's port 1 exists but has no LID: not a destination */
	assert_null(route_query(x->f, "h1", "0x121", &code, err, sizeof(err)));
	assert_memory_equal(err, "dst:", 4);
	assert_null(route_query(x->f, "h1", "-1", &code, err, sizeof(err)));
	assert_null(route_query(x->f, "h1", "", &code, err, sizeof(err)));
}

static void
test_endpoint_resolution(void **state)
{
	struct rfix *x = *state;
	const char *why;

	assert_ptr_equal(route_endpoint(x->f, "h3", &why), &x->h3->ports[2]);
	assert_ptr_equal(route_endpoint(x->f, "0x120", &why), &x->h3->ports[2]);
	assert_ptr_equal(route_endpoint(x->f, "0x121", &why), &x->h3->ports[1]);
	assert_ptr_equal(route_endpoint(x->f, "0x300", &why), &x->sw2->ports[0]);
	assert_ptr_equal(route_endpoint(x->f, "10", &why), &x->sw1->ports[0]);
	assert_ptr_equal(route_endpoint(x->f, "0x2", &why), &x->h2->ports[1]);
	/* a CA with no cabled port with a LID cannot stand for a path end */
	x->h3->ports[2].peer->peer = NULL;
	x->h3->ports[2].peer = NULL;
	assert_null(route_endpoint(x->f, "h3", &why));
	assert_non_null(strstr(why, "no cabled port"));
}

/* Descriptions are raw bytes: what is not UTF-8 still makes a reply. */
static void
test_non_utf8_description(void **state)
{
	struct rfix *x = *state;
	json_t *r;

	snprintf(x->h2->desc, sizeof(x->h2->desc), "h2\xff\xfe");
	r = query_ok(x, "h1", "2");
	assert_string_equal(jstr(json_object_get(r, "dst"), "name"), "h2??");
	json_decref(r);
}

/* Health's excluded ports: the engine routes around them for one call, and
 * the model keeps its cables. */
static void
test_excluded_ports(void **state)
{
	struct rfix *x = *state;
	struct routing_params params = { .engine = ROUTING_MINHOP };
	uint64_t g[2] = { 0x200, 0x300 };
	uint8_t pn[2] = { 7, 8 };
	struct fabric_port **cut;
	struct routing_table *t;
	char err[128];
	size_t n;

	routing_exclude_set(g, pn, 1);			/* sw1[7]: its link to sw2 */
	assert_true(routing_excluded(0x200, 7));
	assert_false(routing_excluded(0x300, 7));
	n = routing_exclude_cut(x->f, &cut);
	assert_int_equal(n, 1);
	assert_null(x->sw1->ports[7].peer);
	assert_null(x->sw2->ports[7].peer);		/* both ends */
	t = routing_compute_fabric(x->f, &params, err, sizeof(err));
	routing_exclude_restore(cut, n);
	assert_ptr_equal(x->sw1->ports[7].peer, &x->sw2->ports[7]);
	assert_non_null(t);
	assert_int_equal(routing_lft_of(t, 0x200)->port[2], 8);	/* h2 over the other link */
	assert_int_equal(t->unreachable, 0);
	routing_table_free(t);
	/* Both links: h2 is unreachable from sw1, nothing crashes. */
	routing_exclude_set(g, pn, 2);
	n = routing_exclude_cut(x->f, &cut);
	assert_int_equal(n, 2);
	t = routing_compute_fabric(x->f, &params, err, sizeof(err));
	routing_exclude_restore(cut, n);
	assert_non_null(t);
	assert_int_equal(routing_lft_of(t, 0x200)->port[2], ROUTING_NO_PORT);
	routing_table_free(t);
	routing_exclude_set(NULL, NULL, 0);
	assert_int_equal(routing_exclude_cut(x->f, &cut), 0);
	routing_exclude_restore(cut, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_route_by_name, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_route_by_lid_and_guid, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_route_switch_ends, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_route_broken_tables, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_bounds, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_unknown_ends, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_endpoint_resolution, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_non_utf8_description, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_excluded_ports, rfix_setup, rfix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
