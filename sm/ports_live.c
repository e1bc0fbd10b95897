/*
 * Reading the state of a few ports live, outside any read of the SA, for
 * an observer's pre-flight (sm.h, sm_ports_read_live).
 *
 * An observer's view is as old as its last read, and the master's SA is
 * as old as the master's last sweep: a cable pulled while the master is
 * slow, hung or not yet rerouted still carries the routes the switches
 * hold.  What a job is about to cross is therefore asked of the ports
 * themselves, one PortInfo Get each, LID-routed (a Get, which any node
 * may send; never a Set).
 *
 * A port that stays silent through every try of the engine is asked
 * again, up to LIVE_READS reads in all: silence is not evidence of a dead
 * link (a simulator or a host starved of CPU for a second loses every
 * try of one read), and the pre-flight that fails on it fails a healthy
 * job.  A port that answers, Down or Active, is asked once.
 */
#include <errno.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/xmalloc.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

/* A port silent through this many reads (each 1 + sm.mad_retries tries
 * of sm.mad_timeout: 4 x 200 ms by default) is called unreadable. */
#define LIVE_READS	4

struct live_read {
	struct mad_batch	 batch;
	struct sm_port_live	*res;
	size_t			 n, next, cap;
	uint16_t		*lid;		/* where each target's Get goes; 0: none */
	bool			*silent;	/* no answer in the last read */
	unsigned		 reads;		/* reads started */
	sm_live_done_fn		 done;
	void			*arg;
};

static void
on_reply(const struct mad_result *res, void *owner, void *arg)
{
	struct live_read *r = owner;
	struct sm_port_live *p = arg;
	const ib_smp_t *smp = (const ib_smp_t *)res->mad;
	const ib_port_info_t *pi;

	p->reads++;
	r->silent[p - r->res] = res->status == -ETIMEDOUT;
	if (!mad_reply_ok(res)) {
		p->answered = false;
		return;
	}
	pi = (const ib_port_info_t *)smp->data;
	p->answered = true;
	p->state = ib_port_info_get_port_state(pi);
	p->phys_state = ib_port_info_get_port_phys_state(pi);
}

static bool feed(void *owner, void *arg);

/* Whether a port to ask in this read: the first asks every port with a
 * LID, a later one those the last left silent. */
static bool
to_ask(const struct live_read *r, size_t i)
{
	return r->lid[i] != 0 && (r->reads == 1 || r->silent[i]);
}

static void
finished(void *owner)
{
	struct live_read *r = owner;
	size_t i;

	for (i = 0; i < r->n && r->reads < LIVE_READS; i++) {
		if (!r->silent[i])
			continue;
		r->reads++;	/* another read of the silent ones */
		r->next = 0;
		mad_batch_feed(&r->batch, r->cap, feed, NULL);
		mad_batch_wait(&r->batch, finished);
		return;
	}
	r->done(r->res, r->n, r->arg);
	mad_batch_free(&r->batch);
	free(r->res);
	free(r->lid);
	free(r->silent);
	free(r);
}

/* One Get a call while the window has room (mad_batch_feed). */
static bool
feed(void *owner, void *arg)
{
	struct live_read *r = owner;
	struct mad_addr a = { 0 };
	size_t i;

	(void)arg;
	while (r->next < r->n && !to_ask(r, r->next))
		r->next++;
	if (r->next == r->n)
		return false;
	i = r->next++;
	a.dlid = r->lid[i];
	mad_batch_smp(&r->batch, &a, IB_MAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO,
	    r->res[i].port, NULL, on_reply, &r->res[i]);
	return true;
}

int
sm_ports_read_live(struct sm *sm, const struct sm_qos_target *t, size_t n, sm_live_done_fn done,
    void *arg)
{
	char why[8];
	struct live_read *r;

	if (sm == NULL || sm->fabric == NULL || n == 0 ||
	    sm_observer_refusal(sm, why, sizeof(why)) == NULL)
		return -1;
	r = xcalloc(1, sizeof(*r));
	r->res = xcalloc(n, sizeof(*r->res));
	r->lid = xcalloc(n, sizeof(*r->lid));
	r->silent = xcalloc(n, sizeof(*r->silent));
	r->n = n;
	r->reads = 1;
	r->cap = sm_feed_cap(sm);
	r->done = done;
	r->arg = arg;
	for (size_t i = 0; i < n; i++) {
		const struct fabric_node *node = fabric_node_by_guid(sm->fabric, t[i].node_guid);

		r->res[i].node_guid = t[i].node_guid;
		r->res[i].port = t[i].port;
		if (node == NULL || t[i].port == 0 || t[i].port > node->nports)
			continue;
		/* a switch answers for its ports at its own LID, a CA port at its own */
		r->lid[i] = node->type == FABRIC_SWITCH ? node->lid : node->ports[t[i].port].lid;
	}
	mad_batch_init(&r->batch, &sm->batch.io, r);
	mad_batch_set_base(&r->batch, sm->fd ? sm->fd->base : NULL);
	mad_batch_feed(&r->batch, r->cap, feed, NULL);
	mad_batch_wait(&r->batch, finished);
	return 0;
}
