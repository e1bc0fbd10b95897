/* Downsampled counter history: see history.h. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "common/log.h"
#include "health/history.h"

const uint64_t history_bucket_ms[HISTORY_TIERS] = { 0, 5 * 60 * 1000, 60 * 60 * 1000 };

void
history_cfg_default(struct history_cfg *c)
{
	c->keep_ms[0] = 60 * 60 * 1000ULL;
	c->keep_ms[1] = 24 * 60 * 60 * 1000ULL;
	c->keep_ms[2] = 30 * 24 * 60 * 60 * 1000ULL;
}

void
history_port_open(struct store_batch *b, uint64_t node_guid, uint8_t port,
    const char *desc, struct history_port *hp)
{
	memset(hp, 0, sizeof(*hp));
	hp->node_guid = node_guid;
	hp->port = port;
	store_batch_sql(b, "INSERT INTO health_ports (node_guid, port, node_desc) VALUES (?1, ?2, ?3) "
	    "ON CONFLICT (node_guid, port) DO UPDATE SET node_desc = excluded.node_desc");
	store_batch_int(b, (int64_t)node_guid);
	store_batch_int(b, port);
	store_batch_text(b, desc ? desc : "");
}

/* The port's row is found by (GUID, port) where the row is written, so
 * the loop never waits to learn its id. */
static void
port_key(struct store_batch *b, const struct history_port *hp)
{
	store_batch_int(b, (int64_t)hp->node_guid);
	store_batch_int(b, hp->port);
}

static void
insert_row(struct store_batch *b, const struct history_port *hp, int tier, int64_t t_ms,
    uint64_t span_ms, const uint64_t v[HC_COUNT])
{
	store_batch_sql(b, "INSERT OR REPLACE INTO health_samples SELECT id, ?3, ?4, ?5, ?6, ?7, "
	    "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22 "
	    "FROM health_ports WHERE node_guid = ?1 AND port = ?2");
	port_key(b, hp);
	store_batch_int(b, tier);
	store_batch_int(b, t_ms);
	store_batch_int(b, (int64_t)span_ms);
	/* Counters above 2^63 would need 292 years at 400 Gb/s: store as is. */
	for (int i = 0; i < HC_COUNT; i++)
		store_batch_int(b, (int64_t)v[i]);
}

static void
prune(struct store_batch *b, const struct history_port *hp, int tier, int64_t before_ms)
{
	store_batch_sql(b, "DELETE FROM health_samples WHERE port_id = (SELECT id FROM "
	    "health_ports WHERE node_guid = ?1 AND port = ?2) AND tier = ?3 AND t_ms < ?4");
	port_key(b, hp);
	store_batch_int(b, tier);
	store_batch_int(b, before_ms);
}

/* Close the open bucket of a tier: write it, prune this port's old rows. */
static void
close_bucket(struct store_batch *b, const struct history_cfg *c, struct history_port *hp,
    int tier, int64_t now_ms)
{
	int64_t end = (hp->bucket[tier] + 1) * (int64_t)history_bucket_ms[tier];

	insert_row(b, hp, tier, end, history_bucket_ms[tier], hp->sum[tier]);
	memset(hp->sum[tier], 0, sizeof(hp->sum[tier]));
	/* The finer tier's rows now covered by this bucket can age out too. */
	prune(b, hp, tier, now_ms - (int64_t)c->keep_ms[tier]);
	if (tier == 1)
		prune(b, hp, 0, now_ms - (int64_t)c->keep_ms[0]);
}

void
history_record(struct store_batch *b, const struct history_cfg *c, struct history_port *hp,
    int64_t now_ms, uint64_t span_ms, const uint64_t delta[HC_COUNT])
{
	insert_row(b, hp, 0, now_ms, span_ms, delta);
	for (int tier = 1; tier < HISTORY_TIERS; tier++) {
		/* The round ending at now_ms belongs to the bucket holding now_ms - 1. */
		int64_t k = (now_ms - 1) / (int64_t)history_bucket_ms[tier];

		if (hp->bucket[tier] && k != hp->bucket[tier])
			close_bucket(b, c, hp, tier, now_ms);
		hp->bucket[tier] = k;
		for (int i = 0; i < HC_COUNT; i++)
			hp->sum[tier][i] += delta[i];
	}
}

static json_t *
row_json(sqlite3_stmt *s)
{
	int64_t span = sqlite3_column_int64(s, 2);
	json_t *o = json_pack("{s:I, s:I, s:i}", "t_ms", (json_int_t)sqlite3_column_int64(s, 0),
	    "span_ms", (json_int_t)span, "tier", sqlite3_column_int(s, 1));
	json_t *rates = json_object();

	for (int i = 0; i < HC_COUNT; i++) {
		uint64_t v = (uint64_t)sqlite3_column_int64(s, 3 + i);
		json_object_set_new(o, hc_info[i].metric, json_integer((json_int_t)v));
		if (v)
			json_object_set_new(rates, hc_info[i].metric, json_real(hc_rate(v, (uint64_t)span)));
	}
	json_object_set_new(o, "rates", rates);
	return o;
}

static bool
tier_scalar(sqlite3_stmt *s, int64_t port_id, int tier, int64_t arg, int64_t *out)
{
	bool found = false;

	if (s == NULL)
		return false;
	sqlite3_bind_int64(s, 1, port_id);
	sqlite3_bind_int(s, 2, tier);
	sqlite3_bind_int64(s, 3, arg);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*out = sqlite3_column_int64(s, 0);
		found = true;
	}
	sqlite3_reset(s);
	return found;
}

/*
 * Where tier k+1 hands over to tier k: the end of the first coarse bucket
 * that reaches into tier k's rows.  That bucket is used whole (its start
 * may have been pruned from tier k) and tier k takes over after it, so no
 * round is missed or counted twice.
 */
static int64_t
handover(struct store *st, int64_t port_id, int tier)
{
	int64_t first, c;

	if (!tier_scalar(store_prepare(st, "SELECT min(t_ms) FROM health_samples "
	    "WHERE port_id = ?1 AND tier = ?2 AND ?3 = ?3"), port_id, tier, 0, &first))
		return INT64_MAX;		/* no finer rows: the coarse tier goes on */
	if (tier_scalar(store_prepare(st, "SELECT min(t_ms) FROM health_samples "
	    "WHERE port_id = ?1 AND tier = ?2 AND t_ms >= ?3"), port_id, tier + 1, first, &c))
		return c;
	if (tier_scalar(store_prepare(st, "SELECT max(t_ms) FROM health_samples "
	    "WHERE port_id = ?1 AND tier = ?2 AND ?3 = ?3"), port_id, tier + 1, 0, &c))
		return c;
	return INT64_MIN;
}

/* The port's id, or -1 when it has no row yet. */
static int64_t
port_id_of(struct store *st, uint64_t node_guid, uint8_t port)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT id FROM health_ports WHERE node_guid = ?1 "
	    "AND port = ?2");
	int64_t id = -1;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)node_guid);
	sqlite3_bind_int(s, 2, port);
	if (sqlite3_step(s) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return id;
}

json_t *
history_query(struct store *st, uint64_t node_guid, uint8_t port, int64_t since_ms)
{
	int64_t port_id = port_id_of(st, node_guid, port);
	json_t *rows = json_array();
	int64_t lo[HISTORY_TIERS], hi[HISTORY_TIERS];

	if (port_id < 0)
		return rows;			/* nothing written yet */

	/* tier k is used for lo[k] < t_ms <= hi[k]. */
	hi[0] = INT64_MAX;
	for (int tier = 0; tier + 1 < HISTORY_TIERS; tier++) {
		lo[tier] = handover(st, port_id, tier);
		hi[tier + 1] = lo[tier] == INT64_MAX ? hi[tier] : lo[tier];
	}
	lo[HISTORY_TIERS - 1] = INT64_MIN;
	for (int tier = HISTORY_TIERS - 1; tier >= 0; tier--) {
		sqlite3_stmt *s = store_prepare(st, "SELECT t_ms, tier, span_ms, symbol_errors, link_error_recoveries, "
		    "link_downed, rcv_errors, rcv_remote_physical_errors, rcv_switch_relay_errors, "
		    "xmit_discards, xmit_constraint_errors, rcv_constraint_errors, "
		    "local_link_integrity_errors, excessive_buffer_overruns, vl15_dropped, xmit_wait, "
		    "xmit_data_words, rcv_data_words, xmit_packets, rcv_packets FROM health_samples "
		    "WHERE port_id = ?1 AND tier = ?2 AND t_ms > ?3 AND t_ms <= ?4 ORDER BY t_ms");
		int64_t from = lo[tier] > since_ms ? lo[tier] : since_ms;

		if (s == NULL) {
			json_decref(rows);
			return NULL;
		}
		if (tier < HISTORY_TIERS - 1 && lo[tier] == INT64_MAX)
			continue;			/* tier empty */
		sqlite3_bind_int64(s, 1, port_id);
		sqlite3_bind_int(s, 2, tier);
		sqlite3_bind_int64(s, 3, from);
		sqlite3_bind_int64(s, 4, hi[tier]);
		while (sqlite3_step(s) == SQLITE_ROW)
			json_array_append_new(rows, row_json(s));
		sqlite3_reset(s);
	}
	return rows;
}

int64_t
history_row_count(struct store *st)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT count(*) FROM health_samples");
	int64_t n = -1;

	if (s && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	if (s)
		sqlite3_reset(s);
	return n;
}
