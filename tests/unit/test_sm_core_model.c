/*
 * The SM's pure logic: the fabric model's lookups, directed-route paths to
 * ports, degraded-link detection, change events, and LID assignment with
 * its preferences and persistence across a restart (a real sqlite store).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <cmocka.h>

#include <iba/ib_types.h>

#include "daemon/fabricd.h"
#include "daemon/store.h"
#include "sm/core/model.h"

/* sw1 -- sw2, h1 on sw1[1], h2 on sw2[1], a dual-port CA h3 on sw1[3]
 * and sw2[3]. */
struct tiny {
	struct fabric		*f;
	struct fabric_node	*sw1, *sw2, *h1, *h2, *h3;
};

static struct fabric_node *
ca(struct fabric *f, uint64_t guid, uint8_t nports, const char *name)
{
	struct fabric_node *n = fabric_add_node(f, guid, FABRIC_CA, nports);

	snprintf(n->desc, sizeof(n->desc), "%s", name);
	for (unsigned i = 1; i <= nports; i++) {
		n->ports[i].guid = guid + i;
		n->ports[i].linkup = true;
		assert_int_equal(fabric_index_port_guid(f, &n->ports[i]), 0);
	}
	n->path_port = 1;
	return n;
}

static struct fabric_node *
sw(struct fabric *f, uint64_t guid, const char *name)
{
	struct fabric_node *n = fabric_add_node(f, guid, FABRIC_SWITCH, 8);

	snprintf(n->desc, sizeof(n->desc), "%s", name);
	n->port_guid = guid;
	for (unsigned i = 0; i <= 8; i++) {
		n->ports[i].guid = guid;
		n->ports[i].linkup = i > 0;
	}
	fabric_index_port_guid(f, &n->ports[0]);
	return n;
}

static void
tiny_build(struct tiny *t)
{
	t->f = fabric_new();
	t->h1 = ca(t->f, 0x100, 1, "h1");
	t->sw2 = sw(t->f, 0x300, "sw2");
	t->sw1 = sw(t->f, 0x200, "sw1");
	t->h2 = ca(t->f, 0x110, 1, "h2");
	t->h3 = ca(t->f, 0x120, 2, "h3");
	/* the SM sits on h1: sw1 is one hop out of h1 port 1 */
	t->sw1->hops = 1;
	t->sw1->path[1] = 1;
	t->sw2->hops = 2;
	t->sw2->path[1] = 1;
	t->sw2->path[2] = 7;
	t->h2->hops = 3;
	memcpy(t->h2->path, t->sw2->path, sizeof(t->h2->path));
	t->h2->path[3] = 1;
	t->h3->hops = 2;
	t->h3->path[1] = 1;
	t->h3->path[2] = 3;
	fabric_link(&t->h1->ports[1], &t->sw1->ports[1]);
	fabric_link(&t->sw1->ports[7], &t->sw2->ports[7]);
	fabric_link(&t->h2->ports[1], &t->sw2->ports[1]);
	fabric_link(&t->h3->ports[1], &t->sw1->ports[3]);
	fabric_link(&t->h3->ports[2], &t->sw2->ports[3]);
}

static void
test_lookups(void **state)
{
	struct tiny t;

	tiny_build(&t);
	assert_ptr_equal(fabric_node_by_guid(t.f, 0x200), t.sw1);
	assert_null(fabric_node_by_guid(t.f, 0x999));
	assert_ptr_equal(fabric_port_by_guid(t.f, 0x122), &t.h3->ports[2]);
	assert_ptr_equal(fabric_port_by_guid(t.f, 0x300), &t.sw2->ports[0]);
	fabric_set_lid(t.f, &t.h2->ports[1], 42);
	assert_ptr_equal(fabric_port_by_lid(t.f, 42), &t.h2->ports[1]);
	assert_int_equal(t.h2->lid, 42);
	fabric_set_lid(t.f, &t.h2->ports[1], 43);	/* moving frees the old LID */
	assert_null(fabric_port_by_lid(t.f, 42));
	fabric_set_lid(t.f, &t.sw1->ports[0], 7);
	assert_int_equal(t.sw1->lid, 7);
	assert_ptr_equal(fabric_node_lookup(t.f, "sw2"), t.sw2);
	assert_ptr_equal(fabric_node_lookup(t.f, "43"), t.h2);
	assert_ptr_equal(fabric_node_lookup(t.f, "0x200"), t.sw1);
	assert_ptr_equal(fabric_node_lookup(t.f, "0x121"), t.h3);
	assert_null(fabric_node_lookup(t.f, "nope"));
	/* a second CA port GUID clash is refused */
	t.h2->ports[1].guid = 0x121;
	assert_int_equal(fabric_index_port_guid(t.f, &t.h2->ports[1]), -1);
	fabric_free(t.f);
}

static void
test_sort_and_paths(void **state)
{
	struct tiny t;
	uint8_t path[FABRIC_MAX_HOPS], hops;
	size_t i;

	tiny_build(&t);
	fabric_sort(t.f);
	for (i = 1; i < fabric_node_count(t.f); i++)
		assert_true(fabric_node_at(t.f, i - 1)->guid < fabric_node_at(t.f, i)->guid);
	assert_ptr_equal(fabric_node_by_guid(t.f, 0x300), t.sw2);	/* index survives */

	/* h3 port 2 is not on h3's own path: reach it through sw2[3] */
	assert_true(fabric_port_path(&t.h3->ports[2], path, &hops));
	assert_int_equal(hops, 3);
	assert_int_equal(path[1], 1);
	assert_int_equal(path[2], 7);
	assert_int_equal(path[3], 3);
	assert_true(fabric_port_path(&t.h3->ports[1], path, &hops));
	assert_int_equal(hops, 2);
	assert_true(fabric_port_path(&t.sw2->ports[5], path, &hops));
	assert_int_equal(hops, 2);
	t.h3->ports[2].peer = NULL;	/* uncabled: unreachable */
	assert_false(fabric_port_path(&t.h3->ports[2], path, &hops));

	fabric_lft_reserve(t.sw1, 70);
	assert_int_equal(t.sw1->lft_len, 128);
	assert_int_equal(t.sw1->lft[127], 0xFF);
	fabric_free(t.f);
}

static void
test_degraded(void **state)
{
	struct tiny t;
	struct fabric_port *a, *b;

	tiny_build(&t);
	a = &t.sw1->ports[7];
	b = &t.sw2->ports[7];
	/* both support 4x|12x QDR, trained 12x QDR: fine */
	a->width_supported = b->width_supported = 2 | 8;
	a->speed_supported = b->speed_supported = 1 | 2 | 4;
	a->width_active = b->width_active = 8;
	a->speed_active = b->speed_active = 4;
	sm_mark_degraded(t.f);
	assert_false(a->degraded);
	/* trained at 4x: degraded on both ends */
	a->width_active = b->width_active = 2;
	sm_mark_degraded(t.f);
	assert_true(a->degraded);
	assert_true(b->degraded);
	/* the far end only supports 4x: 4x is the best, and 2x (mask 16)
	 * must not count as wider than 4x */
	b->width_supported = 2 | 16;
	a->width_supported = 2 | 8 | 16;
	sm_mark_degraded(t.f);
	assert_false(a->degraded);
	/* speed: trained SDR where both do QDR */
	a->speed_active = b->speed_active = 1;
	sm_mark_degraded(t.f);
	assert_true(a->degraded);
	fabric_free(t.f);
}

static void
test_diff(void **state)
{
	struct tiny a, b;

	tiny_build(&a);
	tiny_build(&b);
	assert_int_equal(sm_diff_events(a.f, b.f, "sm"), 0);
	/* the inter-switch link goes: one "down" one way, one "up" back */
	b.sw1->ports[7].peer = b.sw2->ports[7].peer = NULL;
	assert_int_equal(sm_diff_events(a.f, b.f, "sm"), 1);
	assert_int_equal(sm_diff_events(b.f, a.f, "sm"), 1);
	fabric_free(a.f);
	fabric_free(b.f);
}

/* ---- LIDs ---- */

static char dir[] = "/tmp/fabricd-smlids-XXXXXX";
static struct fabricd fake;

static void
hold(struct fabric_port *p, uint16_t lid)
{
	((ib_port_info_t *)p->pi)->base_lid = htobe16(lid);
}

static void
test_lids(void **state)
{
	struct sm_lids lids = { 0 };
	struct tiny t;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(store_open(dir, &fake.store), 0);
	fabricd = &fake;
	assert_int_equal(sm_lids_load(&lids, fake.store, ""), 0);

	/* fresh: h2 already holds LID 9 (kept); the rest get 1, 2, ... */
	tiny_build(&t);
	fabric_sort(t.f);
	hold(&t.h2->ports[1], 9);
	sm_lids_assign(&lids, t.f, "sm");
	assert_int_equal(t.h2->ports[1].lid, 9);
	assert_int_equal(t.h1->ports[1].lid, 1);
	assert_int_equal(t.h3->ports[1].lid, 2);
	assert_int_equal(t.h3->ports[2].lid, 3);
	assert_int_equal(t.sw1->lid, 4);
	assert_int_equal(t.sw2->lid, 5);
	assert_int_equal(store_begin(fake.store), 0);
	sm_lids_save(&lids, fake.store, "");
	assert_int_equal(store_commit(fake.store), 0);
	fabric_free(t.f);

	/* restart: the database wins over LIDs the ports hold, and a port
	 * holding another port's LID does not get it */
	sm_lids_free(&lids);
	assert_int_equal(sm_lids_load(&lids, fake.store, ""), 0);
	tiny_build(&t);
	fabric_sort(t.f);
	hold(&t.h1->ports[1], 9);	/* h2's */
	hold(&t.sw2->ports[0], 77);
	sm_lids_assign(&lids, t.f, "sm");
	assert_int_equal(t.h1->ports[1].lid, 1);
	assert_int_equal(t.h2->ports[1].lid, 9);
	assert_int_equal(t.sw2->lid, 5);
	fabric_free(t.f);

	/* a new port takes the lowest LID nobody ever owned */
	tiny_build(&t);
	t.h2->ports[1].guid = 0x555;
	sm_lids_assign(&lids, t.f, "sm");
	assert_int_equal(t.h2->ports[1].lid, 6);
	fabric_free(t.f);

	/* another node's map (the master's, through etcd) replaces ours: its
	 * LIDs win over what the ports hold and what we remembered; a
	 * duplicate LID or GUID in it is taken once */
	tiny_build(&t);
	fabric_sort(t.f);
	{
		uint64_t g[] = { t.h1->ports[1].guid, t.h2->ports[1].guid, 0x777, 0x778 };
		uint16_t l[] = { 30, 31, 30, 0 };

		assert_int_equal(sm_lids_replace(&lids, g, l, 4), 2);
	}
	hold(&t.h1->ports[1], 1);
	sm_lids_assign(&lids, t.f, "sm");
	assert_int_equal(t.h1->ports[1].lid, 30);
	assert_int_equal(t.h2->ports[1].lid, 31);
	assert_int_equal(t.h3->ports[1].lid, 1);	/* h1 held it; the map moved h1 */
	assert_int_equal(t.sw2->lid, 4);	/* not in the map: the lowest free */
	fabric_free(t.f);

	sm_lids_free(&lids);
	store_close(fake.store);
	fabricd = NULL;
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_sort_and_paths),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_lids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
