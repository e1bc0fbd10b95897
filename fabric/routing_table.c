/*
 * The routing table's own small functions (see fabric/routing.h): lookup
 * by switch, freeing, engine names.  Apart from the engines so that the
 * files that read tables (credit loops, repair, memory) depend on these
 * and not on the engines that call them.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/routing.h"

void
routing_table_free(struct routing_table *t)
{
	if (t == NULL)
		return;
	for (size_t s = 0; s < t->nswitches && t->lfts; s++) {
		free(t->lfts[s].port);
		free(t->lfts[s].routes);
		free(t->lfts[s].stage);
	}
	free(t->lfts);
	free(t);
}

const struct routing_lft *
routing_lft_of(const struct routing_table *t, uint64_t sw_guid)
{
	size_t lo = 0, hi = t ? t->nswitches : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t g = t->lfts[mid].sw->guid;
		if (g == sw_guid)
			return &t->lfts[mid];
		if (g < sw_guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *
routing_engine_name(enum routing_engine e)
{
	static const char *const names[] = {
		[ROUTING_MINHOP] = "minhop", [ROUTING_UPDN] = "updn",
		[ROUTING_FTREE] = "ftree", [ROUTING_AUTO] = "auto",
	};

	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "?";
}

int
routing_engine_parse(const char *name)
{
	if (strcmp(name, "minhop") == 0)
		return ROUTING_MINHOP;
	if (strcmp(name, "updn") == 0)
		return ROUTING_UPDN;
	if (strcmp(name, "ftree") == 0)
		return ROUTING_FTREE;
	if (strcmp(name, "auto") == 0)
		return ROUTING_AUTO;
	return -1;
}
