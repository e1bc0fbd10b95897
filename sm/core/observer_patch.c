/*
 * What a Report names, read again (observer_internal.h): a switch whose
 * link state changed (trap 128), or the switch a port that came into or
 * went out of service hangs off (64, 65).  Within REPORT_WINDOW_MS of the
 * Report (a point hashed from our port GUID: every observer heard it),
 * that switch's PortInfoRecords and LinkRecords are asked of the master's
 * SA, one Get each, and put into the view in place: the ports' states, and
 * its links as the SA has them now (a link the SA no longer has is
 * undone at both ends).  Not a whole read at a LID turn: 2 x ports
 * queries, not the fabric's thousands, so that a pulled cable is in every
 * observer's view within seconds without a storm at the SA.  The tables
 * are not read again here: the pre-flight and `route` read the ones they
 * judge from the switches themselves (sm/lft_live.c).  A far end the view
 * does not know (a new switch or host) brings a whole read instead.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sa.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/observer_internal.h"

#define REPORT_WINDOW_MS	2000

void sm_port_update(struct fabric_port *p, const uint8_t *data);	/* discover.c */

/* The switch being patched, in the view as it is now (a whole read may
 * have replaced the model meanwhile: found by its LID). */
static struct fabric_port *
patched_switch(const struct sm_observer *o)
{
	return o->sm->fabric ? fabric_port_by_lid(o->sm->fabric, o->patch_lid) : NULL;
}

/* One answer (the batch is freed before the observer, so o is there). */
void
obs_patch_answer(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct sm_observer *o = sm->observer;
	unsigned kind = (unsigned)(uintptr_t)arg & 0xFF, port = (unsigned)(uintptr_t)arg >> 8;
	struct fabric_port *p = patched_switch(o);
	const uint8_t *rec = res->mad ? res->mad + SA_REC_OFFSET : NULL;
	uint8_t pi[64] __attribute__((aligned(8)));

	if (res->status != 0 || res->mad == NULL || res->len < SA_REC_OFFSET + 8 ||
	    (res->mad_status != 0 && res->mad_status != SA_NO_RECORDS)) {
		o->patch_errors++;
		return;
	}
	if (res->mad_status == SA_NO_RECORDS || p == NULL || port > p->node->nports)
		return;		/* a port without a cable has no LinkRecord */
	if (kind == Q_PORT && res->len >= SA_REC_OFFSET + offsetof(ib_portinfo_record_t,
	    port_info) + sizeof(pi)) {
		memcpy(pi, rec + offsetof(ib_portinfo_record_t, port_info), sizeof(pi));
		sm_port_update(&p->node->ports[port], pi);
	} else if (kind == Q_LINK) {
		const ib_link_record_t *l = (const ib_link_record_t *)rec;

		o->patch_far[port] = (struct obs_far_end){ be16toh(l->to_lid), l->to_port_num, true };
	}
}

/* A LinkRecord's far end in the view: a switch's port, or a CA's own. */
static struct fabric_port *
far_port(struct fabric *f, const struct obs_far_end *e)
{
	struct fabric_port *p = e->lid ? fabric_port_by_lid(f, e->lid) : NULL;

	if (p == NULL || e->port > p->node->nports)
		return NULL;
	if (p->node->type != FABRIC_SWITCH && e->port != p->num)
		return NULL;
	return &p->node->ports[e->port];
}

static void
unlink_port(struct fabric_port *p)
{
	if (p->peer != NULL)
		p->peer->peer = NULL;
	p->peer = NULL;
}

/* Every answer is in: the switch's links as the SA has them. */
void
obs_patch_done(void *owner)
{
	struct sm *sm = owner;
	struct sm_observer *o = sm->observer;
	struct fabric_port *sw = patched_switch(o);
	unsigned changed = 0, unknown = 0;

	o->patching = false;
	if (sw == NULL || o->patch_errors > 0) {
		log_warnx("sm: observer: the records of LID %u a Report named were not read (%u "
		    "errors): a whole read follows", o->patch_lid, o->patch_errors);
		o->read_soon(sm);
		return;
	}
	for (unsigned i = 1; i <= sw->node->nports; i++) {
		struct fabric_port *p = &sw->node->ports[i];
		struct fabric_port *to = o->patch_far[i].seen ?
		    far_port(sm->fabric, &o->patch_far[i]) : NULL;

		if (o->patch_far[i].seen && to == NULL) {
			unknown++;	/* a node the view does not have */
			continue;
		}
		if (p->peer == to)
			continue;
		unlink_port(p);
		if (to != NULL) {
			unlink_port(to);
			fabric_link(p, to);
		}
		changed++;
	}
	sm_mark_degraded(sm->fabric);
	o->patches++;
	event_post(EV_INFO, "sm", NULL, "observer: %s (LID %u) read again after a Report: %u "
	    "link%s changed", sw->node->desc, o->patch_lid, changed, changed == 1 ? "" : "s");
	if (unknown > 0)
		o->read_soon(sm);
}

/* The SubnAdmGet of one record of the switch (its LID and port). */
static void
patch_get(struct sm_observer *o, enum obs_kind kind, uint16_t lid, uint8_t port)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)mad;
	uint16_t be = htobe16(lid);

	memset(mad, 0, sizeof(mad));
	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = UMAD_SA_CLASS_VERSION;
	sa->method = IB_MAD_METHOD_GET;
	sa->attr_id = htobe16(kind == Q_PORT ? UMAD_SA_ATTR_PORT_INFO_REC : UMAD_SA_ATTR_LINK_REC);
	sa->comp_mask = htobe64(3);		/* the LID and the port */
	memcpy(sa->data, &be, 2);
	sa->data[2] = port;
	mad_batch_raw(&o->patch_batch, o->master_lid, 1, SA_QKEY, mad, sizeof(mad),
	    obs_patch_answer, OBS_PATCH_ARG(kind, port));
}

static void
patch_start(evutil_socket_t fd, short what, void *arg)
{
	struct sm_observer *o = arg;
	struct fabric_port *sw = patched_switch(o);

	(void)fd;
	(void)what;
	if (sw == NULL || sw->node->type != FABRIC_SWITCH || o->reading) {
		if (sw == NULL)
			o->read_soon(o->sm);
		return;
	}
	o->patching = true;
	o->patch_errors = 0;
	memset(o->patch_far, 0, sizeof(o->patch_far));
	for (unsigned i = 0; i <= sw->node->nports; i++)
		patch_get(o, Q_PORT, o->patch_lid, (uint8_t)i);
	for (unsigned i = 1; i <= sw->node->nports; i++)
		patch_get(o, Q_LINK, o->patch_lid, (uint8_t)i);
	mad_batch_wait(&o->patch_batch, obs_patch_done);
}

/* The switch a Report is about: trap 128 names it; 64 and 65 a port
 * GID, whose switch is the one it hangs off in the view. */
uint16_t
obs_reported_switch(const struct fabric *f, uint16_t trap, const void *notice)
{
	const ib_mad_notice_attr_t *n = notice;
	const struct fabric_port *p;

	if (f == NULL)
		return 0;
	if (trap == 128)
		return be16toh(n->data_details.ntc_128.sw_lid);
	p = fabric_port_by_guid(f, be64toh(n->data_details.ntc_64_67.gid.unicast.interface_id));
	if (p == NULL || p->peer == NULL || p->peer->node->type != FABRIC_SWITCH)
		return 0;
	return p->peer->node->lid;
}

void
sm_observer_patch(struct sm *sm, uint16_t trap, const void *notice)
{
	struct sm_observer *o = sm->observer;
	uint16_t lid;
	struct timeval tv;
	uint64_t ms;

	if (o == NULL || o->published == 0)
		return;		/* no view yet: the first read comes anyway */
	lid = obs_reported_switch(sm->fabric, trap, notice);
	if (lid == 0 || lid > FABRIC_MAX_LID) {
		o->read_soon(sm);	/* nothing in the view to patch */
		return;
	}
	if (o->patch_ev == NULL || o->patching || (evtimer_pending(o->patch_ev, NULL) &&
	    o->patch_lid == lid))
		return;
	if (evtimer_pending(o->patch_ev, NULL) && o->patch_lid != lid) {
		o->read_soon(sm);	/* two switches at once: read them all */
		return;
	}
	o->patch_lid = lid;
	ms = (((o->sm->own_guid ^ lid) * 0x9e3779b97f4a7c15ULL) >> 32) % REPORT_WINDOW_MS;
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	evtimer_add(o->patch_ev, &tv);
}

void
obs_patch_init(struct sm_observer *o, void (*read_soon)(struct sm *sm))
{
	o->read_soon = read_soon;
	mad_batch_init(&o->patch_batch, &o->sm->batch.io, o->sm);
	mad_batch_set_base(&o->patch_batch, o->sm->fd ? o->sm->fd->base : NULL);
	if (o->sm->fd && o->sm->fd->base)
		o->patch_ev = evtimer_new(o->sm->fd->base, patch_start, o);
}

void
obs_patch_free(struct sm_observer *o)
{
	mad_batch_free(&o->patch_batch);
	if (o->patch_ev)
		event_free(o->patch_ev);
	o->patch_ev = NULL;
}
