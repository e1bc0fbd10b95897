/*
 * PerfMgt attribute payloads (PortCounters 0x12, PortCountersExtended
 * 0x1D), encoded and decoded with libibmad's field tables.  Kept apart
 * from mad/mad.h: libibmad's <infiniband/mad.h> declares names the SM's
 * engine also uses.
 */
#ifndef FABRICD_HEALTH_PMA_H
#define FABRICD_HEALTH_PMA_H

#include <stdint.h>

#include "health/counters.h"

#define PMA_PORT_COUNTERS	0x12
#define PMA_PORT_COUNTERS_EXT	0x1D
#define PMA_DATA_OFFSET		64	/* payload offset inside the MAD */
#define PMA_DATA_LEN		64	/* what we send: the attribute fits */
#define PMA_ALL_PORTS		0xFF

/* A Get: only PortSelect matters. */
void pma_encode_select(uint8_t data[PMA_DATA_LEN], uint8_t port_select);
/* A Set that clears the counters in `which` (bit = enum hc_counter). */
void pma_encode_clear(uint8_t data[PMA_DATA_LEN], uint8_t port_select, uint32_t which);
/* A PortCountersExtended Set that clears its eight 64-bit counters
 * (CounterSelect bits 0-7), as `perfquery -x -R` does. */
#define PMA_EXT_SELECT_ALL	0x00FF
void pma_encode_clear_extended(uint8_t data[PMA_DATA_LEN], uint8_t port_select);
/* Every counter of a PortCounters payload (traffic ones 32 bits wide). */
void pma_decode_counters(const uint8_t *data, uint64_t out[HC_COUNT]);
/* The 64-bit traffic counters of a PortCountersExtended payload; the
 * other entries of out are left alone. */
void pma_decode_extended(const uint8_t *data, uint64_t out[HC_COUNT]);

#endif
