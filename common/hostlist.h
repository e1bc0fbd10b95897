/* Slurm hostlist expressions: see hostlist.c. */
#ifndef FABRICD_COMMON_HOSTLIST_H
#define FABRICD_COMMON_HOSTLIST_H

#include <stddef.h>

/* "gpu[001-064,070], login1" to at most max names (a new NULL-terminated
 * array of new strings); -1 with err set. */
int hostlist_expand(const char *expr, char ***hosts, size_t *n, size_t max, char *err,
    size_t errlen);

#endif
