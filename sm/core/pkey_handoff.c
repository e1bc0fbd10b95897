/*
 * The P_Key hand-off between the partitions module and the SM (sm/sm.h):
 * partitions registers, when it starts, how to read the table a port is
 * to hold (sm_set_pkey_tables, for the SA's answers) and the table it
 * committed (sm_set_pkey_expect, for the audit and the SA).  Kept beside
 * the hook registry's reason: the SM may start later, restart or not run,
 * and the registration stays.
 */
#include "sm/core/sm_internal.h"

static sm_pkey_table_fn pkey_table;
static void *pkey_arg;
static sm_pkey_expect_fn expect_fn;
static void *expect_arg;

void
sm_set_pkey_tables(sm_pkey_table_fn fn, void *arg)
{
	pkey_table = fn;
	pkey_arg = fn ? arg : NULL;
}

sm_pkey_table_fn
sm_pkey_tables(void **arg)
{
	*arg = pkey_arg;
	return pkey_table;
}

void
sm_set_pkey_expect(sm_pkey_expect_fn fn, void *arg)
{
	expect_fn = fn;
	expect_arg = fn ? arg : NULL;
}

bool
sm_pkey_expect_known(void)
{
	return expect_fn != NULL;
}

int
sm_pkey_expected(const struct fabric_node *n, uint8_t port, uint16_t *entries, size_t max,
    bool *switch_ext)
{
	*switch_ext = false;
	return expect_fn ? expect_fn(n->guid, port, entries, max, switch_ext, expect_arg) : -1;
}
