/*
 * MADs addressed to the SM: SA queries (to sa_agent.c), SMInfo from other SMs
 * (to standby.c), traps, and a polite refusal of anything else a
 * requester would wait for.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "daemon/events.h"
#include "sm/sa/sa.h"
#include "sm/core/sm_internal.h"

/*
 * Trap 256 (Bad M_Key): a port refused an SMP.  If ours (our LID asked),
 * the port holds a key we do not know: lease recovery starts for it.
 * Either way its tables are read back at once.  The key it names is
 * not logged.
 */
static void
bad_mkey(struct sm *sm, const ib_mad_notice_attr_t *n)
{
	uint16_t lid = be16toh(n->issuer_lid);
	uint16_t from = be16toh(n->data_details.ntc_256.lid);
	/* a directed-route SMP comes from the permissive LID: the SM's */
	bool ours = from == sm->own_lid || from == 0xFFFF;
	struct fabric_port *p = sm->fabric ? fabric_port_by_lid(sm->fabric, lid) : NULL;

	if (p && p->node->type == FABRIC_SWITCH)
		p = &p->node->ports[0];
	event_post(EV_WARNING, sm_source(sm), p ? p->node->desc : NULL,
	    "trap 256: port LID %u refused an SMP with a bad M_Key from LID %u%s", lid, from,
	    ours ? " (ours: the port holds a key fabricd does not know)" : "");
	if (p && sm->mkey.enabled && ours)
		sm_mkey_rejected(&sm->mkey, p->guid, event_now_ms());
	sm_tell_trap_about(sm, lid);
}

static void
answer_trap(struct sm *sm, const struct mad_in *in)
{
	const ib_smp_t *smp = (const ib_smp_t *)in->mad;
	const ib_mad_notice_attr_t *n = (const ib_mad_notice_attr_t *)smp->data;
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	uint16_t trap = be16toh(n->g_or_v.generic.trap_num);

	/* Repress it (ibsim drops the repress; hardware needs it). */
	memcpy(mad, in->mad, MAD_SIZE);
	((ib_smp_t *)mad)->method = IB_MAD_METHOD_TRAP_REPRESS;
	mad_respond(sm->me, in, mad, MAD_SIZE);
	log_info("sm: trap %u from LID %u", trap, be16toh(n->issuer_lid));
	sm_report_forward(sm, n);	/* to the SA's subscribers (InformInfo) */
	if (trap == 128) {	/* link state change: look now, not at the next tick */
		sm_sweep_request(sm, true);
		sm_tell_trap_about(sm, be16toh(n->issuer_lid));	/* and at its tables */
	}
	if (trap == 256)	/* Bad M_Key: someone tried the port; read it back */
		bad_mkey(sm, n);
	/* Capabilities changed, IsSM among them: another SM may have come
	 * (or settled in STANDBY and want a handover).  Our own port's trap
	 * at start-up is not news: the first sweep is running anyway. */
	if (trap == 144 && sm->sweeps > 0 && be16toh(n->issuer_lid) != sm->own_lid)
		sm_sweep_request(sm, true);
}

static void
answer_unsupported(struct sm *sm, const struct mad_in *in)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	ib_mad_t *hdr = (ib_mad_t *)mad;

	memcpy(mad, in->mad, MAD_SIZE);
	/* GetResp for a Get or a Set, GetTableResp for a GetTable...:
	 * method/attribute combination unsupported */
	ib_mad_init_response((const ib_mad_t *)in->mad, hdr, htobe16(0x000C));
	mad_respond(sm->me, in, mad, in->len < MAD_SIZE ? in->len : MAD_SIZE);
}

void
sm_handle_mad(struct mad_engine *me, const struct mad_in *in, void *arg)
{
	struct sm *sm = arg;
	const ib_mad_t *hdr = (const ib_mad_t *)in->mad;
	bool smp = hdr->mgmt_class == IB_MCLASS_SUBN_LID || hdr->mgmt_class == IB_MCLASS_SUBN_DIR;

	if (hdr->mgmt_class == IB_MCLASS_SUBN_ADM)
		sa_handle_mad(sm, in);
	else if (smp && hdr->attr_id == IB_MAD_ATTR_SM_INFO &&
	    (hdr->method == IB_MAD_METHOD_GET || hdr->method == IB_MAD_METHOD_SET))
		sm_sminfo_request(sm, in);
	else if (smp && hdr->method == IB_MAD_METHOD_TRAP && hdr->attr_id == IB_MAD_ATTR_NOTICE)
		answer_trap(sm, in);
	else if (hdr->method != IB_MAD_METHOD_TRAP && hdr->method != IB_MAD_METHOD_REPORT &&
	    hdr->method != IB_MAD_METHOD_SEND && hdr->method != IB_MAD_METHOD_TRAP_REPRESS)
		answer_unsupported(sm, in);	/* a requester waits for an answer */
	else
		log_debug("sm: ignored MAD class 0x%02x method 0x%02x attr 0x%04x",
		    hdr->mgmt_class, hdr->method, be16toh(hdr->attr_id));
}
