/*
 * The apply/verify/rollback engine for P_Key tables (see apply.h).
 *
 * Failure model: a Set that times out may or may not have reached the
 * port, so a port counts as written as soon as one Set is sent to it, and
 * the rollback rewrites every block sent to every such port.  A read-back
 * that differs from the plan is a failure even when the Set was answered
 * with status 0: only what the port says on a Get counts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sm.h>

#include "common/xmalloc.h"
#include "mad/batch.h"
#include "partitions/apply.h"
#include "partitions/turns.h"

struct pt_mad_counts pt_mad_counts;

enum phase { PH_READ, PH_WRITE, PH_VERIFY, PH_ENFORCE, PH_ROLLBACK, PH_DONE };

struct port_run {
	bool		 read_failed;
	bool		 failed;
	bool		 written;
	bool		 unrestored;	/* a restore failed: what it holds is unknown */
	uint8_t		*sent;		/* per block: a Set was sent */
	char		*reason;
};

struct run {
	struct pt_plan		*plan;
	struct mad_batch	 batch;		/* this phase's MADs */
	struct mad_io		 ios[PT_APPLY_MAX_IOS];	/* a port's goes through ios[plane] */
	const char		*names[PT_APPLY_MAX_IOS];	/* the planes, in messages */
	size_t			 nios;
	pt_apply_done		 done;
	pt_apply_intent		 intent;
	void			*arg;
	enum phase		 phase;
	struct port_run		*pr;
	bool			 any_failed;
	struct pt_apply_report	 rep;
};

/*
 * What a MAD was for travels in its callback argument: the port's index in
 * the plan and the block (for enforcement: 0 the PortInfo Get, 1 the Set).
 * The run itself is the batch's owner.
 */
static void *
op_of(size_t port, uint16_t block)
{
	return (void *)(uintptr_t)((uint64_t)port << 16 | block);
}

static size_t op_port(void *op) { return (size_t)((uintptr_t)op >> 16); }
static uint16_t op_block(void *op) { return (uint16_t)(uintptr_t)op; }

static void phase_next(void *owner);
static void on_reply(const struct mad_result *res, void *owner, void *op);

/* "host5:1", or over planes "plane2/host5:1", as messages name a port. */
static const char *
port_name(const struct run *r, size_t i, char *buf, size_t len)
{
	const struct pt_port_plan *pp = &r->plan->ports[i];

	if (r->nios < 2 || r->names[pp->plane] == NULL)
		return pp->label;
	if (snprintf(buf, len, "%s/%s", r->names[pp->plane], pp->label) < 0)
		return pp->label;
	return buf;
}

/* An SMP to port i of the plan, through its plane's engine. */
static void
port_smp(struct run *r, size_t i, uint8_t method, uint16_t attr, uint32_t mod, const void *data,
    void *op)
{
	const struct pt_port_plan *pp = &r->plan->ports[i];

	mad_batch_set_io(&r->batch, &r->ios[pp->plane < r->nios ? pp->plane : 0]);
	mad_batch_smp(&r->batch, &pp->addr, method, attr, mod, data, on_reply, op);
}

static void
port_fail(struct run *r, size_t i, const char *fmt, ...)
{
	struct port_run *p = &r->pr[i];
	va_list ap;

	r->any_failed = true;
	if (p->failed)
		return;		/* the first reason is the one that matters */
	p->failed = true;
	va_start(ap, fmt);
	if (vasprintf(&p->reason, fmt, ap) < 0)
		p->reason = NULL;
	va_end(ap);
}

static void
decode_block(const struct mad_result *res, uint16_t *out)
{
	const uint8_t *d = res->mad + MAD_DATA_OFFSET;

	for (int i = 0; i < PT_BLOCK; i++)
		out[i] = (uint16_t)(d[2 * i] << 8 | d[2 * i + 1]);
}

static void
encode_block(const uint16_t *in, uint8_t *d)
{
	memset(d, 0, 64);
	for (int i = 0; i < PT_BLOCK; i++) {
		d[2 * i] = (uint8_t)(in[i] >> 8);
		d[2 * i + 1] = (uint8_t)in[i];
	}
}

/* Did a reply arrive and say yes?  Names the trouble otherwise. */
static const char *
reply_problem(const struct mad_result *res, char *buf, size_t len)
{
	if (res->status == -ETIMEDOUT)
		return "timeout";
	if (res->status == -EPERM)	/* the SM's write gate (sm/core/fence.c) */
		return "not sent: this SM may not write the fabric now";
	if (res->status != 0 || res->mad == NULL || res->len < MAD_DATA_OFFSET + 64)
		return "bad reply";
	if (res->mad_status != 0) {
		snprintf(buf, len, "MAD status 0x%04x", res->mad_status);
		return buf;
	}
	return NULL;
}

/* One reply, already judged: why is NULL when it arrived and said yes. */
typedef void (*reply_fn)(struct run *r, size_t port, uint16_t block,
    const struct mad_result *res, const char *why);

static void
on_read(struct run *r, size_t port, uint16_t block, const struct mad_result *res,
    const char *why)
{
	if (why != NULL) {
		r->pr[port].read_failed = true;
		port_fail(r, port, "reading block %u: %s", block, why);
	} else
		decode_block(res, r->plan->ports[port].have + (size_t)block * PT_BLOCK);
}

static void
on_write(struct run *r, size_t port, uint16_t block, const struct mad_result *res,
    const char *why)
{
	if (why != NULL)
		port_fail(r, port, "writing block %u: %s", block, why);
}

static void
on_verify(struct run *r, size_t port, uint16_t block, const struct mad_result *res,
    const char *why)
{
	struct pt_port_plan *pp = &r->plan->ports[port];
	const uint16_t *want = pp->want + (size_t)block * PT_BLOCK;
	uint16_t got[PT_BLOCK];

	if (why != NULL) {
		port_fail(r, port, "reading back block %u: %s", block, why);
		return;
	}
	decode_block(res, got);
	for (size_t i = 0; i < PT_BLOCK && (size_t)block * PT_BLOCK + i < pp->cap; i++)
		if (got[i] != want[i]) {
			port_fail(r, port, "block %u index %zu reads back 0x%04x, wrote 0x%04x",
			    block, (size_t)block * PT_BLOCK + i, got[i], want[i]);
			break;
		}
}

static void
on_restore(struct run *r, size_t port, uint16_t block, const struct mad_result *res,
    const char *why)
{
	char name[PT_PORT_NAME_LEN], *s;

	if (why == NULL)
		return;
	r->pr[port].unrestored = true;
	if (asprintf(&s, "%s: restoring block %u: %s", port_name(r, port, name, sizeof(name)),
	    block, why) >= 0) {
		r->rep.unrestored = xreallocarray(r->rep.unrestored, r->rep.nunrestored + 1,
		    sizeof(char *));
		r->rep.unrestored[r->rep.nunrestored++] = s;
	}
}

static void on_enforce(struct run *r, size_t port, uint16_t block,
    const struct mad_result *res, const char *why);

static const reply_fn phase_reply[PH_DONE] = {
	[PH_READ] = on_read, [PH_WRITE] = on_write, [PH_VERIFY] = on_verify,
	[PH_ENFORCE] = on_enforce, [PH_ROLLBACK] = on_restore,
};

/* Every reply of every phase: judged once, counted once, then handed on. */
static void
on_reply(const struct mad_result *res, void *owner, void *op)
{
	struct run *r = owner;
	char buf[32];
	const char *why = reply_problem(res, buf, sizeof(buf));

	if (why != NULL)
		pt_mad_counts.failures++;
	phase_reply[r->phase](r, op_port(op), op_block(op), res, why);
}

static void
send_block(struct run *r, size_t port, uint16_t block, uint8_t method, const uint16_t *table)
{
	struct pt_port_plan *pp = &r->plan->ports[port];
	uint8_t data[64];

	if (table != NULL)
		encode_block(table + (size_t)block * PT_BLOCK, data);
	if (method == 0x02) {		/* Set */
		r->rep.sets++;
		pt_mad_counts.sets++;
	} else {
		r->rep.gets++;
		pt_mad_counts.gets++;
	}
	port_smp(r, port, method, UMAD_SM_ATTR_PKEY_TABLE, pp->attr_mod_port | block,
	    table ? data : NULL, op_of(port, block));
}

static void
start_read(struct run *r)
{
	for (size_t i = 0; i < r->plan->nports; i++) {
		struct pt_port_plan *pp = &r->plan->ports[i];

		if (pp->have != NULL)
			continue;
		pp->have = xcalloc((size_t)pp->nblocks * PT_BLOCK, sizeof(uint16_t));
		for (uint16_t b = 0; b < pp->nblocks; b++)
			send_block(r, i, b, 0x01, NULL);
	}
}

static void
start_write(struct run *r)
{
	for (size_t i = 0; i < r->plan->nports; i++) {
		struct pt_port_plan *pp = &r->plan->ports[i];

		for (uint16_t b = 0; b < pp->nblocks; b++) {
			if (!pt_block_dirty(pp, b))
				continue;
			if (!r->pr[i].written)
				r->rep.ports_written++;
			r->pr[i].written = true;
			r->pr[i].sent[b] = 1;
			send_block(r, i, b, 0x02, pp->want);
		}
	}
}

static void
start_verify(struct run *r)
{
	for (size_t i = 0; i < r->plan->nports; i++)
		for (uint16_t b = 0; b < r->plan->ports[i].nblocks; b++)
			if (r->pr[i].sent[b])
				send_block(r, i, b, 0x01, NULL);
}

static void
start_rollback(struct run *r)
{
	r->rep.rolled_back = true;
	for (size_t i = 0; i < r->plan->nports; i++)
		for (uint16_t b = 0; b < r->plan->ports[i].nblocks; b++)
			if (r->pr[i].sent[b])
				send_block(r, i, b, 0x02, r->plan->ports[i].have);
}

/*
 * Partition enforcement on the switch ports whose tables were written:
 * PortInfo is read, the two enforcement bits are added and it is written
 * back with every "no change" encoding (port and physical state, link
 * width and speed enables 0), so that nothing else about the link moves.
 * The tables are already verified by then; a port that refuses the bits
 * is reported but does not undo the change (its hosts' own tables still
 * hold only their keys).  Ports whose tables did not change get no MAD.
 */
#define ENFORCE_GET	0
#define ENFORCE_SET	1

static void
on_enforce(struct run *r, size_t port, uint16_t step, const struct mad_result *res,
    const char *why)
{
	struct pt_port_plan *pp = &r->plan->ports[port];
	ib_port_info_t pi;

	if (why != NULL) {
		r->rep.enforce_failed++;
		return;
	}
	if (step == ENFORCE_SET)
		return;
	memcpy(&pi, res->mad + MAD_DATA_OFFSET, sizeof(pi));
	if ((pi.vl_enforce & PT_ENFORCE_BITS) == PT_ENFORCE_BITS)
		return;
	pi.vl_enforce |= PT_ENFORCE_BITS;
	ib_port_info_set_port_state(&pi, IB_LINK_NO_CHANGE);
	ib_port_info_set_port_phys_state(0, &pi);
	pi.link_width_enabled = 0;
	ib_port_info_set_link_speed_enabled(&pi, 0);
	ib_port_info_set_link_speed_ext_enabled(&pi, 0);
	r->rep.enforce_sets++;
	pt_mad_counts.enforce_sets++;
	/* sent before this reply is counted: the phase stays open for it */
	port_smp(r, port, 0x02, UMAD_SM_ATTR_PORT_INFO, pp->port, &pi, op_of(port, ENFORCE_SET));
}

static void
start_enforce(struct run *r)
{
	for (size_t i = 0; i < r->plan->nports; i++) {
		struct pt_port_plan *pp = &r->plan->ports[i];

		if (!pp->switch_ext || !r->pr[i].written)
			continue;
		pt_mad_counts.enforce_gets++;
		port_smp(r, i, 0x01, UMAD_SM_ATTR_PORT_INFO, pp->port, NULL, op_of(i, ENFORCE_GET));
	}
}

static void
finish(struct run *r)
{
	struct pt_apply_report *rep = &r->rep;
	char name[PT_PORT_NAME_LEN];
	size_t nports;

	rep->ok = !r->any_failed;
	for (size_t i = 0; i < r->plan->nports; i++) {
		struct pt_port_plan *pp = &r->plan->ports[i];
		struct port_run *p = &r->pr[i];
		char *s;

		if (p->failed && asprintf(&s, "%s: %s", port_name(r, i, name, sizeof(name)),
		    p->reason ? p->reason : "failed") >= 0) {
			rep->failed = xreallocarray(rep->failed, rep->nfailed + 1, sizeof(char *));
			rep->failed[rep->nfailed++] = s;
		}
		/* a port we could not read, or could not put back, holds a
		 * table we do not know: it is read again before the next write */
		if (p->read_failed || p->unrestored) {
			free(pp->have);
			pp->have = NULL;
		} else if (rep->ok)
			memcpy(pp->have, pp->want, (size_t)pp->nblocks * PT_BLOCK * sizeof(uint16_t));
	}
	/* done() may free the plan: nothing of it is touched afterwards */
	nports = r->plan->nports;
	r->done(r->plan, rep, r->arg);
	for (size_t i = 0; i < rep->nfailed; i++)
		free(rep->failed[i]);
	for (size_t i = 0; i < rep->nunrestored; i++)
		free(rep->unrestored[i]);
	free(rep->failed);
	free(rep->unrestored);
	for (size_t i = 0; i < nports; i++) {
		free(r->pr[i].sent);
		free(r->pr[i].reason);
	}
	free(r->pr);
	mad_batch_free(&r->batch);
	free(r);
}

/* Enter a phase: issue its MADs, and go on once they have all answered. */
static void
phase_enter(struct run *r, enum phase ph, void (*start)(struct run *))
{
	r->phase = ph;
	start(r);
	mad_batch_wait(&r->batch, phase_next);
}

static void
enter_write(void *owner)
{
	struct run *r = owner;

	if (pt_turns_stopping())
		finish(r);
	else
		phase_enter(r, PH_WRITE, start_write);
}

/* After the reads: store the intent, and write on the next turn (1,024
 * ports' rows are 2 ms of sqlite, the first window as much again). */
static void
after_read(struct run *r)
{
	if (r->any_failed)
		finish(r);
	else if (r->intent && pt_plan_dirty_blocks(r->plan) > 0) {
		if (r->intent(r->plan, r->arg) != 0) {
			r->any_failed = true;	/* nothing written: no rollback */
			if (r->plan->nports)
				port_fail(r, 0, "the change could not be recorded before writing");
			finish(r);
		} else
			pt_next_turn(enter_write, r);
	} else
		phase_enter(r, PH_WRITE, start_write);
}

/* A phase is over (on its turn, turns.h): the next one, or the end.  A
 * run the daemon's stop finds waiting ends here. */
static void
phase_step(void *owner)
{
	struct run *r = owner;

	if (pt_turns_stopping()) {
		finish(r);
		return;
	}
	switch (r->phase) {
	case PH_READ:
		after_read(r);
		break;
	case PH_WRITE:
	case PH_VERIFY:
		if (r->any_failed)
			phase_enter(r, PH_ROLLBACK, start_rollback);
		else if (r->phase == PH_WRITE)
			phase_enter(r, PH_VERIFY, start_verify);
		else
			phase_enter(r, PH_ENFORCE, start_enforce);
		break;
	case PH_ENFORCE:
	case PH_ROLLBACK:
	case PH_DONE:
		finish(r);
		break;
	}
}

/* The batch's continuation runs inside the last reply's callback: the
 * next phase waits for a turn of its own. */
static void
phase_next(void *owner)
{
	pt_next_turn(phase_step, owner);
}

int
pt_apply_start(struct pt_plan *plan, const struct mad_io *io, pt_apply_done done, void *arg)
{
	return pt_apply_start_intent(plan, io, NULL, done, arg);
}

int
pt_apply_start_intent(struct pt_plan *plan, const struct mad_io *io, pt_apply_intent intent,
    pt_apply_done done, void *arg)
{
	return pt_apply_start_planes(plan, io, NULL, 1, intent, done, arg);
}

int
pt_apply_start_planes(struct pt_plan *plan, const struct mad_io *ios, const char *const *names,
    size_t nios, pt_apply_intent intent, pt_apply_done done, void *arg)
{
	struct run *r;

	if (ios == NULL || nios == 0 || nios > PT_APPLY_MAX_IOS || done == NULL)
		return -1;
	for (size_t i = 0; i < nios; i++)
		if (ios[i].smp == NULL)
			return -1;
	r = xcalloc(1, sizeof(*r));
	r->plan = plan;
	memcpy(r->ios, ios, nios * sizeof(*ios));
	for (size_t i = 0; names != NULL && i < nios; i++)
		r->names[i] = names[i];
	r->nios = nios;
	mad_batch_init(&r->batch, &ios[0], r);
	r->done = done;
	r->intent = intent;
	r->arg = arg;
	r->pr = xcalloc(plan->nports ? plan->nports : 1, sizeof(*r->pr));
	for (size_t i = 0; i < plan->nports; i++)
		r->pr[i].sent = xcalloc(plan->ports[i].nblocks ? plan->ports[i].nblocks : 1, 1);
	phase_enter(r, PH_READ, start_read);
	return 0;
}

/* Failure text: which ports failed, why, and what could not be put back. */
char *
pt_apply_failure_text(const struct pt_apply_report *rep)
{
	char *s = xstrdup("not applied: "), *t;

	for (size_t i = 0; i < rep->nfailed; i++) {
		xasprintf(&t, "%s%s%s", s, i ? "; " : "", rep->failed[i]);
		free(s);
		s = t;
	}
	xasprintf(&t, "%s; %s", s, !rep->rolled_back ? "nothing was written" :
	    rep->nunrestored == 0 ? "every written port was restored to its previous table" :
	    "every reachable written port was restored to its previous table");
	free(s);
	s = t;
	for (size_t i = 0; i < rep->nunrestored; i++) {
		xasprintf(&t, "%s%s%s", s, i ? "; " : "; unreachable, to be read again at the "
		    "next sweep: ", rep->unrestored[i]);
		free(s);
		s = t;
	}
	return s;
}
