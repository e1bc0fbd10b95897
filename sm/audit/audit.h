/*
 * The audit: a background pass that reads back what fabricd programmed and
 * puts back whatever differs (sm/audit/audit.c runs it; one file per table checks
 * it).  Private to sm/, like sm_internal.h.
 *
 * A checker is one table kind.  For every node of the published model it
 * says how many items it has (LFT blocks, ports...), which Gets read item
 * k, and, for each reply, whether the data is what fabricd programmed; when
 * it is not it describes the difference and fills the Set that puts it
 * back.  Adding a table (MFT, SL2VL, VLArb) is one more entry in
 * audit_checkers[] (audit.c) and one file.
 */
#ifndef FABRICD_SM_AUDIT_H
#define FABRICD_SM_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm/core/sm_internal.h"

/* What the audit found: the last few, for `fabricctl audit`. */
#define SM_AUDIT_FINDINGS	32
#define SM_AUDIT_TARGETS	16
struct sm_audit_finding {
	int64_t		 time_ms;
	const char	*table;
	char		 where[FABRIC_NODE_DESC_LEN + 32];	/* "desc (0xGUID) port N" */
	uint8_t		 port;
	uint16_t	 block;
	char		 diff[160];
	bool		 repaired, repair_failed;
};

struct sm_audit_pass {
	int64_t		 start_ms, end_ms;
	uint64_t	 reads, findings, repairs, failures;
	bool		 complete;
};

/* The audit's state (audit.c). */
struct sm_audit {
	struct mad_batch	 batch;
	struct event		*timer, *kick;
	bool			 in_pass;		/* the cursor is inside a pass */
	size_t			 node, chk, item;	/* the cursor */
	size_t			 slice_node, slice_chk, slice_item;	/* where this slice began */
	uint64_t		 slice_reads;		/* Gets of this slice */
	bool			 due;			/* an interval fell in a heavy sweep */
	uint64_t		 repairs_pending;	/* repair Sets not yet answered */
	struct sm_audit_pass	 cur, last;
	uint64_t		 passes, reads, findings, repairs, repair_failed, read_failures;
	uint64_t		 sets;			/* Sets the audit sent */
	struct sm_audit_finding	 found[SM_AUDIT_FINDINGS];
	size_t			 nfound;		/* total ever; found[] is a ring */
	uint64_t		 targets[SM_AUDIT_TARGETS];	/* node GUIDs to check at once */
	size_t			 ntargets;
	uint64_t		 targeted;		/* targeted checks run */
	struct guid_map		 told;			/* differences already told */
	struct guid_map		 enforce_seen;		/* ports seen enforcing partitions */
};

#define AUDIT_MAX_GETS	64	/* Gets one item may need (P_Key blocks of a port) */
#define AUDIT_DIFF_LEN	160

/* One Get of an item and, when the reply differs, the Set that repairs it. */
struct audit_get {
	struct mad_addr	 addr;
	uint16_t	 attr;
	uint32_t	 mod;
	uint8_t		 port;		/* for the event: the port the table is of */
	uint16_t	 block;		/* for the event: the table's block */
};

enum audit_verdict {
	AUDIT_SAME,	/* what fabricd programmed */
	AUDIT_DIFF,	/* differs: diff and set filled, put it back */
	AUDIT_REPORT,	/* differs, but a Set is not how it is mended (diff filled) */
	AUDIT_SKIP,	/* nothing known to compare with now */
};

struct audit_checker {
	const char	*table;		/* "LFT", "P_KeyTable", "PortInfo" */
	size_t		(*items)(struct sm *sm, const struct fabric_node *n);
	/* The Gets of item k (up to AUDIT_MAX_GETS); 0: nothing to read. */
	size_t		(*gets)(struct sm *sm, const struct fabric_node *n, size_t k,
			    struct audit_get *out);
	/* Compare data (the 64-byte SMP payload read) with what fabricd
	 * programmed. */
	enum audit_verdict (*check)(struct sm *sm, struct fabric_node *n, const struct audit_get *g,
			    const uint8_t *data, uint8_t *set, char *diff, size_t len);
	/* A reply (a Get's, or a repair's) said yes: data is what the port
	 * holds now, whatever check() made of it; the SM's copy follows. */
	void		(*held)(struct sm *sm, struct fabric_node *n, const struct audit_get *g,
			    const uint8_t *data);
};

extern const struct audit_checker audit_lft_checker;
extern const struct audit_checker audit_pkey_checker;
extern const struct audit_checker audit_portinfo_checker;
extern const struct audit_checker audit_qos_checker;
extern const struct audit_checker audit_mft_checker;

/* audit_mft.c: one MFT block read (got) against the one computed (want),
 * both SMP data; the difference described in diff when not SAME. */
enum audit_verdict audit_mft_compare(const uint8_t *got, const uint8_t *want, unsigned block,
    unsigned pos, char *diff, size_t len);

/* audit_portinfo.c: a CA port or a switch's port 0 that carries a LID. */
bool audit_port_audited(const struct fabric_port *p);

#endif
