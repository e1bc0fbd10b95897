/*
 * The MAD engine on libibumad (see mad/mad.h for the contract).
 *
 * Why a thread and a pipe: under umad2sim the umad fd is a fake number that
 * epoll rejects and poll() cannot mix with real fds, so the only portable
 * design is one thread blocked in umad_recv() writing fixed-size records
 * into a pipe that the event loop reads.  Sends stay on the loop thread.
 *
 * Why a window: umad2sim holds a mutex during a blocking send to ibsim, and
 * ibsim blocks writing to a full client socket; with too many MADs in
 * flight both deadlock.  Requests past the window wait in a FIFO.
 *
 * TIDs: the low 6 bits of a TID name the window slot, the rest is a
 * sequence number, so a reply is matched in O(1) on the low 32 bits (the
 * high 32 are rewritten by the kernel and by the simulator).  Request
 * records come from a free list and are never freed while the engine
 * lives: the hot path does not allocate.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>

#include <event2/event.h>
#include <event2/event_struct.h>
#include <iba/ib_types.h>
#include <umad.h>

#include "common/clock.h"
#include "common/guid.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "mad/mad.h"
#include "mad/port_open.h"
#include "mad/port_pair.h"

#define SLOT_BITS	6
#define SLOT_MASK	((1u << SLOT_BITS) - 1)
#define RX_SLICE	1	/* records read from the pipe at once: the clock is read after each */
#define RX_SLICE_US	1000	/* then more, while this lasts */
#define CLOSE_DRAIN_MS	500	/* at close, for the answers still owed */
#define RX_POLL_MS	200	/* how long close() may wait for the thread */

struct mad_req {
	struct mad_req		*next;		/* free list or pending FIFO */
	struct mad_engine	*me;
	struct event		 timer;
	mad_cb			 cb;
	void			*arg;
	uint32_t		 tid;		/* low 32 bits in use */
	uint16_t		 dlid;
	uint16_t		 len;
	uint32_t		 qpn, qkey;
	uint8_t			 mclass;
	uint8_t			 tries;
	uint8_t			 slot;
	bool			 answered;	/* at close: its answer came (drain) */
	bool			 refused;	/* the write gate held it back */
	uint8_t			 mad[MAD_SIZE] MAD_ALIGNED;
};

struct mad_engine {
	struct event_base	*base;
	int			 fd;		/* umad port (a pair's GSI port) */
	int			 smi_fd;	/* an SMI/GSI pair's SMI port, for SMPs; -1 */
	int			 issm_fd;
	int			 agent[256];	/* class -> agent id, -1 none */
	uint64_t		 port_guid;
	uint8_t			 port_num;
	char			 ca[UMAD_CA_NAME_LEN];

	unsigned		 window, retries;
	const struct timeval	*timeout;	/* libevent common timeout */

	struct mad_req		*slot[MAD_WINDOW_MAX];
	size_t			 outstanding;
	struct mad_req		*pending, *pending_tail;
	size_t			 queued;
	struct mad_req		*free;
	uint32_t		 seq;

	int			 pipe_rd, pipe_wr;
	struct event		*pipe_ev;
	pthread_t		 rx_thread;
	atomic_bool		 rx_stop;
	atomic_uint		 rx_dropped;	/* pipe full: counted as errors */
	size_t			 rec_size;	/* umad_size() + MAD_SIZE + a long answer's address */
	uint8_t			*rx_buf;	/* RX_SLICE records */
	uint8_t			*tx_buf;	/* one umad for umad_send */

	bool			 closing;	/* no new MADs: close() is cancelling */
	bool			 kernel_rmpp;	/* the SA agent's long sends are segmented by the kernel */
	mad_in_cb		 handler;
	void			*handler_arg;
	mad_mkey_fn		 mkey;		/* the destination port's M_Key */
	void			*mkey_arg;
	mad_gate_fn		 gate;		/* may this SubnSet leave? */
	void			*gate_arg;
	struct mad_counters	 cnt;
};

static void mad_pump(struct mad_engine *me);
static void mad_transmit(struct mad_engine *me, struct mad_req *r);

/* ---- request records ---- */

static void req_timeout(evutil_socket_t fd, short what, void *arg);

static struct mad_req *
req_get(struct mad_engine *me)
{
	struct mad_req *r = me->free;

	if (r == NULL) {
		r = xcalloc(1, sizeof(*r));
		r->me = me;
		evtimer_assign(&r->timer, me->base, req_timeout, r);
	} else
		me->free = r->next;
	r->next = NULL;
	r->tries = 0;
	r->answered = false;
	r->refused = false;
	return r;
}

static void
req_put(struct mad_engine *me, struct mad_req *r)
{
	r->cb = NULL;
	r->arg = NULL;
	r->next = me->free;
	me->free = r;
}

/* Take r out of its slot, give the slot to the queue, then tell the caller:
 * the callback may queue more, which must find the window open. */
static void
req_finish(struct mad_engine *me, struct mad_req *r, const struct mad_result *res)
{
	mad_cb cb = r->cb;
	void *arg = r->arg;

	evtimer_del(&r->timer);
	me->slot[r->slot] = NULL;
	me->outstanding--;
	req_put(me, r);
	if (cb)
		cb(res, arg);
	mad_pump(me);
}

static void
req_fail(struct mad_engine *me, struct mad_req *r, int status)
{
	struct mad_result res = { .status = status };
	req_finish(me, r, &res);
}

/* A try ended without an answer (timer, or an immediate error status from
 * the transport): try again while tries remain. */
static void
req_retry_or_fail(struct mad_engine *me, struct mad_req *r)
{
	if (r->tries <= me->retries) {
		me->cnt.retries++;
		mad_transmit(me, r);
		return;
	}
	me->cnt.timeouts++;
	req_fail(me, r, -ETIMEDOUT);
}

static void
req_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct mad_req *r = arg;

	if (r->refused) {
		req_fail(r->me, r, -EPERM);
		return;
	}
	req_retry_or_fail(r->me, r);
}

static bool
is_subn_set(const struct mad_req *r)
{
	return (r->mclass == IB_MCLASS_SUBN_LID || r->mclass == IB_MCLASS_SUBN_DIR) &&
	    ((const ib_mad_t *)r->mad)->method == IB_MAD_METHOD_SET;
}

/* The gate said no: nothing leaves, and the caller is told on the next
 * turn (not from inside the pump that is sending, where a run of refused
 * Sets would nest one callback in another). */
static void
req_refuse(struct mad_engine *me, struct mad_req *r)
{
	static const struct timeval now = { 0, 0 };

	r->refused = true;
	me->cnt.refused++;
	evtimer_add(&r->timer, &now);
}

/* ---- sending ---- */

static void
mad_transmit(struct mad_engine *me, struct mad_req *r)
{
	ib_mad_t *hdr = (ib_mad_t *)r->mad;
	int agent = me->agent[r->mclass];

	if (me->gate && is_subn_set(r) && !me->gate(r->mad, me->gate_arg)) {
		req_refuse(me, r);
		return;
	}
	/* A fresh TID per try, so a late answer to an old try cannot
	 * complete the new one with stale data. */
	me->seq++;
	r->tid = (me->seq << SLOT_BITS) | r->slot;
	if ((r->tid >> SLOT_BITS) == 0)		/* never TID 0: traps use it */
		r->tid = (++me->seq << SLOT_BITS) | r->slot;
	hdr->trans_id = htobe64((uint64_t)r->tid);
	r->tries++;

	memset(me->tx_buf, 0, umad_size());
	umad_set_addr(me->tx_buf, r->dlid, r->qpn, 0, r->qkey);
	memcpy(umad_get_mad(me->tx_buf), r->mad, r->len);
	evtimer_add(&r->timer, me->timeout);
	if (agent < 0 || umad_send(mad_port_pair_fd(me->fd, me->smi_fd, r->mclass), agent,
	    me->tx_buf, r->len, 0, 0) < 0) {
		/* The timer retries it; a send error is not a reason to crash
		 * nor to give up sooner than a lost reply would. */
		me->cnt.errors++;
		log_debug("mad: send of class 0x%02x failed", r->mclass);
		return;
	}
	me->cnt.sent++;
}

static void
mad_pump(struct mad_engine *me)
{
	while (me->pending && me->outstanding < me->window) {
		struct mad_req *r = me->pending;
		unsigned i;

		me->pending = r->next;
		if (me->pending == NULL)
			me->pending_tail = NULL;
		me->queued--;
		r->next = NULL;
		for (i = 0; i < MAD_WINDOW_MAX && me->slot[i]; i++)
			;
		r->slot = i;
		me->slot[i] = r;
		me->outstanding++;
		mad_transmit(me, r);
	}
}

static void
mad_enqueue(struct mad_engine *me, struct mad_req *r)
{
	if (me->pending_tail)
		me->pending_tail->next = r;
	else
		me->pending = r;
	me->pending_tail = r;
	me->queued++;
	mad_pump(me);
}

int
mad_send_raw(struct mad_engine *me, uint16_t dlid, uint32_t qpn, uint32_t qkey,
    const uint8_t *mad, size_t len, mad_cb cb, void *arg)
{
	struct mad_req *r;

	if (me->closing)
		return -ECANCELED;
	if (len < sizeof(ib_mad_t) || len > MAD_SIZE || me->agent[mad[1]] < 0)
		return -EINVAL;
	r = req_get(me);
	r->cb = cb;
	r->arg = arg;
	r->dlid = dlid;
	r->qpn = qpn;
	r->qkey = qkey;
	r->len = len;
	r->mclass = mad[1];
	memcpy(r->mad, mad, len);
	if (len < MAD_SIZE)
		memset(r->mad + len, 0, MAD_SIZE - len);
	mad_enqueue(me, r);
	return 0;
}

int
mad_smp(struct mad_engine *me, const struct mad_addr *addr, uint8_t method,
    uint16_t attr_id, uint32_t attr_mod, const void *data, mad_cb cb, void *arg)
{
	struct mad_req *r;

	if (me->closing)
		return -ECANCELED;
	if (addr->directed && addr->hops >= IB_SUBNET_PATH_HOPS_MAX)
		return -EINVAL;
	r = req_get(me);
	r->cb = cb;
	r->arg = arg;
	r->len = MAD_SIZE;
	r->qpn = 0;
	r->qkey = 0;
	mad_smp_build(r->mad, addr, method, attr_id, attr_mod, data,
	    me->mkey ? me->mkey(addr, me->mkey_arg) : 0);
	r->mclass = r->mad[1];
	r->dlid = addr->directed ? 0xFFFF : addr->dlid;
	mad_enqueue(me, r);
	return 0;
}

int
mad_perf(struct mad_engine *me, uint16_t dlid, uint8_t method,
    uint16_t attr_id, uint32_t attr_mod, const void *data, size_t len, mad_cb cb, void *arg)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED = { 0 };
	ib_mad_t *hdr = (ib_mad_t *)mad;

	if (len > MAD_SIZE - 64)
		return -EINVAL;
	hdr->base_ver = 1;
	hdr->mgmt_class = IB_MCLASS_PERF;
	hdr->class_ver = 1;
	hdr->method = method;
	hdr->attr_id = htobe16(attr_id);
	hdr->attr_mod = htobe32(attr_mod);
	if (data && len)
		memcpy(mad + 64, data, len);
	return mad_send_raw(me, dlid, 1, 0x80010000u, mad, MAD_SIZE, cb, arg);
}

int
mad_respond(struct mad_engine *me, const struct mad_in *in, const uint8_t *mad, size_t len)
{
	int agent;

	uint8_t *buf;
	int rc = 0;

	if (len < sizeof(ib_mad_t) || (agent = me->agent[mad[1]]) < 0)
		return -EINVAL;
	if (len > MAD_SIZE && !(me->kernel_rmpp && mad[1] == IB_MCLASS_SUBN_ADM))
		return -EINVAL;
	/* A whole SA table goes in one send: the kernel's RMPP layer cuts it
	 * into segments (umad_send(3)). */
	buf = len > MAD_SIZE ? xcalloc(1, umad_size() + len) : me->tx_buf;
	memset(buf, 0, umad_size());
	umad_set_addr(buf, in->slid, in->qpn, in->sl, in->qkey);
	memcpy(umad_get_mad(buf), mad, len);
	if (umad_send(mad_port_pair_fd(me->fd, me->smi_fd, mad[1]), agent, buf, (int)len, 0, 0) < 0) {
		me->cnt.errors++;
		rc = -EIO;
	} else
		me->cnt.sent++;
	if (buf != me->tx_buf)
		free(buf);
	return rc;
}

/* ---- receiving ---- */

/*
 * An answer longer than a MAD: an RMPP transfer the kernel reassembled (a
 * SubnAdmGetTable's, on the SA agent registered with rmpp_version 1).
 * umad_recv() left it queued and said its length: it is read whole into a
 * buffer of its own, whose address rides in the record's last bytes (the
 * loop frees it).  The record keeps the umad header and the first MAD_SIZE
 * bytes, so that the drain at close sees its TID.
 */
static void
rx_long(struct mad_engine *me, int fd, uint8_t *rec, int len)
{
	uint8_t *big = malloc(umad_size() + (size_t)len);
	int got = len;

	if (big == NULL || umad_recv(fd, big, &got, 0) < 0 || got != len) {
		free(big);
		atomic_fetch_add(&me->rx_dropped, 1);
		return;
	}
	memcpy(rec, big, umad_size() + MAD_SIZE);
	((struct ib_user_mad *)rec)->length = (uint32_t)got;
	memcpy(rec + me->rec_size - sizeof(big), &big, sizeof(big));
	if (write(me->pipe_wr, rec, me->rec_size) != (ssize_t)me->rec_size) {
		free(big);
		atomic_fetch_add(&me->rx_dropped, 1);
	}
}

/* The long answer a record carries (rx_long), NULL for a MAD. */
static uint8_t *
rec_long(const struct mad_engine *me, const uint8_t *rec)
{
	uint8_t *big;

	memcpy(&big, rec + me->rec_size - sizeof(big), sizeof(big));
	return big;
}

/*
 * The receive thread: the one place that blocks.  A bounded wait lets
 * close() stop it; records are written whole (rec_size < PIPE_BUF, so each
 * write is atomic and the loop never sees half a MAD).
 */
static void *
rx_main(void *arg)
{
	struct mad_engine *me = arg;
	uint8_t *buf = xcalloc(1, me->rec_size);
	unsigned turn = 0;

	while (!atomic_load(&me->rx_stop)) {
		int len = MAD_SIZE, fd;
		int rc;

		memset(buf, 0, me->rec_size);
		rc = mad_port_pair_recv(me->fd, me->smi_fd, buf, &len, RX_POLL_MS, &turn, &fd);
		if (rc < 0) {
			if (rc == -ETIMEDOUT || rc == -EINTR || rc == -EAGAIN)
				continue;
			if (rc == -ENOSPC && len > MAD_SIZE) {
				rx_long(me, fd, buf, len);
				continue;
			}
			if (rc == -ENOSPC)
				continue;
			usleep(1000);	/* do not spin on a broken port */
			continue;
		}
		if (len < 0)
			len = 0;
		/* Smuggle the received length in the umad's length field. */
		((struct ib_user_mad *)buf)->length = (uint32_t)len;
		if (write(me->pipe_wr, buf, me->rec_size) != (ssize_t)me->rec_size)
			atomic_fetch_add(&me->rx_dropped, 1);
	}
	free(buf);
	return NULL;
}

static void
mad_deliver_reply(struct mad_engine *me, const uint8_t *umad, const uint8_t *mad, size_t len)
{
	const ib_mad_t *hdr = (const ib_mad_t *)mad;
	uint32_t tid = (uint32_t)be64toh(hdr->trans_id);
	struct mad_req *r = me->slot[tid & SLOT_MASK];
	struct mad_result res = { 0 };
	size_t need;

	if (r == NULL || r->tid != tid) {
		/* A late answer to a try we already gave up on. */
		me->cnt.unsolicited++;
		log_debug("mad: stray reply tid 0x%08x", tid);
		return;
	}
	if (umad_status((void *)umad) != 0) {
		/* The transport gave up at once (ibsim: drop, bad route,
		 * dead client): treat as a lost try. */
		me->cnt.errors++;
		evtimer_del(&r->timer);
		req_retry_or_fail(me, r);
		return;
	}
	need = (r->mclass == IB_MCLASS_SUBN_DIR || r->mclass == IB_MCLASS_SUBN_LID) ?
	    MAD_SIZE : sizeof(ib_mad_t);
	if (len < need) {
		me->cnt.errors++;
		log_warnx("mad: short reply (%zu bytes) to class 0x%02x attr 0x%04x",
		    len, r->mclass, be16toh(hdr->attr_id));
		req_fail(me, r, -EIO);
		return;
	}
	res.mad_status = be16toh(hdr->status) & 0x7FFF;
	if (res.mad_status != 0)
		me->cnt.errors++;
	res.mad = mad;
	res.len = len;
	req_finish(me, r, &res);
}

static void
mad_deliver_request(struct mad_engine *me, const uint8_t *umad, const uint8_t *mad, size_t len)
{
	const ib_mad_addr_t *a = umad_get_mad_addr((void *)umad);
	struct mad_in in = {
		.mad = mad, .len = len,
		.slid = be16toh(a->lid), .qpn = be32toh(a->qpn),
		.qkey = be32toh(a->qkey), .sl = a->sl,
	};

	me->cnt.unsolicited++;
	if (me->handler)
		me->handler(me, &in, me->handler_arg);
}

/* A long answer (rx_long): an SA answer, handed over whole. */
static void
mad_process_long(struct mad_engine *me, const uint8_t *big, size_t len)
{
	const uint8_t *mad = umad_get_mad((void *)big);
	const ib_mad_t *hdr = (const ib_mad_t *)mad;

	me->cnt.received++;
	if (hdr->base_ver != 1 || hdr->mgmt_class != IB_MCLASS_SUBN_ADM ||
	    !(hdr->method & IB_MAD_METHOD_RESP_MASK)) {
		me->cnt.errors++;
		log_warnx("mad: dropped a %zu-byte MAD of class 0x%02x method 0x%02x: only SA "
		    "answers are read whole", len, hdr->mgmt_class, hdr->method);
		return;
	}
	mad_deliver_reply(me, big, mad, len);
}

static void
mad_process(struct mad_engine *me, uint8_t *umad)
{
	uint8_t mad[MAD_SIZE] MAD_ALIGNED;
	size_t len = ((struct ib_user_mad *)umad)->length;
	const ib_mad_t *hdr = (const ib_mad_t *)mad;
	uint8_t *big = rec_long(me, umad);

	if (big != NULL) {
		mad_process_long(me, big, len);
		free(big);
		return;
	}
	me->cnt.received++;
	if (len > MAD_SIZE)
		len = MAD_SIZE;
	memset(mad, 0, sizeof(mad));
	memcpy(mad, umad_get_mad(umad), len);
	if (len < sizeof(ib_mad_t) && umad_status(umad) == 0) {
		me->cnt.errors++;
		log_warnx("mad: dropped a %zu-byte MAD", len);
		return;
	}
	if (hdr->base_ver != 1) {
		me->cnt.errors++;
		log_warnx("mad: dropped MAD with base version %u", hdr->base_ver);
		return;
	}
	if ((hdr->method & IB_MAD_METHOD_RESP_MASK) || umad_status(umad) != 0)
		mad_deliver_reply(me, umad, mad, len);
	else
		mad_deliver_request(me, umad, mad, len);
}

static void
pipe_readable(evutil_socket_t fd, short what, void *arg)
{
	struct mad_engine *me = arg;
	ssize_t n;
	size_t i;
	int64_t t0;

	if (atomic_load(&me->rx_dropped)) {
		unsigned d = atomic_exchange(&me->rx_dropped, 0);
		me->cnt.errors += d;
		log_warnx("mad: %u MADs dropped: receive pipe full", d);
	}
	/* RX_SLICE records at a time while RX_SLICE_US last; what is left
	 * in the pipe wakes the loop again on its next turn (a reply's
	 * callback may send, plan or end a phase: 64 of them at once held
	 * the loop for 20 ms) */
	t0 = clock_mono_us();
	do {
		n = read(fd, me->rx_buf, me->rec_size * RX_SLICE);
		if (n <= 0)
			return;
		for (i = 0; i + me->rec_size <= (size_t)n; i += me->rec_size)
			mad_process(me, me->rx_buf + i);
	} while ((size_t)n == me->rec_size * RX_SLICE && clock_mono_us() - t0 < RX_SLICE_US);
}

/* ---- opening ---- */

bool
mad_engine_kernel_rmpp(const struct mad_engine *me)
{
	return me && me->kernel_rmpp;
}

struct mad_engine *
mad_engine_open(struct event_base *base, const struct mad_engine_config *cfg)
{
	struct mad_engine *me = xcalloc(1, sizeof(*me));
	int pfd[2], port;
	char issm[64];

	me->base = base;
	me->fd = me->smi_fd = me->issm_fd = me->pipe_rd = me->pipe_wr = -1;
	if (umad_init() < 0)
		goto fail;
	if (cfg->ca[0] ? mad_find_ca_port(cfg->ca, (int)cfg->ca_port, me->ca, &port, &me->port_guid) < 0 :
	    mad_find_port(cfg->port_guid, cfg->optional, me->ca, &port, &me->port_guid) < 0)
		goto fail;
	me->port_num = port;
	if (mad_port_pair_open(me->ca, (unsigned)port, &me->fd, &me->smi_fd) < 0)
		goto fail;
	if (mad_register_agents(me->fd, me->smi_fd, !cfg->no_issm, me->agent, &me->kernel_rmpp) < 0)
		goto fail;
	/* Only now: issm makes us the port's SM and unsolicited MADs start.
	 * An observer never claims it: another SM is the subnet's.  Of an
	 * SMI/GSI pair, the device named claims it (docs/sm.md). */
	if (!cfg->no_issm) {
		if (umad_get_issm_path(me->ca, port, issm, sizeof(issm)) < 0)
			snprintf(issm, sizeof(issm), "/dev/infiniband/issm0");
		if ((me->issm_fd = open(issm, O_RDWR)) < 0)
			log_warn("mad: %s (continuing without IsSM)", issm);
	}

	mad_engine_set_window(me, cfg->window);
	mad_engine_set_timing(me, cfg->timeout_ms, cfg->retries);
	me->rec_size = umad_size() + MAD_SIZE + sizeof(uint8_t *);	/* rx_long */
	me->rx_buf = xcalloc(RX_SLICE, me->rec_size);
	me->tx_buf = xcalloc(1, me->rec_size);

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		log_warn("mad: pipe");
		goto fail;
	}
	me->pipe_rd = pfd[0];
	me->pipe_wr = pfd[1];
	evutil_make_socket_nonblocking(me->pipe_rd);
	/* The writer never blocks (close() must be able to join it); a pipe
	 * far larger than the window keeps drops to a loop that stalled. */
	evutil_make_socket_nonblocking(me->pipe_wr);
	(void)fcntl(me->pipe_wr, F_SETPIPE_SZ, 1 << 20);
	me->pipe_ev = event_new(base, me->pipe_rd, EV_READ | EV_PERSIST, pipe_readable, me);
	event_add(me->pipe_ev, NULL);
	if (pthread_create(&me->rx_thread, NULL, rx_main, me) != 0) {
		log_warnx("mad: cannot start the receive thread");
		event_free(me->pipe_ev);
		me->pipe_ev = NULL;
		goto fail;
	}
	log_info("mad: %s port %u GUID " GUID_FMT ", window %u", me->ca, me->port_num,
	    me->port_guid, me->window);
	return me;
fail:
	if (me->issm_fd >= 0)
		close(me->issm_fd);
	mad_port_pair_close(me->fd, me->smi_fd);
	if (me->pipe_rd >= 0)
		close(me->pipe_rd);
	if (me->pipe_wr >= 0)
		close(me->pipe_wr);
	free(me->rx_buf);
	free(me->tx_buf);
	free(me);
	return NULL;
}

/* Is an answer still owed to a MAD in flight? */
static bool
owed(const struct mad_engine *me)
{
	for (unsigned i = 0; i < MAD_WINDOW_MAX; i++)
		if (me->slot[i] != NULL && !me->slot[i]->answered)
			return true;
	return false;
}

/*
 * Before the agents go, the answers owed to MADs in flight are let in (at
 * most CLOSE_DRAIN_MS; their callbacks still get -ECANCELED below): under
 * umad2sim an answer that reaches a client after its agent is gone
 * crashes the client (shared notes, ibsim 7.5), which an observer stopped
 * in the middle of a read did.  On hardware it costs a stop that much at
 * most.
 */
static void
drain(struct mad_engine *me)
{
	int64_t end = clock_mono_us() + CLOSE_DRAIN_MS * 1000;

	me->window = 0;		/* nothing more is sent */
	while (owed(me) && clock_mono_us() < end) {
		const ib_mad_t *hdr;
		struct mad_req *r;
		uint32_t tid;

		if (read(me->pipe_rd, me->rx_buf, me->rec_size) != (ssize_t)me->rec_size) {
			usleep(1000);
			continue;
		}
		hdr = (const ib_mad_t *)umad_get_mad(me->rx_buf);
		tid = (uint32_t)be64toh(hdr->trans_id);
		if ((r = me->slot[tid & SLOT_MASK]) != NULL && r->tid == tid)
			r->answered = true;
		free(rec_long(me, me->rx_buf));
	}
}

/* Once the thread is gone: what it left in the pipe (long answers' buffers). */
static void
pipe_empty(struct mad_engine *me)
{
	while (read(me->pipe_rd, me->rx_buf, me->rec_size) == (ssize_t)me->rec_size)
		free(rec_long(me, me->rx_buf));
}

void
mad_engine_close(struct mad_engine *me)
{
	struct mad_req *r;
	unsigned i;

	if (me == NULL)
		return;
	drain(me);
	atomic_store(&me->rx_stop, true);
	pthread_join(me->rx_thread, NULL);
	pipe_empty(me);
	event_free(me->pipe_ev);
	/* Cancel: nothing is sent from here on, and callbacks that try to
	 * queue more are refused. */
	me->window = 0;
	me->closing = true;
	while ((r = me->pending) != NULL) {
		struct mad_result res = { .status = -ECANCELED };
		me->pending = r->next;
		if (r->cb)
			r->cb(&res, r->arg);
		free(r);
	}
	for (i = 0; i < MAD_WINDOW_MAX; i++) {
		struct mad_result res = { .status = -ECANCELED };
		if ((r = me->slot[i]) == NULL)
			continue;
		me->slot[i] = NULL;
		evtimer_del(&r->timer);
		if (r->cb)
			r->cb(&res, r->arg);
		free(r);
	}
	while ((r = me->free) != NULL) {
		me->free = r->next;
		free(r);
	}
	if (me->issm_fd >= 0)
		close(me->issm_fd);
	mad_port_pair_close(me->fd, me->smi_fd);
	close(me->pipe_rd);
	close(me->pipe_wr);
	free(me->rx_buf);
	free(me->tx_buf);
	free(me);
}

void
mad_engine_set_window(struct mad_engine *me, unsigned window)
{
	if (window == 0)
		window = MAD_WINDOW_DEFAULT;
	if (window > MAD_WINDOW_MAX)
		window = MAD_WINDOW_MAX;
	me->window = window;
	mad_pump(me);
}

void
mad_engine_set_timing(struct mad_engine *me, unsigned timeout_ms, unsigned retries)
{
	struct timeval tv = clock_tv_ms(timeout_ms);

	/* libevent's common timeouts: one queue per duration, so the many
	 * MAD timers cost O(1) each.  MADs in flight keep the one they had. */
	me->timeout = event_base_init_common_timeout(me->base, &tv);
	me->retries = retries;
}

void
mad_engine_set_mkey(struct mad_engine *me, mad_mkey_fn fn, void *arg)
{
	me->mkey = fn;
	me->mkey_arg = fn ? arg : NULL;
}

void
mad_engine_set_gate(struct mad_engine *me, mad_gate_fn fn, void *arg)
{
	me->gate = fn;
	me->gate_arg = fn ? arg : NULL;
}

void
mad_engine_set_handler(struct mad_engine *me, mad_in_cb cb, void *arg)
{
	me->handler = cb;
	me->handler_arg = arg;
}

/* The read-only accessors take NULL (a module running on a test fake
 * reports zeros): none of them is on the MAD path. */
static const struct mad_counters no_counters;

uint64_t mad_engine_port_guid(const struct mad_engine *me) { return me ? me->port_guid : 0; }
uint8_t mad_engine_port_num(const struct mad_engine *me) { return me ? me->port_num : 0; }
const struct mad_counters *mad_engine_counters(const struct mad_engine *me)
{
	return me ? &me->cnt : &no_counters;
}
size_t mad_engine_outstanding(const struct mad_engine *me) { return me ? me->outstanding : 0; }
size_t mad_engine_queued(const struct mad_engine *me) { return me ? me->queued : 0; }
