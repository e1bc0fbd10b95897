/*
 * The ports an operator disabled, as the SM's own paths ask for them:
 * activation and the sweep leave such a port down, the audit does not
 * bring it back (sm/core/port_admin.h keeps the set; ctl_port.c changes it).
 */
#include "sm/core/sm_internal.h"

bool
sm_port_disabled(const struct sm *sm, const struct fabric_port *p)
{
	return sm->disabled.n > 0 && pds_get(&sm->disabled, p->node->guid, p->num) != NULL;
}

void
sm_port_admin_stop(struct sm *sm)
{
	mad_batch_free(&sm->admin);
	pds_free(&sm->disabled);
	sm_ports_seen_free(sm);
}
