/* The set of disabled ports and the Set that disables one: see port_admin.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>
#include <sqlite3.h>

#include "common/xmalloc.h"
#include "sm/core/port_admin.h"

/* A handful of ports in practice: a linear scan beats a map's upkeep. */
const struct port_disabled *
pds_get(const struct port_disabled_set *s, uint64_t guid, uint8_t port)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].node_guid == guid && s->v[i].port == port)
			return &s->v[i];
	return NULL;
}

bool
pds_add(struct port_disabled_set *s, uint64_t guid, uint8_t port, const char *desc, int64_t ms)
{
	struct port_disabled *e = (struct port_disabled *)pds_get(s, guid, port);
	bool fresh = e == NULL;

	if (fresh) {
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 8;
			s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
		}
		e = &s->v[s->n++];
		e->node_guid = guid;
		e->port = port;
	}
	snprintf(e->desc, sizeof(e->desc), "%s", desc ? desc : "");
	e->set_ms = ms;
	return fresh;
}

bool
pds_remove(struct port_disabled_set *s, uint64_t guid, uint8_t port)
{
	const struct port_disabled *e = pds_get(s, guid, port);
	size_t i;

	if (e == NULL)
		return false;
	i = (size_t)(e - s->v);
	s->v[i] = s->v[--s->n];
	return true;
}

const struct port_disabled *
pds_find(const struct port_disabled_set *s, const char *node, uint8_t port)
{
	unsigned long long g;
	char *end;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].port == port && strcmp(s->v[i].desc, node) == 0)
			return &s->v[i];
	errno = 0;
	g = strtoull(node, &end, 0);
	if (errno || *node == '\0' || *end != '\0')
		return NULL;
	return pds_get(s, g, port);
}

void
pds_free(struct port_disabled_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int
pds_load(struct port_disabled_set *s, struct store *st, const char *subnet)
{
	sqlite3_stmt *q;
	int rc;

	if (st == NULL)
		return 0;
	if ((q = store_prepare(st, "SELECT node_guid, port, desc, set_ms FROM sm_disabled_ports "
	    "WHERE subnet = ?")) == NULL)
		return -1;
	sqlite3_bind_text(q, 1, subnet, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		pds_add(s, (uint64_t)sqlite3_column_int64(q, 0), (uint8_t)sqlite3_column_int(q, 1),
		    (const char *)sqlite3_column_text(q, 2), sqlite3_column_int64(q, 3));
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* One statement, in a transaction of its own: the row is there or not. */
static int
write_one(struct store *st, sqlite3_stmt *q)
{
	if (store_begin(st) != 0) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
		return -1;
	}
	if (store_step_done(st, q) != 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st);
}

int
pds_store_add(struct store *st, const char *subnet, const struct port_disabled *e)
{
	sqlite3_stmt *q;

	if (st == NULL)
		return 0;
	if ((q = store_prepare(st, "INSERT OR REPLACE INTO sm_disabled_ports "
	    "(node_guid, port, desc, set_ms, subnet) VALUES (?, ?, ?, ?, ?)")) == NULL)
		return -1;
	sqlite3_bind_text(q, 5, subnet, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 1, (sqlite3_int64)e->node_guid);
	sqlite3_bind_int(q, 2, e->port);
	sqlite3_bind_text(q, 3, e->desc, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 4, e->set_ms);
	return write_one(st, q);
}

int
pds_store_remove(struct store *st, const char *subnet, uint64_t guid, uint8_t port)
{
	sqlite3_stmt *q;

	if (st == NULL)
		return 0;
	if ((q = store_prepare(st, "DELETE FROM sm_disabled_ports "
	    "WHERE node_guid = ? AND port = ? AND subnet = ?")) == NULL)
		return -1;
	sqlite3_bind_text(q, 3, subnet, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 1, (sqlite3_int64)guid);
	sqlite3_bind_int(q, 2, port);
	return write_one(st, q);
}

void
port_phys_set_build(const uint8_t last[64], uint8_t phys, uint8_t out[64])
{
	ib_port_info_t pi;

	memcpy(&pi, last, sizeof(pi));
	ib_port_info_set_port_state(&pi, IB_LINK_NO_CHANGE);
	ib_port_info_set_port_phys_state(phys, &pi);
	/* 0 is "no change" for the enables: writing back what was read
	 * would re-train the link on ibsim (activate.c does the same). */
	pi.link_width_enabled = 0;
	ib_port_info_set_link_speed_enabled(&pi, 0);
	ib_port_info_set_link_speed_ext_enabled(&pi, 0);
	ib_port_info_set_client_rereg(&pi, 0);	/* never echo one read back */
	memcpy(out, &pi, sizeof(pi));
}
