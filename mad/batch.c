/*
 * Batches of MADs (see batch.h).  An op wraps one MAD's callback: it
 * remembers which batch it counts in, so that cancelling a batch only has
 * to unhook its ops, and the engine's later callback for an unhooked op
 * frees it without calling anybody.
 */
#include <errno.h>
#include <stdlib.h>

#include <event2/event.h>

#include "common/clock.h"
#include "common/xmalloc.h"
#include "mad/batch.h"

/* How long one refill may run a producer before it yields to the loop
 * (with a base to yield to): a producer that walks 300,000 QoS tables
 * and sends for few of them held the loop 10-20 ms in one reply's
 * callback. */
#define REFILL_SLICE_US	1000

struct mad_batch_op {
	struct mad_batch	*batch;		/* NULL once cancelled */
	mad_batch_cb		 cb;
	void			*arg;
	struct mad_batch_op	*prev, *next;
};

static int
engine_smp(void *ctx, const struct mad_addr *addr, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, mad_cb cb, void *arg)
{
	return ctx ? mad_smp(ctx, addr, method, attr_id, attr_mod, data, cb, arg) : -1;
}

static int
engine_perf(void *ctx, uint16_t dlid, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
    const void *data, size_t len, mad_cb cb, void *arg)
{
	return ctx ? mad_perf(ctx, dlid, method, attr_id, attr_mod, data, len, cb, arg) : -1;
}

static int
engine_raw(void *ctx, uint16_t dlid, uint32_t qpn, uint32_t qkey, const uint8_t *mad, size_t len,
    mad_cb cb, void *arg)
{
	return ctx ? mad_send_raw(ctx, dlid, qpn, qkey, mad, len, cb, arg) : -1;
}

struct mad_io
mad_io_engine(struct mad_engine *me)
{
	return (struct mad_io){ .smp = engine_smp, .perf = engine_perf, .raw = engine_raw,
	    .ctx = me };
}

void
mad_batch_init(struct mad_batch *b, const struct mad_io *io, void *owner)
{
	*b = (struct mad_batch){ .owner = owner };
	if (io)
		b->io = *io;
}

void
mad_batch_set_io(struct mad_batch *b, const struct mad_io *io)
{
	b->io = *io;
}

static void
op_unlink(struct mad_batch *b, struct mad_batch_op *op)
{
	if (op->prev)
		op->prev->next = op->next;
	else
		b->live = op->next;
	if (op->next)
		op->next->prev = op->prev;
}

/* Let the producer send while the batch has room; true if it is done. */
static void refill_cb(evutil_socket_t fd, short what, void *arg);

/* The rest of a refill on the loop's next turn. */
static bool
refill_later(struct mad_batch *b)
{
	struct timeval zero = { 0, 0 };

	if (b->base == NULL)
		return false;
	if (b->refill_ev == NULL && (b->refill_ev = evtimer_new(b->base, refill_cb, b)) == NULL)
		return false;
	evtimer_add(b->refill_ev, &zero);
	return true;
}

static void
refill(struct mad_batch *b)
{
	unsigned gen = b->gen;
	int64_t t0;

	if (b->feeding)
		return;
	b->feeding = true;
	t0 = b->base ? clock_mono_us() : 0;
	while (b->feed && b->gen == gen && b->pending < b->feed_cap) {
		if (!b->feed(b->owner, b->feed_arg) && b->gen == gen)
			b->feed = NULL;
		else if (t0 && clock_mono_us() - t0 >= REFILL_SLICE_US && refill_later(b))
			break;
	}
	if (b->gen == gen)
		b->feeding = false;
}

static void
refill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mad_batch *b = arg;
	unsigned gen = b->gen;
	mad_batch_then then;

	(void)fd;
	(void)what;
	refill(b);
	/* Done with nothing in flight: no reply will come to end the phase. */
	if (b->gen != gen || b->pending > 0 || b->feed || (then = b->then) == NULL)
		return;
	b->then = NULL;
	then(b->owner);
}

void
mad_batch_set_base(struct mad_batch *b, struct event_base *base)
{
	b->base = base;
}

/* The engine's callback for every MAD of every batch. */
static void
op_reply(const struct mad_result *res, void *arg)
{
	struct mad_batch_op *op = arg;
	struct mad_batch *b = op->batch;
	mad_batch_cb cb = op->cb;
	void *cb_arg = op->arg;
	unsigned gen;
	mad_batch_then then;

	if (b == NULL) {		/* cancelled */
		free(op);
		return;
	}
	/* Answered: no longer pending while its callback runs (a window kept
	 * by the owner sees the free slot), and its op may be reused by
	 * what the callback sends. */
	op_unlink(b, op);
	op->next = b->spare;
	b->spare = op;
	b->pending--;
	gen = b->gen;
	cb(res, b->owner, cb_arg);
	if (b->gen == gen && b->feed)
		refill(b);
	/* The phase ends only after the callback: what it sent is counted. */
	if (b->gen != gen || b->pending > 0 || b->feed || (then = b->then) == NULL)
		return;
	b->then = NULL;
	then(b->owner);
}

static struct mad_batch_op *
op_new(struct mad_batch *b, mad_batch_cb cb, void *arg)
{
	struct mad_batch_op *op = b->spare;

	if (op)
		b->spare = op->next;
	else
		op = xmalloc(sizeof(*op));
	*op = (struct mad_batch_op){ .batch = b, .cb = cb, .arg = arg, .next = b->live };
	if (b->live)
		b->live->prev = op;
	b->live = op;
	b->pending++;
	return op;
}

static int
op_failed(struct mad_batch_op *op)
{
	struct mad_result fail = { .status = -EIO };

	op_reply(&fail, op);
	return -1;
}

int
mad_batch_smp(struct mad_batch *b, const struct mad_addr *addr, uint8_t method,
    uint16_t attr_id, uint32_t attr_mod, const void *data, mad_batch_cb cb, void *arg)
{
	struct mad_batch_op *op = op_new(b, cb, arg);

	if (b->io.smp == NULL ||
	    b->io.smp(b->io.ctx, addr, method, attr_id, attr_mod, data, op_reply, op) != 0)
		return op_failed(op);
	return 0;
}

int
mad_batch_perf(struct mad_batch *b, uint16_t dlid, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, size_t len, mad_batch_cb cb, void *arg)
{
	struct mad_batch_op *op = op_new(b, cb, arg);

	if (b->io.perf == NULL ||
	    b->io.perf(b->io.ctx, dlid, method, attr_id, attr_mod, data, len, op_reply, op) != 0)
		return op_failed(op);
	return 0;
}

int
mad_batch_raw(struct mad_batch *b, uint16_t dlid, uint32_t qpn, uint32_t qkey,
    const uint8_t *mad, size_t len, mad_batch_cb cb, void *arg)
{
	struct mad_batch_op *op = op_new(b, cb, arg);

	if (b->io.raw == NULL ||
	    b->io.raw(b->io.ctx, dlid, qpn, qkey, mad, len, op_reply, op) != 0)
		return op_failed(op);
	return 0;
}

void
mad_batch_feed(struct mad_batch *b, size_t cap, mad_batch_feed_fn fn, void *arg)
{
	b->feed = fn;
	b->feed_arg = arg;
	b->feed_cap = cap ? cap : 1;
	refill(b);
}

void
mad_batch_wait(struct mad_batch *b, mad_batch_then then)
{
	if (b->pending > 0 || b->feed) {
		b->then = then;
		return;
	}
	b->then = NULL;
	then(b->owner);
}

void
mad_batch_cancel(struct mad_batch *b)
{
	struct mad_batch_op *op;

	/* The engine still holds these ops: its callback frees them. */
	for (op = b->live; op; op = op->next)
		op->batch = NULL;
	b->live = NULL;
	b->pending = 0;
	b->then = NULL;
	b->feed = NULL;
	b->feeding = false;
	b->gen++;
	if (b->refill_ev)
		evtimer_del(b->refill_ev);
}

void
mad_batch_free(struct mad_batch *b)
{
	struct mad_batch_op *op;

	mad_batch_cancel(b);
	if (b->refill_ev)
		event_free(b->refill_ev);
	b->refill_ev = NULL;
	while ((op = b->spare) != NULL) {
		b->spare = op->next;
		free(op);
	}
}
