/*
 * Test doubles for the partitions unit tests (header-only: each test
 * program is one .c file).
 *
 * fixture_fabric(): a small fat tree built by hand as fabric/fabric.h structs,
 *
 *        spine (sw, 4 ports)
 *        [1]        [2]
 *   leaf1 [3]    leaf2 [3]        leaves: 4 ports, [4] unused
 *   [1] h1 [2] h2    [1] h3 [2] h4
 *
 * with the SM on h1 (directed routes start there).
 *
 * fake_mad: answers P_KeyTable Get/Set from in-memory tables, addressed
 * exactly like the real engine (directed route + attr_mod), queues the
 * replies and delivers them from fake_mad_run(), and can be told to drop
 * every MAD for one node (the reply is a timeout, as under ibsim's
 * console "Error" command).
 */
#ifndef PARTITIONS_FIXTURE_H
#define PARTITIONS_FIXTURE_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/umad_sm.h>

#include "partitions/apply.h"
#include "fabric/fabric.h"

/* ---- the fabric ---- */

#define FX_NODES 7
enum { FX_SPINE, FX_LEAF1, FX_LEAF2, FX_H1, FX_H2, FX_H3, FX_H4 };

struct fixture {
	struct fabric_node	 nodes[FX_NODES];
	struct fabric_node	*list[FX_NODES];
};

__attribute__((unused)) static void
fx_node(struct fixture *fx, int i, enum fabric_node_type t, const char *desc,
    uint64_t guid, uint8_t nports, const uint8_t *path, uint8_t hops)
{
	struct fabric_node *n = &fx->nodes[i];

	n->guid = guid;
	n->type = t;
	n->nports = nports;
	snprintf(n->desc, sizeof(n->desc), "%s", desc);
	n->ports = calloc(nports + 1u, sizeof(*n->ports));
	for (unsigned p = 0; p <= nports; p++) {
		n->ports[p].node = n;
		n->ports[p].num = (uint8_t)p;
		n->ports[p].guid = t == FABRIC_SWITCH ? guid : guid + p;
		n->ports[p].state = 4;
	}
	n->hops = hops;
	memcpy(n->path, path, hops + 1u);
	n->partition_cap = t == FABRIC_SWITCH ? 8 : 64;
	n->partition_enforcement_cap = t == FABRIC_SWITCH ? 64 : 0;
	fx->list[i] = n;
}

__attribute__((unused)) static void
fx_link(struct fixture *fx, int a, int pa, int b, int pb)
{
	fx->nodes[a].ports[pa].peer = &fx->nodes[b].ports[pb];
	fx->nodes[b].ports[pb].peer = &fx->nodes[a].ports[pa];
}

__attribute__((unused)) static struct fixture *
fixture_fabric(void)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	fx_node(fx, FX_H1, FABRIC_CA, "h1 HCA-1", 0x1000, 1, (uint8_t[]){0}, 0);
	fx_node(fx, FX_LEAF1, FABRIC_SWITCH, "leaf1", 0x2001, 4, (uint8_t[]){0, 1}, 1);
	fx_node(fx, FX_SPINE, FABRIC_SWITCH, "spine", 0x2000, 4, (uint8_t[]){0, 1, 3}, 2);
	fx_node(fx, FX_LEAF2, FABRIC_SWITCH, "leaf2", 0x2002, 4, (uint8_t[]){0, 1, 3, 2}, 3);
	fx_node(fx, FX_H2, FABRIC_CA, "h2 HCA-1", 0x1010, 1, (uint8_t[]){0, 1, 2}, 2);
	fx_node(fx, FX_H3, FABRIC_CA, "h3 HCA-1", 0x1020, 1, (uint8_t[]){0, 1, 3, 2, 1}, 4);
	fx_node(fx, FX_H4, FABRIC_CA, "h4 HCA-1", 0x1030, 1, (uint8_t[]){0, 1, 3, 2, 2}, 4);
	fx_link(fx, FX_H1, 1, FX_LEAF1, 1);
	fx_link(fx, FX_H2, 1, FX_LEAF1, 2);
	fx_link(fx, FX_H3, 1, FX_LEAF2, 1);
	fx_link(fx, FX_H4, 1, FX_LEAF2, 2);
	fx_link(fx, FX_LEAF1, 3, FX_SPINE, 1);
	fx_link(fx, FX_LEAF2, 3, FX_SPINE, 2);
	return fx;
}

__attribute__((unused)) static void
fixture_free(struct fixture *fx)
{
	for (int i = 0; i < FX_NODES; i++)
		free(fx->nodes[i].ports);
	free(fx);
}

#define FX_SM_GUID 0x1001	/* h1 port 1 */

/* ---- the fake MAD engine ---- */

#define FAKE_MAX_PORTS 32
#define FAKE_MAX_QUEUE 512

struct fake_port {
	uint8_t		 hops;
	uint8_t		 path[64];
	uint8_t		 port;		/* attr_mod >> 16 (0 for CAs and port 0) */
	int		 node;		/* fixture index, for drops */
	uint16_t	 cap;
	uint16_t	 table[128];
	bool		 stuck;		/* answers Sets with status 0 but keeps its table */
	unsigned	 sets, gets;	/* P_KeyTable */
	uint8_t		 pi[64];	/* PortInfo */
	uint8_t		 pi_set_state;	/* PortState of the last PortInfo Set */
	unsigned	 pi_sets, pi_gets;
};

struct fake_reply {
	mad_cb		 cb;
	void		*arg;
	int		 status;
	uint16_t	 mad_status;
	uint8_t		 mad[256];
};

struct fake_mad {
	struct fake_port	 ports[FAKE_MAX_PORTS];
	size_t			 nports;
	int			 drop_node;	/* -1: none */
	unsigned		 sets, gets, pi_sets, pi_gets;
	struct fake_reply	 q[FAKE_MAX_QUEUE];
	size_t			 qhead, qtail;
};

__attribute__((unused)) static struct fake_port *
fake_add(struct fake_mad *fm, const struct fabric_node *via, uint8_t extra, uint8_t port,
    int node, uint16_t cap)
{
	struct fake_port *p = &fm->ports[fm->nports++];

	memset(p, 0, sizeof(*p));
	p->hops = via->hops;
	memcpy(p->path, via->path, sizeof(p->path));
	if (extra)
		p->path[++p->hops] = extra;
	p->port = port;
	p->node = node;
	p->cap = cap;
	p->table[0] = 0xffff;		/* what ibsim and hardware start with */
	p->pi[32] = 0x24;		/* LinkSpeedSupported 2, PortState ACTIVE */
	p->pi[43] = 0x40;		/* OperationalVLs 4, no enforcement */
	return p;
}

/* Every port of the fixture: CA ports, switch port 0, switch external ports. */
__attribute__((unused)) static void
fake_mad_init(struct fake_mad *fm, struct fixture *fx)
{
	memset(fm, 0, sizeof(*fm));
	fm->drop_node = -1;
	for (int i = 0; i < FX_NODES; i++) {
		struct fabric_node *n = &fx->nodes[i];

		if (n->type == FABRIC_SWITCH) {
			fake_add(fm, n, 0, 0, i, n->partition_cap);
			for (uint8_t p = 1; p <= n->nports; p++)
				fake_add(fm, n, 0, p, i, n->partition_enforcement_cap);
		} else if (n->hops == 0)
			fake_add(fm, n, 0, 0, i, n->partition_cap);
		else
			fake_add(fm, n->ports[1].peer->node, n->ports[1].peer->num, 0, i,
			    n->partition_cap);
	}
}

__attribute__((unused)) static struct fake_port *
fake_find(struct fake_mad *fm, const struct mad_addr *a, uint8_t port)
{
	for (size_t i = 0; i < fm->nports; i++) {
		struct fake_port *p = &fm->ports[i];

		if (p->hops == a->hops && p->port == port &&
		    memcmp(p->path + 1, a->path + 1, a->hops) == 0)
			return p;
	}
	return NULL;
}

/* The fixture's port as the fake holds it: node index and port number. */
__attribute__((unused)) static struct fake_port *
fake_port_of(struct fake_mad *fm, int node, uint8_t port)
{
	for (size_t i = 0; i < fm->nports; i++)
		if (fm->ports[i].node == node && fm->ports[i].port == port)
			return &fm->ports[i];
	return NULL;
}

__attribute__((unused)) static int
fake_smp(void *ctx, const struct mad_addr *addr, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, mad_cb cb, void *arg)
{
	struct fake_mad *fm = ctx;
	struct fake_reply *r = &fm->q[fm->qtail++ % FAKE_MAX_QUEUE];
	bool pi = attr_id == UMAD_SM_ATTR_PORT_INFO;
	struct fake_port *p = fake_find(fm, addr, (uint8_t)(pi ? attr_mod : attr_mod >> 16));
	unsigned block = attr_mod & 0xffff;
	uint8_t *d = r->mad + MAD_DATA_OFFSET;

	memset(r, 0, sizeof(*r));
	r->cb = cb;
	r->arg = arg;
	if ((attr_id != UMAD_SM_ATTR_PKEY_TABLE && !pi) || p == NULL || p->node == fm->drop_node) {
		r->status = -ETIMEDOUT;
		return 0;
	}
	if (pi) {
		if (method == 0x02) {
			const uint8_t *s = data;

			fm->pi_sets++;
			p->pi_sets++;
			p->pi_set_state = s[32] & 0x0f;
			p->pi[43] = s[43];	/* only the enforcement/VL byte is modelled */
		} else {
			fm->pi_gets++;
			p->pi_gets++;
		}
		memcpy(d, p->pi, 64);
		return 0;
	}
	if (method == 0x02) {
		fm->sets++;
		p->sets++;
	} else {
		fm->gets++;
		p->gets++;
	}
	if (block * 32 >= p->cap) {
		r->mad_status = 0x1c;
		return 0;
	}
	for (unsigned i = 0; i < 32 && block * 32 + i < p->cap; i++) {
		uint16_t *e = &p->table[block * 32 + i];

		if (method == 0x02 && !p->stuck) {
			const uint8_t *s = data;
			*e = (uint16_t)(s[2 * i] << 8 | s[2 * i + 1]);
		}
		d[2 * i] = (uint8_t)(*e >> 8);
		d[2 * i + 1] = (uint8_t)*e;
	}
	return 0;
}

/* Deliver queued replies (and those they cause) until none is left. */
__attribute__((unused)) static void
fake_mad_run(struct fake_mad *fm)
{
	while (fm->qhead != fm->qtail) {
		struct fake_reply r = fm->q[fm->qhead++ % FAKE_MAX_QUEUE];
		struct mad_result res = {
			.status = r.status, .mad_status = r.mad_status,
			.mad = r.status == 0 ? r.mad : NULL, .len = r.status == 0 ? 256 : 0,
		};

		r.cb(&res, r.arg);
	}
}

__attribute__((unused)) static void
fake_mad_reset_counts(struct fake_mad *fm)
{
	fm->sets = fm->gets = fm->pi_sets = fm->pi_gets = 0;
	for (size_t i = 0; i < fm->nports; i++)
		fm->ports[i].sets = fm->ports[i].gets = fm->ports[i].pi_sets = fm->ports[i].pi_gets = 0;
}

#endif
