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

#endif
