/*
 * LID assignment, LMC 0, persisted GUID -> LID in sqlite (sm_lids).
 *
 * Order of preference, so that a LID never moves without cause:
 *   1. the LID the database remembers for the port GUID;
 *   2. the LID the port already holds, if nobody else owns it;
 *   3. the lowest LID that no GUID in the database owns.
 * The database is read once at start into sm->lids (LID -> GUID array and
 * a GUID -> LID map); new assignments are written in the sweep's
 * transaction.
 */
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/guid.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/model.h"

/* The map holds each LID as a pointer-sized integer (LID 0: none). */
static uint16_t
lid_of(const struct sm_lids *l, uint64_t guid)
{
	return (uint16_t)(uintptr_t)guid_map_get(&l->by_guid, guid);
}

static void
lid_put(struct sm_lids *l, uint64_t guid, uint16_t lid)
{
	guid_map_put(&l->by_guid, guid, (void *)(uintptr_t)lid);
}

/* New assignments wait in l->unsaved_* for the sweep's one transaction. */
static void
remember(struct sm_lids *l, uint64_t guid, uint16_t lid)
{
	uint16_t old = lid_of(l, guid);

	if (old == lid)
		return;
	if (old && l->owner[old] == guid)
		l->owner[old] = 0;
	l->owner[lid] = guid;
	lid_put(l, guid, lid);
	if (l->nunsaved == l->unsaved_cap) {
		l->unsaved_cap = l->unsaved_cap ? l->unsaved_cap * 2 : 256;
		l->unsaved_guid = xreallocarray(l->unsaved_guid, l->unsaved_cap,
		    sizeof(*l->unsaved_guid));
		l->unsaved_lid = xreallocarray(l->unsaved_lid, l->unsaved_cap,
		    sizeof(*l->unsaved_lid));
	}
	l->unsaved_guid[l->nunsaved] = guid;
	l->unsaved_lid[l->nunsaved++] = lid;
}

/* Inside the caller's transaction. */
void
sm_lids_save(struct sm_lids *l, struct store *store, const char *subnet)
{
	sqlite3_stmt *st;
	char hex[GUID_STR_LEN];
	size_t i;

	if (store == NULL)
		return;
	for (i = 0; i < l->nunsaved; i++) {
		st = store_prepare(store,
		    "INSERT OR REPLACE INTO sm_lids (guid, lid, time_ms, subnet) VALUES (?, ?, ?, ?)");
		if (st == NULL)
			return;
		sqlite3_bind_text(st, 1, guid_format(l->unsaved_guid[i], hex, sizeof(hex)), -1,
		    SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, l->unsaved_lid[i]);
		sqlite3_bind_int64(st, 3, event_now_ms());
		sqlite3_bind_text(st, 4, subnet, -1, SQLITE_TRANSIENT);
		store_step_done(store, st);
	}
	l->nunsaved = 0;
}

size_t
sm_lids_take_unsaved(struct sm_lids *l, uint64_t **guids, uint16_t **lids)
{
	size_t n = l->nunsaved;

	*guids = l->unsaved_guid;
	*lids = l->unsaved_lid;
	l->unsaved_guid = NULL;
	l->unsaved_lid = NULL;
	l->nunsaved = l->unsaved_cap = 0;
	return n;
}

int
sm_lids_load(struct sm_lids *l, struct store *store, const char *subnet)
{
	sqlite3_stmt *st;

	sm_lids_free(l);
	l->owner = xcalloc(FABRIC_MAX_LID + 1, sizeof(*l->owner));
	if (store == NULL)
		return 0;
	if ((st = store_prepare(store, "SELECT guid, lid FROM sm_lids WHERE subnet = ?")) == NULL)
		return -1;
	sqlite3_bind_text(st, 1, subnet, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		uint64_t guid = 0;
		int lid = sqlite3_column_int(st, 1);

		if (guid_parse(text, &guid) != 0 || lid <= 0 || lid > FABRIC_MAX_LID ||
		    l->owner[lid])
			continue;
		l->owner[lid] = guid;
		lid_put(l, guid, (uint16_t)lid);
	}
	sqlite3_reset(st);
	log_info("sm: %zu persisted LIDs", l->by_guid.count);
	return 0;
}

size_t
sm_lids_replace(struct sm_lids *l, const uint64_t *guids, const uint16_t *lids, size_t n)
{
	size_t took = 0;

	if (l->owner == NULL)
		l->owner = xcalloc(FABRIC_MAX_LID + 1, sizeof(*l->owner));
	memset(l->owner, 0, (FABRIC_MAX_LID + 1) * sizeof(*l->owner));
	guid_map_free(&l->by_guid);
	for (size_t i = 0; i < n; i++) {
		if (guids[i] == 0 || lids[i] == 0 || lids[i] > FABRIC_MAX_LID ||
		    l->owner[lids[i]] || lid_of(l, guids[i]))
			continue;	/* one owner per LID, one LID per GUID */
		l->owner[lids[i]] = guids[i];
		lid_put(l, guids[i], lids[i]);
		took++;
	}
	return took;
}

void
sm_lids_free(struct sm_lids *l)
{
	free(l->owner);
	guid_map_free(&l->by_guid);
	free(l->unsaved_guid);
	free(l->unsaved_lid);
	memset(l, 0, sizeof(*l));
}

/* The ports that carry a LID: switch port 0 and every CA port we reached. */
static bool
lid_port(const struct fabric_port *p)
{
	if (p->node->type == FABRIC_SWITCH)
		return p->num == 0;
	return p->num > 0 && p->guid != 0;
}

static uint16_t
held_lid(const struct fabric_port *p)
{
	return be16toh(((const ib_port_info_t *)p->pi)->base_lid);
}

static void
give(struct sm_lids *l, struct fabric *f, struct fabric_port *p, uint16_t lid, uint8_t *taken)
{
	taken[lid] = 1;
	fabric_set_lid(f, p, lid);
	if (lid_of(l, p->guid) != lid) {
		remember(l, p->guid, lid);
		if (l->nassigned < SM_LID_EVENTS_MAX)
			l->assigned[l->nassigned] = p;
		l->nassigned++;
	}
}

/* Events for this sweep's new LIDs; returns how many. */
static unsigned
post_assignments(struct sm_lids *l, const char *source)
{
	char obj[96];
	size_t i;

	if (l->nassigned > SM_LID_EVENTS_MAX) {
		event_post(EV_INFO, source, NULL, "%zu LIDs assigned", l->nassigned);
		return 1;
	}
	for (i = 0; i < l->nassigned; i++) {
		struct fabric_port *p = l->assigned[i];

		snprintf(obj, sizeof(obj), "%s:%u", p->node->desc, p->num);
		event_post(EV_INFO, source, obj, "LID %u assigned to port " GUID_FMT, p->lid,
		    p->guid);
	}
	return (unsigned)l->nassigned;
}

unsigned
sm_lids_assign(struct sm_lids *l, struct fabric *f, const char *source)
{
	uint8_t *taken = xcalloc(FABRIC_MAX_LID + 1, 1);
	struct fabric_node *n;
	unsigned events;
	uint16_t next_free = 1, lid;
	size_t i;
	unsigned j, pass;

	if (l->owner == NULL)
		l->owner = xcalloc(FABRIC_MAX_LID + 1, sizeof(*l->owner));
	l->nassigned = 0;
	for (pass = 1; pass <= 3; pass++) {
		FABRIC_FOREACH_NODE(f, i, n) {
			for (j = 0; j <= n->nports; j++) {
				struct fabric_port *p = &n->ports[j];

				if (!lid_port(p) || (pass > 1 && p->lid))
					continue;
				if (pass == 1) {
					lid = lid_of(l, p->guid);
					if (lid && !taken[lid])
						give(l, f, p, lid, taken);
				} else if (pass == 2) {
					lid = held_lid(p);
					if (lid && lid <= FABRIC_MAX_LID && !taken[lid] &&
					    (l->owner[lid] == 0 || l->owner[lid] == p->guid))
						give(l, f, p, lid, taken);
				} else {
					while (next_free <= FABRIC_MAX_LID &&
					    (taken[next_free] || l->owner[next_free]))
						next_free++;
					if (next_free > FABRIC_MAX_LID) {
						log_warnx("sm: out of LIDs");
						goto out;
					}
					give(l, f, p, next_free, taken);
				}
			}
		}
	}
out:
	events = post_assignments(l, source);
	free(taken);
	return events;
}
