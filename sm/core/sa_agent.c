/*
 * The SA agent: the SM's side of the SA.  Every class-0x03 MAD the SM's
 * dispatch receives comes here; the answer is built from what the SM
 * holds (sa_ctx_of) by the pure sa_answer.c, or, for a QoS table the SM
 * has never read, once sa_qos_lazy.c has read it.
 */
#include <stdlib.h>
#include <endian.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "daemon/events.h"
#include "sm/mcast/mcast.h"
#include "sm/core/election.h"
#include "sm/sa/sa.h"
#include "sm/core/sm_internal.h"

/*
 * The SM's dispatch hands every class-0x03 MAD here.  Only the master's SA
 * answers (as OpenSM: a standby ignores SA MADs; requesters ask the SM LID
 * their port holds, which names the master).
 */
void
sa_ctx_of(struct sm *sm, const struct mad_in *in, struct sa_ctx *ctx)
{
	void *pkey_arg;
	sm_pkey_table_fn pkey_table = sm_pkey_tables(sm, &pkey_arg);

	*ctx = (struct sa_ctx){
		.f = sm->fabric,
		.sm_guid = sm->own_guid,
		.sm_lid = sm->own_lid,
		.sm_priority = (uint8_t)sm->cfg.priority,
		.sm_state = sm->state,
		.sm_act_count = (uint32_t)mad_engine_counters(sm->me)->sent,	/* as SMInfo */
		.pkey_table = pkey_table,
		.pkey_arg = pkey_arg,
		/* partitions off: the factory table everywhere */
		.pkey_entries = pkey_table ? sm->pkey_expect : NULL,
		.pkey_entries_arg = sm->pkey_expect_arg,
		.counters = &sm->sa->counters,
		.qos = &sm->cfg.qos,
		.mc = sm->mc,
		.requester_lid = in->slid,
		.sa_key = sm->cfg.sm_key,	/* OpenSM's sa_key defaults to its sm_key, 1 */
		.subs = &sm->sa->subs,
		.services = &sm->sa->services,
		.now_ms = event_now_ms(),
		.mft_blocks = sm_mcast_mft_sa_blocks,
		.mft_block = sm_mcast_mft_sa_block,
		.mft_arg = sm,
	};
}

/* Answer in from what ctx holds, and what a join or leave in it starts. */
static void answer_in(struct sm *sm, const struct mad_in *in, const struct sa_ctx *ctx);

void
sa_handle_mad(struct sm *sm, const struct mad_in *in)
{
	struct sa_ctx ctx;

	if (sm->state != SM_STATE_MASTER) {
		log_debug("sa: not master (%s): SA MAD from LID %u ignored",
		    sm_state_name(sm->state), in->slid);
		return;
	}
	sa_ctx_of(sm, in, &ctx);
	if (!sa_qos_lazy(sm, in, &ctx, sa_handle_now))
		answer_in(sm, in, &ctx);
}

void
sa_handle_now(struct sm *sm, const struct mad_in *in)
{
	struct sa_ctx ctx;

	sa_ctx_of(sm, in, &ctx);
	answer_in(sm, in, &ctx);
}

static void
answer_in(struct sm *sm, const struct mad_in *in, const struct sa_ctx *ctx)
{
	uint8_t resp[MAD_SIZE] MAD_ALIGNED;
	size_t len = 0;
	const ib_sa_mad_t *q = (const ib_sa_mad_t *)in->mad;

	if (mad_engine_kernel_rmpp(sm->me)) {
		uint8_t *whole;

		if (!sa_answer_rmpp(ctx, in->mad, in->len, &whole, &len))
			return;
		log_debug("sa: method 0x%02x attr 0x%04x from LID %u: status 0x%04x, %zu bytes",
		    q->method, be16toh(q->attr_id), in->slid,
		    be16toh(((ib_sa_mad_t *)whole)->status), len);
		mad_respond(sm->me, in, whole, len);
		free(whole);
	} else {
		if (!sa_answer(ctx, in->mad, in->len, resp, &len))
			return;
		log_debug("sa: method 0x%02x attr 0x%04x from LID %u: status 0x%04x, %zu bytes",
		    q->method, be16toh(q->attr_id), in->slid,
		    be16toh(((ib_sa_mad_t *)resp)->status), len);
		mad_respond(sm->me, in, resp, len);
	}
	if (sm->mc->nevents)
		sm_report_group_changes(sm);
	if (sm->mc->gen != sm->mc_gen_programmed)
		sm_sweep_request(sm, false);	/* a join or leave: new trees */
}
