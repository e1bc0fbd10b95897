/*
 * A whole heavy sweep on a fake fabric behind mad/io.h: discovery, LFT
 * read-back, LIDs, LFT programming beside the before_activate hooks,
 * ARMED, ACTIVE, publish, after_sweep hooks.  The fake holds the truth
 * (port states, LIDs, forwarding tables) and is what the checks read;
 * then the same bring-up with one reply that never comes (the engine's
 * timeout) and one malformed reply, where the sweep must still end; and
 * light sweeps, quiet and then finding a change; and an LFT Set the switch
 * applies but whose reply is lost: the block is unknown in the model, not
 * assumed either way, and the next light sweep writes it again.
 *
 *   smhost[1] -- sw[1]   sw[2] -- h2[1]   sw[3] -- h3[1]   sw[4] down
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <cmocka.h>

#include <iba/ib_types.h>

#include "daemon/config.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/store.h"
#include "fabric/routing.h"
#include "mad/io.h"
#include "sm/sm.h"

#define NNODES		4
#define MAXPORTS	4
#define PHYS_LINKUP	5
#define PHYS_POLLING	2
#define ATTR_NODE_DESC	0x0010
#define ATTR_NODE_INFO	0x0011
#define ATTR_SWITCH_INFO 0x0012
#define ATTR_PORT_INFO	0x0015
#define ATTR_LFT	0x0019
#define ATTR_SL2VL	0x0017
#define ATTR_VLARB	0x0018
#define H3		3

enum fault { F_NONE, F_TIMEOUT, F_MALFORMED };

struct fport {
	int		 peer;		/* node index, -1: no cable */
	uint8_t		 peer_port, state, phys;
	uint16_t	 lid, smlid;
	uint64_t	 prefix;
};

struct fnode {
	const char	*desc;
	uint64_t	 guid;
	bool		 sw;
	uint8_t		 nports;
	struct fport	 port[MAXPORTS + 1];
	uint16_t	 lin_top;
	uint8_t		 lft[256];
	uint8_t		 sl2vl[MAXPORTS + 1][MAXPORTS + 1][8];	/* [in][out] */
};

struct reply {
	mad_cb		 cb;
	void		*arg;
	int		 status;
	uint8_t		 mad[MAD_SIZE] MAD_ALIGNED;	/* ib_types.h structs inside */
};

struct fake {
	struct fnode	 n[NNODES];
	struct reply	*q;
	size_t		 head, tail, cap;
	enum fault	 h3_nodeinfo;	/* what h3's NodeInfo Get gets */
	bool		 psc;		/* the switch's SwitchInfo PortStateChange */
	bool		 lose_lft_set_reply;	/* the next LFT Set lands, its reply lost */
	unsigned	 lft_gets, lft_sets, switchinfo_gets, portinfo_sets;
	bool		 opt_sl2vl;	/* SwitchInfo OptimizedSLtoVLMappingProgramming */
	unsigned	 sl2vl_gets, sl2vl_sets, sl2vl_all_sets;
};

struct world {
	char			 dir[64];
	struct fabricd		 fd;
	struct fabricd_config	*cfg;
	struct fake		 fk;
	unsigned		 before_hooks, after_hooks;
};

static void
cable(struct fake *f, int a, uint8_t pa, int b, uint8_t pb)
{
	f->n[a].port[pa] = (struct fport){ .peer = b, .peer_port = pb, .state = IB_LINK_INIT,
	    .phys = PHYS_LINKUP };
	f->n[b].port[pb] = (struct fport){ .peer = a, .peer_port = pa, .state = IB_LINK_INIT,
	    .phys = PHYS_LINKUP };
}

static void
fake_init(struct fake *f)
{
	static const char *const desc[NNODES] = { "smhost", "sw", "h2", "h3" };

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < NNODES; i++) {
		f->n[i].desc = desc[i];
		f->n[i].guid = 0x0002c90300000010ULL + 0x10 * (uint64_t)i;
		f->n[i].sw = i == 1;
		f->n[i].nports = i == 1 ? MAXPORTS : 1;
		for (int p = 0; p <= MAXPORTS; p++)
			f->n[i].port[p] = (struct fport){ .peer = -1, .state = IB_LINK_DOWN,
			    .phys = PHYS_POLLING };
	}
	f->n[1].port[0] = (struct fport){ .peer = -1, .state = IB_LINK_ACTIVE, .phys = PHYS_LINKUP };
	cable(f, 0, 1, 1, 1);
	cable(f, 1, 2, 2, 1);
	cable(f, 1, 3, 3, 1);
	/* The switch holds a table already: the sweep reads it back. */
	f->n[1].lin_top = 63;
	memset(f->n[1].lft, 0xFF, sizeof(f->n[1].lft));
}

/* Follow a directed route from the SM's port: the node, and the port the
 * SMP entered it by; -1 where the route leads nowhere (the MAD is lost). */
static int
walk(const struct fake *f, const struct mad_addr *a, uint8_t *entry)
{
	int node = 0;
	uint8_t port = 1;

	if (!a->directed)
		return -1;
	for (unsigned i = 1; i <= a->hops; i++) {
		const struct fport *p;

		if (a->path[i] == 0 || a->path[i] > f->n[node].nports)
			return -1;
		p = &f->n[node].port[a->path[i]];
		if (p->peer < 0 || p->phys != PHYS_LINKUP)
			return -1;
		port = p->peer_port;
		node = p->peer;
	}
	*entry = port;
	return node;
}

static struct reply *
queue_reply(struct fake *f, mad_cb cb, void *arg)
{
	struct reply *r;

	if (f->tail == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->q = realloc(f->q, f->cap * sizeof(*f->q));
		assert_non_null(f->q);
	}
	r = &f->q[f->tail++];
	memset(r, 0, sizeof(*r));
	r->cb = cb;
	r->arg = arg;
	return r;
}

static void
node_info(const struct fake *f, int node, uint8_t entry, ib_node_info_t *ni)
{
	const struct fnode *n = &f->n[node];

	ni->base_version = 1;
	ni->class_version = 1;
	ni->node_type = n->sw ? IB_NODE_TYPE_SWITCH : IB_NODE_TYPE_CA;
	ni->num_ports = n->nports;
	ni->sys_guid = htobe64(n->guid);
	ni->node_guid = htobe64(n->guid);
	ni->port_guid = htobe64(n->sw ? n->guid : n->guid + entry);
	ni->partition_cap = htobe16(32);
	ni->port_num_vendor_id = htobe32((uint32_t)entry << 24 | 0x0002c9);
}

static void
port_info(const struct fnode *n, uint8_t num, ib_port_info_t *pi)
{
	const struct fport *p = &n->port[num];

	pi->base_lid = htobe16(p->lid);
	pi->master_sm_base_lid = htobe16(p->smlid);
	pi->subnet_prefix = htobe64(p->prefix);
	pi->local_port_num = num;
	pi->link_width_enabled = pi->link_width_supported = pi->link_width_active = 2;
	ib_port_info_set_link_speed_sup(1, pi);
	pi->link_speed = 1 << 4 | 1;
	/* QoS: VL0-7 with SL2VL tables (a switch says so on port 0) */
	if (!n->sw || num == 0)
		pi->capability_mask = IB_PORT_CAP_HAS_SL_MAP;
	pi->vl_cap = (uint8_t)(4 << 4);
	ib_port_info_set_op_vls(pi, 4);
	pi->vl_arb_low_cap = pi->vl_arb_high_cap = 8;
	ib_port_info_set_port_state(pi, p->state);
	ib_port_info_set_port_phys_state(p->phys, pi);
}

/* A Set of PortInfo: what an SM may change, as a port would take it. */
static void
port_set(struct fnode *n, uint8_t num, const ib_port_info_t *req)
{
	struct fport *p = &n->port[num];
	uint8_t st = ib_port_info_get_port_state(req);

	if (!n->sw || num == 0) {
		p->lid = be16toh(req->base_lid);
		p->smlid = be16toh(req->master_sm_base_lid);
		p->prefix = be64toh(req->subnet_prefix);
	}
	if ((st == IB_LINK_ARMED && p->state == IB_LINK_INIT) ||
	    (st == IB_LINK_ACTIVE && p->state == IB_LINK_ARMED))
		p->state = st;
}

/* SLtoVLMappingTable: a CA's one table, a switch's (in, out) pair, or
 * with the optimized bits every in port (bit 17) / out port (bit 16). */
static void
sl2vl(struct fake *f, struct fnode *n, bool set, uint32_t mod, const uint8_t *data, uint8_t *out)
{
	unsigned in = n->sw ? (mod >> 8) & 0xFF : 0, o = n->sw ? mod & 0xFF : 1;
	bool all_in = n->sw && f->opt_sl2vl && (mod & 0x20000), all_out = n->sw && f->opt_sl2vl && (mod & 0x10000);

	if (in > n->nports || o > n->nports)
		return;
	if (!set) {
		f->sl2vl_gets++;
		memcpy(out, n->sl2vl[in][o], 8);
		return;
	}
	f->sl2vl_sets++;
	f->sl2vl_all_sets += all_in || all_out;
	for (unsigned i = all_in ? 0 : in; i <= (all_in ? n->nports : in); i++)
		for (unsigned j = all_out ? 0 : o; j <= (all_out ? n->nports : o); j++)
			memcpy(n->sl2vl[i][j], data, 8);
	memcpy(out, data, 8);
}

static void
answer(struct fake *f, int node, uint8_t entry, uint8_t method, uint16_t attr, uint32_t mod,
    const uint8_t *data, ib_smp_t *smp)
{
	struct fnode *n = &f->n[node];
	bool set = method == IB_MAD_METHOD_SET;

	switch (attr) {
	case ATTR_NODE_INFO:
		node_info(f, node, entry, (ib_node_info_t *)smp->data);
		break;
	case ATTR_NODE_DESC:
		snprintf((char *)smp->data, IB_SMP_DATA_SIZE, "%s", n->desc);
		break;
	case ATTR_SWITCH_INFO:
		if (set) {
			const ib_switch_info_t *req = (const ib_switch_info_t *)data;

			n->lin_top = be16toh(req->lin_top);
			if (req->life_state & IB_SWITCH_PSC)
				f->psc = false;		/* write 1 to clear */
		} else
			f->switchinfo_gets++;
		((ib_switch_info_t *)smp->data)->lin_cap = htobe16(sizeof(n->lft));
		((ib_switch_info_t *)smp->data)->lin_top = htobe16(n->lin_top);
		((ib_switch_info_t *)smp->data)->life_state = (f->psc ? IB_SWITCH_PSC : 0) |
		    (f->opt_sl2vl ? 0x01 : 0);
		break;
	case ATTR_SL2VL:
		sl2vl(f, n, set, mod, data, smp->data);
		break;
	case ATTR_PORT_INFO:
		if (mod > n->nports)
			break;
		if (set) {
			port_set(n, (uint8_t)mod, (const ib_port_info_t *)data);
			f->portinfo_sets++;
		}
		port_info(n, (uint8_t)mod, (ib_port_info_t *)smp->data);
		break;
	case ATTR_LFT:
		if (mod >= sizeof(n->lft) / 64)
			break;
		if (set) {
			memcpy(n->lft + mod * 64, data, 64);
			f->lft_sets++;
		} else
			f->lft_gets++;
		memcpy(smp->data, n->lft + mod * 64, 64);
		break;
	}
}

/* The mad_io smp: answered later, in order, from the fake's state. */
static int
fake_smp(void *ctx, const struct mad_addr *addr, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, mad_cb cb, void *arg)
{
	struct fake *f = ctx;
	struct reply *r = queue_reply(f, cb, arg);
	ib_smp_t *smp = (ib_smp_t *)r->mad;
	uint8_t entry = 0;
	int node = walk(f, addr, &entry);

	if (node < 0 || (node == H3 && attr_id == ATTR_NODE_INFO && f->h3_nodeinfo == F_TIMEOUT)) {
		r->status = -ETIMEDOUT;		/* what the engine says after its retries */
		return 0;
	}
	smp->base_ver = 1;
	smp->mgmt_class = IB_MCLASS_SUBN_DIR;
	smp->class_ver = 1;
	smp->method = IB_MAD_METHOD_GET_RESP;
	smp->attr_id = htobe16(attr_id);
	smp->attr_mod = htobe32(attr_mod);
	answer(f, node, entry, method, attr_id, attr_mod, data, smp);
	if (attr_id == ATTR_LFT && method == IB_MAD_METHOD_SET && f->lose_lft_set_reply) {
		f->lose_lft_set_reply = false;
		r->status = -ETIMEDOUT;		/* applied, but nobody hears so */
	}
	if (node == H3 && attr_id == ATTR_NODE_INFO && f->h3_nodeinfo == F_MALFORMED)
		((ib_node_info_t *)smp->data)->node_guid = 0;	/* no node has GUID 0 */
	return 0;
}

/* Deliver every reply, including those the replies cause. */
static size_t
fake_drain(struct fake *f)
{
	size_t n = 0;

	while (f->head < f->tail) {
		struct reply r = f->q[f->head++];
		struct mad_result res = { .status = r.status };

		if (r.status == 0) {
			res.mad = r.mad;
			res.len = sizeof(r.mad);
		}
		r.cb(&res, r.arg);
		n++;
	}
	f->head = f->tail = 0;
	return n;
}

/* ---- the daemon around the SM ---- */

static void
before_hook(struct fabric *f, bool changed, void (*done)(void *), void *token, void *arg)
{
	struct world *w = *(struct world **)arg;

	w->before_hooks++;
	done(token);
}

static void
after_hook(struct fabric *f, bool changed, void (*done)(void *), void *token, void *arg)
{
	struct world *w = *(struct world **)arg;

	w->after_hooks++;
	done(token);
}

static struct world *current;

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	char path[96], **errs;
	size_t nerr;
	FILE *fp;

	assert_non_null(w);
	snprintf(w->dir, sizeof(w->dir), "/tmp/fabricd-sweep-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(path, sizeof(path), "%s/fabricd.yaml", w->dir);
	assert_non_null(fp = fopen(path, "w"));
	/* the prestate, when given, is the sweep interval */
	fprintf(fp, "socket: %s/sock\nstate_dir: %s\nsm:\n  enabled: true\n"
	    "  sweep_interval: %s\n", w->dir, w->dir, *state ? (const char *)*state : "1h");
	fclose(fp);
	assert_int_equal(config_load(path, fabricd_modules, &w->cfg, &errs, &nerr), 0);
	w->fd.config = w->cfg;
	assert_non_null(w->fd.base = event_base_new());
	assert_int_equal(store_open(w->dir, &w->fd.store), 0);
	fabricd = &w->fd;
	events_attach(w->fd.base, w->fd.store);
	fake_init(&w->fk);
	current = w;
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;
	char cmd[96];

	sm_module.stop(&w->fd);
	sm_test_use_io(NULL, 0, 0);
	events_flush_all();	/* the queued events, and their timer, go with this base */
	events_shutdown();
	events_attach(NULL, NULL);
	store_close(w->fd.store);
	event_base_free(w->fd.base);
	config_free(w->cfg);
	fabricd = NULL;
	free(w->fk.q);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", w->dir);
	assert_int_equal(system(cmd), 0);
	free(w);
	return 0;
}

/* Whether the SM has ended a sweep (whatever its outcome). */
static bool
sm_swept(struct world *w)
{
	json_t *st = sm_module.status(&w->fd);
	json_t *n = json_object_get(json_object_get(st, "subnet"), "sweeps");
	bool swept = json_integer_value(n) >= 1;

	json_decref(st);
	return swept;
}

/* Start the SM on the fake, with the test's hooks registered as a module
 * would (after the SM's start, on the instance the daemon holds). */
static void
start_sm(struct world *w, const struct mad_io *io)
{
	sm_test_use_io(io, w->fk.n[0].guid + 1, 1);
	assert_int_equal(sm_module.start(&w->fd, w->cfg->module[MOD_SM]), 0);
	assert_non_null(w->fd.sm);
	sm_add_hook(w->fd.sm, SM_HOOK_BEFORE_ACTIVATE, before_hook, &current);
	sm_add_hook(w->fd.sm, SM_HOOK_AFTER_SWEEP, after_hook, &current);
}

/* Start the SM on the fake and run the loop until nothing moves: the
 * sweep has ended, or it never will. */
static json_t *
bring_up(struct world *w)
{
	struct mad_io io = { .smp = fake_smp, .ctx = &w->fk };
	json_t *st;

	start_sm(w, &io);
	for (int i = 0; i < 500; i++) {
		/* 10 ms of the loop: routing runs on a thread, its answer
		 * comes through the loop, not at once; on a loaded machine
		 * the thread may take longer than a few turns, so nothing
		 * to drain is "done" only once the first sweep has ended */
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(w->fd.base, &tv);
		event_base_loop(w->fd.base, 0);
		if (fake_drain(&w->fk) == 0 && i > 2 && sm_swept(w))
			break;
	}
	st = sm_module.status(&w->fd);
	assert_non_null(st);
	return st;
}

/* Bring-up shows how far it is (issue 29: "discovering, switches 0, cas
 * 0" until the end): while the first sweep runs, status names its step
 * and the nodes found so far, the subnet still "discovering". */
static void
test_status_shows_the_sweep(void **state)
{
	struct world *w = *state;
	struct mad_io io = { .smp = fake_smp, .ctx = &w->fk };
	json_int_t most = 0;
	bool named = false;

	start_sm(w, &io);
	for (int i = 0; i < 2000 && !sm_swept(w); i++) {
		json_t *st, *run;
		const char *subnet;
		struct timeval tv = { 0, 1000 };

		event_base_loopexit(w->fd.base, &tv);
		event_base_loop(w->fd.base, 0);
		st = sm_module.status(&w->fd);
		run = json_object_get(st, "sweep_running");
		subnet = json_string_value(json_object_get(json_object_get(st, "subnet"), "state"));
		if (run && subnet && strcmp(subnet, "discovering") == 0) {
			json_int_t n = json_integer_value(json_object_get(run, "switches_found")) +
			    json_integer_value(json_object_get(run, "cas_found"));
			most = n > most ? n : most;
			named |= json_string_value(json_object_get(run, "step")) != NULL &&
			    strcmp(json_string_value(json_object_get(run, "kind")), "heavy") == 0;
		}
		json_decref(st);
		fake_drain(&w->fk);
	}
	assert_true(sm_swept(w));
	assert_true(named);
	assert_int_equal(most, NNODES);		/* every node, before the subnet is up */
}

static json_int_t
subnet_int(json_t *st, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(st, "subnet"), key));
}

static bool
subnet_bool(json_t *st, const char *key)
{
	return json_is_true(json_object_get(json_object_get(st, "subnet"), key));
}

/* The fake's own state: cabled ports ACTIVE, except those of node skip. */
static void
assert_active_except(const struct fake *f, int skip)
{
	for (int i = 0; i < NNODES; i++)
		for (int p = 1; p <= f->n[i].nports; p++) {
			const struct fport *fp = &f->n[i].port[p];
			bool to_skip = i == skip || fp->peer == skip;

			if (fp->peer < 0)
				assert_int_equal(fp->state, IB_LINK_DOWN);
			else if (to_skip)
				assert_int_equal(fp->state, IB_LINK_INIT);
			else
				assert_int_equal(fp->state, IB_LINK_ACTIVE);
		}
}

static void
test_bring_up(void **state)
{
	struct world *w = *state;
	struct fake *f = &w->fk;
	json_t *st = bring_up(w);
	uint16_t lids[NNODES];

	assert_int_equal(subnet_int(st, "sweeps"), 1);
	assert_true(subnet_bool(st, "last_sweep_ok"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(st, "subnet"),
	    "state")), "up");
	json_decref(st);
	assert_int_equal(fabric_node_count(sm_fabric(w->fd.sm)), NNODES);
	assert_int_equal(w->before_hooks, 1);
	assert_int_equal(w->after_hooks, 1);
	assert_true(f->lft_gets > 0);			/* the held table was read back */
	assert_active_except(f, -1);
	/* Every end port and the switch's port 0 got a LID of its own, and
	 * knows the SM's. */
	for (int i = 0; i < NNODES; i++) {
		lids[i] = f->n[i].port[i == 1 ? 0 : 1].lid;
		assert_true(lids[i] > 0);
		for (int j = 0; j < i; j++)
			assert_true(lids[i] != lids[j]);
		assert_int_equal(f->n[i].port[i == 1 ? 0 : 1].smlid, lids[0]);
	}
	/* The switch forwards each CA's LID out of the port it hangs on. */
	assert_int_equal(f->n[1].lft[lids[0]], 1);
	assert_int_equal(f->n[1].lft[lids[2]], 2);
	assert_int_equal(f->n[1].lft[lids[3]], 3);
	assert_int_equal(f->n[1].lft[lids[1]], 0);
}

/* A bring-up where h3's NodeInfo goes wrong: the sweep must end, with
 * the rest of the fabric up and h3 left out.  Returns last_sweep_ok. */
static bool
bring_up_without_h3(struct world *w, enum fault fault)
{
	json_t *st;
	bool ok;

	w->fk.h3_nodeinfo = fault;
	st = bring_up(w);
	assert_int_equal(subnet_int(st, "sweeps"), 1);
	ok = subnet_bool(st, "last_sweep_ok");
	json_decref(st);
	assert_int_equal(fabric_node_count(sm_fabric(w->fd.sm)), NNODES - 1);
	assert_null(fabric_node_by_guid(sm_fabric(w->fd.sm), w->fk.n[H3].guid));
	assert_null(fabric_node_by_guid(sm_fabric(w->fd.sm), 0));
	assert_int_equal(w->after_hooks, 1);
	assert_active_except(&w->fk, H3);
	return ok;
}

/* h3's NodeInfo never comes back: the engine's timeout ends that probe
 * and the sweep ends incomplete. */
static void
test_reply_never_comes(void **state)
{
	assert_false(bring_up_without_h3(*state, F_TIMEOUT));
}

/* h3 answers a NodeInfo with GUID 0: refused as malformed (nothing was
 * unreachable, so the rest counts as a good sweep). */
static void
test_malformed_reply(void **state)
{
	assert_true(bring_up_without_h3(*state, F_MALFORMED));
}

/* Run the loop (its timers included) until the SM has swept n times. */
static json_t *
sweep_until(struct world *w, json_int_t n)
{
	json_t *st = NULL;

	for (int i = 0; i < 100; i++) {
		event_base_loop(w->fd.base, EVLOOP_ONCE);
		fake_drain(&w->fk);
		json_decref(st);
		st = sm_module.status(&w->fd);
		if (subnet_int(st, "sweeps") >= n)
			return st;
	}
	fail_msg("no sweep %lld", (long long)n);
	return st;
}

/* The after-sweep hooks run on turns of their own, after the sweep is
 * counted: a few more turns until the count says they ran. */
static void
turns_until_hooks(struct world *w, unsigned want)
{
	for (int i = 0; i < 100 && w->after_hooks < want; i++) {
		event_base_loop(w->fd.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		fake_drain(&w->fk);
	}
}

/* The light sweep: SwitchInfo only while nothing changed; a port change
 * (PortStateChange) turns it into a heavy sweep that drops h3. */
static void
test_light_sweeps(void **state)
{
	struct world *w = *state;
	struct fake *f = &w->fk;
	unsigned sets, gets;
	json_t *st = bring_up(w);
	json_int_t n = subnet_int(st, "sweeps");	/* 1, or more on a slow machine */

	json_decref(st);
	sets = f->portinfo_sets;
	gets = f->switchinfo_gets;
	st = sweep_until(w, n + 1);
	assert_true(subnet_bool(st, "last_sweep_ok"));
	json_decref(st);
	assert_int_equal(f->switchinfo_gets, gets + 1);
	assert_int_equal(f->portinfo_sets, sets);
	assert_int_equal(w->after_hooks, 1);		/* light: no hooks */

	f->n[1].port[3].phys = f->n[H3].port[1].phys = PHYS_POLLING;
	f->n[1].port[3].state = f->n[H3].port[1].state = IB_LINK_DOWN;
	f->psc = true;
	st = sweep_until(w, n + 2);
	json_decref(st);
	assert_int_equal(fabric_node_count(sm_fabric(w->fd.sm)), NNODES - 1);
	assert_null(fabric_node_by_guid(sm_fabric(w->fd.sm), f->n[H3].guid));
	turns_until_hooks(w, 2);
	assert_int_equal(w->after_hooks, 2);
	assert_false(f->psc);				/* cleared by the heavy sweep */
}

/* A four-class policy (the prestate is put after sweep_interval). */
#define QOS_POLICY "1h\n  qos:\n    classes:\n" \
    "      training: { sl: 1, vl: 1, share: 50, priority: high }\n" \
    "      storage: { sl: 2, vl: 2, share: 30 }\n      kv: { sl: 3, vl: 3, share: 15 }\n" \
    "      management: { sl: 0, vl: 0, share: 5 }"

static const uint8_t policy_sl2vl[8] = { 0x01, 0x23, 0, 0, 0, 0, 0, 0 };

/* Every pair of the switch whose in port is not DOWN (0-3), to every out
 * port with a table (1-3: port 0 is a base one), holds the policy's table. */
static void
assert_switch_tables(const struct fake *f)
{
	for (int in = 0; in <= 3; in++)
		for (int out = 1; out <= 3; out++)
			assert_memory_equal(f->n[1].sl2vl[in][out], policy_sl2vl, 8);
	assert_memory_equal(f->n[2].sl2vl[0][1], policy_sl2vl, 8);
}

/* No optimized bit: one Set per pair, and the pairs of a switch whose
 * first table was not the policy's are written without being read. */
static void
test_qos_per_pair(void **state)
{
	struct world *w = *state;
	json_t *st = bring_up(w);

	assert_true(subnet_bool(st, "last_sweep_ok"));
	json_decref(st);
	assert_switch_tables(&w->fk);
	/* 4 x 3 pairs of the switch and 3 CAs, each one Set; the switch's
	 * sample and the CAs' tables read first */
	assert_int_equal(w->fk.sl2vl_sets, 12 + 3);
	assert_int_equal(w->fk.sl2vl_all_sets, 0);
	assert_int_equal(w->fk.sl2vl_gets, 1 + 3);
}

/* The optimized bit: the switch's pairs in one Set. */
static void
test_qos_optimized(void **state)
{
	struct world *w = *state;
	json_t *st;

	w->fk.opt_sl2vl = true;
	st = bring_up(w);
	assert_true(subnet_bool(st, "last_sweep_ok"));
	json_decref(st);
	assert_switch_tables(&w->fk);
	assert_int_equal(w->fk.sl2vl_all_sets, 1);
	assert_int_equal(w->fk.sl2vl_sets, 1 + 3);	/* the switch's one, the CAs' */
	assert_int_equal(w->fk.sl2vl_gets, 3);		/* nothing of the switch read */
}

/* The switch's node in the published model. */
static const struct fabric_node *
model_switch(const struct world *w)
{
	const struct fabric_node *n = fabric_node_by_guid(sm_fabric(w->fd.sm), w->fk.n[1].guid);

	assert_non_null(n);
	assert_non_null(n->lft);
	return n;
}

/* The bring-up's one LFT Set lands but its reply is lost: the SM must not
 * keep the copy it read before (it would diff against it for ever), nor
 * take the Set as done.  The block is unknown in the model, `route`'s walk
 * says so, and the next light sweep writes it again; then the copy is the
 * switch's. */
static void
test_lft_set_reply_lost(void **state)
{
	struct world *w = *state;
	struct fake *f = &w->fk;
	const struct fabric_node *sw;
	json_t *st;
	json_int_t n;
	unsigned sets;

	f->lose_lft_set_reply = true;
	st = bring_up(w);
	n = subnet_int(st, "sweeps");
	json_decref(st);
	assert_false(f->lose_lft_set_reply);		/* the fault was hit */
	assert_int_equal(f->n[1].lft[f->n[2].port[1].lid], 2);	/* the switch took it */
	sw = model_switch(w);
	if (n == 1) {	/* no light sweep yet (a slow machine may have run one) */
		assert_int_equal(sw->lft[f->n[2].port[1].lid], ROUTING_UNKNOWN_PORT);
		assert_int_equal(routing_lookup_programmed(sw, f->n[2].port[1].lid, NULL),
		    ROUTING_UNKNOWN_PORT);
	}
	sets = f->lft_sets;
	st = sweep_until(w, n + 1);
	json_decref(st);
	if (n == 1)
		assert_int_equal(f->lft_sets, sets + 1);	/* written again, once */
	sw = model_switch(w);
	assert_memory_equal(sw->lft, f->n[1].lft, 64);	/* the copy is the switch's */
	/* and a further light sweep on a whole copy writes nothing */
	sets = f->lft_sets;
	st = sweep_until(w, n + 2);
	json_decref(st);
	assert_int_equal(f->lft_sets, sets);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bring_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_shows_the_sweep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_never_comes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_reply, setup, teardown),
		cmocka_unit_test_prestate_setup_teardown(test_qos_per_pair, setup, teardown,
		    (void *)QOS_POLICY),
		cmocka_unit_test_prestate_setup_teardown(test_qos_optimized, setup, teardown,
		    (void *)QOS_POLICY),
		cmocka_unit_test_prestate_setup_teardown(test_light_sweeps, setup, teardown,
		    (void *)"100ms"),
		cmocka_unit_test_prestate_setup_teardown(test_lft_set_reply_lost, setup, teardown,
		    (void *)"100ms"),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
