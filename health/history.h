/*
 * Counter history in sqlite, bounded by downsampling.
 *
 * Every polling round writes one tier-0 row per port (the increments of
 * that round).  Increments are also summed in memory into 5-minute and
 * 1-hour buckets; when a bucket closes it is written as one tier-1 or
 * tier-2 row and that port's rows past their retention are deleted, so
 * pruning is spread over time and ports.  Partial buckets are lost on a
 * restart (at most 5 minutes / 1 hour of the coarse tiers; tier 0 has them).
 *
 * Bound: rows per port = keep0/interval + keep1/5min + keep2/1h; with the
 * defaults (1 h at 10 s, 24 h, 30 days) that is 360 + 288 + 720 = 1368.
 * health/README.md states the measured bytes and the 2,000-port figure.
 */
#ifndef FABRICD_HEALTH_HISTORY_H
#define FABRICD_HEALTH_HISTORY_H

#include <stdint.h>
#include <jansson.h>

#include "daemon/store.h"
#include "daemon/store_writer.h"
#include "health/counters.h"

#define HISTORY_TIERS 3
extern const uint64_t history_bucket_ms[HISTORY_TIERS];	/* 0, 5 min, 1 h */

struct history_cfg {
	uint64_t keep_ms[HISTORY_TIERS];	/* defaults 1 h, 24 h, 30 days */
};

void history_cfg_default(struct history_cfg *c);

struct history_port {
	uint64_t	node_guid;
	uint8_t		port;
	int64_t		bucket[HISTORY_TIERS];		/* index of the open bucket, 0 none */
	uint64_t	sum[HISTORY_TIERS][HC_COUNT];
};

/*
 * The writes go into a batch (daemon/store_writer.h) that the caller
 * hands to the store's writer thread: the loop never waits for them.
 * A port's row is keyed by (GUID, port) in the statements themselves.
 */
/* Sets hp up and adds the statement that creates or renames its row. */
void history_port_open(struct store_batch *b, uint64_t node_guid, uint8_t port,
    const char *desc, struct history_port *hp);

/* One round's increments ending at now_ms: its row, and closed buckets'. */
void history_record(struct store_batch *b, const struct history_cfg *c, struct history_port *hp,
    int64_t now_ms, uint64_t span_ms, const uint64_t delta[HC_COUNT]);

/*
 * History of a port since since_ms, oldest first, finest tier available for
 * each stretch of time: an array of {t_ms, span_ms, tier, <counter>: n,
 * rates: {<counter>: per second}} objects (empty before the port's first
 * write).  NULL on a database error.
 */
json_t *history_query(struct store *st, uint64_t node_guid, uint8_t port, int64_t since_ms);

/* Rows currently stored (all ports, all tiers), -1 on error. */
int64_t history_row_count(struct store *st);

#endif
