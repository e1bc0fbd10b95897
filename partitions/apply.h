/*
 * Applying a plan to the fabric: read what is unknown, write only the
 * blocks that differ, read every written block back, and on any failure
 * put back the previous table on every port already written.
 *
 * MADs go through a mad_io (mad/io.h), which is the MAD engine in the
 * daemon and an in-memory fake in the unit tests.  Phases run one after the
 * other (read, write, verify, and rollback when needed); inside a phase
 * every MAD is queued at once as one mad/batch.h batch, and the engine's
 * window paces them.
 */
#ifndef FABRICD_PARTITIONS_APPLY_H
#define FABRICD_PARTITIONS_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "partitions/plan.h"
#include "mad/io.h"

#define PT_APPLY_MAX_IOS	8	/* subnets one run spans */
#define PT_PORT_NAME_LEN	(FABRIC_NODE_DESC_LEN + 48)	/* "plane/desc:port" */
#define PT_ENFORCE_BITS		0x0c	/* PortInfo: PartitionEnforcementInbound | Outbound */

/* Counters of P_KeyTable MADs since start, for status and tests. */
struct pt_mad_counts {
	uint64_t gets, sets, failures;		/* P_KeyTable */
	uint64_t enforce_gets, enforce_sets;	/* PortInfo, for enforcement bits */
};
extern struct pt_mad_counts pt_mad_counts;

struct pt_apply_report {
	bool		 ok;
	bool		 rolled_back;	/* a failure happened and previous tables were put back */
	size_t		 gets, sets;	/* P_KeyTable MADs this run sent */
	size_t		 ports_written;
	size_t		 enforce_sets;	/* PortInfo Sets turning switch enforcement on */
	size_t		 enforce_failed;	/* switch ports that did not take them */
	char		**failed;	/* "label: reason", the ports that failed */
	size_t		 nfailed;
	char		**unrestored;	/* "label: reason", rollback did not succeed */
	size_t		 nunrestored;
};

/* Called once, when everything is finished; the plan's have[] tables then
 * hold what the ports hold (want on success, the old tables after a
 * rollback), or are NULL where that is unknown (a read or a restore
 * failed). */
typedef void (*pt_apply_done)(struct pt_plan *plan, const struct pt_apply_report *r, void *arg);

/* Starts the run; done may be called before this returns if nothing needs
 * a MAD.  Returns 0, or -1 if the run could not start (done not called). */
int pt_apply_start(struct pt_plan *plan, const struct mad_io *io, pt_apply_done done, void *arg);

/* Called once the tables are read and before the first Set (not at all
 * when nothing is to be written), with every have[] known: the place to
 * record durably what is about to change.  Nonzero stops the run before
 * anything is written (done reports the failure). */
typedef int (*pt_apply_intent)(const struct pt_plan *plan, void *arg);
int pt_apply_start_intent(struct pt_plan *plan, const struct mad_io *io, pt_apply_intent intent,
    pt_apply_done done, void *arg);
/* The same over several subnets (at most PT_APPLY_MAX_IOS): each port's
 * MADs go through ios[its plane] (nios of them), and a failure on any
 * plane rolls back every port written on every plane.  names (NULL: none)
 * are the planes' as reports name a port: "plane2/host5:1". */
int pt_apply_start_planes(struct pt_plan *plan, const struct mad_io *ios,
    const char *const *names, size_t nios, pt_apply_intent intent, pt_apply_done done,
    void *arg);

/* A failed run as the history and the answer say it: which ports failed,
 * why, and what could not be put back (heap). */
char *pt_apply_failure_text(const struct pt_apply_report *rep);

#endif
