/*
 * LID assignment, LMC 0, persisted GUID -> LID in sqlite (sm_lids).
 *
 * Order of preference, so that a LID never moves without cause:
 *   1. the LID the database remembers for the port GUID;
 *   2. the LID the port already holds, if nobody else owns it;
 *   3. the lowest LID that no GUID in the database owns.
 * The database is read once at start into two arrays (LID -> GUID and a
 * GUID -> LID hash); new assignments are written in the sweep's
 * transaction.
 */
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/sm_internal.h"

static uint64_t *lid_owner;		/* [FABRIC_MAX_LID + 1] GUID, 0 free */
static uint64_t *map_keys;		/* GUID -> LID, open addressing */
static uint16_t *map_vals;
static size_t map_cap, map_count;

static size_t
hash64(uint64_t g)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdULL;
	g ^= g >> 33;
	return (size_t)g;
}

static uint16_t
map_get(uint64_t guid)
{
	size_t i;

	if (map_cap == 0)
		return 0;
	for (i = hash64(guid) & (map_cap - 1); map_keys[i]; i = (i + 1) & (map_cap - 1))
		if (map_keys[i] == guid)
			return map_vals[i];
	return 0;
}

static void
map_put(uint64_t guid, uint16_t lid)
{
	size_t i;

	if ((map_count + 1) * 2 > map_cap) {
		uint64_t *ok = map_keys;
		uint16_t *ov = map_vals;
		size_t oc = map_cap;

		map_cap = map_cap ? map_cap * 2 : 1024;
		map_keys = xcalloc(map_cap, sizeof(*map_keys));
		map_vals = xcalloc(map_cap, sizeof(*map_vals));
		map_count = 0;
		for (i = 0; i < oc; i++)
			if (ok[i])
				map_put(ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	for (i = hash64(guid) & (map_cap - 1); map_keys[i]; i = (i + 1) & (map_cap - 1))
		if (map_keys[i] == guid) {
			map_vals[i] = lid;
			return;
		}
	map_keys[i] = guid;
	map_vals[i] = lid;
	map_count++;
}

/* New assignments wait here for the sweep's one transaction. */
static uint64_t *unsaved_guid;
static uint16_t *unsaved_lid;
static size_t nunsaved, unsaved_cap;

static void
remember(struct sm *sm, uint64_t guid, uint16_t lid)
{
	uint16_t old = map_get(guid);

	if (old == lid)
		return;
	if (old && lid_owner[old] == guid)
		lid_owner[old] = 0;
	lid_owner[lid] = guid;
	map_put(guid, lid);
	if (nunsaved == unsaved_cap) {
		unsaved_cap = unsaved_cap ? unsaved_cap * 2 : 256;
		unsaved_guid = xreallocarray(unsaved_guid, unsaved_cap, sizeof(*unsaved_guid));
		unsaved_lid = xreallocarray(unsaved_lid, unsaved_cap, sizeof(*unsaved_lid));
	}
	unsaved_guid[nunsaved] = guid;
	unsaved_lid[nunsaved++] = lid;
}

/* Inside the caller's transaction. */
void
sm_lids_save(struct sm *sm)
{
	sqlite3_stmt *st;
	char hex[24];
	size_t i;

	if (sm->fd == NULL || sm->fd->store == NULL)
		return;
	for (i = 0; i < nunsaved; i++) {
		st = store_prepare(sm->fd->store,
		    "INSERT OR REPLACE INTO sm_lids (guid, lid, time_ms) VALUES (?, ?, ?)");
		if (st == NULL)
			return;
		snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)unsaved_guid[i]);
		sqlite3_bind_text(st, 1, hex, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, unsaved_lid[i]);
		sqlite3_bind_int64(st, 3, event_now_ms());
		store_step_done(sm->fd->store, st);
	}
	nunsaved = 0;
}

int
sm_lids_load(struct sm *sm)
{
	sqlite3_stmt *st;

	sm_lids_free();
	lid_owner = xcalloc(FABRIC_MAX_LID + 1, sizeof(*lid_owner));
	if (sm->fd == NULL || sm->fd->store == NULL)
		return 0;
	if ((st = store_prepare(sm->fd->store, "SELECT guid, lid FROM sm_lids")) == NULL)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		uint64_t guid = text ? strtoull(text, NULL, 0) : 0;
		int lid = sqlite3_column_int(st, 1);

		if (guid == 0 || lid <= 0 || lid > FABRIC_MAX_LID || lid_owner[lid])
			continue;
		lid_owner[lid] = guid;
		map_put(guid, (uint16_t)lid);
	}
	sqlite3_reset(st);
	log_info("sm: %zu persisted LIDs", map_count);
	return 0;
}

void
sm_lids_free(void)
{
	free(lid_owner);
	free(map_keys);
	free(map_vals);
	lid_owner = NULL;
	map_keys = NULL;
	map_vals = NULL;
	map_cap = map_count = 0;
	free(unsaved_guid);
	free(unsaved_lid);
	unsaved_guid = NULL;
	unsaved_lid = NULL;
	nunsaved = unsaved_cap = 0;
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

#define LID_EVENTS_MAX 16	/* more than this: one summary event */

static struct fabric_port *assigned[LID_EVENTS_MAX];
static size_t nassigned;

static void
give(struct sm *sm, struct fabric *f, struct fabric_port *p, uint16_t lid, uint8_t *taken)
{
	taken[lid] = 1;
	fabric_set_lid(f, p, lid);
	if (map_get(p->guid) != lid) {
		remember(sm, p->guid, lid);
		if (nassigned < LID_EVENTS_MAX)
			assigned[nassigned] = p;
		nassigned++;
	}
}

static void
post_assignments(struct sm *sm)
{
	char obj[96];
	size_t i;

	if (nassigned > LID_EVENTS_MAX) {
		event_post(EV_INFO, "sm", NULL, "%zu LIDs assigned", nassigned);
		sm->cur.changes++;
		return;
	}
	for (i = 0; i < nassigned; i++) {
		struct fabric_port *p = assigned[i];

		snprintf(obj, sizeof(obj), "%s[%u]", p->node->desc, p->num);
		event_post(EV_INFO, "sm", obj, "LID %u assigned to port 0x%016llx", p->lid,
		    (unsigned long long)p->guid);
		sm->cur.changes++;
	}
}

void
sm_lids_assign(struct sm *sm, struct fabric *f)
{
	uint8_t *taken = xcalloc(FABRIC_MAX_LID + 1, 1);
	struct fabric_node *n;
	uint16_t next_free = 1, lid;
	size_t i;
	unsigned j, pass;

	if (lid_owner == NULL)
		lid_owner = xcalloc(FABRIC_MAX_LID + 1, sizeof(*lid_owner));
	nassigned = 0;
	for (pass = 1; pass <= 3; pass++) {
		FABRIC_FOREACH_NODE(f, i, n) {
			for (j = 0; j <= n->nports; j++) {
				struct fabric_port *p = &n->ports[j];

				if (!lid_port(p) || (pass > 1 && p->lid))
					continue;
				if (pass == 1) {
					lid = map_get(p->guid);
					if (lid && !taken[lid])
						give(sm, f, p, lid, taken);
				} else if (pass == 2) {
					lid = held_lid(p);
					if (lid && lid <= FABRIC_MAX_LID && !taken[lid] &&
					    (lid_owner[lid] == 0 || lid_owner[lid] == p->guid))
						give(sm, f, p, lid, taken);
				} else {
					while (next_free <= FABRIC_MAX_LID &&
					    (taken[next_free] || lid_owner[next_free]))
						next_free++;
					if (next_free > FABRIC_MAX_LID) {
						log_warnx("sm: out of LIDs");
						goto out;
					}
					give(sm, f, p, next_free, taken);
				}
			}
		}
	}
out:
	post_assignments(sm);
	free(taken);
}
