/*
 * An observer's subscriptions to the master's SA (IBA 13.4.11, InformInfo)
 * and the Reports they bring: trap 64 and 65 (a port came into or went
 * out of service) and 128 (a switch's link state changed).  A Report is
 * answered (ReportResp, or the SA sends it again) and what it names is read
 * again within 2 s (on_report: observer_patch.c's sm_observer_patch,
 * handed over by module.c, so that neither file calls the other in a
 * circle).
 *
 * Under ibsim a Report reaches only a client that is IsSM, which an
 * observer is not: tests/integration/observer_reports.sh injects one below
 * umad_recv (tests/fixtures/mad/report_inject.c) and reads the answers and
 * the read that follows from the MADs logged below umad_send.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sa.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"

#define SA_QKEY		0x80010000u
#define ATTR_NOTICE	0x0002
#define ATTR_INFORM	0x0003
#define METHOD_REPORT	0x06
#define METHOD_REPORT_RESP 0x86
#define SA_DATA		56		/* IB_SA_MAD_HDR_SIZE */

static const uint16_t traps[] = { 64, 65, 128 };

struct obs_reports {
	/* what the Report names, read again (observer_patch.c) */
	void			(*on_report)(struct sm *sm, uint16_t trap, const void *notice);
	struct mad_batch	 batch;		/* the subscriptions' Sets */
	uint16_t		 subscribed_lid;	/* the SA the Sets went to; 0: none */
	unsigned		 accepted;	/* of the Sets to it, answered status 0 */
	uint64_t		 reports;	/* Reports received (64, 65, 128) */
	uint16_t		 last_trap;
};

static void
on_set(const struct mad_result *res, void *owner, void *arg)
{
	struct obs_reports *r = ((struct sm *)owner)->obs_reports;
	uintptr_t trap = (uintptr_t)arg;

	if (r == NULL)
		return;
	if (mad_reply_ok(res))
		r->accepted++;
	else
		log_warnx("sm: observer: the SA at LID %u did not take the subscription to trap "
		    "%u (%s)", r->subscribed_lid, (unsigned)trap, res->status ? "no answer" :
		    "refused");
}

/* One SubnAdmSet(InformInfo): this port, generic trap `trap`, any
 * producer, Reports to QP1. */
static void
subscribe_one(struct obs_reports *r, uint16_t sa_lid, uint16_t trap)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)mad;
	ib_inform_info_t *ii = (ib_inform_info_t *)(mad + SA_DATA);

	memset(mad, 0, sizeof(mad));
	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = UMAD_SA_CLASS_VERSION;
	sa->method = IB_MAD_METHOD_SET;
	sa->attr_id = htobe16(ATTR_INFORM);
	ii->lid_range_begin = htobe16(0xFFFF);	/* every LID */
	ii->is_generic = 1;
	ii->subscribe = 1;
	ii->trap_type = htobe16(0xFFFF);	/* every type */
	ii->g_or_v.generic.trap_num = htobe16(trap);
	ib_inform_info_set_qpn(ii, htobe32(1));
	ii->g_or_v.generic.node_type_msb = 0xFF;	/* any producer */
	ii->g_or_v.generic.node_type_lsb = htobe16(0xFFFF);
	mad_batch_raw(&r->batch, sa_lid, 1, SA_QKEY, mad, sizeof(mad), on_set,
	    (void *)(uintptr_t)trap);
}

void
sm_observer_subscribe(struct sm *sm, uint16_t sa_lid)
{
	struct obs_reports *r = sm->obs_reports;

	if (r == NULL || sa_lid == 0 || sa_lid == r->subscribed_lid)
		return;
	/* a new master: it knows nothing of the old one's subscriptions */
	r->subscribed_lid = sa_lid;
	r->accepted = 0;
	for (size_t i = 0; i < sizeof(traps) / sizeof(traps[0]); i++)
		subscribe_one(r, sa_lid, traps[i]);
}

static bool
watched(uint16_t trap)
{
	for (size_t i = 0; i < sizeof(traps) / sizeof(traps[0]); i++)
		if (traps[i] == trap)
			return true;
	return false;
}

/* A request to this port (the engine's handler in observer mode): a
 * Report is answered and may bring the next read forward; nothing else is
 * an observer's to answer. */
static void
on_request(struct mad_engine *me, const struct mad_in *in, void *arg)
{
	struct sm *sm = arg;
	struct obs_reports *r = sm->obs_reports;
	const ib_sa_mad_t *sa = (const ib_sa_mad_t *)in->mad;
	const ib_mad_notice_attr_t *n = (const ib_mad_notice_attr_t *)(in->mad + SA_DATA);
	uint8_t resp[MAD_SIZE] MAD_ALIGNED;
	uint16_t trap;

	if (r == NULL || in->len < SA_DATA + 8 || sa->mgmt_class != IB_MCLASS_SUBN_ADM ||
	    sa->method != METHOD_REPORT || be16toh(sa->attr_id) != ATTR_NOTICE)
		return;
	memcpy(resp, in->mad, MAD_SIZE);
	((ib_sa_mad_t *)resp)->method = METHOD_REPORT_RESP;
	((ib_sa_mad_t *)resp)->status = 0;
	(void)mad_respond(me, in, resp, MAD_SIZE);
	if (!ib_notice_is_generic(n))
		return;
	trap = be16toh(n->g_or_v.generic.trap_num);
	if (!watched(trap))
		return;
	r->reports++;
	r->last_trap = trap;
	log_debug("sm: observer: Report of trap %u from LID %u", trap, be16toh(n->issuer_lid));
	r->on_report(sm, trap, n);
}

void
sm_observer_reports_start(struct sm *sm, void (*on_report)(struct sm *sm, uint16_t trap,
    const void *notice))
{
	struct obs_reports *r = xcalloc(1, sizeof(*r));

	r->on_report = on_report;
	mad_batch_init(&r->batch, &sm->batch.io, sm);
	sm->obs_reports = r;
	if (sm->me)
		mad_engine_set_handler(sm->me, on_request, sm);
}

void
sm_observer_reports_stop(struct sm *sm)
{
	struct obs_reports *r = sm->obs_reports;

	if (r == NULL)
		return;
	if (sm->me)
		mad_engine_set_handler(sm->me, NULL, NULL);
	mad_batch_free(&r->batch);
	sm->obs_reports = NULL;
	free(r);
}

json_t *
sm_observer_reports_json(const struct sm *sm)
{
	const struct obs_reports *r = sm->obs_reports;

	if (r == NULL)
		return json_null();
	return json_pack("{s:i, s:i, s:i, s:I, s:i}", "sa_lid", r->subscribed_lid,
	    "traps", (int)(sizeof(traps) / sizeof(traps[0])), "accepted", r->accepted,
	    "reports", (json_int_t)r->reports, "last_trap", r->last_trap);
}
