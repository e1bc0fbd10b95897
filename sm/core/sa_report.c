/*
 * The SA's Reports (IBA 13.4.8, 14.2.5.1): traps 64 and 65, a port's GID
 * in or out of service, and 66 and 67, a multicast group created or
 * deleted (its MGID), sent to every InformInfo subscriber that asked
 * for them (sa_inform.c) as SubnAdmReport(Notice) to its LID and QP with
 * QP1's Q_Key.  A heavy sweep compares the published model with the new
 * one: a CA port ACTIVE now and not before came into service, one ACTIVE
 * before and not now went out.  The ReportResp is not waited for twice:
 * a lost Report is lost (the subscriber finds the port on its next query).
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>
#include <infiniband/umad_sa.h>

#include "common/log.h"
#include "sm/sa/sa.h"
#include "sm/mcast/mcast.h"
#include "sm/core/sm_internal.h"

#define QP1_QKEY	0x80010000u

static bool
in_service(const struct fabric_port *p)
{
	return p != NULL && p->state == IB_LINK_ACTIVE && p->lid != 0;
}

static void
on_report(const struct mad_result *res, void *arg)
{
	/* nothing to do: a subscriber that did not answer misses one Report */
}

static void
send_notice(struct sm *sm, const struct sa_sub *sub, const ib_mad_notice_attr_t *notice)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)mad;

	memset(mad, 0, sizeof(mad));
	/* the TID is the engine's (mad_send_raw) */
	ib_mad_init_new((ib_mad_t *)(void *)mad, IB_MCLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION,
	    IB_MAD_METHOD_REPORT, 0, IB_MAD_ATTR_NOTICE, 0);
	memcpy(sa->data, notice, sizeof(*notice));
	if (sm->me && mad_send_raw(sm->me, sub->lid, sub->qpn, QP1_QKEY, mad,
	    IB_SA_MAD_HDR_SIZE + sizeof(*notice), on_report, NULL) == 0)
		sm->sa->reports_sent++;
}

/* A trap a port sent the SM (128 link state, 144 capabilities...), passed
 * on to its subscribers as it came. */
void
sm_report_forward(struct sm *sm, const void *notice_attr)
{
	const ib_mad_notice_attr_t *n = notice_attr;
	uint16_t trap = be16toh(n->g_or_v.generic.trap_num);

	if (!(n->generic_type & 0x80) || sm->state != SM_STATE_MASTER)
		return;
	for (size_t i = 0; i < sm->sa->subs.n; i++)
		if (sa_sub_wants(&sm->sa->subs.v[i], trap, be16toh(n->issuer_lid)))
			send_notice(sm, &sm->sa->subs.v[i], n);
}

static void
send_report(struct sm *sm, const struct sa_sub *sub, uint16_t trap, const uint8_t gid[16])
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)mad;
	ib_mad_notice_attr_t *n = (ib_mad_notice_attr_t *)sa->data;

	memset(mad, 0, sizeof(mad));
	/* the TID is the engine's (mad_send_raw) */
	ib_mad_init_new((ib_mad_t *)(void *)mad, IB_MCLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION,
	    IB_MAD_METHOD_REPORT, 0, IB_MAD_ATTR_NOTICE, 0);
	n->generic_type = 0x80 | IB_NOTICE_TYPE_INFO;
	ib_notice_set_prod_type_ho(n, 4);	/* produced by the class manager (the SA) */
	n->g_or_v.generic.trap_num = htobe16(trap);
	n->issuer_lid = htobe16(sm->own_lid);
	memcpy(&n->data_details.ntc_64_67.gid, gid, 16);
	if (sm->me && mad_send_raw(sm->me, sub->lid, sub->qpn, QP1_QKEY, mad,
	    IB_SA_MAD_HDR_SIZE + sizeof(*n), on_report, NULL) == 0)
		sm->sa->reports_sent++;
}

static void
report(struct sm *sm, uint16_t trap, const struct fabric_port *p)
{
	const ib_port_info_t *pi = (const ib_port_info_t *)p->pi;
	ib_gid_t gid;

	gid.unicast.prefix = pi->subnet_prefix ? pi->subnet_prefix : htobe64(sm->cfg.subnet_prefix);
	gid.unicast.interface_id = htobe64(p->guid);
	for (size_t i = 0; i < sm->sa->subs.n; i++)
		if (sa_sub_wants(&sm->sa->subs.v[i], trap, p->lid)) {
			log_info("sa: report trap %u (port " GUID_FMT ") to LID %u", trap, p->guid,
			    sm->sa->subs.v[i].lid);
			send_report(sm, &sm->sa->subs.v[i], trap, (const uint8_t *)&gid);
		}
}

void
sm_report_group_changes(struct sm *sm)
{
	for (size_t e = 0; e < sm->mc->nevents; e++) {
		const struct mc_event *ev = &sm->mc->events[e];
		uint16_t trap = ev->created ? 66 : 67;

		for (size_t i = 0; sm->state == SM_STATE_MASTER && i < sm->sa->subs.n; i++)
			if (sa_sub_wants(&sm->sa->subs.v[i], trap, 0xFFFF))
				send_report(sm, &sm->sa->subs.v[i], trap, ev->mgid);
	}
	sm->mc->nevents = 0;
}

/* trap for every CA port in service in a but not in b */
static void
report_missing(struct sm *sm, const struct fabric *a, const struct fabric *b, uint16_t trap)
{
	struct fabric_node *n;
	size_t i;

	FABRIC_FOREACH_NODE(a, i, n) {
		if (n->type == FABRIC_SWITCH)
			continue;
		for (unsigned j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j];

			if (p->guid && in_service(p) && !in_service(fabric_port_by_guid(b, p->guid)))
				report(sm, trap, p);
		}
	}
}

void
sm_report_gid_changes(struct sm *sm, const struct fabric *old, const struct fabric *cur)
{
	if (old == NULL || sm->sa->subs.n == 0 || sm->state != SM_STATE_MASTER)
		return;
	report_missing(sm, cur, old, 64);	/* in service now */
	report_missing(sm, old, cur, 65);	/* out of service */
}
