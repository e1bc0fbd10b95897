/*
 * A small fabric model built by hand for the route and topology unit tests
 * (header-only: each test program is one .c file).
 *
 *   h1 [1] -- [1] sw1 [7] ==== [7] sw2 [1] -- [1] h2
 *                     [8] ==== [8]     [3] -- [2] h3   (h3 port 1 uncabled)
 *
 * LIDs: h1 1, h2 2, h3 port 2 3, sw1 10, sw2 11.  sw1[8]-sw2[8] is a
 * degraded 1x link; the rest are 4xQDR.  The tables, as if programmed:
 * sw1 sends LID 2 and 11 out of 7, LID 3 out of 8; sw2 sends LIDs 1 and
 * 10 out of 7.  Both hold 64 entries with LinearFDBTop 11.
 */
#ifndef FABRIC_ROUTE_FIXTURE_H
#define FABRIC_ROUTE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>

#include "fabric/fabric.h"
#include "fabric/routing.h"

struct rfix {
	struct fabric		*f;
	struct fabric_node	*sw1, *sw2, *h1, *h2, *h3;
};

static void
rfix_port(struct fabric_port *p, uint8_t width, uint8_t speed)
{
	p->state = 4;
	p->phys_state = 5;
	p->linkup = true;
	p->width_active = width;
	p->speed_active = speed;
}

static void
rfix_cable(struct fabric_port *a, struct fabric_port *b, uint8_t width, uint8_t speed)
{
	fabric_link(a, b);
	rfix_port(a, width, speed);
	rfix_port(b, width, speed);
}

static struct fabric_node *
rfix_ca(struct fabric *f, uint64_t guid, uint8_t nports, const char *name)
{
	struct fabric_node *n = fabric_add_node(f, guid, FABRIC_CA, nports);

	snprintf(n->desc, sizeof(n->desc), "%s", name);
	n->vendor_id = 0x2c9;
	n->device_id = 0x1017;
	for (unsigned i = 1; i <= nports; i++) {
		n->ports[i].guid = guid + i;
		if (fabric_index_port_guid(f, &n->ports[i]) != 0)
			abort();
	}
	n->path_port = nports;
	return n;
}

static struct fabric_node *
rfix_sw(struct fabric *f, uint64_t guid, const char *name, uint16_t lid)
{
	struct fabric_node *n = fabric_add_node(f, guid, FABRIC_SWITCH, 8);

	snprintf(n->desc, sizeof(n->desc), "%s", name);
	n->port_guid = guid;
	for (unsigned i = 0; i <= 8; i++)
		n->ports[i].guid = guid;
	fabric_index_port_guid(f, &n->ports[0]);
	fabric_set_lid(f, &n->ports[0], lid);
	n->lft_cap = 0xC000;
	n->lft_top = 11;
	fabric_lft_reserve(n, 64);
	n->lft_known = true;
	return n;
}

static void
rfix_build(struct rfix *x)
{
	x->f = fabric_new();
	x->h1 = rfix_ca(x->f, 0x100, 1, "h1");
	x->h2 = rfix_ca(x->f, 0x110, 1, "h2");
	x->h3 = rfix_ca(x->f, 0x120, 2, "h3");
	x->sw1 = rfix_sw(x->f, 0x200, "sw1", 10);
	x->sw2 = rfix_sw(x->f, 0x300, "sw2", 11);
	((ib_switch_info_t *)x->sw2->si)->flags = 0x08;	/* enhanced port 0 */
	rfix_cable(&x->h1->ports[1], &x->sw1->ports[1], 2, 4);
	rfix_cable(&x->h2->ports[1], &x->sw2->ports[1], 2, 4);
	rfix_cable(&x->h3->ports[2], &x->sw2->ports[3], 2, 4);
	rfix_cable(&x->sw1->ports[7], &x->sw2->ports[7], 2, 4);
	rfix_cable(&x->sw1->ports[8], &x->sw2->ports[8], 1, 4);
	x->sw1->ports[8].degraded = x->sw2->ports[8].degraded = true;
	fabric_set_lid(x->f, &x->h1->ports[1], 1);
	fabric_set_lid(x->f, &x->h2->ports[1], 2);
	fabric_set_lid(x->f, &x->h3->ports[2], 3);
	x->sw1->lft[1] = 1;
	x->sw1->lft[2] = 7;
	x->sw1->lft[3] = 8;
	x->sw1->lft[10] = 0;
	x->sw1->lft[11] = 7;
	x->sw2->lft[1] = 7;
	x->sw2->lft[2] = 1;
	x->sw2->lft[3] = 3;
	x->sw2->lft[10] = 7;
	x->sw2->lft[11] = 0;
	fabric_sort(x->f);
}

/* cmocka setup and teardown for tests that need nothing but the fixture
 * (inline: a test with its own setup does not warn about them). */
static inline int
rfix_setup(void **state)
{
	struct rfix *x = calloc(1, sizeof(*x));

	rfix_build(x);
	*state = x;
	return 0;
}

static inline int
rfix_teardown(void **state)
{
	struct rfix *x = *state;

	fabric_free(x->f);
	free(x);
	return 0;
}

#endif
