/*
 * Allocation that cannot fail: on exhaustion the process logs and exits,
 * which is the only sane answer for a daemon that must not half-apply state.
 * Zero sizes and multiplication overflow are programming errors (fatal).
 */
#ifndef FABRICD_XMALLOC_H
#define FABRICD_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
int xasprintf(char **ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
