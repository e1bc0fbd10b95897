/*
 * Localisation strategies: which sets of hosts to test, in which order, to
 * name the node(s) at fault.  Pure planning; the job runner executes the
 * probes and feeds verdicts back.
 *
 *   single    one probe over every host.
 *   pairwise  round-robin tournament (circle method): n-1 rounds (n even;
 *             n rounds when odd, one host resting), each of disjoint pairs
 *             run in parallel; every pair meets exactly once.
 *   bisect    start with all hosts; a failing group is split in two halves
 *             probed in parallel, each padded with hosts already proven
 *             good so that a probe never shrinks below two hosts once a
 *             good host is known.  A failing single host is a culprit.  A
 *             failing group whose halves both pass is "unresolved": the
 *             fault appears only at that scale (switch, routing,
 *             congestion).  One bad host among n costs 1 + 2 ceil(log2 n)
 *             probes.
 */
#ifndef FABRICD_VALIDATION_LOCALISE_H
#define FABRICD_VALIDATION_LOCALISE_H

#include <stdbool.h>
#include <stddef.h>

#include "validation/verdict.h"

/* ---- pairwise ---- */

struct host_pair { size_t a, b; };	/* indices into the host list */

size_t pairwise_round_count(size_t nhosts);
/* The pairs of round r (0-based); returns how many were written (at most
 * nhosts / 2). */
size_t pairwise_round(size_t nhosts, size_t round, struct host_pair *out);

/* ---- bisection ---- */

struct bisect;

/* hosts: the suspects (all of the job).  good: hosts known good beforehand
 * (may be NULL).  Both are copied. */
struct bisect *bisect_new(const char *const *hosts, size_t nhosts,
    const char *const *good, size_t ngood);
void bisect_free(struct bisect *b);

/*
 * The next probe ready to start: returns its id (> 0) and the host list
 * (owned by b, valid until bisect_free), or 0 when none is ready now
 * (waiting for results, or finished).
 */
int bisect_next(struct bisect *b, const char *const **hosts, size_t *nhosts);
/* Feed a probe's verdict (pass = healthy; warn and fail = at fault). */
void bisect_done(struct bisect *b, int probe, enum verdict v);
bool bisect_finished(const struct bisect *b);

size_t bisect_probes(const struct bisect *b);		/* probes started */
size_t bisect_culprits(const struct bisect *b, const char *const **out);
/* Groups that failed while both halves passed, and probes that could not
 * decide (inconclusive): each as a comma-separated host list. */
size_t bisect_unresolved(const struct bisect *b, const char *const **out);

#endif
