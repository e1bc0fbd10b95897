/*
 * A batch of MADs and what comes after it: the one way fabricd's modules
 * run "send N MADs, count the replies, continue once".
 *
 * Every MAD sent through a batch gets exactly one callback: its reply, its
 * timeout, or at once an -EIO result when the MAD could not even be queued.
 * So a callback never has to remember to count itself down: the batch
 * does, and once the callback has returned with nothing left pending and
 * a continuation set, calls it once.  Callbacks may send more MADs into
 * the same batch (discovery grows as it goes): they are counted before
 * the batch looks, so it cannot end under them.  A callback may cancel
 * its batch, but not free it (the continuation may).
 *
 * The owner (the SM, a partitions run, a health poller) is handed to every
 * callback and to the continuation, so callbacks need no global to find
 * it.  mad_batch_cancel() forgets every MAD in flight: their replies reach
 * nobody, and the owner may be freed right after.
 *
 * Everything runs on the event loop thread.
 */
#ifndef FABRICD_MAD_BATCH_H
#define FABRICD_MAD_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/io.h"

struct event_base;
struct event;

typedef void (*mad_batch_cb)(const struct mad_result *res, void *owner, void *arg);
typedef void (*mad_batch_then)(void *owner);
/* A producer of a batch's MADs (mad_batch_feed): sends a few (or none) and
 * moves on; false once it has nothing left to send. */
typedef bool (*mad_batch_feed_fn)(void *owner, void *arg);

struct mad_batch_op;

struct mad_batch {
	struct mad_io		 io;
	void			*owner;
	size_t			 pending;	/* sent, not yet called back */
	mad_batch_then		 then;		/* once pending reaches 0 */
	struct mad_batch_op	*live;		/* in flight, for cancel */
	struct mad_batch_op	*spare;		/* reused: no malloc per MAD */
	unsigned		 gen;		/* bumped by each cancel */
	mad_batch_feed_fn	 feed;		/* the producer, until it says done */
	void			*feed_arg;
	size_t			 feed_cap;	/* it is called while pending < this */
	bool			 feeding;	/* inside it (no recursion) */
	struct event_base	*base;		/* to yield to; NULL: never yields */
	struct event		*refill_ev;	/* the rest of a refill, next turn */
};

void mad_batch_init(struct mad_batch *b, const struct mad_io *io, void *owner);
/* A producer's refill yields to this loop after a few ms (a timer goes
 * on with it); without a base it runs until the window is full. */
void mad_batch_set_base(struct mad_batch *b, struct event_base *base);
/* The io MADs go through from now on (the engine may come and go). */
void mad_batch_set_io(struct mad_batch *b, const struct mad_io *io);

/* 0 when queued; -1 when it could not be, after its callback has run. */
int mad_batch_smp(struct mad_batch *b, const struct mad_addr *addr, uint8_t method,
    uint16_t attr_id, uint32_t attr_mod, const void *data, mad_batch_cb cb, void *arg);
int mad_batch_perf(struct mad_batch *b, uint16_t dlid, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, size_t len, mad_batch_cb cb, void *arg);
/* A prepared MAD (mad_send_raw(): an SA query), LID routed. */
int mad_batch_raw(struct mad_batch *b, uint16_t dlid, uint32_t qpn, uint32_t qkey,
    const uint8_t *mad, size_t len, mad_batch_cb cb, void *arg);

/*
 * Stream MADs: fn(owner, arg) is called while fewer than cap MADs of the
 * batch are pending, now and after each answer, until it returns false.
 * So a sweep of a million MADs holds cap of them at a time, not a million
 * (the engine's queue stays short, and so does memory).  One producer at a
 * time; the batch's continuation waits for it to be done.
 */
void mad_batch_feed(struct mad_batch *b, size_t cap, mad_batch_feed_fn fn, void *arg);

/* Call then(owner) once nothing is pending and no producer is left: now
 * if so. */
void mad_batch_wait(struct mad_batch *b, mad_batch_then then);
/* Forget every MAD in flight and the continuation; the batch can be used
 * again (or its owner freed). */
void mad_batch_cancel(struct mad_batch *b);
/* mad_batch_cancel(), and the spare ops are freed. */
void mad_batch_free(struct mad_batch *b);

#endif
