/*
 * Job partitions (issue 26), private to partitions/: a partition made for
 * one scheduler job from its host list, with a key from the pool
 * partitions.jobs.pkeys, removed by the job's epilog or, when that never
 * runs, by the reconcile that asks the scheduler which jobs still exist.
 *
 * Every job change goes through the same pipeline as an operator's
 * (change.c: plan, apply, read back, commit), one at a time: they queue
 * here rather than being refused as busy, because fifty jobs starting
 * together must all get their partitions.  Each is built from the model
 * committed when its turn comes, never from the one it saw when it asked.
 */
#ifndef FABRICD_PARTITIONS_JOBS_H
#define FABRICD_PARTITIONS_JOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "partitions/files.h"

struct event_base;

void pt_jobs_start(struct event_base *base, const struct pt_jobs_config *cfg);
void pt_jobs_configure(const struct pt_jobs_config *cfg);
void pt_jobs_stop(void);
json_t *pt_jobs_status(void);

/* Is pkey in the job pool?  Operator partitions may not take such a key. */
bool pt_jobs_pool_has(uint16_t pkey);

/* The jobs the scheduler still knows, from the reconcile (jobs_reconcile.c):
 * remove the job partitions made before asked_ms whose job is not in ids. */
void pt_jobs_reconcile_remove(char **ids, size_t n, int64_t asked_ms);
/* How many job partitions exist now. */
size_t pt_jobs_count(void);

/* ---- the reconcile (jobs_reconcile.c) ----
 * It knows nothing of the jobs' queue: it asks `count` whether there is
 * anything to reconcile and hands squeue's list to `answer`. */
struct pt_reconcile_ops {
	size_t	(*count)(void);
	void	(*answer)(char **ids, size_t n, int64_t asked_ms);
};
void pt_reconcile_start(struct event_base *base, const struct pt_jobs_config *cfg,
    const struct pt_reconcile_ops *ops);
void pt_reconcile_configure(const struct pt_jobs_config *cfg);
void pt_reconcile_stop(void);
json_t *pt_reconcile_status(void);

/* Pure parts, unit-tested: the lowest key of [lo, hi] no partition of c
 * holds (0: none left), and squeue's output as job ids (one per line;
 * "1234_7" array tasks and blank lines handled).  -1 on a line that is
 * not a job id. */
struct pt_config;
uint16_t pt_jobs_free_key(const struct pt_config *c, uint16_t lo, uint16_t hi);
int pt_squeue_parse(const char *text, char ***ids, size_t *n);

#endif
