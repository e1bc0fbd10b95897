/*
 * Several traffic classes on one NIC: the classes of a profile written as
 * the DCB settings the rest of roce_qos applies, reads back and watches
 * (so a three-class profile is planned, applied and checked for drift as
 * the single-class built-ins are), and the lint rules that only classes
 * can break.  Pure: a profile in, a profile out.
 */
#include <stdio.h>
#include <string.h>

#include "roce_qos/profile.h"

const struct roce_class *
roce_profile_class(const struct roce_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nclasses; i++)
		if (strcmp(p->classes[i].name, name) == 0)
			return &p->classes[i];
	return NULL;
}

static bool
prio_has_class(const struct roce_profile *p, int prio)
{
	for (size_t i = 0; i < p->nclasses; i++)
		if (p->classes[i].prio == prio)
			return true;
	return false;
}

/* ETS: a TC per class priority with its share; the TCs no class owns get
 * nothing but the TC of priority 0, which gets what is left. */
static void
apply_ets(struct roce_profile *p)
{
	int left = 100;

	p->ets_managed = true;
	for (int tc = 0; tc < ROCE_NTC; tc++)
		if (p->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS)
			p->tc_bw[tc] = 0;
	for (size_t i = 0; i < p->nclasses; i++) {
		const struct roce_class *c = &p->classes[i];

		p->prio_tc[c->prio] = (uint8_t)c->prio;
		p->tc_tsa[c->prio] = IEEE_8021QAZ_TSA_ETS;
		p->tc_bw[c->prio] = (uint8_t)c->ets;
		left -= c->ets;
	}
	if (!prio_has_class(p, 0) && left > 0 && p->tc_tsa[p->prio_tc[0]] == IEEE_8021QAZ_TSA_ETS)
		p->tc_bw[p->prio_tc[0]] = (uint8_t)left;
}

void
roce_profile_apply_classes(struct roce_profile *p)
{
	const struct roce_class *training = roce_profile_class(p, "training");

	if (p->nclasses == 0)
		return;
	p->trust = ROCE_TRUST_DSCP;
	p->pfc_managed = true;
	p->pfc_en = 0;
	for (size_t i = 0; i < p->nclasses; i++) {
		const struct roce_class *c = &p->classes[i];

		for (size_t d = 0; d < c->ndscp; d++)
			p->dscp_prio[c->dscp[d]] = (uint8_t)c->prio;
		if (c->lossless)
			p->pfc_en |= (uint8_t)(1u << c->prio);
	}
	apply_ets(p);
	p->cc.prios = 0;
	for (size_t i = 0; i < p->nclasses; i++)
		if (p->classes[i].ecn) {
			p->cc.prios |= (uint8_t)(1u << p->classes[i].prio);
			if (p->cc.mode == ROCE_CC_UNMANAGED)
				p->cc.mode = ROCE_CC_ENABLED;
		}
	if (training && training->ndscp)
		p->roce_tos = training->dscp[0] << 2 | 2;	/* ECT(0), as the built-ins */
}
