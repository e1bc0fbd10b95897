/*
 * Exporting the fabric model as text, for `topology`: the format
 * ibnetdiscover prints (so that whatever reads its topology files reads
 * ours), Graphviz dot, or Slurm's tree topology.  Pure: reads the model, writes a stream.
 */
#ifndef FABRICD_FABRIC_TOPOLOGY_EXPORT_H
#define FABRICD_FABRIC_TOPOLOGY_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "fabric/fabric.h"

enum topology_format {
	TOPOLOGY_IBNETDISCOVER,
	TOPOLOGY_DOT,		/* grouped by tree level (topology_dot.c) */
	TOPOLOGY_SLURM,		/* Slurm topology.conf */
	TOPOLOGY_SLURM_YAML,	/* Slurm 23.11+ topology.yaml */
};

/* "ibnetdiscover" (or NULL), "dot", "slurm", "slurm-yaml" -> format; -1 when unknown. */
int topology_format_parse(const char *name);
const char *topology_format_name(enum topology_format fmt);

struct topology_counts {
	size_t	nodes, links, degraded;
};

/*
 * Write f to out.  origin_port_guid names the port the export is seen
 * from (the SM's own; 0: none) for ibnetdiscover's "Initiated from" line.
 * counts (may be NULL) gets what was written.  Returns -1 on a write error.
 */
int topology_write(const struct fabric *f, enum topology_format fmt,
    uint64_t origin_port_guid, FILE *out, struct topology_counts *counts);

/*
 * The ibnetdiscover form a few nodes at a time, for a caller that must
 * not hold the event loop (1,476 nodes are 684 KB and 10-25 ms): from a
 * zeroed cursor, call until it returns 1 (done); 0 means the clock passed
 * deadline_us (CLOCK_MONOTONIC, us; INT64_MAX: none) or out holds
 * max_bytes (ftell; 0: no bound) and more is to come, -1 a write error.
 * It stops between nodes.  The fabric must be the same one throughout.
 */
struct topology_cursor {
	bool	started;
	size_t	order, node;
};
int topology_ibnd_write_some(const struct fabric *f, uint64_t origin_port_guid, FILE *out,
    struct topology_cursor *cur, struct topology_counts *counts, int64_t deadline_us,
    long max_bytes);

/* The same into a malloc'd string (NUL-terminated); NULL on failure. */
char *topology_text(const struct fabric *f, enum topology_format fmt,
    uint64_t origin_port_guid, struct topology_counts *counts);

#endif
