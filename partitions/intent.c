/*
 * Crash-safe changes: the intent (schemas/201_pt_intent.sql).
 *
 * Before the first Set of a change, every port it is about to write is
 * stored with the table it held; the row set goes away in the transaction
 * that commits the change (or records its rollback).  So a kill at any
 * point leaves either nothing (no Set yet, or the change committed) or the
 * list of ports that may hold something the database does not say: at
 * the first sweep as master they are read back and put back to what they
 * held before, which is the committed state, and an event says so.
 * Over a plane group each row names its subnet: a change's rows span the
 * planes and are cleared together; a sweep's (one plane's) replace only
 * that plane's, and each plane's SM undoes its own at its sweep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "daemon/events.h"
#include "partitions/internal.h"

static uint8_t *
table_blob(const uint16_t *t, size_t n)
{
	uint8_t *b = xcalloc(n ? n : 1, 2);

	for (size_t k = 0; k < n; k++) {
		b[2 * k] = (uint8_t)(t[k] >> 8);
		b[2 * k + 1] = (uint8_t)t[k];
	}
	return b;
}

static int
clear_rows(struct store *st, size_t plane)
{
	sqlite3_stmt *s;

	if (plane == PT_ALL_PLANES)
		s = store_prepare(st, "DELETE FROM pt_intent");
	else if ((s = store_prepare(st, "DELETE FROM pt_intent WHERE subnet = ?")) != NULL)
		sqlite3_bind_text(s, 1, pt_plane_name(plane), -1, SQLITE_TRANSIENT);
	return s == NULL ? -1 : store_step_done(st, s);
}

int
pt_intent_record(struct store *st, const struct pt_plan *p, const char *action)
{
	int64_t now = event_now_ms();

	bool planes[PT_MAX_PLANES] = { false };

	if (store_begin(st) != 0)
		return -1;
	for (size_t i = 0; i < p->nports; i++)
		planes[p->ports[i].plane < PT_MAX_PLANES ? p->ports[i].plane : 0] = true;
	for (size_t pl = 0; pl < PT_MAX_PLANES; pl++)
		if (planes[pl] && clear_rows(st, pl) != 0)
			goto fail;
	for (size_t i = 0; i < p->nports; i++) {
		const struct pt_port_plan *pp = &p->ports[i];
		sqlite3_stmt *s;
		bool dirty = false;
		uint8_t *b;

		for (uint16_t blk = 0; blk < pp->nblocks && !dirty; blk++)
			dirty = pt_block_dirty(pp, blk);
		if (!dirty)
			continue;
		if (pp->have == NULL)
			goto fail;	/* read first: apply.c never writes blind */
		if ((s = store_prepare(st, "INSERT INTO pt_intent (node_guid, port, port_guid, "
		    "switch_ext, label, action, time_ms, before, subnet) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) == NULL)
			goto fail;
		b = table_blob(pp->have, pp->cap);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)pp->node_guid);
		sqlite3_bind_int(s, 2, pp->port);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)pp->port_guid);
		sqlite3_bind_int(s, 4, pp->switch_ext);
		sqlite3_bind_text(s, 5, pp->label, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 6, action, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 7, now);
		sqlite3_bind_blob(s, 8, b, pp->cap * 2, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 9, pt_plane_name(pp->plane), -1, SQLITE_TRANSIENT);
		free(b);
		if (store_step_done(st, s) != 0)
			goto fail;
	}
	return store_commit(st);
fail:
	store_rollback(st);
	return -1;
}

int
pt_intent_clear(struct store *st, size_t plane)
{
	return clear_rows(st, plane);
}

/* The subnet a statement's ?1 selects: one plane's, or every row (NULL).
 * store_prepare() caches statements by their text's address: each query
 * is a literal of its own. */
static sqlite3_stmt *
rows_of(struct store *st, size_t plane, const char *sql)
{
	sqlite3_stmt *s = store_prepare(st, sql);

	if (s != NULL && plane != PT_ALL_PLANES)
		sqlite3_bind_text(s, 1, pt_plane_name(plane), -1, SQLITE_TRANSIENT);
	return s;
}

bool
pt_intent_pending(struct store *st, size_t plane, char *action, size_t len)
{
	sqlite3_stmt *s = rows_of(st, plane,
	    "SELECT action FROM pt_intent WHERE ?1 IS NULL OR subnet = ?1 LIMIT 1");
	bool found = false;

	if (s == NULL)
		return false;
	if (sqlite3_step(s) == SQLITE_ROW) {
		found = true;
		snprintf(action, len, "%s", (const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_reset(s);
	return found;
}

static struct fabric_node *
node_of(struct fabric_node **nodes, size_t n, uint64_t guid)
{
	for (size_t i = 0; i < n; i++)
		if (nodes[i]->guid == guid)
			return nodes[i];
	return NULL;
}

/* One port of the intent as a plan entry: want = before, have unknown (read first). */
static void
add_port(struct pt_plan *p, size_t plane, struct fabric_node *n, sqlite3_stmt *s)
{
	const uint8_t *b = sqlite3_column_blob(s, 5);
	size_t cap = (size_t)sqlite3_column_bytes(s, 5) / 2;
	uint8_t port = (uint8_t)sqlite3_column_int(s, 1);
	struct pt_port_plan *pp;

	if (cap == 0 || port > n->nports)
		return;
	p->ports = xreallocarray(p->ports, p->nports + 1, sizeof(*p->ports));
	pp = &p->ports[p->nports++];
	memset(pp, 0, sizeof(*pp));
	pp->plane = (uint8_t)plane;
	pp->node_guid = n->guid;
	pp->port = port;
	pp->port_guid = (uint64_t)sqlite3_column_int64(s, 2);
	pp->switch_ext = sqlite3_column_int(s, 3) != 0;
	snprintf(pp->label, sizeof(pp->label), "%s", (const char *)sqlite3_column_text(s, 4));
	pt_plan_port_addr(n, &n->ports[port], &pp->addr);
	pp->attr_mod_port = pp->switch_ext ? (uint32_t)port << 16 : 0;
	pp->cap = (uint16_t)cap;
	pp->nblocks = (uint16_t)((cap + PT_BLOCK - 1) / PT_BLOCK);
	pp->want = xcalloc((size_t)pp->nblocks * PT_BLOCK, sizeof(uint16_t));
	for (size_t k = 0; k < cap; k++)
		pp->want[k] = (uint16_t)(b[2 * k] << 8 | b[2 * k + 1]);
}

void
pt_intent_forget_missing(struct store *st, size_t plane, struct fabric_node **nodes, size_t n)
{
	sqlite3_stmt *s = rows_of(st, plane,
	    "SELECT node_guid, port FROM pt_intent WHERE ?1 IS NULL OR subnet = ?1");
	uint64_t *gone = NULL;
	uint8_t *port = NULL;
	size_t ngone = 0;

	if (s == NULL)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t g = (uint64_t)sqlite3_column_int64(s, 0);

		if (node_of(nodes, n, g) != NULL)
			continue;
		gone = xreallocarray(gone, ngone + 1, sizeof(*gone));
		port = xreallocarray(port, ngone + 1, sizeof(*port));
		gone[ngone] = g;
		port[ngone++] = (uint8_t)sqlite3_column_int(s, 1);
	}
	sqlite3_reset(s);
	/* after the statement: forgetting writes to the store */
	for (size_t i = 0; i < ngone; i++)
		pt_table_forget(plane, gone[i], port[i]);
	free(gone);
	free(port);
}

size_t
pt_intent_plan(struct store *st, size_t plane, struct fabric_node **nodes, size_t n,
    struct pt_plan *out, size_t *missing)
{
	sqlite3_stmt *s = rows_of(st, plane, "SELECT node_guid, port, "
	    "port_guid, switch_ext, label, before FROM pt_intent WHERE ?1 IS NULL OR subnet = ?1 "
	    "ORDER BY node_guid, port");

	memset(out, 0, sizeof(*out));
	*missing = 0;
	if (s == NULL)
		return 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct fabric_node *node = node_of(nodes, n, (uint64_t)sqlite3_column_int64(s, 0));

		if (node == NULL)
			(*missing)++;	/* gone: its table is read when it comes back */
		else
			add_port(out, plane, node, s);
	}
	sqlite3_reset(s);
	return out->nports;
}
