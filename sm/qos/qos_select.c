/*
 * Which SL a path gets (the SA's PathRecord and MultiPathRecord ask
 * here): the class of the rdma_cm service asked for, else the class of
 * the partition, else the class on SL 0 (SL 0 itself without one).  The
 * order is OpenSM's qos-ulps: a ServiceID match before a P_Key match.
 * Pure: the policy and the query's fields in, an SL out.
 */
#include "sm/qos/qos.h"

static const struct qos_class *
class_of_sid(const struct qos_policy *p, uint64_t sid)
{
	for (size_t i = 0; i < p->nclasses; i++)
		for (size_t j = 0; j < p->classes[i].nsids; j++)
			if (sid >= p->classes[i].sids[j].lo && sid <= p->classes[i].sids[j].hi)
				return &p->classes[i];
	return NULL;
}

static const struct qos_class *
class_of_pkey(const struct qos_policy *p, uint16_t pkey)
{
	for (size_t i = 0; i < p->nclasses; i++)
		for (size_t j = 0; j < p->classes[i].npkeys; j++)
			if (p->classes[i].pkeys[j] == (pkey & 0x7FFF))
				return &p->classes[i];
	return NULL;
}

const struct qos_class *
qos_select_class(const struct qos_policy *p, bool has_sid, uint64_t sid, uint16_t pkey)
{
	const struct qos_class *c = NULL;

	if (p == NULL || !p->enabled)
		return NULL;
	if (has_sid)
		c = class_of_sid(p, sid);
	if (c == NULL && pkey)
		c = class_of_pkey(p, pkey);
	return c ? c : qos_class_of_sl(p, 0);
}

uint8_t
qos_select_sl(const struct qos_policy *p, bool has_sid, uint64_t sid, uint16_t pkey)
{
	const struct qos_class *c = qos_select_class(p, has_sid, sid, pkey);

	return c ? c->sl : 0;
}
