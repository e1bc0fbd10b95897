/*
 * Ports an operator disabled (`fabricctl port disable`): a set kept in
 * memory for the SM's hot paths (activation and the audit ask for every
 * port) and in sqlite (schemas/130_sm_port_disabled.sql) so that it
 * survives a restart.  The set itself is pure, so the unit tests reach it
 * without an SM; sm_internal.h includes this header.
 *
 * Also here: the PortInfo Set that disables or enables a port, built from
 * the PortInfo last read with every other field's "no change" encoding,
 * as `ibportstate LID PORT disable|enable` sends it.
 */
#ifndef FABRICD_SM_PORT_ADMIN_H
#define FABRICD_SM_PORT_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/store.h"
#include "fabric/fabric.h"

#define PORT_PHYS_POLLING	2	/* PortPhysicalState: what "enable" writes */
#define PORT_PHYS_DISABLED	3

struct port_disabled {
	uint64_t	 node_guid;
	uint8_t		 port;
	char		 desc[FABRIC_NODE_DESC_LEN + 1];
	int64_t		 set_ms;
};

struct port_disabled_set {
	struct port_disabled	*v;
	size_t			 n, cap;
};

const struct port_disabled *pds_get(const struct port_disabled_set *s, uint64_t guid,
    uint8_t port);
/* Adds (or refreshes desc and set_ms); true when it was not in the set. */
bool pds_add(struct port_disabled_set *s, uint64_t guid, uint8_t port, const char *desc,
    int64_t ms);
/* true when it was in the set. */
bool pds_remove(struct port_disabled_set *s, uint64_t guid, uint8_t port);
/* An entry whose node is NODE (its description, or its GUID in any base
 * strtoull reads) with port PORT: for a node no longer in the model. */
const struct port_disabled *pds_find(const struct port_disabled_set *s, const char *node,
    uint8_t port);
void pds_free(struct port_disabled_set *s);

/* sqlite: the whole set at start-up; one row written or removed in its
 * own transaction.  0 or -1 (logged by the store). */
int pds_load(struct port_disabled_set *s, struct store *st, const char *subnet);
int pds_store_add(struct store *st, const char *subnet, const struct port_disabled *e);
int pds_store_remove(struct store *st, const char *subnet, uint64_t guid, uint8_t port);

/* The 64-byte PortInfo Set that writes PortPhysicalState phys (2 or 3)
 * on a port whose PortInfo was last read as `last`: LinkState NOP,
 * LinkWidthEnabled and the speed enables 0 (no change), every other field
 * as read.  M_Key fields are the caller's (activate.c's rules). */
void port_phys_set_build(const uint8_t last[64], uint8_t phys, uint8_t out[64]);

#endif
