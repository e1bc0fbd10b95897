/*
 * The SM's durable copy: each sweep's record at its end, in one small
 * transaction of the store's writer thread; the model (nodes, ports; the links are a view over the
 * ports) and the new LID assignments through the model writer
 * (store_model.c), which writes them behind the sweep in slices.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "daemon/store_writer.h"
#include "sm/core/sm_internal.h"

/* The sweep's row, and the trim of the history, as one batch for the
 * store's writer thread: nothing on the loop waits for it. */
static void
add_record(struct store_batch *b, const char *subnet, const struct sweep_record *r)
{
	store_batch_sql(b, "INSERT INTO sm_sweeps (kind, start_ms, duration_ms,"
	    " mads, retries, timeouts, changes, lft_blocks, port_sets, unreachable,"
	    " unreachable_what, ok, qos_sets, cause, subnet)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	store_batch_text(b, r->kind == SWEEP_HEAVY ? "heavy" : "light");
	store_batch_int(b, r->start_ms);
	store_batch_int(b, r->duration_ms);
	store_batch_int(b, (int64_t)r->mads);
	store_batch_int(b, (int64_t)r->retries);
	store_batch_int(b, (int64_t)r->timeouts);
	store_batch_int(b, r->changes);
	store_batch_int(b, r->lft_blocks);
	store_batch_int(b, r->port_sets);
	store_batch_int(b, r->unreachable);
	store_batch_text(b, r->unreachable_text);
	store_batch_int(b, r->ok);
	store_batch_int(b, r->qos_sets);
	store_batch_text(b, r->periodic ? "periodic" : "event");
	store_batch_text(b, subnet);
	/* Light sweeps every few seconds: keep a bounded history. */
	store_batch_sql(b, "DELETE FROM sm_sweeps WHERE id <= (SELECT max(id) FROM sm_sweeps) - 10000");
}

void
sm_store_sweep(struct sm *sm, bool write_model)
{
	struct store *st = sm->fd ? sm->fd->store : NULL;
	uint64_t *guids;
	uint16_t *lids;
	struct store_batch *b;
	size_t n;

	if (st == NULL || sm->writer == NULL)
		return;
	/* New LIDs first: they go out in the writer's first slices. */
	n = sm_lids_take_unsaved(&sm->lids, &guids, &lids);
	if (n > 0)
		ha_mirror_changed(sm->mirror);	/* the next master keeps them */
	model_writer_lids(sm->writer, guids, lids, n);
	if (write_model && sm->fabric)
		model_writer_update(sm->writer, sm->fabric);
	b = store_batch_new();
	add_record(b, sm->subnet, &sm->cur);
	store_write_later(st, b);
}
