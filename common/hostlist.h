/* Slurm hostlist expressions: see hostlist.c. */
#ifndef FABRICD_COMMON_HOSTLIST_H
#define FABRICD_COMMON_HOSTLIST_H

#include <stddef.h>

/* "gpu[001-064,070], login1" to at most max names (a new NULL-terminated
 * array of new strings); -1 with err set. */
int hostlist_expand(const char *expr, char ***hosts, size_t *n, size_t max, char *err,
    size_t errlen);

/* names as one hostlist expression ("host[1-4,7],login1"), sorted, each
 * name once; a new string (NULL only when out of memory). */
char *hostlist_compress(const char *const *names, size_t n);

#endif
