/* A page of the model's ports in key order: see port_page.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/port_page.h"

void
port_cursor_format(const struct port_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016" PRIx64 ":%03u", k->node_guid, (unsigned)k->port);
}

static bool
all_digits(const char *s, size_t n, int base)
{
	for (size_t i = 0; i < n; i++)
		if (!(s[i] >= '0' && s[i] <= '9') && !(base == 16 &&
		    ((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))))
			return false;
	return true;
}

/* "0x" and 1-16 hex digits, the n bytes of s.  Checked by hand rather
 * than strtoull alone: strtoull takes signs, spaces and a second "0x",
 * none of which a cursor has. */
static int
hex_guid(const char *s, size_t n, uint64_t *guid)
{
	if (n < 3 || n > 18 || strncmp(s, "0x", 2) != 0 || !all_digits(s + 2, n - 2, 16))
		return -1;
	*guid = strtoull(s + 2, NULL, 16);
	return 0;
}

int
port_cursor_parse(const char *s, struct port_key *k)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	unsigned long port;
	uint64_t guid;
	size_t np;

	if (colon == NULL || hex_guid(s, (size_t)(colon - s), &guid) != 0)
		return -1;
	np = strlen(colon + 1);
	if (np < 1 || np > 3 || !all_digits(colon + 1, np, 10))
		return -1;
	if ((port = strtoul(colon + 1, NULL, 10)) > 255)
		return -1;
	k->node_guid = guid;
	k->port = (uint8_t)port;
	return 0;
}

void
guid_cursor_format(uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016" PRIx64, guid);
}

int
guid_cursor_parse(const char *s, uint64_t *guid)
{
	return s ? hex_guid(s, strlen(s), guid) : -1;
}

/* The first node whose GUID is at least guid (the model is sorted). */
static size_t
lower_bound(const struct fabric *f, uint64_t guid)
{
	size_t lo = 0, hi = fabric_node_count(f);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fabric_node_at(f, mid)->guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
port_page_fill(const struct fabric *f, const struct port_key *after,
    port_keep_fn keep, void *arg, struct port_page *pg)
{
	size_t i = 0, nn = fabric_node_count(f), scanned = 0;
	unsigned j = 1;

	pg->n = 0;
	pg->more = false;
	if (after) {
		i = lower_bound(f, after->node_guid);
		if (i < nn && fabric_node_at(f, i)->guid == after->node_guid)
			j = after->port + 1u;
	}
	for (; i < nn; i++, j = 1) {
		const struct fabric_node *n = fabric_node_at(f, i);

		for (; j <= n->nports; j++) {
			if (keep(&n->ports[j], arg)) {
				if (pg->n == pg->max) {
					pg->more = true;	/* next: the last row's key */
					return;
				}
				pg->rows[pg->n++] = &n->ports[j];
				pg->next = (struct port_key){ n->guid, (uint8_t)j };
			}
			if (++scanned >= pg->scan_max) {
				pg->next = (struct port_key){ n->guid, (uint8_t)j };
				pg->more = j < n->nports || i + 1 < nn;
				return;
			}
		}
	}
}

bool
port_is_link_end(const struct fabric_port *p, void *arg)
{
	const struct fabric_port *q = p->peer;

	return q != NULL && q->node->guid >= p->node->guid &&
	    !(q->node == p->node && q->num < p->num);
}

void
node_page_fill(const struct fabric *f, const uint64_t *after, struct node_page *pg)
{
	size_t i = after ? lower_bound(f, *after) : 0, nn = fabric_node_count(f);

	pg->n = 0;
	pg->more = false;
	/* past the cursor's own node (GUIDs are unique in the model:
	 * discovery leaves a duplicate out) */
	if (after && i < nn && fabric_node_at(f, i)->guid == *after)
		i++;
	for (; i < nn; i++) {
		if (pg->n == pg->max) {
			pg->more = true;
			return;
		}
		pg->rows[pg->n] = fabric_node_at(f, i);
		pg->next = pg->rows[pg->n++]->guid;
	}
}
