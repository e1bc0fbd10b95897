/*
 * A growing sink of SA records (sm/sa/sa.h): what every record builder puts
 * its records into, kept apart from the answer that reads them so that
 * the builders need nothing of it.
 */
#include "common/xmalloc.h"
#include "sm/sa/sa.h"

void
sa_sink_grow(struct sa_sink *s)
{
	size_t want = s->max ? s->max * 2 : 64;

	if (want > s->grow_to)
		want = s->grow_to;
	s->buf = xreallocarray(s->buf, want, s->rec_size);
	s->max = want;
}
