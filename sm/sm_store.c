/*
 * The SM's durable copy: each sweep's record at its end, in one small
 * transaction; the model (nodes, ports; the links are a view over the
 * ports) and the new LID assignments through the model writer
 * (store_model.c), which writes them behind the sweep in slices.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "sm/sm_internal.h"

/* sql must be a literal: store_prepare caches by its address. */
static int
exec_sql(struct store *st, const char *sql)
{
	sqlite3_stmt *s = store_prepare(st, sql);

	return s ? store_step_done(st, s) : -1;
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
	uint64_t *guids;
	uint16_t *lids;
	size_t n;

	if (st == NULL || sm->writer == NULL)
		return;
	/* New LIDs first: they go out in the writer's first slices. */
	n = sm_lids_take_unsaved(&sm->lids, &guids, &lids);
	model_writer_lids(sm->writer, guids, lids, n);
	if (write_model && sm->fabric)
		model_writer_update(sm->writer, sm->fabric);
	if (store_begin(st) < 0)
		return;
	if (store_record(st, &sm->cur) < 0) {
		store_rollback(st);
		log_warnx("sm: sweep not stored");
		return;
	}
	/* Light sweeps every few seconds: keep a bounded history. */
	exec_sql(st, "DELETE FROM sm_sweeps WHERE id <= (SELECT max(id) FROM sm_sweeps) - 10000");
	if (store_commit(st) < 0)
		log_warnx("sm: sweep not stored");
}
