/*
 * The writers behind topology_write() (fabric/topology_export.h), one file
 * each: Slurm's topology.conf / topology.yaml (topology_slurm.c) and the
 * dot grouped by tree level (topology_dot.c).  Internal to fabric/.
 */
#ifndef FABRICD_FABRIC_TOPOLOGY_FORMATS_H
#define FABRICD_FABRIC_TOPOLOGY_FORMATS_H

#include <stdbool.h>
#include <stdio.h>

#include "fabric/topology_export.h"

void topology_slurm_write(const struct fabric *f, bool yaml, FILE *out,
    struct topology_counts *c);
void topology_dot_write(const struct fabric *f, FILE *out, struct topology_counts *c);

/* Each cable once (from the lower node GUID, or the lower port of a loop). */
bool topology_link_first_end(const struct fabric_port *p);
/* A description fit to sit between double quotes. */
const char *topology_clean_desc(const char *desc, char *buf, size_t len);

#endif
