/*
 * Writes the event loop does not wait for.
 *
 * A module that only records (the event log, the health history) puts its
 * statements in a batch and hands the batch over; a thread with its own
 * connection writes each batch in one transaction, in the order handed
 * over.  So a write that waits for the disk (a journal commit of the file
 * system can hold a write 15-50 ms) costs that thread, not the MADs and
 * control requests on the loop.  What must be durable before the loop
 * goes on (a partition change's intent before its MADs) is still
 * written on the loop's own connection (store.h).
 *
 * Every batch gets a sequence number; store_written() says how far the
 * thread has come, so a module can tell what is stored and what is still
 * only in memory (events.c answers `events` from both).
 */
#ifndef FABRICD_STORE_WRITER_H
#define FABRICD_STORE_WRITER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "daemon/store.h"

struct store_batch;

struct store_batch *store_batch_new(void);
void store_batch_free(struct store_batch *b);
/* A statement: sql is a literal (statements are cached by its address);
 * its values follow in the order of the ?N, with the calls below. */
void store_batch_sql(struct store_batch *b, const char *sql);
void store_batch_int(struct store_batch *b, int64_t v);
void store_batch_text(struct store_batch *b, const char *s);	/* copied; NULL: SQL NULL */
size_t store_batch_statements(const struct store_batch *b);

/*
 * Hands b over (it is freed by the writer) and returns its sequence
 * number.  Without a writer thread (it did not start: logged) the batch
 * is written at once on the loop's connection.  An empty batch is freed
 * and gets the number of the last one handed over.
 */
uint64_t store_write_later(struct store *st, struct store_batch *b);
/* The sequence number of the last batch written (or failed: logged). */
uint64_t store_written(struct store *st);
/* How many batches failed so far (each logged): a module that keeps a
 * digest of what it stored starts again when this moves. */
uint64_t store_write_failures(struct store *st);
/* Blocks until every batch handed over is written: shutdown only. */
void store_write_wait(struct store *st);
/* Writes b on the loop's connection now, in one transaction: 0 or -1
 * (store.c). */
int store_batch_run(struct store *st, const struct store_batch *b);
/* Every statement of b on db, each prepared by prepare(ctx, sql); the
 * caller holds the transaction: 0 or -1 (logged).  Either connection. */
typedef struct sqlite3_stmt *prepare_fn(void *ctx, const char *sql);
struct sqlite3;
int store_batch_apply(struct sqlite3 *db, prepare_fn *prepare, void *ctx,
    const struct store_batch *b);

/* {thread, queued, batches, statements, failed, batch_max_ms,
 * yields_to_loop} */
json_t *store_writer_status(struct store *st);

/* For store.c: the thread, on its own connection to path. */
struct store_writer;
/* loop_waiting (may be NULL): raised while the loop's connection waits for
 * the write lock; the thread then holds back its next transaction. */
struct store_writer *store_writer_start(const char *path, atomic_int *loop_waiting);
void store_writer_stop(struct store_writer *w);		/* writes what is queued first */
uint64_t store_writer_submit(struct store_writer *w, struct store_batch *b);
uint64_t store_writer_done(struct store_writer *w);
uint64_t store_writer_submitted(struct store_writer *w);
uint64_t store_writer_failed(struct store_writer *w);
void store_writer_drain(struct store_writer *w);
json_t *store_writer_json(struct store_writer *w);

#endif
