/*
 * MADs addressed to the SM: SA queries (to sa.c), SMInfo from other SMs
 * (to standby.c), traps, and a polite refusal of anything else a
 * requester would wait for.
 */
#include <string.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "sm/sa.h"
#include "sm/sm_internal.h"

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
	if (trap == 128)	/* link state change: look now, not at the next tick */
		sm_sweep_request(sm, true);
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
	hdr->method |= IB_MAD_METHOD_RESP_MASK;	/* GetResp, GetTableResp... */
	hdr->status = htobe16(0x000C);	/* method/attribute combination unsupported */
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
