/*
 * One interface in front of the MAD engine, so that a module's MAD logic
 * runs the same against the engine (in the daemon) and against an
 * in-memory fake (in unit tests).  The callbacks are mad.h's: a fake
 * answers through the same mad_cb with the same mad_result.
 */
#ifndef FABRICD_MAD_IO_H
#define FABRICD_MAD_IO_H

#include <stddef.h>
#include <stdint.h>

#include "mad/mad.h"

struct mad_io {
	/* mad_smp(): SubnMgt Get/Set, directed or LID routed. */
	int	(*smp)(void *ctx, const struct mad_addr *addr, uint8_t method,
		    uint16_t attr_id, uint32_t attr_mod, const void *data, mad_cb cb, void *arg);
	/* mad_perf(): PerfMgt Get/Set, LID routed; NULL where not offered. */
	int	(*perf)(void *ctx, uint16_t dlid, uint8_t method, uint16_t attr_id,
		    uint32_t attr_mod, const void *data, size_t len, mad_cb cb, void *arg);
	/* mad_send_raw(): a prepared MAD (SA queries), LID routed; NULL
	 * where not offered. */
	int	(*raw)(void *ctx, uint16_t dlid, uint32_t qpn, uint32_t qkey, const uint8_t *mad,
		    size_t len, mad_cb cb, void *arg);
	void	*ctx;
};

/* The engine behind the interface (me may be NULL: every send then fails). */
struct mad_io mad_io_engine(struct mad_engine *me);

#endif
