/*
 * The SM's durable copy: after a heavy sweep the model (nodes, ports; the
 * links are a view over the ports), the new LID assignments and the sweep
 * record go to sqlite in one transaction; a light sweep writes its record
 * alone.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "sm/sm_internal.h"

static void
hex(char *buf, size_t len, uint64_t guid)
{
	guid_format(guid, buf, len);
}

/* sql must be a literal: store_prepare caches by its address. */
static int
exec_sql(struct store *st, const char *sql)
{
	sqlite3_stmt *s = store_prepare(st, sql);

	return s ? store_step_done(st, s) : -1;
}

static int
store_node(struct store *st, const struct fabric_node *n)
{
	sqlite3_stmt *s;
	char g[24], path[4 * FABRIC_MAX_HOPS + 2] = "0";
	size_t len = 1;
	unsigned i;

	for (i = 1; i <= n->hops && len + 5 < sizeof(path); i++)
		len += snprintf(path + len, sizeof(path) - len, ",%u", n->path[i]);
	s = store_prepare(st, "INSERT INTO sm_nodes (guid, type, nports, description, lid, hops, path)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (s == NULL)
		return -1;
	hex(g, sizeof(g), n->guid);
	sqlite3_bind_text(s, 1, g, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, fabric_node_type_name(n->type), -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, n->nports);
	sqlite3_bind_text(s, 4, n->desc, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 5, n->lid);
	sqlite3_bind_int(s, 6, n->hops);
	sqlite3_bind_text(s, 7, path, -1, SQLITE_TRANSIENT);
	return store_step_done(st, s);
}

static int
store_port(struct store *st, const struct fabric_port *p)
{
	sqlite3_stmt *s;
	char g[24], pg[24], peer[24];

	s = store_prepare(st, "INSERT INTO sm_ports (node_guid, num, guid, lid, state, phys_state,"
	    " width_active, speed_active, ext_speed_active, degraded, peer_guid, peer_port)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (s == NULL)
		return -1;
	hex(g, sizeof(g), p->node->guid);
	hex(pg, sizeof(pg), p->guid);
	sqlite3_bind_text(s, 1, g, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 2, p->num);
	sqlite3_bind_text(s, 3, pg, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 4, p->node->type == FABRIC_SWITCH ? p->node->lid : p->lid);
	sqlite3_bind_int(s, 5, p->state);
	sqlite3_bind_int(s, 6, p->phys_state);
	sqlite3_bind_int(s, 7, p->width_active);
	sqlite3_bind_int(s, 8, p->speed_active);
	sqlite3_bind_int(s, 9, p->ext_speed_active);
	sqlite3_bind_int(s, 10, p->degraded);
	if (p->peer) {
		hex(peer, sizeof(peer), p->peer->node->guid);
		sqlite3_bind_text(s, 11, peer, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(s, 12, p->peer->num);
	} else {
		sqlite3_bind_null(s, 11);
		sqlite3_bind_null(s, 12);
	}
	return store_step_done(st, s);
}

static int
store_model(struct store *st, const struct fabric *f)
{
	struct fabric_node *n;
	size_t i;
	unsigned j;

	if (exec_sql(st, "DELETE FROM sm_ports") < 0 ||
	    exec_sql(st, "DELETE FROM sm_nodes") < 0)
		return -1;
	FABRIC_FOREACH_NODE(f, i, n) {
		if (store_node(st, n) < 0)
			return -1;
		for (j = n->type == FABRIC_SWITCH ? 0 : 1; j <= n->nports; j++)
			if (store_port(st, &n->ports[j]) < 0)
				return -1;
	}
	return 0;
}

static int
store_record(struct store *st, const struct sweep_record *r)
{
	sqlite3_stmt *s = store_prepare(st, "INSERT INTO sm_sweeps (kind, start_ms, duration_ms,"
	    " mads, retries, timeouts, changes, lft_blocks, port_sets, unreachable,"
	    " unreachable_what, ok, qos_sets) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, r->kind == SWEEP_HEAVY ? "heavy" : "light", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, r->start_ms);
	sqlite3_bind_int64(s, 3, r->duration_ms);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)r->mads);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)r->retries);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)r->timeouts);
	sqlite3_bind_int(s, 7, r->changes);
	sqlite3_bind_int(s, 8, r->lft_blocks);
	sqlite3_bind_int(s, 9, r->port_sets);
	sqlite3_bind_int(s, 10, r->unreachable);
	sqlite3_bind_text(s, 11, r->unreachable_text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 12, r->ok);
	sqlite3_bind_int(s, 13, r->qos_sets);
	return store_step_done(st, s);
}

void
sm_store_sweep(struct sm *sm, bool write_model)
{
	struct store *st = sm->fd ? sm->fd->store : NULL;

	if (st == NULL)
		return;
	if (store_begin(st) < 0)
		return;
	if ((write_model && sm->fabric && store_model(st, sm->fabric) < 0) ||
	    store_record(st, &sm->cur) < 0) {
		store_rollback(st);
		log_warnx("sm: sweep not stored");
		return;
	}
	sm_lids_save(&sm->lids, sm->fd->store);
	/* Light sweeps every few seconds: keep a bounded history. */
	exec_sql(st, "DELETE FROM sm_sweeps WHERE id <= (SELECT max(id) FROM sm_sweeps) - 10000");
	if (store_commit(st) < 0)
		log_warnx("sm: sweep not stored");
}
