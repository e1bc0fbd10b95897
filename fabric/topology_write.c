/*
 * What the topology formats share (topology_formats.h): a description fit
 * for quotes and each cable once.  Apart from topology_export.c, which
 * calls the formats, so that the formats do not call back into it.
 */
#include <stdbool.h>
#include <stddef.h>

#include "fabric/topology_formats.h"

/*
 * A NodeDescription fit to sit between double quotes: both formats are
 * read by splitting on '"', so a quote in a description would shift every
 * field after it.  Control characters become spaces, as the diags do.
 */
const char *
topology_clean_desc(const char *desc, char *buf, size_t len)
{
	size_t i;

	for (i = 0; desc[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)desc[i];
		buf[i] = c == '"' ? '\'' : c == '\\' ? '/' : c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	buf[i] = 0;
	return buf;
}

/* Each cable once: from the lower node GUID, or the lower port of a loop. */
bool
topology_link_first_end(const struct fabric_port *p)
{
	const struct fabric_port *q = p->peer;

	return q != NULL && (q->node->guid > p->node->guid ||
	    (q->node == p->node && q->num > p->num));
}
