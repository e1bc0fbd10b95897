/*
 * Paging of `ports` (fabric/port_page.c, and fabricctl's side in
 * cli/paging.c, included to build without the client's other files):
 * cursors round-trip and sort as their keys do, malformed ones are
 * refused; pages walk the model in (node GUID, port) order and cover every
 * kept port exactly once, the last page says so, an empty listing is one
 * empty page, the scan budget bounds a page that keeps nothing, and a
 * model swept again between two pages repeats no row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/paging.c"
#include "fabric/port_page.h"

#define MAXROWS 64

/* Switches 0x20.. with 8 ports, CAs 0x10.. with 2, added out of order and
 * sorted as a sweep sorts its model. */
static struct fabric *
model(unsigned nsw, unsigned nca, uint64_t skip)
{
	struct fabric *f = fabric_new();

	for (unsigned i = nca; i-- > 0;)
		if (0x10 + i != skip)
			fabric_add_node(f, 0x10 + i, FABRIC_CA, 2);
	for (unsigned i = 0; i < nsw; i++)
		if (0x20 + i != skip)
			fabric_add_node(f, 0x20 + i, FABRIC_SWITCH, 8);
	fabric_sort(f);
	return f;
}

static bool
keep_all(const struct fabric_port *p, void *arg)
{
	(void)p;
	(void)arg;
	return true;
}

static bool
keep_none(const struct fabric_port *p, void *arg)
{
	(void)p;
	(void)arg;
	return false;
}

static bool
keep_odd(const struct fabric_port *p, void *arg)
{
	(void)arg;
	return p->num % 2 == 1;
}

static uint64_t
key_value(const struct fabric_port *p)
{
	return p->node->guid << 8 | p->num;
}

/*
 * Every page from the start: the keys in out[] (at most cap), the number
 * of pages in *pages; each page's rows above the cursor it started from
 * and in order.
 */
static size_t
walk(const struct fabric *f, port_keep_fn keep, size_t max, size_t scan_max,
    uint64_t *out, size_t cap, size_t *pages)
{
	const struct fabric_port *rows[MAXROWS];
	struct port_page pg = { .rows = rows, .max = max, .scan_max = scan_max };
	struct port_key after;
	size_t n = 0;
	uint64_t last = 0;
	bool first = true;

	*pages = 0;
	do {
		port_page_fill(f, first ? NULL : &after, keep, NULL, &pg);
		(*pages)++;
		assert_true(pg.n <= max);
		for (size_t i = 0; i < pg.n; i++) {
			assert_true(first && i == 0 ? true : key_value(rows[i]) > last);
			last = key_value(rows[i]);
			assert_true(n < cap);
			out[n++] = last;
		}
		if (pg.more) {
			/* the cursor moves forward, also on a page with no row */
			assert_true(first || ((pg.next.node_guid << 8 | pg.next.port) >
			    (after.node_guid << 8 | after.port)));
			after = pg.next;
		}
		first = false;
		assert_true(*pages < 1000);
	} while (pg.more);
	return n;
}

static void
test_cursor_text(void **state)
{
	struct port_key k = { 0x0002c90300a1b2c3ULL, 7 }, back;
	struct port_key keys[] = { { 0x1, 0 }, { 0x1, 9 }, { 0x1, 10 }, { 0x1, 255 },
	    { 0x2, 1 }, { 0xff, 3 }, { 0x100, 1 }, { UINT64_MAX, 255 } };
	char buf[PORT_CURSOR_LEN], prev[PORT_CURSOR_LEN] = "";

	(void)state;
	port_cursor_format(&k, buf, sizeof(buf));
	assert_string_equal(buf, "0x0002c90300a1b2c3:007");
	assert_int_equal(port_cursor_parse(buf, &back), 0);
	assert_true(back.node_guid == k.node_guid && back.port == k.port);
	/* what a person may type: short GUIDs, upper case, short ports */
	assert_int_equal(port_cursor_parse("0x2C9:12", &back), 0);
	assert_true(back.node_guid == 0x2c9 && back.port == 12);
	/* byte order is key order: fabricctl checks that pages advance by it */
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		port_cursor_format(&keys[i], buf, sizeof(buf));
		assert_true(strcmp(buf, prev) > 0);
		assert_int_equal(strlen(buf), 22);
		snprintf(prev, sizeof(prev), "%s", buf);
	}
}

static void
test_cursor_refused(void **state)
{
	static const char *const bad[] = { "", "zz", "0x", "0x:1", "0x1", "0x1:", "0x1:256",
	    "0x1:1000", "0x1:-1", "0x1:+1", "0x-1:1", "1:1", "0X1:1", " 0x1:1", "0x1:1 ",
	    "0x1:1:1", "0xg:1", "0x12345678901234567:1", "0x0x1:1", "0x1:1a", NULL };
	struct port_key k = { 0x55, 5 };

	(void)state;
	for (size_t i = 0; bad[i]; i++) {
		assert_int_equal(port_cursor_parse(bad[i], &k), -1);
		assert_true(k.node_guid == 0x55 && k.port == 5);	/* untouched */
	}
	assert_int_equal(port_cursor_parse(NULL, &k), -1);
}

/* 10 CAs x 2 + 4 switches x 8 = 52 ports, pages of 5: 11 pages, every
 * port once in key order, CAs (lower GUIDs) first. */
static void
test_pages_cover_once(void **state)
{
	struct fabric *f = model(4, 10, 0);
	uint64_t keys[128];
	size_t pages, n = walk(f, keep_all, 5, 1000, keys, 128, &pages);

	(void)state;
	assert_int_equal(n, 52);
	assert_int_equal(pages, 11);
	assert_true(keys[0] == (0x10ULL << 8 | 1) && keys[1] == (0x10ULL << 8 | 2));
	assert_true(keys[51] == (0x23ULL << 8 | 8));
	for (size_t i = 1; i < n; i++)
		assert_true(keys[i] > keys[i - 1]);
	/* a filter: the odd ports, 26 of them */
	assert_int_equal(walk(f, keep_odd, 4, 1000, keys, 128, &pages), 26);
	assert_int_equal(pages, 7);
	fabric_free(f);
}

/* A listing that fills its last page exactly ends there: no empty page
 * after it; one that fits in a page is one page. */
static void
test_last_page(void **state)
{
	struct fabric *f = model(2, 0, 0);
	uint64_t keys[32];
	size_t pages;

	(void)state;
	assert_int_equal(walk(f, keep_all, 4, 1000, keys, 32, &pages), 16);
	assert_int_equal(pages, 4);
	assert_int_equal(walk(f, keep_all, 16, 1000, keys, 32, &pages), 16);
	assert_int_equal(pages, 1);
	assert_int_equal(walk(f, keep_all, 64, 1000, keys, 32, &pages), 16);
	assert_int_equal(pages, 1);
	fabric_free(f);
}

static void
test_empty(void **state)
{
	struct fabric *f = model(2, 3, 0), *none = fabric_new();
	uint64_t keys[8];
	size_t pages;

	(void)state;
	assert_int_equal(walk(f, keep_none, 4, 1000, keys, 8, &pages), 0);
	assert_int_equal(pages, 1);
	assert_int_equal(walk(none, keep_all, 4, 1000, keys, 8, &pages), 0);
	assert_int_equal(pages, 1);
	fabric_free(f);
	fabric_free(none);
}

/* A filter that keeps nothing looks at scan_max ports a page: pages with
 * no row whose cursor still moves on, until the model ends. */
static void
test_scan_budget(void **state)
{
	struct fabric *f = model(4, 10, 0);
	uint64_t keys[128];
	size_t pages;

	(void)state;
	assert_int_equal(walk(f, keep_none, 5, 8, keys, 128, &pages), 0);
	assert_int_equal(pages, 7);		/* 52 ports, 8 a page */
	assert_int_equal(walk(f, keep_all, 5, 3, keys, 128, &pages), 52);
	assert_int_equal(pages, 18);		/* the budget, not max, ends each page */
	/* the budget spent exactly at the model's end: no further page */
	assert_int_equal(walk(f, keep_none, 5, 52, keys, 128, &pages), 0);
	assert_int_equal(pages, 1);
	fabric_free(f);
}

/* Cursors that name no port of the model: between nodes, past a node's
 * last port, before the first and after the last key. */
static void
test_cursor_not_in_model(void **state)
{
	struct fabric *f = model(2, 2, 0x11);	/* CA 0x10, switches 0x20, 0x21 */
	const struct fabric_port *rows[4];
	struct port_page pg = { .rows = rows, .max = 4, .scan_max = 1000 };
	struct port_key k;

	(void)state;
	k = (struct port_key){ 0x11, 1 };	/* a CA that is gone */
	port_page_fill(f, &k, keep_all, NULL, &pg);
	assert_true(pg.n == 4 && rows[0]->node->guid == 0x20 && rows[0]->num == 1);
	k = (struct port_key){ 0x10, 255 };
	port_page_fill(f, &k, keep_all, NULL, &pg);
	assert_true(pg.n == 4 && rows[0]->node->guid == 0x20 && rows[0]->num == 1);
	k = (struct port_key){ 0x20, 7 };
	port_page_fill(f, &k, keep_all, NULL, &pg);
	assert_true(pg.n == 4 && rows[0]->num == 8 && rows[1]->node->guid == 0x21 &&
	    rows[1]->num == 1 && pg.more);
	assert_true(pg.next.node_guid == 0x21 && pg.next.port == 3);
	k = (struct port_key){ 0, 0 };
	port_page_fill(f, &k, keep_all, NULL, &pg);
	assert_true(pg.n == 4 && rows[0]->node->guid == 0x10 && rows[0]->num == 1);
	k = (struct port_key){ 0x21, 8 };
	port_page_fill(f, &k, keep_all, NULL, &pg);
	assert_true(pg.n == 0 && !pg.more);
	k = (struct port_key){ UINT64_MAX, 255 };
	port_page_fill(f, &k, keep_all, NULL, &pg);
	assert_true(pg.n == 0 && !pg.more);
	fabric_free(f);
}

/* The model is swept again between two pages: a node already listed is
 * gone, one below the cursor and one above it are new.  The next page
 * repeats nothing, skips the one below and lists the one above. */
static void
test_model_changes_between_pages(void **state)
{
	struct fabric *a = model(3, 0, 0), *b = fabric_new();	/* a: 0x20, 0x21, 0x22 */
	const struct fabric_port *rows[10];
	struct port_page pg = { .rows = rows, .max = 10, .scan_max = 1000 };
	struct port_key after;

	(void)state;
	port_page_fill(a, NULL, keep_all, NULL, &pg);
	assert_true(pg.n == 10 && pg.more && pg.next.node_guid == 0x21 && pg.next.port == 2);
	after = pg.next;
	fabric_add_node(b, 0x22, FABRIC_SWITCH, 8);
	fabric_add_node(b, 0x05, FABRIC_SWITCH, 8);	/* new, below the cursor */
	fabric_add_node(b, 0x21, FABRIC_SWITCH, 4);	/* fewer ports now */
	fabric_add_node(b, 0x30, FABRIC_SWITCH, 2);	/* new, above */
	fabric_sort(b);					/* 0x20 is gone */
	port_page_fill(b, &after, keep_all, NULL, &pg);
	assert_int_equal(pg.n, 10);
	assert_true(rows[0]->node->guid == 0x21 && rows[0]->num == 3);
	assert_true(rows[1]->node->guid == 0x21 && rows[1]->num == 4);
	assert_true(rows[2]->node->guid == 0x22 && rows[2]->num == 1);
	assert_true(rows[9]->node->guid == 0x22 && rows[9]->num == 8);
	assert_true(pg.more);
	after = pg.next;
	port_page_fill(b, &after, keep_all, NULL, &pg);
	assert_int_equal(pg.n, 2);
	assert_true(rows[0]->node->guid == 0x30 && rows[0]->num == 1 && rows[1]->num == 2);
	assert_false(pg.more);
	fabric_free(a);
	fabric_free(b);
}

/* fabricctl's side: cursors must advance; pages fold into the first. */
static void
test_cli_fold(void **state)
{
	json_t *acc = NULL, *p1 = json_pack("{s:[i,i], s:s, s:i}", "ports", 1, 2, "next", "0x1:002",
	    "total", 5), *p2 = json_pack("{s:[i], s:s, s:i}", "ports", 3, "next", "0x1:003", "total", 9),
	    *p3 = json_pack("{s:[]}", "ports"), *bad = json_pack("{s:i}", "ports", 4),
	    *odd = json_pack("{s:[i]}", "total", 1);

	(void)state;
	assert_true(cli_page_advances(NULL, "0x1:001"));
	assert_true(cli_page_advances("0x1:001", "0x1:002"));
	assert_false(cli_page_advances("0x1:002", "0x1:002"));
	assert_false(cli_page_advances("0x1:002", "0x1:001"));
	assert_false(cli_page_advances("0x1:002", NULL));
	assert_string_equal(cli_page_next(p1), "0x1:002");
	assert_null(cli_page_next(p3));
	assert_int_equal(cli_page_fold(&acc, p1), 0);
	assert_null(json_object_get(acc, "next"));
	assert_int_equal(cli_page_fold(&acc, p2), 0);
	assert_int_equal(cli_page_fold(&acc, p3), 0);
	assert_int_equal(json_array_size(json_object_get(acc, "ports")), 3);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(acc, "ports"), 2)), 3);
	assert_int_equal(json_integer_value(json_object_get(acc, "total")), 5);	/* the first's */
	assert_null(json_object_get(acc, "next"));
	assert_int_equal(cli_page_fold(&acc, odd), -1);
	assert_int_equal(json_array_size(json_object_get(p1, "ports")), 2);	/* pages untouched */
	json_decref(acc);
	acc = NULL;
	assert_int_equal(cli_page_fold(&acc, bad), 0);
	assert_int_equal(cli_page_fold(&acc, p2), -1);	/* "ports" was not an array */
	json_decref(acc);
	json_decref(p1);
	json_decref(p2);
	json_decref(p3);
	json_decref(bad);
	json_decref(odd);
}

/* Text in parts: the stream items are kept, the final result's text is
 * them joined then its own; other messages are left alone. */
static void
test_cli_text_parts(void **state)
{
	struct cli_text_parts t = { NULL, 0, 0 };
	json_t *p1 = json_pack("{s:{s:s}}", "stream", "text_part", "Switch 36 \"S-1\"\n");
	json_t *p2 = json_pack("{s:{s:s}}", "stream", "text_part", "[1]\t\"H-2\"[1]\n");
	json_t *other = json_pack("{s:{s:i}}", "stream", "seq", 1);
	json_t *fin = json_pack("{s:b, s:{s:i, s:s}}", "ok", 1, "result", "nodes", 2, "text", "");
	json_t *plain = json_pack("{s:b, s:{s:s}}", "ok", 1, "result", "text", "whole");

	(void)state;
	assert_int_equal(cli_text_part_take(other, &t), 0);
	assert_int_equal(cli_text_parts_join(plain, &t), 0);	/* no parts: untouched */
	assert_string_equal(json_string_value(json_object_get(json_object_get(plain, "result"),
	    "text")), "whole");
	assert_int_equal(cli_text_part_take(p1, &t), 1);
	assert_int_equal(cli_text_part_take(p2, &t), 1);
	assert_int_equal(cli_text_part_take(fin, &t), 0);
	assert_int_equal(cli_text_parts_join(fin, &t), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(fin, "result"), "text")),
	    "Switch 36 \"S-1\"\n[1]\t\"H-2\"[1]\n");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(fin, "result"), "nodes")), 2);
	free(t.buf);
	json_decref(p1);
	json_decref(p2);
	json_decref(other);
	json_decref(fin);
	json_decref(plain);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_text),
		cmocka_unit_test(test_cursor_refused),
		cmocka_unit_test(test_pages_cover_once),
		cmocka_unit_test(test_last_page),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_scan_budget),
		cmocka_unit_test(test_cursor_not_in_model),
		cmocka_unit_test(test_model_changes_between_pages),
		cmocka_unit_test(test_cli_fold),
		cmocka_unit_test(test_cli_text_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
