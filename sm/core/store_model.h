/*
 * The SM's model rows and new LIDs, written to sqlite behind the sweeps in
 * slices of a few ms (see store_model.c for why and what a crash keeps).
 */
#ifndef FABRICD_SM_STORE_MODEL_H
#define FABRICD_SM_STORE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/store.h"
#include "fabric/fabric.h"

struct model_writer;

/* base NULL: every write happens at once (unit tests). */
struct model_writer *model_writer_new(struct event_base *base, struct store *store,
    const char *subnet);
/* Queue the rows of every node of f that changed since written, and the
 * removal of nodes gone; returns how many nodes were queued. */
size_t model_writer_update(struct model_writer *w, const struct fabric *f);
/* Queue LID assignments (the arrays are the writer's now). */
void model_writer_lids(struct model_writer *w, uint64_t *guids, uint16_t *lids, size_t n);
size_t model_writer_pending(const struct model_writer *w);
/* {queued, rows, slices, slice_max_ms} */
json_t *model_writer_status(const struct model_writer *w);
/* Writes what is queued (at once), then frees. */
void model_writer_free(struct model_writer *w);

#endif
