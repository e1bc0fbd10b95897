/*
 * The verdict on one validation run, from what the process did (exit,
 * signal, timeout) and what it printed (validation/parse.h).
 *
 *   inconclusive  the harness failed: launcher or binary missing, usage
 *                 text, nothing started.  Never a node fault.
 *   fail          NCCL/CUDA failure lines, wrong data, out-of-bounds,
 *                 a timeout or crash after the test started, no footer,
 *                 or bandwidth on the largest size below the threshold.
 *   warn          below the warning threshold only.
 *   pass          everything else.
 *
 * Bandwidth is judged on the largest size run (minimum of out-of-place
 * and in-place), never on the "Avg bus bandwidth" line, which averages
 * every size including the tiny ones.
 */
#ifndef FABRICD_VALIDATION_VERDICT_H
#define FABRICD_VALIDATION_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "validation/parse.h"

enum verdict { VERDICT_PASS, VERDICT_WARN, VERDICT_FAIL, VERDICT_INCONCLUSIVE };

const char *verdict_name(enum verdict v);
int verdict_parse(const char *name, enum verdict *out);
/* The graver of two verdicts, pass < warn < inconclusive < fail: a fault
 * found anywhere wins over "could not tell", which wins over a pass. */
enum verdict verdict_worse(enum verdict a, enum verdict b);

/* How the process ended. */
struct run_outcome {
	bool		 started;	/* fork/exec succeeded */
	bool		 exited;	/* normal exit (else killed by a signal) */
	int		 exit_status;
	int		 term_signal;
	bool		 timed_out;	/* the wall-clock limit killed it */
	bool		 cancelled;
};

struct threshold {
	double		 min_ok;	/* GB/s busbw (NCCL) or Gb/s (perftest); 0 = none */
	double		 min_warn;	/* 0 = none */
};

struct verdict_result {
	enum verdict	 verdict;
	char		 code[32];	/* IBPerformance, DataCorruption, NcclError, HarnessError... */
	char		 reason[256];
	char		 host[PARSE_HOST_LEN];	/* implicated host, "" if none */
	char		 hca[PARSE_NAME_LEN];	/* implicated HCA, "" if none */
	uint64_t	 judged_size;	/* bytes of the rows judged */
	double		 measured;	/* busbw / Gb/s judged, -1 none */
};

/* Exit status of a launcher that could not run its program at all
 * (shell convention: 126 not executable, 127 not found). */
#define RUN_EXIT_NOEXEC		126
#define RUN_EXIT_NOTFOUND	127

void verdict_nccl(const struct nccl_parsed *p, const struct run_outcome *o,
    const struct threshold *t, struct verdict_result *out);
void verdict_perftest(const struct perftest_parsed *p, const struct run_outcome *o,
    const struct threshold *t, struct verdict_result *out);

#endif
