/* GUID formatting, parsing and the GUID hash map (see guid.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/guid.h"
#include "common/xmalloc.h"

char *
guid_format(uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, GUID_FMT, guid);
	return buf;
}

int
guid_parse(const char *s, uint64_t *guid)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end != '\0' || v == 0)
		return -1;
	*guid = v;
	return 0;
}

/* A 64-bit mix (the murmur3 finaliser's first half): GUIDs of one vendor
 * differ in their low bits only, which must still spread over the table. */
static size_t
guid_hash(uint64_t g)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdULL;
	g ^= g >> 33;
	return (size_t)g;
}

static void
map_grow(struct guid_map *m)
{
	struct guid_map old = *m;

	m->cap = old.cap ? old.cap * 2 : 256;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	m->count = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			guid_map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

void *
guid_map_get(const struct guid_map *m, uint64_t guid)
{
	size_t i;

	if (m->cap == 0 || guid == 0)
		return NULL;
	for (i = guid_hash(guid) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == guid)
			return m->vals[i];
	return NULL;
}

void
guid_map_put(struct guid_map *m, uint64_t guid, void *val)
{
	size_t i;

	if ((m->count + 1) * 2 > m->cap)
		map_grow(m);
	for (i = guid_hash(guid) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == guid) {
			m->vals[i] = val;
			return;
		}
	m->keys[i] = guid;
	m->vals[i] = val;
	m->count++;
}

void
guid_map_free(struct guid_map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct guid_map){ 0 };
}
