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
