/*
 * The partitions module's public door, for validation and preflight
 * checks: what P_Key tables the fabric holds per the last verified state
 * (never a guess from configuration that has not been applied).
 */
#ifndef FABRICD_PARTITIONS_H
#define FABRICD_PARTITIONS_H

#include <stdbool.h>
#include <stdint.h>

/* The index of pkey (15 bits, no membership bit) in the P_Key table of the
 * end port with this GUID, or -1 if the port does not hold it (or is not
 * known).  *full, if given, receives the membership bit. */
int partitions_pkey_index(uint64_t port_guid, uint16_t pkey, bool *full);

/* Does the end port hold pkey at all? */
bool partitions_port_holds(uint64_t port_guid, uint16_t pkey);

/* A partition's P_Key and fabric-wide index by name (tenants' keys sit at
 * the same index on every member).  -1 if no such partition, or its key is
 * on no port yet. */
int partitions_index_of(const char *partition, uint16_t *pkey);

/* Over a plane group (sm.subnets' group): NULL when every plane after the
 * first holds pkey at idx on each port of host there; else why, in buf
 * (no port there, or the key elsewhere): NCCL_IB_PKEY is then no index
 * for that host.  NULL, too, without planes. */
const char *partitions_planes_refusal(const char *host, uint16_t pkey, int idx, char *buf,
    size_t len);

#endif
