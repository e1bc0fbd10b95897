/*
 * Built-in profiles and lint.  The built-ins follow the published
 * settings: NVIDIA's doRoCE/Cumulus "lossless" (RoCE on DSCP 26 ->
 * priority 3, CNP on DSCP 48 -> priority 6 strict, TC0/TC3 50/50), the same
 * without PFC relying on ECN/DCQCN, and SONiC's AZURE template (lossless
 * priorities 3 and 4, RoCE at DSCP 3).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "roce_qos/profile.h"
#include "roce_qos/tunable.h"

const char *const roce_profile_builtins[] = {
	"nvidia-lossless", "lossy-dcqcn", "sonic-default", NULL
};

void
roce_profile_empty(struct roce_profile *p)
{
	memset(p, 0, sizeof(*p));
	memset(p->dscp_prio, ROCE_NO_PRIO, sizeof(p->dscp_prio));
	p->cable_len_m = ROCE_UNSET;
	p->cc.cnp_dscp = ROCE_UNSET;
	p->cc.cnp_prio = ROCE_UNSET;
	p->roce_tos = ROCE_UNSET;
	p->storm_ms = ROCE_UNSET;
	p->nccl_tc = ROCE_UNSET;
}

/* Two-class ETS: bulk TC and RoCE TC share, the CNP TC is strict. */
static void
ets_two_class(struct roce_profile *p, int bulk_tc, int roce_tc, int cnp_tc, int roce_share)
{
	p->ets_managed = true;
	for (int i = 0; i < ROCE_NTC; i++) {
		p->tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		p->tc_bw[i] = 0;
		p->prio_tc[i] = bulk_tc;
	}
	p->prio_tc[roce_tc] = roce_tc;
	p->prio_tc[cnp_tc] = cnp_tc;
	p->tc_tsa[cnp_tc] = IEEE_8021QAZ_TSA_STRICT;
	p->tc_bw[bulk_tc] = 100 - roce_share;
	p->tc_bw[roce_tc] = roce_share;
}

static void
nvidia_common(struct roce_profile *p)
{
	p->dcbx = ROCE_DCBX_HOST;
	p->trust = ROCE_TRUST_DSCP;
	p->dscp_prio[26] = 3;
	p->dscp_prio[48] = 6;
	p->pfc_managed = true;
	ets_two_class(p, 0, 3, 6, 50);
	p->buffer = ROCE_BUF_AUTO;
	p->cc.mode = ROCE_CC_ENABLED;
	p->cc.prios = 1u << 3;
	p->cc.cnp_dscp = 48;
	p->cc.cnp_prio = 6;
	p->roce_tos = 106;	/* DSCP 26 << 2 | ECT(0) */
}

int
roce_profile_builtin(const char *name, struct roce_profile *p)
{
	roce_profile_empty(p);
	if (strcmp(name, "nvidia-lossless") == 0) {
		nvidia_common(p);
		p->pfc_en = 1u << 3;
	} else if (strcmp(name, "lossy-dcqcn") == 0) {
		nvidia_common(p);
		p->pfc_en = 0;
	} else if (strcmp(name, "sonic-default") == 0) {
		p->dcbx = ROCE_DCBX_HOST;
		p->trust = ROCE_TRUST_DSCP;
		p->dscp_prio[3] = 3;
		p->dscp_prio[4] = 4;
		p->dscp_prio[48] = 6;
		p->pfc_managed = true;
		p->pfc_en = (1u << 3) | (1u << 4);
		p->buffer = ROCE_BUF_AUTO;
		p->cc.mode = ROCE_CC_ENABLED;
		p->cc.prios = (1u << 3) | (1u << 4);
		p->cc.cnp_dscp = 48;
		p->cc.cnp_prio = 6;
		p->roce_tos = 3 << 2;
	} else
		return -1;
	snprintf(p->name, sizeof(p->name), "%s", name);
	return 0;
}

int
roce_profile_nccl_tc(const struct roce_profile *p)
{
	return p->nccl_tc != ROCE_UNSET ? p->nccl_tc : p->roce_tos;
}

const char *
roce_tsa_name(uint8_t tsa)
{
	switch (tsa) {
	case IEEE_8021QAZ_TSA_STRICT:	return "strict";
	case IEEE_8021QAZ_TSA_CB_SHAPER: return "cbs";
	case IEEE_8021QAZ_TSA_ETS:	return "ets";
	case IEEE_8021QAZ_TSA_VENDOR:	return "vendor";
	}
	return "unknown";
}

/* ---- lint ---- */

static bool
prio_is_classed(const struct roce_profile *p, int prio)
{
	for (size_t i = 0; i < p->nclasses; i++)
		if (p->classes[i].prio == prio)
			return true;
	return false;
}

struct lint_ctx {
	struct roce_lint	*out;
	size_t			 max, n;
};

static void __attribute__((format(printf, 4, 5)))
lint_add(struct lint_ctx *l, const char *rule, const struct roce_pos *pos, const char *fmt, ...)
{
	va_list ap;

	if (l->n < l->max) {
		struct roce_lint *e = &l->out[l->n];
		e->rule = rule;
		e->pos = *pos;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	l->n++;
}

static void
lint_ets_sum(const struct roce_profile *p, struct lint_ctx *l)
{
	int sum = 0, any = 0;

	if (!p->ets_managed)
		return;
	for (int tc = 0; tc < ROCE_NTC; tc++)
		if (p->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS) {
			sum += p->tc_bw[tc];
			any = 1;
		}
	if (any && sum != 100)
		lint_add(l, "ets-sum", &p->bw_pos,
		    "ETS bandwidth shares of the ETS traffic classes sum to %d, expected 100", sum);
}

/* The RoCE ToS must land on a lossless priority (when the profile has any). */
static void
lint_tos_lossless(const struct roce_profile *p, struct lint_ctx *l)
{
	int dscp, prio;

	if (p->roce_tos == ROCE_UNSET || !p->pfc_managed || p->pfc_en == 0 ||
	    p->trust != ROCE_TRUST_DSCP)
		return;
	dscp = p->roce_tos >> 2;
	prio = p->dscp_prio[dscp];
	if (prio == ROCE_NO_PRIO)
		lint_add(l, "tos-lossless", &p->tos_pos,
		    "RoCE ToS %d (DSCP %d) has no DSCP to priority mapping", p->roce_tos, dscp);
	else if (!(p->pfc_en & (1u << prio)))
		lint_add(l, "tos-lossless", &p->tos_pos,
		    "RoCE ToS %d (DSCP %d) maps to priority %d, which is not PFC-enabled (pfc mask 0x%02x)",
		    p->roce_tos, dscp, prio, p->pfc_en);
}

static void
lint_cnp_lossy(const struct roce_profile *p, struct lint_ctx *l)
{
	if (p->cc.mode != ROCE_CC_ENABLED || p->cc.cnp_prio == ROCE_UNSET || !p->pfc_managed)
		return;
	if (p->pfc_en & (1u << p->cc.cnp_prio))
		lint_add(l, "cnp-lossy", &p->cc.cnp_pos,
		    "CNP priority %d is PFC-enabled; CNPs must ride a lossy priority", p->cc.cnp_prio);
}

static void
lint_lossless_buffer(const struct roce_profile *p, struct lint_ctx *l)
{
	if (p->buffer != ROCE_BUF_MANUAL || !p->pfc_managed)
		return;
	for (int prio = 0; prio < ROCE_NPRIO; prio++) {
		int buf = p->prio2buffer[prio];
		if ((p->pfc_en & (1u << prio)) && (buf >= ROCE_NTC || p->buffer_size[buf] == 0))
			lint_add(l, "lossless-buffer", &p->buffer_pos,
			    "lossless priority %d maps to buffer %d, which has no size", prio, buf);
	}
}

static void
lint_trust_map(const struct roce_profile *p, struct lint_ctx *l)
{
	int entries = 0;

	for (int d = 0; d < ROCE_NDSCP; d++)
		entries += p->dscp_prio[d] != ROCE_NO_PRIO;
	if (p->trust == ROCE_TRUST_DSCP && entries == 0)
		lint_add(l, "trust-map", &p->trust_pos,
		    "trust is dscp but the DSCP to priority map is empty");
	else if (p->trust == ROCE_TRUST_PCP && entries > 0)
		lint_add(l, "trust-map", &p->trust_pos,
		    "trust is pcp but the profile maps %d DSCP values (mlx5 trusts DSCP once one is mapped)",
		    entries);
}

static void
lint_nccl_tc(const struct roce_profile *p, struct lint_ctx *l)
{
	if (p->nccl_tc == ROCE_UNSET || p->roce_tos == ROCE_UNSET)
		return;
	if (p->nccl_tc != p->roce_tos)
		lint_add(l, "nccl-tc", &p->nccl_pos,
		    "NCCL_IB_TC %d differs from the RoCE ToS %d; NCCL traffic would land on another class",
		    p->nccl_tc, p->roce_tos);
}

/* mlx5 (and the kernel's u16) take 0, 80..8000 ms or auto; else EINVAL at apply. */
static void
lint_storm_range(const struct roce_profile *p, struct lint_ctx *l)
{
	if (p->storm_ms == ROCE_UNSET || roce_storm_valid(p->storm_ms))
		return;
	lint_add(l, "storm-range", &p->storm_pos,
	    "pfc_storm_prevention %d ms is out of range; expected auto, disable, or 80-8000 ms",
	    p->storm_ms);
}

/* The classes of a profile (classes.c): shares, one class a priority
 * (the lossless NCCL one above all), CNPs on a priority of their own,
 * every class DSCP on its class's priority. */
static void
lint_classes(const struct roce_profile *p, struct lint_ctx *l)
{
	int sum = 0;

	for (size_t i = 0; i < p->nclasses; i++) {
		const struct roce_class *c = &p->classes[i];

		sum += c->ets;
		for (size_t j = 0; j < i; j++)
			if (p->classes[j].prio == c->prio)
				lint_add(l, "class-priority", &c->prio_pos, "class %s shares priority %d "
				    "with class %s%s", c->name, c->prio, p->classes[j].name,
				    c->lossless || p->classes[j].lossless ? " (lossless: one's pauses "
				    "stall the other)" : "");
		if (p->cc.mode == ROCE_CC_ENABLED && c->prio == p->cc.cnp_prio)
			lint_add(l, "class-cnp", &c->prio_pos, "class %s is on priority %d, the CNP "
			    "priority: CNPs need a priority of their own", c->name, c->prio);
		for (size_t d = 0; d < c->ndscp; d++) {
			if (p->cc.mode == ROCE_CC_ENABLED && c->dscp[d] == p->cc.cnp_dscp)
				lint_add(l, "class-dscp", &c->dscp_pos, "class %s uses DSCP %u, the CNP "
				    "DSCP", c->name, c->dscp[d]);
			else if (p->dscp_prio[c->dscp[d]] != c->prio)
				lint_add(l, "class-dscp", &c->dscp_pos, "class %s's DSCP %u maps to "
				    "priority %u, not the class's %d (another class has it)", c->name,
				    c->dscp[d], p->dscp_prio[c->dscp[d]], c->prio);
		}
	}
	if (p->nclasses && (sum > 100 || (sum < 100 && prio_is_classed(p, 0))))
		lint_add(l, "class-ets-sum", &p->classes[0].ets_pos, "the classes' ETS shares sum "
		    "to %d, not 100%s", sum, sum < 100 ? " (priority 0 has a class: nobody gets "
		    "the rest)" : "");
}

size_t
roce_lint_profile(const struct roce_profile *p, struct roce_lint *out, size_t max)
{
	struct lint_ctx l = { out, max, 0 };

	lint_classes(p, &l);
	lint_ets_sum(p, &l);
	lint_tos_lossless(p, &l);
	lint_cnp_lossy(p, &l);
	lint_lossless_buffer(p, &l);
	lint_trust_map(p, &l);
	lint_nccl_tc(p, &l);
	lint_storm_range(p, &l);
	return l.n;
}
