/*
 * The MAD engine: asynchronous MADs on libibumad, driven by the daemon's
 * event loop.  One receive thread blocks in umad_recv() (in poll() on both
 * ports of an SMI/GSI pair: mad/port_pair.h) and hands each MAD to the
 * loop through a pipe (the umad fd cannot be watched under ibsim);
 * sends happen on the loop thread.  At most `window` MADs are outstanding;
 * the rest wait in a queue.  Each MAD has its own timer and bounded retries;
 * replies are matched on the low 32 bits of the TID.
 *
 * Every subsystem that talks to the fabric (sm, partitions, health) goes
 * through this one engine: nobody opens umad on their own.
 */
#ifndef FABRICD_MAD_MAD_H
#define FABRICD_MAD_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct mad_engine;

#define MAD_WINDOW_DEFAULT	64
#define MAD_WINDOW_MAX		64	/* more deadlocks umad2sim + ibsim */
#define MAD_SIZE		256
#define MAD_ALIGNED		__attribute__((aligned(8)))	/* ib_types.h structs inside */

/* Where a MAD goes: a directed route (SMPs before the fabric is routed), or
 * a LID (SMPs on an ACTIVE fabric, PerfMgt, SA). */
struct mad_addr {
	bool		directed;
	uint16_t	dlid;			/* when !directed */
	uint8_t		hops;			/* when directed */
	uint8_t		path[64];		/* path[1..hops] are egress ports */
};

struct mad_result {
	int		 status;	/* 0, or -ETIMEDOUT after all retries, -EIO bad reply */
	uint16_t	 mad_status;	/* MAD header status (D bit masked off) */
	const uint8_t	*mad;		/* the whole 256-byte reply MAD, NULL on failure */
	size_t		 len;
};

/* Where the attribute data starts: SMPs (LID or directed route) and
 * PerfMgt alike. */
#define MAD_DATA_OFFSET		64

/* The reply arrived and said yes: the one judgement every module makes
 * before reading res->mad (a timeout or error has no MAD; a MAD status
 * has no data worth reading). */
static inline bool
mad_reply_ok(const struct mad_result *res)
{
	return res->status == 0 && res->mad_status == 0 && res->mad != NULL &&
	    res->len >= MAD_DATA_OFFSET;
}

typedef void (*mad_cb)(const struct mad_result *res, void *arg);

struct mad_counters {
	uint64_t sent, received, timeouts, retries, errors, unsolicited;
	uint64_t refused;	/* SubnSets the write gate held back (never sent) */
};

#define MAD_CA_NAME_LEN	20	/* UMAD_CA_NAME_LEN */

struct mad_engine_config {
	uint64_t	port_guid;	/* 0: the first port found */
	/* or by device and port (sm.subnets' "mlx5_0:1"): ca[0] 0: by GUID */
	char		ca[MAD_CA_NAME_LEN];
	unsigned	ca_port;
	unsigned	window;		/* 1..MAD_WINDOW_MAX */
	unsigned	timeout_ms;	/* per try */
	unsigned	retries;	/* extra tries after the first */
	/* An observer (the SM off): the port does not become its SM (no
	 * issm, so no IsSM bit and no unsolicited requests), and a host
	 * without an InfiniBand device is not worth a warning. */
	bool		no_issm;
	bool		optional;
};

/* A request that arrived for us (trap, SMInfo, SA query...). */
struct mad_in {
	const uint8_t	*mad;		/* MAD_SIZE bytes, zero padded */
	size_t		 len;		/* bytes actually received */
	uint16_t	 slid;
	uint32_t	 qpn;
	uint32_t	 qkey;
	uint8_t		 sl;
};
typedef void (*mad_in_cb)(struct mad_engine *me, const struct mad_in *in, void *arg);

/*
 * Open the port whose GUID is cfg->port_guid, register an agent for every
 * class that can arrive, then become the port's SM (issm) unless
 * cfg->no_issm.  NULL on error (logged).
 */
struct mad_engine *mad_engine_open(struct event_base *base, const struct mad_engine_config *cfg);
/* Pending callbacks are called with -ECANCELED before this returns. */
void mad_engine_close(struct mad_engine *me);
void mad_engine_set_window(struct mad_engine *me, unsigned window);
/* Per-try timeout and retries of the MADs sent from now on. */
void mad_engine_set_timing(struct mad_engine *me, unsigned timeout_ms, unsigned retries);
/* Requests addressed to us go to cb (one handler; the SM dispatches). */
void mad_engine_set_handler(struct mad_engine *me, mad_in_cb cb, void *arg);
uint64_t mad_engine_port_guid(const struct mad_engine *me);
uint8_t mad_engine_port_num(const struct mad_engine *me);

/*
 * M_Key: the key every SMP carries is the destination port's, asked of
 * fn (the SM knows which port an address reaches and its key); 0 without
 * one.  The engine never logs it.
 */
typedef uint64_t (*mad_mkey_fn)(const struct mad_addr *addr, void *arg);
void mad_engine_set_mkey(struct mad_engine *me, mad_mkey_fn fn, void *arg);

/*
 * The write gate: every SubnSet (class 0x01 or 0x81, method Set) is shown
 * to fn before each try leaves, retries included, and goes out only if fn
 * says yes; one held back is not sent, counted in `refused`, and its
 * callback gets -EPERM on the loop's next turn.  An SM that is not (or no
 * longer) entitled to write the fabric says no here, whatever part of it
 * queued the Set.  NULL: every Set goes.
 */
typedef bool (*mad_gate_fn)(const uint8_t *mad, void *arg);
void mad_engine_set_gate(struct mad_engine *me, mad_gate_fn fn, void *arg);

/* The SMP (MAD_SIZE bytes) for addr, M_Key mkey (smp.c; what mad_smp sends). */
void mad_smp_build(uint8_t *mad, const struct mad_addr *addr, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, uint64_t mkey);

/* SubnMgt Get/Set (class 0x01/0x81 chosen by addr->directed).  data is the
 * 64-byte SMP payload for a Set.  Returns 0 if queued. */
int mad_smp(struct mad_engine *me, const struct mad_addr *addr, uint8_t method,
    uint16_t attr_id, uint32_t attr_mod, const void *data, mad_cb cb, void *arg);
/* PerfMgt (class 0x04) Get/Set, LID routed; data is the 192-byte payload
 * starting at the reserved 40 bytes' end (offset 64 of the MAD). */
int mad_perf(struct mad_engine *me, uint16_t dlid, uint8_t method,
    uint16_t attr_id, uint32_t attr_mod, const void *data, size_t len, mad_cb cb, void *arg);
/* Any prepared MAD (header filled in except the TID), LID routed. */
int mad_send_raw(struct mad_engine *me, uint16_t dlid, uint32_t qpn, uint32_t qkey,
    const uint8_t *mad, size_t len, mad_cb cb, void *arg);
/* Answer a request handed to the handler: mad is the full response (its
 * TID and class taken as given), sent back to where `in` came from.  An
 * SA answer may be longer than a MAD when mad_engine_kernel_rmpp(): its
 * RMPP header has Active set and the kernel segments it. */
int mad_respond(struct mad_engine *me, const struct mad_in *in, const uint8_t *mad, size_t len);

/* The SA agent is registered for kernel RMPP and the kernel segments
 * long sends (false under umad2sim: see mad_engine.c). */
bool mad_engine_kernel_rmpp(const struct mad_engine *me);

const struct mad_counters *mad_engine_counters(const struct mad_engine *me);
size_t mad_engine_outstanding(const struct mad_engine *me);
size_t mad_engine_queued(const struct mad_engine *me);

#endif
