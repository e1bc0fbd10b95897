/*
 * The daemon's metrics: one Prometheus text exposition, the same for
 * `fabricctl metrics` and the HTTP endpoint (metrics.listen).  The daemon
 * writes its own families, then every running module's metrics callback
 * adds its own (see struct fabricd_module).
 */
#ifndef FABRICD_METRICS_H
#define FABRICD_METRICS_H

#include <stddef.h>

/*
 * Build the whole exposition over several turns of the loop (slices of a
 * few milliseconds), then call done with it: NUL-terminated, len bytes,
 * done's to free; text is NULL when the build was stopped at shutdown.
 * The text is never written in one step, so that a large fabric's does not
 * stall the loop.  cancel: done is not called.
 */
typedef void metrics_done_fn(char *text, size_t len, void *arg);
struct metrics_build;
struct metrics_build *metrics_build_start(metrics_done_fn *done, void *arg);
void metrics_build_cancel(struct metrics_build *b);
/* At shutdown, before the control socket and HTTP listener go: every
 * build in progress ends with done(NULL). */
void metrics_builds_stop(void);

/*
 * For a module's metrics callback: families read from its own status
 * object, so that a metric and `fabricctl status` cannot disagree.  path
 * names a number or boolean in status ("subnet.sweeps": nested objects
 * by dots); a missing one is skipped.  type is "counter" or "gauge".
 */
struct prom;
typedef struct json_t json_t;
struct status_metric {
	const char	*path, *name, *type, *help;
};
void metrics_from_status(struct prom *p, json_t *status, const struct status_metric *table,
    size_t n);
/* name{state="S"} 1 for the current state, 0 for the others (states is
 * NULL-terminated); the Prometheus way of exposing an enumeration. */
void metrics_state_set(struct prom *p, const char *name, const char *help, const char *current,
    const char *const *states);
/* The same for n instances of a part (the SMs of sm.subnets): each family
 * once, each instance's sample labelled label="values[i]". */
void metrics_from_statuses(struct prom *p, json_t *const *status, const char *label,
    const char *const *values, size_t nstatus, const struct status_metric *table, size_t n);
void metrics_state_sets(struct prom *p, const char *name, const char *help,
    const char *const *current, const char *label, const char *const *values, size_t nvalues,
    const char *const *states);

/* metrics_http.c: serve GET /metrics on cfg->metrics_listen when set.
 * 0 when nothing is to be served or the listener is up. */
struct fabricd;
int metrics_http_start(struct fabricd *fd);
void metrics_http_stop(void);

#endif
