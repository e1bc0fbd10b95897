/* The SA's state between requests (sa.h): made and freed as one. */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sm/sa/sa.h"

struct sa_state *
sa_state_new(void)
{
	return xcalloc(1, sizeof(struct sa_state));
}

void
sa_state_free(struct sa_state *st)
{
	if (st == NULL)
		return;
	sa_subs_free(&st->subs);
	sa_services_free(&st->services);
	free(st);
}
