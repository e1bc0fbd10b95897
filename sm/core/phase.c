/*
 * The plumbing every sweep phase shares.  A phase sends its MADs with
 * sm_send() into the SM's batch (mad/batch.h), which hands the SM to each
 * callback and counts the replies; sm_phase_wait() names the step that
 * follows once they have all come back.  A callback never counts itself
 * down, so no path through it can leave a sweep waiting forever.
 *
 * Also here: the sweep signal, so that the files which ask for a sweep
 * (standby.c, inbound.c, ctl.c) need nothing of sweep.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sm/core/sm_internal.h"

int
sm_send(struct sm *sm, const struct mad_addr *a, uint8_t method, uint16_t attr,
    uint32_t mod, const void *data, mad_batch_cb cb, void *arg)
{
	return mad_batch_smp(&sm->batch, a, method, attr, mod, data, cb, arg);
}

/* The batch's continuation: the phase's next step, once. */
static void
phase_then(void *owner)
{
	struct sm *sm = owner;
	void (*next)(struct sm *) = sm->next_phase;

	sm->next_phase = NULL;
	next(sm);
}

void
sm_phase_wait(struct sm *sm, void (*next)(struct sm *))
{
	sm->next_phase = next;
	mad_batch_wait(&sm->batch, phase_then);
}

void
sm_phase_cancel(struct sm *sm)
{
	mad_batch_cancel(&sm->batch);
	mad_batch_cancel(&sm->side);
	sm->next_phase = NULL;
}

static void request(struct sm *sm, bool heavy, bool by_timer);

void
sm_sweep_request(struct sm *sm, bool heavy)
{
	request(sm, heavy, false);
}

void
sm_sweep_request_periodic(struct sm *sm, bool heavy)
{
	request(sm, heavy, true);
}

static void
request(struct sm *sm, bool heavy, bool by_timer)
{
	/* A standby SM leaves the fabric to the master; it polls instead. */
	if (sm->state == SM_STATE_STANDBY || sm->state == SM_STATE_NOTACTIVE)
		return;
	if (by_timer)		/* what the sweep's record will say began it */
		sm->asked_by_timer = true;
	else
		sm->asked_by_event = true;
	if (sm->sweeping) {
		sm->again = true;
		sm->again_heavy |= heavy;
		return;
	}
	/* From the loop, not from inside whatever asked (a MAD callback,
	 * a control handler): sweep.c's kick timer starts it. */
	sm->again_heavy |= heavy;
	if (!evtimer_pending(sm->kick, NULL)) {
		struct timeval now = { 0, 0 };
		evtimer_add(sm->kick, &now);
	}
}

void
sm_unreachable(struct sm *sm, const char *fmt, ...)
{
	size_t len = strlen(sm->cur.unreachable_text);
	va_list ap;

	sm->cur.unreachable++;
	if (len + 4 >= sizeof(sm->cur.unreachable_text))
		return;
	if (len)
		strcpy(sm->cur.unreachable_text + len++, ";");
	va_start(ap, fmt);
	vsnprintf(sm->cur.unreachable_text + len, sizeof(sm->cur.unreachable_text) - len, fmt, ap);
	va_end(ap);
}

const char *
sm_node_label(const struct fabric_node *n, char *buf, size_t len)
{
	if (n->desc[0])
		snprintf(buf, len, "%s", n->desc);
	else
		guid_format(n->guid, buf, len);
	return buf;
}

void
sm_path_of(const struct fabric_node *n, struct mad_addr *a)
{
	a->directed = true;
	a->hops = n->hops;
	memcpy(a->path, n->path, sizeof(a->path));
}
