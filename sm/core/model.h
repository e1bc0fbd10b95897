/*
 * The SM's steps that work on a model alone, without an SM around them,
 * so that unit tests reach them: LID assignment with its persistence
 * (lids.c), degraded links (activate.c) and change events (diff.c).
 * sm_internal.h includes this; so may a test.
 */
#ifndef FABRICD_SM_MODEL_H
#define FABRICD_SM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "common/guid.h"
#include "daemon/store.h"
#include "fabric/fabric.h"

#define SM_LID_EVENTS_MAX 16	/* more assigned in a sweep: one summary event */

/* LIDs: what the database holds, and this sweep's new ones. */
struct sm_lids {
	uint64_t		*owner;		/* [FABRIC_MAX_LID + 1] GUID, 0 free */
	struct guid_map		 by_guid;	/* GUID -> LID */
	uint64_t		*unsaved_guid;	/* new, for the sweep's transaction */
	uint16_t		*unsaved_lid;
	size_t			 nunsaved, unsaved_cap;
	struct fabric_port	*assigned[SM_LID_EVENTS_MAX];	/* for events */
	size_t			 nassigned;
};

/* Read what store remembers (store NULL: nothing).  0 or -1. */
int sm_lids_load(struct sm_lids *l, struct store *store, const char *subnet);
/* Give every LID-carrying port of f its LID; returns the events posted. */
unsigned sm_lids_assign(struct sm_lids *l, struct fabric *f, const char *source);
/* Write the new assignments, inside the caller's transaction. */
void sm_lids_save(struct sm_lids *l, struct store *store, const char *subnet);
/* Hand the new assignments over (the arrays are the caller's to free);
 * returns how many. */
size_t sm_lids_take_unsaved(struct sm_lids *l, uint64_t **guids, uint16_t **lids);
/* Take another node's map as ours (ha: the master's), for what is not
 * assigned yet and for the next sweep; the number of entries taken. */
size_t sm_lids_replace(struct sm_lids *l, const uint64_t *guids, const uint16_t *lids, size_t n);
void sm_lids_free(struct sm_lids *l);

/* Mark the links running below what both ends support. */
void sm_mark_degraded(struct fabric *f);
/* Events for what changed between two models; returns how many. */
unsigned sm_diff_events(const struct fabric *old, const struct fabric *cur, const char *source);

#endif
