/*
 * InfiniBand side of health: polling through the SM's MAD engine and the
 * SM's sweep hook.  Placeholder until the SM core lands on main: without
 * it there is no fabric to poll.
 */
#include "health/hstate.h"

int
health_ib_start(struct health *h)
{
	(void)h;
	return -1;
}

void
health_ib_stop(struct health *h)
{
	(void)h;
}
