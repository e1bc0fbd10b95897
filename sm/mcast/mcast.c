/*
 * The multicast group table (sm/mcast/mcast.h).  Few groups (a handful per
 * partition), few members per group on most fabrics: plain arrays,
 * searched linearly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sm/mcast/mcast.h"

void
mc_db_init(struct mc_db *db)
{
	memset(db, 0, sizeof(*db));
}

static void
group_free(struct mc_group *g)
{
	free(g->members);
	free(g);
}

void
mc_db_free(struct mc_db *db)
{
	for (size_t i = 0; i < db->ngroups; i++)
		group_free(db->groups[i]);
	free(db->groups);
	memset(db, 0, sizeof(*db));
}

struct mc_db *
mc_db_new(void)
{
	struct mc_db *db = xmalloc(sizeof(*db));

	mc_db_init(db);
	return db;
}

void
mc_db_delete(struct mc_db *db)
{
	if (db == NULL)
		return;
	mc_db_free(db);
	free(db);
}

struct mc_group *
mc_find(const struct mc_db *db, const uint8_t mgid[16])
{
	for (size_t i = 0; i < db->ngroups; i++)
		if (memcmp(db->groups[i]->mgid, mgid, 16) == 0)
			return db->groups[i];
	return NULL;
}

struct mc_group *
mc_find_mlid(const struct mc_db *db, uint16_t mlid)
{
	for (size_t i = 0; i < db->ngroups; i++)
		if (db->groups[i]->mlid == mlid)
			return db->groups[i];
	return NULL;
}

static void
note_event(struct mc_db *db, const uint8_t mgid[16], bool created)
{
	if (db->nevents >= MC_EVENTS_MAX)
		return;
	memcpy(db->events[db->nevents].mgid, mgid, 16);
	db->events[db->nevents++].created = created;
}

static int
mlid_take(struct mc_db *db)
{
	for (unsigned i = 0; i < MC_MLID_MAX; i++)
		if (!(db->mlid_used[i / 8] & (1u << (i % 8)))) {
			db->mlid_used[i / 8] |= (uint8_t)(1u << (i % 8));
			return (int)(MC_MLID_BASE + i);
		}
	return -1;
}

static void
mlid_free(struct mc_db *db, uint16_t mlid)
{
	unsigned i = (unsigned)(mlid - MC_MLID_BASE);

	if (mlid >= MC_MLID_BASE && i < MC_MLID_MAX)
		db->mlid_used[i / 8] &= (uint8_t)~(1u << (i % 8));
}

struct mc_group *
mc_create(struct mc_db *db, const uint8_t mgid[16], const struct mc_params *p, bool sm_owned)
{
	struct mc_group *g;
	int mlid = mlid_take(db);

	if (mlid < 0)
		return NULL;
	g = xcalloc(1, sizeof(*g));
	memcpy(g->mgid, mgid, 16);
	g->mlid = (uint16_t)mlid;
	g->p = *p;
	g->sm_owned = sm_owned;
	if (db->ngroups == db->cap) {
		db->cap = db->cap ? db->cap * 2 : 8;
		db->groups = xreallocarray(db->groups, db->cap, sizeof(*db->groups));
	}
	db->groups[db->ngroups++] = g;
	db->created++;
	note_event(db, mgid, true);
	db->gen++;
	return g;
}

void
mc_delete(struct mc_db *db, struct mc_group *g)
{
	for (size_t i = 0; i < db->ngroups; i++)
		if (db->groups[i] == g) {
			db->groups[i] = db->groups[--db->ngroups];
			note_event(db, g->mgid, false);
			mlid_free(db, g->mlid);
			group_free(g);
			db->deleted++;
			db->gen++;
			return;
		}
}

struct mc_member *
mc_member_find(const struct mc_group *g, uint64_t port_guid)
{
	for (size_t i = 0; i < g->nmembers; i++)
		if (g->members[i].port_guid == port_guid)
			return &g->members[i];
	return NULL;
}

struct mc_member *
mc_member_join(struct mc_db *db, struct mc_group *g, uint64_t port_guid,
    const uint8_t port_gid[16], uint8_t join_state, bool proxy)
{
	struct mc_member *m = mc_member_find(g, port_guid);

	if (m == NULL) {
		if (g->nmembers == g->cap) {
			g->cap = g->cap ? g->cap * 2 : 8;
			g->members = xreallocarray(g->members, g->cap, sizeof(*g->members));
		}
		m = &g->members[g->nmembers++];
		memset(m, 0, sizeof(*m));
		m->port_guid = port_guid;
	}
	memcpy(m->port_gid, port_gid, 16);
	if ((m->join_state | join_state) != m->join_state)
		db->gen++;
	m->join_state |= join_state & 0x0F;
	m->proxy = proxy;
	return m;
}

uint8_t
mc_member_leave(struct mc_db *db, struct mc_group *g, uint64_t port_guid, uint8_t join_state)
{
	struct mc_member *m = mc_member_find(g, port_guid);
	uint8_t before;

	if (m == NULL)
		return 0;
	before = m->join_state;
	m->join_state &= (uint8_t)~join_state;
	if (m->join_state != before)
		db->gen++;
	if (m->join_state == 0)
		*m = g->members[--g->nmembers];
	return before;
}

bool
mc_group_receives(const struct mc_group *g)
{
	for (size_t i = 0; i < g->nmembers; i++)
		if (g->members[i].join_state & MC_JOIN_RECEIVES)
			return true;
	return false;
}

void
mc_ipoib_broadcast_mgid(uint16_t pkey, uint8_t scope, uint8_t mgid[16])
{
	static const uint8_t tmpl[16] = {
		0xff, 0x10, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};

	memcpy(mgid, tmpl, 16);
	mgid[1] |= scope & 0x0F;
	mgid[4] = (uint8_t)(pkey >> 8);
	mgid[5] = (uint8_t)pkey;
}

bool
mc_mgid_ipoib_pkey(const uint8_t mgid[16], uint16_t *pkey)
{
	if (mgid[0] != 0xff || mgid[3] != 0x1b || (mgid[2] != 0x40 && mgid[2] != 0x60))
		return false;
	*pkey = (uint16_t)(mgid[4] << 8 | mgid[5]);
	return true;
}

char *
mc_mgid_format(const uint8_t mgid[16], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
	    mgid[0], mgid[1], mgid[2], mgid[3], mgid[4], mgid[5], mgid[6], mgid[7],
	    mgid[8], mgid[9], mgid[10], mgid[11], mgid[12], mgid[13], mgid[14], mgid[15]);
	return buf;
}
