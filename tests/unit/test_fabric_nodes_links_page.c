/*
 * Paging of `nodes` and `links` (fabric/port_page.c): node cursors
 * round-trip, sort as their GUIDs do and refuse anything else; node pages
 * cover every node once in GUID order; link pages list every cable once,
 * under the end and in the order the one-loop `links` listed it (checked
 * against that loop, written out here), whatever the page size; a last page
 * filled exactly ends the listing, an empty model is one empty page, and a
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

#include "fabric/port_page.h"

#define MAXROWS 64

/*
 * A small tree, added out of order and sorted as a sweep sorts it: leaf
 * switches 0x30.. (8 ports), CAs 0x10.. (2 ports, port 1 to a leaf), a
 * spine 0x20 cabled to every leaf's port 8, and on the first leaf a cable
 * from port 6 to its own port 5 (a loopback: listed once, under port 5).
 */
static struct fabric *
tree(unsigned nleaf, unsigned nca)
{
	struct fabric *f = fabric_new();
	struct fabric_node *spine = fabric_add_node(f, 0x20, FABRIC_SWITCH, 8), *leaf[8];

	for (unsigned i = nleaf; i-- > 0;)
		leaf[i] = fabric_add_node(f, 0x30 + i, FABRIC_SWITCH, 8);
	for (unsigned i = 0; i < nleaf; i++)
		fabric_link(&leaf[i]->ports[8], &spine->ports[i + 1]);
	for (unsigned i = 0; i < nca; i++) {
		struct fabric_node *ca = fabric_add_node(f, 0x10 + i, FABRIC_CA, 2);
		fabric_link(&ca->ports[1], &leaf[i % nleaf]->ports[1 + i / nleaf]);
	}
	if (nleaf > 0)
		fabric_link(&leaf[0]->ports[6], &leaf[0]->ports[5]);
	fabric_sort(f);
	return f;
}

static uint64_t
key_value(const struct fabric_port *p)
{
	return p->node->guid << 8 | p->num;
}

/* The links as the one-loop `links` listed them, keyed as above. */
static size_t
links_whole(const struct fabric *f, uint64_t *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < fabric_node_count(f); i++) {
		const struct fabric_node *nd = fabric_node_at(f, i);

		for (unsigned j = 1; j <= nd->nports; j++) {
			const struct fabric_port *q = nd->ports[j].peer;

			if (q == NULL || q->node->guid < nd->guid || (q->node == nd && q->num < j))
				continue;
			assert_true(n < cap);
			out[n++] = nd->guid << 8 | j;
		}
	}
	return n;
}

/* Every link page from the start, rows as keys in out[]. */
static size_t
links_paged(const struct fabric *f, size_t max, uint64_t *out, size_t cap, size_t *pages)
{
	const struct fabric_port *rows[MAXROWS];
	struct port_page pg = { .rows = rows, .max = max, .scan_max = 65536 };
	struct port_key after;
	size_t n = 0;

	*pages = 0;
	do {
		port_page_fill(f, *pages ? &after : NULL, port_is_link_end, NULL, &pg);
		assert_true(pg.n <= max);
		for (size_t i = 0; i < pg.n; i++) {
			assert_true(n < cap);
			out[n++] = key_value(rows[i]);
		}
		after = pg.next;
		assert_true(++*pages < 1000);
	} while (pg.more);
	return n;
}

/* Every node page from the start, GUIDs in out[]. */
static size_t
nodes_paged(const struct fabric *f, size_t max, uint64_t *out, size_t cap, size_t *pages)
{
	const struct fabric_node *rows[MAXROWS];
	struct node_page pg = { .rows = rows, .max = max };
	uint64_t after = 0;
	size_t n = 0;

	*pages = 0;
	do {
		node_page_fill(f, *pages ? &after : NULL, &pg);
		assert_true(pg.n <= max);
		for (size_t i = 0; i < pg.n; i++) {
			assert_true(n < cap);
			assert_true(n == 0 || rows[i]->guid > out[n - 1]);
			out[n++] = rows[i]->guid;
		}
		if (pg.more)
			assert_true(pg.next > after || *pages == 0);
		after = pg.next;
		assert_true(++*pages < 1000);
	} while (pg.more);
	return n;
}

static void
test_guid_cursor(void **state)
{
	static const char *const bad[] = { "", "zz", "0x", "0X1", "1", " 0x1", "0x1 ", "0x1:1",
	    "0x-1", "0x+1", "0x0x1", "0xg", "0x12345678901234567", NULL };
	uint64_t guids[] = { 0, 1, 0xf, 0x10, 0x2c90300a1b2c3ULL, UINT64_MAX }, g = 0x55;
	char buf[PORT_CURSOR_LEN], prev[PORT_CURSOR_LEN] = "";

	(void)state;
	guid_cursor_format(0x0002c90300a1b2c3ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0x0002c90300a1b2c3");
	assert_int_equal(guid_cursor_parse(buf, &g), 0);
	assert_true(g == 0x0002c90300a1b2c3ULL);
	assert_int_equal(guid_cursor_parse("0x2C9", &g), 0);
	assert_true(g == 0x2c9);
	/* byte order is GUID order: fabricctl checks that pages advance by it */
	for (size_t i = 0; i < sizeof(guids) / sizeof(guids[0]); i++) {
		guid_cursor_format(guids[i], buf, sizeof(buf));
		assert_true(strcmp(buf, prev) > 0);
		assert_int_equal(strlen(buf), 18);
		snprintf(prev, sizeof(prev), "%s", buf);
	}
	g = 0x55;
	for (size_t i = 0; bad[i]; i++) {
		assert_int_equal(guid_cursor_parse(bad[i], &g), -1);
		assert_true(g == 0x55);		/* untouched */
	}
	assert_int_equal(guid_cursor_parse(NULL, &g), -1);
	/* the port cursor still parses as it did (it shares the GUID part) */
	struct port_key k;
	assert_int_equal(port_cursor_parse("0x2c9:7", &k), 0);
	assert_true(k.node_guid == 0x2c9 && k.port == 7);
	assert_int_equal(port_cursor_parse("0x2c9", &k), -1);
}

/* 1 spine + 4 leaves + 10 CAs = 15 nodes: every page size lists each
 * once in GUID order; a last page filled exactly is the last. */
static void
test_nodes_pages(void **state)
{
	struct fabric *f = tree(4, 10);
	uint64_t g[64];
	size_t pages;

	(void)state;
	for (size_t max = 1; max <= 20; max++) {
		assert_int_equal(nodes_paged(f, max, g, 64, &pages), 15);
		assert_int_equal(pages, (15 + max - 1) / max);	/* no empty page after a full one */
		assert_true(g[0] == 0x10 && g[9] == 0x19 && g[10] == 0x20 && g[14] == 0x33);
	}
	fabric_free(f);
}

/* 4 spine cables + 10 CA cables + 1 loopback = 15 links, the same keys in
 * the same order as the whole listing, for every page size. */
static void
test_links_pages(void **state)
{
	struct fabric *f = tree(4, 10);
	uint64_t whole[64], paged[64];
	size_t pages, n = links_whole(f, whole, 64);

	(void)state;
	assert_int_equal(n, 15);
	for (size_t max = 1; max <= 20; max++) {
		assert_int_equal(links_paged(f, max, paged, 64, &pages), n);
		assert_memory_equal(paged, whole, n * sizeof(whole[0]));
		assert_int_equal(pages, (n + max - 1) / max);
	}
	/* the CA end is the lower GUID: each CA cable under the CA's port 1 */
	assert_true(whole[0] == (0x10ULL << 8 | 1));
	/* the loopback once, under its lower port */
	for (size_t i = 0, seen = 0; i < n; i++) {
		if (whole[i] >> 8 == 0x30 && (whole[i] & 0xff) >= 5 && (whole[i] & 0xff) <= 6)
			assert_true(++seen == 1 && (whole[i] & 0xff) == 5);
	}
	fabric_free(f);
}

static void
test_empty(void **state)
{
	struct fabric *none = fabric_new(), *lone = tree(0, 0);	/* a spine alone, uncabled */
	uint64_t keys[8];
	size_t pages;

	(void)state;
	assert_int_equal(nodes_paged(none, 4, keys, 8, &pages), 0);
	assert_int_equal(pages, 1);
	assert_int_equal(links_paged(none, 4, keys, 8, &pages), 0);
	assert_int_equal(pages, 1);
	assert_int_equal(links_paged(lone, 4, keys, 8, &pages), 0);
	assert_int_equal(pages, 1);
	assert_int_equal(nodes_paged(lone, 1, keys, 8, &pages), 1);
	assert_int_equal(pages, 1);
	fabric_free(none);
	fabric_free(lone);
}

/* Cursors that name no node: below the first, between two, above the last. */
static void
test_node_cursor_not_in_model(void **state)
{
	struct fabric *f = tree(2, 2);	/* 0x10 0x11 0x20 0x30 0x31 */
	const struct fabric_node *rows[2];
	struct node_page pg = { .rows = rows, .max = 2 };
	uint64_t after;

	(void)state;
	after = 0;
	node_page_fill(f, &after, &pg);
	assert_true(pg.n == 2 && rows[0]->guid == 0x10 && pg.more && pg.next == 0x11);
	after = 0x15;
	node_page_fill(f, &after, &pg);
	assert_true(pg.n == 2 && rows[0]->guid == 0x20 && rows[1]->guid == 0x30 && pg.more);
	after = 0x30;
	node_page_fill(f, &after, &pg);
	assert_true(pg.n == 1 && rows[0]->guid == 0x31 && !pg.more);
	after = UINT64_MAX;
	node_page_fill(f, &after, &pg);
	assert_true(pg.n == 0 && !pg.more);
	fabric_free(f);
}

/* Swept again between two pages: nodes below the cursor come and go, a
 * node above it is new.  The next page repeats nothing and lists what is
 * above the cursor in the new model. */
static void
test_model_changes_between_pages(void **state)
{
	struct fabric *a = tree(4, 10), *b = tree(4, 12);	/* b: CAs 0x1a, 0x1b more */
	const struct fabric_node *nrows[4];
	const struct fabric_port *lrows[4];
	struct node_page np = { .rows = nrows, .max = 4 };
	struct port_page lp = { .rows = lrows, .max = 4, .scan_max = 65536 };
	uint64_t after, whole[64];
	struct port_key lafter;
	size_t n;

	(void)state;
	node_page_fill(a, NULL, &np);		/* 0x10..0x13 */
	assert_true(np.n == 4 && np.more && np.next == 0x13);
	after = np.next;
	node_page_fill(b, &after, &np);
	assert_true(np.n == 4 && nrows[0]->guid == 0x14 && nrows[3]->guid == 0x17);
	after = 0x19;				/* a's last CA: b's two new ones follow */
	node_page_fill(b, &after, &np);
	assert_true(np.n == 4 && nrows[0]->guid == 0x1a && nrows[1]->guid == 0x1b &&
	    nrows[2]->guid == 0x20);
	/* links: a page of a, the rest from b, against b's whole listing */
	port_page_fill(a, NULL, port_is_link_end, NULL, &lp);
	assert_true(lp.n == 4 && lp.more);
	lafter = lp.next;
	n = links_whole(b, whole, 64);
	size_t at = 0;
	while (at < n && whole[at] <= (lafter.node_guid << 8 | lafter.port))
		at++;
	do {
		port_page_fill(b, &lafter, port_is_link_end, NULL, &lp);
		for (size_t i = 0; i < lp.n; i++)
			assert_true(at < n && key_value(lrows[i]) == whole[at++]);
		lafter = lp.next;
	} while (lp.more);
	assert_int_equal(at, n);
	fabric_free(a);
	fabric_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guid_cursor),
		cmocka_unit_test(test_nodes_pages),
		cmocka_unit_test(test_links_pages),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_node_cursor_not_in_model),
		cmocka_unit_test(test_model_changes_between_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
