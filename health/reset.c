/*
 * `port reset-counters NODE:PORT` (ADMIN): what `perfquery -R` and
 * `perfquery -x -R` do, for one port: a PortCounters Set with every
 * CounterSelect bit (pma_encode_clear, the encoder health's own clears
 * near saturation use) and a PortCountersExtended Set of its eight 64-bit
 * counters; a port without the extended attribute refuses the second, and
 * the answer says so.  The poller is told (health_ib_cleared), so the next
 * reading counts from zero as after its own clears: the history sees a
 * clear, not a counter that went down.
 *
 * The port is found in the SM's model (NODE:PORT as every command takes
 * it, fabric_port_spec) and addressed by LID: the switch's LID for a
 * switch port, the port's own for a CA.  Only the master writes to the
 * fabric (sm_is_master).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "fabric/fabric.h"
#include "health/hstate.h"
#include "health/pma.h"
#include "mad/batch.h"
#include "sm/sm.h"

#define PERF_SET	0x02
#define ALL_COUNTERS	((1u << HC_COUNT) - 1)

struct reset_op {
	struct ctl_req	*req;
	uint64_t	 guid;
	uint8_t		 port;
	uint16_t	 lid;
	char		 desc[FABRIC_NODE_DESC_LEN + 1];
	int		 pc, pcx;	/* 0 pending, 1 answered, -1 no answer, -2 rejected */
	uint16_t	 pcx_status;	/* MAD status of a refused extended Set */
};

/* One batch for every reset: the replies need no sweep's phase. */
static struct mad_batch batch;
static bool batch_ready;

static int
outcome(const struct mad_result *res)
{
	return mad_reply_ok(res) ? 1 : res->status ? -1 : -2;
}

static void
answer(struct reset_op *op)
{
	char obj[FABRIC_NODE_DESC_LEN + 32];
	json_t *o;

	if (op->pc != 1) {
		ctl_reply_error(op->req, PERR_FABRIC, "%s:%u: the PortCounters Set %s: the "
		    "counters may or may not be cleared", op->desc, op->port,
		    op->pc == -1 ? "got no answer" : "was rejected");
		return;
	}
	health_ib_cleared(op->guid, op->port, ALL_COUNTERS);
	{
		char g[24];

		snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)op->guid);
		o = json_pack("{s:s, s:s, s:i, s:i, s:s}", "node", op->desc, "guid", g,
		    "port", op->port, "lid", op->lid, "port_counters", "cleared");
	}
	if (op->pcx == 1)
		json_object_set_new(o, "extended", json_string("cleared"));
	else if (op->pcx == -2) {
		char why[64];

		snprintf(why, sizeof(why), "not supported (MAD status 0x%04x)", op->pcx_status);
		json_object_set_new(o, "extended", json_string(why));
	} else
		json_object_set_new(o, "extended", json_string("no answer"));
	snprintf(obj, sizeof(obj), "%s:%u", op->desc, op->port);
	event_post(EV_INFO, "health", obj, "counters cleared by an operator");
	ctl_reply_ok(op->req, o);
}

/* Both Sets answered (or not): the op is done. */
static void
maybe_done(struct reset_op *op)
{
	if (op->pc != 0 && op->pcx != 0) {
		answer(op);
		free(op);
	}
}

static void
on_pc(const struct mad_result *res, void *owner, void *arg)
{
	struct reset_op *op = arg;

	(void)owner;
	op->pc = outcome(res);
	maybe_done(op);
}

static void
on_pcx(const struct mad_result *res, void *owner, void *arg)
{
	struct reset_op *op = arg;

	(void)owner;
	op->pcx = outcome(res);
	op->pcx_status = res->mad_status;
	maybe_done(op);
}

void
ctl_port_reset_counters(struct ctl_req *req, json_t *args)
{
	const char *spec = ctl_arg_str(args, "port");
	struct mad_engine *me = fabricd_mad();
	struct sm *sm = ctl_req_daemon(req)->sm;	/* health may be off: the daemon's */
	struct fabric *f = sm_fabric(sm);
	struct fabric_node *n;
	struct mad_io io;
	struct reset_op *op;
	uint8_t data[PMA_DATA_LEN];
	char why[256];
	int port;

	if (me == NULL || f == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "no fabric: the subnet manager has not "
		    "swept yet (or the daemon has no InfiniBand port)");
		return;
	}
	if (sm_observer_refusal(sm, why, sizeof(why)) != NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s: the master writes to the fabric", why);
		return;
	}
	if (!sm_is_master(sm)) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "this SM is not the master: the master "
		    "writes to the fabric");
		return;
	}
	switch (fabric_port_spec(f, spec, &n, &port, why, sizeof(why))) {
	case FABRIC_SPEC_OK:
		break;
	case FABRIC_SPEC_NO_NODE:
		ctl_reply_error(req, PERR_NOT_FOUND, "%s", why);
		return;
	case FABRIC_SPEC_NO_PORT:
	case FABRIC_SPEC_BAD:
	case FABRIC_SPEC_RANGE:
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s", why);
		return;
	}
	if (port == 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "port 0 of %s has no link counters: "
		    "give a port 1-%u", n->desc, n->nports);
		return;
	}
	op = xcalloc(1, sizeof(*op));
	op->req = req;
	op->guid = n->guid;
	op->port = (uint8_t)port;
	op->lid = n->type == FABRIC_SWITCH ? n->lid : n->ports[port].lid;
	snprintf(op->desc, sizeof(op->desc), "%s", n->desc);
	if (op->lid == 0) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s:%u has no LID yet", n->desc, port);
		free(op);
		return;
	}
	io = mad_io_engine(me);
	if (!batch_ready) {
		mad_batch_init(&batch, &io, NULL);
		batch_ready = true;
	} else
		mad_batch_set_io(&batch, &io);	/* the engine the daemon has now */
	pma_encode_clear(data, op->port, ALL_COUNTERS);
	mad_batch_perf(&batch, op->lid, PERF_SET, PMA_PORT_COUNTERS, 0, data, sizeof(data),
	    on_pc, op);
	pma_encode_clear_extended(data, op->port);
	mad_batch_perf(&batch, op->lid, PERF_SET, PMA_PORT_COUNTERS_EXT, 0, data, sizeof(data),
	    on_pcx, op);
}
