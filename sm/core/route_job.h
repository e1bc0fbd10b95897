/*
 * One routing computation on a thread of its own (see route_job.c for why
 * and what keeps it safe).
 */
#ifndef FABRICD_SM_ROUTE_JOB_H
#define FABRICD_SM_ROUTE_JOB_H

#include <event2/event.h>

#include "fabric/routing.h"

struct route_job;

/* On the loop, once the tables are computed: rt NULL means routing failed
 * (err says why); kept: 0 when the memory was updated with them, -1 out
 * of memory (it is then as it was).  The job is gone by then. */
typedef void (*route_job_done)(struct routing_table *rt, const char *err, int kept,
    void *arg);

/* Route f (nothing may write it until done runs) with a copy of params,
 * then keep the tables in mem (params->mem: repaired from, then updated;
 * nothing else may touch it until done runs: at 5,184 hosts the update
 * copies megabytes).  NULL when no thread could start: the caller routes
 * on the loop. */
struct route_job *route_job_start(struct event_base *base, const struct fabric *f,
    const struct routing_params *params, struct routing_memory *mem, route_job_done done,
    void *arg);
/* Wait for the thread and drop its result; done is not called. */
void route_job_abandon(struct route_job *j);

#endif
