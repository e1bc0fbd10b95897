/*
 * The pre-flight's "planes" check (preflight_planes.c): each host's ports
 * and the routes between the hosts on every subnet after the first
 * (sm.subnets), walked a slice a turn.
 */
#ifndef FABRICD_VALIDATION_PREFLIGHT_PLANES_H
#define FABRICD_VALIDATION_PREFLIGHT_PLANES_H

#include "validation/preflight_checks.h"

struct plane_walk;
/* NULL when first is the only subnet (no planes check); else c is
 * initialised and the walk begun.  hosts must outlive the walk.  On an
 * observer the walk waits for live reads: resume(arg) once one is in. */
struct plane_walk *pf_planes_begin(struct check *c, struct sm *first, char *const *hosts,
    size_t n, void (*resume)(void *), void *arg);
/* Walks until the monotonic clock passes until_us; true when every subnet
 * is done (c then holds the check, for the caller to add).  False while
 * more is to walk, or while a read is out (pf_planes_waiting: step again
 * at resume, not before). */
bool pf_planes_step(struct plane_walk *w, int64_t until_us);
bool pf_planes_waiting(const struct plane_walk *w);
/* Frees the walk (done or not; c's faults stay the caller's). */
void pf_planes_end(struct plane_walk *w);

#endif
