/*
 * Prometheus text exposition format 0.0.4, written into a growing buffer.
 *
 * Series naming scheme (documented in health/README.md):
 *   fabricd_<subsystem>_<what>[_<unit>][_total]
 * subsystem is port, link, sm, mad, health or roce; counters end in _total;
 * per-port series carry the labels node_guid (0x%016x), node (the
 * NodeDescription) and port.  Every family is written once, HELP then
 * TYPE then all its samples, which is what the format requires.
 */
#ifndef FABRICD_HEALTH_PROM_H
#define FABRICD_HEALTH_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prom {
	char	*buf;
	size_t	 len, cap;
};

struct prom_label {
	const char	*name;
	const char	*value;
};

void prom_init(struct prom *p);
void prom_free(struct prom *p);

/* type: "counter" or "gauge". */
void prom_family(struct prom *p, const char *name, const char *type, const char *help);
/* One sample of the current family; labels may be NULL / nlabels 0. */
void prom_sample_u64(struct prom *p, const char *name, const struct prom_label *labels,
    size_t nlabels, uint64_t value);
void prom_sample_double(struct prom *p, const char *name, const struct prom_label *labels,
    size_t nlabels, double value);

/*
 * Where a resumable metrics callback is (struct fabricd_module's
 * metrics_slice): the exposition of a large fabric is built over several
 * turns of the daemon's loop, each stopping when prom_cursor_spent().
 * stage and pos are the callback's own (which family, which entry of it);
 * keys is its snapshot of what it walks (stable keys, never pointers into
 * structures a sweep may free), free()d when the build ends.  All zero at
 * the first call.
 */
struct prom_cursor {
	unsigned	 stage;
	size_t		 pos;
	void		*keys;
	size_t		 nkeys;
	uint64_t	 until_ns;	/* CLOCK_MONOTONIC; 0: no limit */
};

/* True when this slice's time is up. */
bool prom_cursor_spent(const struct prom_cursor *c);

#endif
