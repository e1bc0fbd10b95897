/*
 * M_Key (sm/core/mkey.c): one key per port, derived from one secret with
 * HMAC-SHA256 (OpenSSL's libcrypto: none of the other dependencies offers
 * a keyed hash), kept in sqlite like the LIDs, never logged; and the lease
 * logic that recovers a port holding a key fabricd does not know.  Pure
 * of the SM's state, so the unit tests reach it; sm_internal.h includes it.
 */
#ifndef FABRICD_SM_MKEY_H
#define FABRICD_SM_MKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/guid.h"
#include "daemon/store.h"
#include "fabric/fabric.h"
#include "mad/mad.h"

#define SM_MKEY_SECRET_MAX	128

/* What fabricd knows of one port's key. */
struct sm_mkey_port {
	uint64_t	 key;		/* the key it was given (0: not yet) */
	bool		 unknown;	/* it refused ours: holds another one */
	int64_t		 unknown_since_ms;
	bool		 told;		/* the operator heard of it */
};

struct sm_mkey {
	bool		 enabled;
	uint8_t		 secret[SM_MKEY_SECRET_MAX];
	size_t		 secret_len;
	uint8_t		 protect;	/* M_KeyProtectBits 0..3 */
	uint16_t	 lease_s;	/* M_KeyLeasePeriod, 0: never expires */
	struct guid_map	 ports;		/* port GUID -> struct sm_mkey_port */
};

/* The key of a port: HMAC-SHA256(secret, port GUID big-endian), first 8
 * bytes; never 0 (0 means "no key"). */
uint64_t sm_mkey_derive(const uint8_t *secret, size_t len, uint64_t port_guid);
/* The key an SMP to this port carries: the one it was given, else the
 * derived one; 0 when M_Key is off. */
uint64_t sm_mkey_of(struct sm_mkey *k, uint64_t port_guid);
/* The port whose key an SMP to addr must carry (a switch: its port 0),
 * walking the directed route from our port, or by LID; NULL if unknown. */
const struct fabric_port *sm_mkey_port_of(const struct fabric *f, uint64_t own_port_guid,
    const struct mad_addr *addr);

/* Lease recovery: a port that refused our key holds one we do not know;
 * its protection lapses once its lease has run out with nobody using the
 * right key, and then ours can be written. */
enum sm_mkey_step {
	SM_MKEY_SEND,		/* send it our key (known, or the lease ran out) */
	SM_MKEY_WAIT,		/* wait: the lease has not run out yet */
	SM_MKEY_STUCK,		/* lease 0: never lapses; an operator must act */
};
enum sm_mkey_step sm_mkey_recovery(const struct sm_mkey_port *p, uint16_t lease_s, int64_t now_ms);
/* A Set carrying our key went unanswered (or a trap 256 named it). */
struct sm_mkey_port *sm_mkey_rejected(struct sm_mkey *k, uint64_t port_guid, int64_t now_ms);
/* It took our key: 1 when that is news (to be stored). */
int sm_mkey_accepted(struct sm_mkey *k, uint64_t port_guid, uint64_t key);

/* The records as they travel to etcd (sm/replica.c), where anyone who can
 * reach etcd could read them: AES-256-GCM under a key derived from the
 * secret (which every SM node of the subnet holds), base64 text; open
 * gives back the plain text only when the tag checks (NULL otherwise:
 * another secret, or tampered). */
char *sm_mkey_seal(const struct sm_mkey *k, const char *plain, size_t len);
char *sm_mkey_open(const struct sm_mkey *k, const char *sealed, size_t *len);

int sm_mkey_load(struct sm_mkey *k, struct store *st, const char *subnet);
void sm_mkey_save(struct store *st, const char *subnet, uint64_t port_guid, uint64_t key);
void sm_mkey_free(struct sm_mkey *k);

#endif
