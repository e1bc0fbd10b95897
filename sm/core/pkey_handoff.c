/*
 * The P_Key hand-off between the partitions module and the SM (sm/sm.h):
 * partitions registers, when it starts, how to read the table a port is
 * to hold (sm_set_pkey_tables, for the SA's answers) and the table it
 * committed (sm_set_pkey_expect, for the audit and the SA).  Both are
 * kept in the SM instance they were registered with.
 */
#include "sm/core/sm_internal.h"

void
sm_set_pkey_tables(struct sm *sm, sm_pkey_table_fn fn, void *arg)
{
	if (sm == NULL)
		return;
	sm->pkey_table = fn;
	sm->pkey_table_arg = fn ? arg : NULL;
}

sm_pkey_table_fn
sm_pkey_tables(const struct sm *sm, void **arg)
{
	*arg = sm->pkey_table_arg;
	return sm->pkey_table;
}

void
sm_set_pkey_expect(struct sm *sm, sm_pkey_expect_fn fn, void *arg)
{
	if (sm == NULL)
		return;
	sm->pkey_expect = fn;
	sm->pkey_expect_arg = fn ? arg : NULL;
}

bool
sm_pkey_expect_known(const struct sm *sm)
{
	return sm->pkey_expect != NULL;
}

int
sm_pkey_expected(const struct sm *sm, const struct fabric_node *n, uint8_t port,
    uint16_t *entries, size_t max, bool *switch_ext)
{
	*switch_ext = false;
	return sm->pkey_expect ? sm->pkey_expect(n->guid, port, entries, max, switch_ext,
	    sm->pkey_expect_arg) : -1;
}
