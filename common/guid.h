/*
 * GUIDs (IBA 64-bit node and port identifiers): one way to print them,
 * one way to read them, and one hash map keyed by them.  GUID 0 is never a
 * valid GUID, so the map uses it for its empty slots.
 */
#ifndef FABRICD_COMMON_GUID_H
#define FABRICD_COMMON_GUID_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

/* In format strings: printf("port " GUID_FMT "\n", guid), guid a uint64_t. */
#define GUID_FMT	"0x%016" PRIx64
#define GUID_STR_LEN	19		/* "0x" + 16 digits + NUL */

/* buf holds at least GUID_STR_LEN; returns buf. */
char *guid_format(uint64_t guid, char *buf, size_t len);
/* Hex with 0x or decimal, the whole string, not 0.  0 or -1. */
int guid_parse(const char *s, uint64_t *guid);

struct guid_map {
	uint64_t	*keys;		/* 0: empty */
	void		**vals;
	size_t		 cap, count;	/* cap a power of two */
};

/* NULL when absent (and for GUID 0). */
void *guid_map_get(const struct guid_map *m, uint64_t guid);
/* Adds or replaces. */
void guid_map_put(struct guid_map *m, uint64_t guid, void *val);
void guid_map_free(struct guid_map *m);

#endif
