/*
 * Observer mode's state, shared by its two files (sm/core/ only): the
 * read's life, its schedule and status in observer.c; the queries, the
 * answers and the records they put in the model in observer_records.c.
 */
#ifndef FABRICD_SM_CORE_OBSERVER_INTERNAL_H
#define FABRICD_SM_CORE_OBSERVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm/core/sm_internal.h"

#define SA_QKEY		0x80010000u	/* QP1's well-known Q_Key */
#define SA_REC_OFFSET	56		/* IB_SA_MAD_HDR_SIZE: the first record */
#define SA_NO_RECORDS	0x0300		/* MAD status: nothing matched the Get */

enum obs_kind { Q_NODE, Q_PORT, Q_LINK, Q_SWITCH, Q_LFT };

/* A query waiting to be sent: kind, LID and one argument (the hops for a
 * NodeRecord, the port, the LFT block).  LID 0: the kind's whole table
 * (SubnAdmGetTable, table mode). */
struct obs_query {
	uint8_t		 kind;
	uint16_t	 lid;
	uint16_t	 arg;
};

/* One far end as a LinkRecord gives it; linked once the read is done. */
struct obs_link {
	uint16_t	 from_lid, to_lid;
	uint8_t		 from_port, to_port;
};

/* The far end a port of a switch has in the SA's LinkRecords (a patch). */
struct obs_far_end {
	uint16_t	 lid;
	uint8_t		 port;
	bool		 seen;
};

struct obs_figures {
	uint64_t	 queries, records, errors;
	int64_t		 duration_ms;
};

struct sm_observer {
	struct sm		*sm;
	struct sm_observer_config cfg;
	struct mad_batch	 batch;
	struct event		*timer;		/* the next read */
	bool			 reading;
	uint64_t		 reads;		/* started */
	uint64_t		 published;	/* complete reads that became sm->fabric */
	/* the read under way */
	struct fabric		*next;
	struct obs_query	*q;
	size_t			 qhead, qlen, qcap;
	struct obs_link		*links;
	size_t			 nlinks, links_cap;
	uint8_t			*asked;		/* [FABRIC_MAX_LID + 1]: NodeRecord queued */
	struct obs_figures	 cur, last;
	int64_t			 started_ms;
	/* whom we follow, and how old the view is */
	uint16_t		 master_lid;
	uint64_t		 master_guid;
	int64_t			 view_ms;	/* when sm->fabric was read; 0: none */
	uint64_t		 errors_total;
	char			 last_error[160];
	/* the first read's turn (first_read_wait) */
	int64_t			 started_at_ms;
	bool			 slot_taken;
	uint64_t		 slot_wait_ms;	/* > 0: the read under way only learnt it */
	unsigned		 fails;		/* failed reads in a row, no view yet */
	int64_t			 next_read_at_ms;
	bool			 read_again;	/* one came during a read */
	/* the master followed: our own PortInfo read every WATCH_MS */
	struct event		*watch;
	struct mad_batch	 watch_batch;
	bool			 moved;		/* a new master since the view's read */
	/* the master asked for its SMInfo every MASTER_POLL_TICKS watches */
	struct mad_batch	 poll_batch;
	unsigned		 watch_ticks, master_misses;
	bool			 master_silent;	/* it stopped answering: no view is fresh */
	/* our own node (NodeInfo, NodeDescription of our port): health's
	 * ports before the first view */
	uint64_t		 own_node_guid;
	bool			 own_node_switch, own_desc_known;
	char			 own_desc[FABRIC_NODE_DESC_LEN + 1];
	/* what a Report names, read again in place (observer_patch.c) */
	struct event		*patch_ev;
	struct mad_batch	 patch_batch;
	uint16_t		 patch_lid;
	bool			 patching;
	unsigned		 patch_errors;
	uint64_t		 patches;
	struct obs_far_end	 patch_far[256];
	void			(*read_soon)(struct sm *sm);
	/* table mode (observer_records.c): the SA's GetTable answers, read
	 * whole (the kernel reassembles RMPP), taken a slice at a time */
	bool			 table;
	uint8_t			*tab;		/* the records of the table being taken */
	size_t			 tab_n, tab_next, tab_stride;
	uint8_t			 tab_kind;
};


void obs_error(struct sm_observer *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Queues a query (a record's, or with lid 0 a whole table's); in table
 * mode the records' own follow-up queries are not queued: the tables
 * have them all. */
void obs_push(struct sm_observer *o, enum obs_kind kind, uint16_t lid, uint16_t arg);
/* More to send or take: make sure the batch's producer runs. */
void obs_kick(struct sm_observer *o);
/* One record of an SA answer into the model being read (o->next): lid
 * and arg are the Get's, or the record's own fields (a table's).  What a
 * record says is the fabric's word, checked before it is used
 * (tests/fuzz/fuzz_observer.c). */
void obs_record_take(struct sm_observer *o, enum obs_kind kind, const uint8_t *rec, uint16_t lid,
    uint16_t arg);
/* The LinkRecords read, as links between the ports of o->next (both ends
 * known, else left out). */
void obs_links_apply(struct sm_observer *o);
/* The table being taken, dropped (a read abandoned). */
void obs_table_drop(struct sm_observer *o);
/* Table mode: every node's hops from our own port's (what the
 * breadth-first reads count as they go), once the links are in. */
void obs_hops(struct fabric *f, uint16_t own_lid);

/* The records of an SA answer (GetTableResp: AttributeOffset apart):
 * false when it is too short or its records are shorter than min_size. */
struct obs_sa_table {
	const uint8_t	*rec;
	size_t		 n, stride;
};
bool obs_sa_table(const uint8_t *mad, size_t len, size_t min_size, struct obs_sa_table *t);

/* One SMInfo Get to the master's LID (observer.c; the watch sends it every
 * MASTER_POLL_TICKS): MASTER_MISSES unanswered in a row and the view is
 * stale until it answers again. */
void obs_master_poll(struct sm_observer *o);

/* observer_patch.c's steps, apart for tests/fuzz/fuzz_observer_patch.c:
 * the switch a Report's Notice names in the view f (0: none); one SA
 * answer for the switch at o->patch_lid (arg: OBS_PATCH_ARG, the kind and
 * port asked); every answer in, the view patched. */
#define OBS_PATCH_ARG(kind, port) ((void *)(uintptr_t)((unsigned)(kind) | (unsigned)(port) << 8))
uint16_t obs_reported_switch(const struct fabric *f, uint16_t trap, const void *notice);
void obs_patch_answer(const struct mad_result *res, void *owner, void *arg);
void obs_patch_done(void *owner);

/* observer_patch.c: its batch and timer, made and freed with the
 * observer; read_soon (observer.c's, handed over so that the two files do
 * not call each other in a circle) brings a whole read where a patch
 * cannot cover a change. */
void obs_patch_init(struct sm_observer *o, void (*read_soon)(struct sm *sm));
void obs_patch_free(struct sm_observer *o);

#endif
