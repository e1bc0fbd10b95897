/*
 * Observer mode on a fake SA behind mad/io.h: with sm.enabled false the
 * sm module publishes the fabric the SA's records describe (nodes, LIDs,
 * links, LFTs), follows the master its own PortInfo names, refuses what
 * only the master may do, and sends nothing but Gets; a cable gone from
 * the SA's LinkRecords is gone from the next view.  The fake holds the
 * truth the checks read.
 *
 *   us[1] -- s1[1]   s1[2] -- s2[2]   s1[3] -- s2[3]   s2[1] -- them[1]
 *   (the SM on them)
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
#include "mad/io.h"
#include "sm/sm.h"
#include "sm/core/observer_internal.h"

#define NNODES		4
#define US		0
#define S1		1
#define S2		2
#define THEM		3
#define SM_LID		2

struct fnode {
	const char	*desc;
	uint64_t	 guid;
	bool		 sw;
	uint8_t		 nports;
	uint16_t	 lid;
	int		 peer[4];	/* by port: node, -1 none */
	uint8_t		 peer_port[4];
	uint8_t		 lft[64];	/* one block: LIDs 0..63 */
};

struct reply {
	mad_cb		 cb;
	void		*arg;
	int		 status;
	uint16_t	 mad_status;
	uint8_t		 mad[256] __attribute__((aligned(8)));
};

struct fake {
	struct fnode	 n[NNODES];
	struct reply	*q;
	size_t		 head, tail, cap;
	unsigned	 sa_gets, smp_gets, others;
	unsigned	 informs;	/* SubnAdmSet(InformInfo): subscriptions */
	unsigned	 sminfo_gets;	/* to the master's LID */
	bool		 sm_dead;	/* the master answers nothing */
	bool		 sm_standby;	/* it answers, no longer MASTER */
	uint16_t	 inform_traps[8];
};

struct world {
	char		 dir[64];
	struct fabricd	 fd;
	struct fabricd_config *cfg;
	struct fake	 fk;
};

static void
cable(struct fake *f, int a, uint8_t pa, int b, uint8_t pb)
{
	f->n[a].peer[pa] = b;
	f->n[a].peer_port[pa] = pb;
	f->n[b].peer[pb] = a;
	f->n[b].peer_port[pb] = pa;
}

static void
fake_init(struct fake *f)
{
	static const char *const desc[NNODES] = { "us", "s1", "s2", "them" };
	static const uint16_t lids[NNODES] = { 1, 3, 4, SM_LID };

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < NNODES; i++) {
		f->n[i].desc = desc[i];
		f->n[i].guid = 0x0002c90300000100ULL + 0x100 * (uint64_t)i;
		f->n[i].sw = i == S1 || i == S2;
		f->n[i].nports = f->n[i].sw ? 3 : 1;
		f->n[i].lid = lids[i];
		for (int p = 0; p < 4; p++)
			f->n[i].peer[p] = -1;
		memset(f->n[i].lft, 0xFF, sizeof(f->n[i].lft));
	}
	cable(f, US, 1, S1, 1);
	cable(f, S1, 2, S2, 2);
	cable(f, S1, 3, S2, 3);
	cable(f, S2, 1, THEM, 1);
	/* s1: us (1) and itself here, the rest up; s2 the mirror */
	f->n[S1].lft[1] = 1; f->n[S1].lft[3] = 0; f->n[S1].lft[2] = 2; f->n[S1].lft[4] = 2;
	f->n[S2].lft[2] = 1; f->n[S2].lft[4] = 0; f->n[S2].lft[1] = 2; f->n[S2].lft[3] = 2;
}

static int
by_lid(const struct fake *f, uint16_t lid)
{
	for (int i = 0; i < NNODES; i++)
		if (f->n[i].lid == lid)
			return i;
	return -1;
}

static struct reply *
queue_reply(struct fake *f, mad_cb cb, void *arg)
{
	struct reply *r;

	if (f->tail == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->q = realloc(f->q, f->cap * sizeof(*f->q));
		assert_non_null(f->q);
	}
	r = &f->q[f->tail++];
	memset(r, 0, sizeof(*r));
	r->cb = cb;
	r->arg = arg;
	return r;
}

/* Our own NodeInfo or NodeDescription (health's node before a view). */
static bool
own_node_answer(const struct fake *f, uint16_t attr_id, uint8_t *data)
{
	ib_node_info_t ni;

	if (attr_id == 0x0010) {
		memset(data, 0, 64);
		memcpy(data, f->n[US].desc, strlen(f->n[US].desc));
		return true;
	}
	if (attr_id != 0x0011)
		return false;
	memset(&ni, 0, sizeof(ni));
	ni.node_type = IB_NODE_TYPE_CA;
	ni.num_ports = f->n[US].nports;
	ni.node_guid = htobe64(f->n[US].guid);
	memcpy(data, &ni, sizeof(ni));
	return true;
}

/* Our own PortInfo, NodeInfo and NodeDescription: the only SMPs an
 * observer sends to itself (the tables live go to switches by LID). */
static int
fake_smp(void *ctx, const struct mad_addr *addr, uint8_t method, uint16_t attr_id,
    uint32_t attr_mod, const void *data, mad_cb cb, void *arg)
{
	struct fake *f = ctx;
	struct reply *r = queue_reply(f, cb, arg);
	ib_smp_t *smp = (ib_smp_t *)r->mad;
	ib_port_info_t pi;

	(void)data;
	smp->base_ver = 1;
	smp->mgmt_class = IB_MCLASS_SUBN_DIR;
	smp->method = IB_MAD_METHOD_GET_RESP;
	if (method == IB_MAD_METHOD_GET && addr->directed && addr->hops == 0 && attr_mod == 0 &&
	    own_node_answer(f, attr_id, smp->data)) {
		f->smp_gets++;
		return 0;
	}
	if (method == IB_MAD_METHOD_GET && !addr->directed && addr->dlid == SM_LID &&
	    attr_id == 0x0020) {	/* SMInfo, the master's */
		ib_sm_info_t *si = (ib_sm_info_t *)smp->data;

		f->sminfo_gets++;
		smp->mgmt_class = IB_MCLASS_SUBN_LID;
		if (f->sm_dead) {
			r->status = -ETIMEDOUT;
			return 0;
		}
		si->guid = htobe64(f->n[THEM].guid + 1);
		si->pri_state = f->sm_standby ? IB_SMINFO_STATE_STANDBY : IB_SMINFO_STATE_MASTER;
		return 0;
	}
	if (method != IB_MAD_METHOD_GET || attr_id != 0x0015 || !addr->directed || addr->hops != 0 ||
	    attr_mod != 1) {
		f->others++;
		r->status = -ETIMEDOUT;
		return 0;
	}
	f->smp_gets++;
	memset(&pi, 0, sizeof(pi));
	pi.base_lid = htobe16(f->n[US].lid);
	pi.master_sm_base_lid = htobe16(SM_LID);
	pi.state_info1 = IB_LINK_ACTIVE;
	pi.state_info2 = 5 << 4;	/* LinkUp */
	smp->base_ver = 1;
	smp->mgmt_class = IB_MCLASS_SUBN_DIR;
	smp->method = IB_MAD_METHOD_GET_RESP;
	memcpy(smp->data, &pi, sizeof(pi));
	return 0;
}

static void
node_rec(const struct fake *f, int i, uint8_t *rec)
{
	ib_node_record_t *nr = (ib_node_record_t *)rec;
	const struct fnode *n = &f->n[i];

	nr->lid = htobe16(n->lid);
	nr->node_info.base_version = 1;
	nr->node_info.node_type = n->sw ? IB_NODE_TYPE_SWITCH : IB_NODE_TYPE_CA;
	nr->node_info.num_ports = n->nports;
	nr->node_info.node_guid = htobe64(n->guid);
	nr->node_info.port_guid = htobe64(n->sw ? n->guid : n->guid + 1);
	nr->node_info.port_num_vendor_id = htobe32((uint32_t)(n->sw ? 0 : 1) << 24 | 0x2c9);
	memcpy(nr->node_desc.description, n->desc, strlen(n->desc));
}

/* The SA: one record per Get, by the LID (and port or block) asked. */
static int
fake_raw(void *ctx, uint16_t dlid, uint32_t qpn, uint32_t qkey, const uint8_t *mad, size_t len,
    mad_cb cb, void *arg)
{
	struct fake *f = ctx;
	struct reply *r = queue_reply(f, cb, arg);
	const ib_sa_mad_t *q = (const ib_sa_mad_t *)mad;
	ib_sa_mad_t *a = (ib_sa_mad_t *)r->mad;
	uint8_t *rec = r->mad + 56;
	uint16_t lid, arg2;
	uint8_t port;
	int i;

	(void)len;
	if (q->mgmt_class == IB_MCLASS_SUBN_ADM && q->method == IB_MAD_METHOD_SET &&
	    be16toh(q->attr_id) == 0x0003 && dlid == SM_LID && qpn == 1) {
		const ib_inform_info_t *ii = (const ib_inform_info_t *)q->data;

		/* a subscription: this port, generic, subscribe, QPN 1 */
		if (ii->is_generic == 1 && ii->subscribe == 1 && f->informs < 8 &&
		    (be32toh(ii->g_or_v.generic.qpn_resp_time_val) >> 8) == 1)
			f->inform_traps[f->informs++] = be16toh(ii->g_or_v.generic.trap_num);
		else
			f->others++;
		memcpy(a, q, 256);
		a->method = IB_MAD_METHOD_GET_RESP;
		return 0;
	}
	if (q->mgmt_class != IB_MCLASS_SUBN_ADM || q->method != IB_MAD_METHOD_GET ||
	    dlid != SM_LID || qpn != 1 || qkey != 0x80010000u) {
		f->others++;
		r->status = -ETIMEDOUT;
		return 0;
	}
	f->sa_gets++;
	memcpy(a, q, 56);
	a->method = IB_MAD_METHOD_GET_RESP;
	memcpy(&lid, q->data, 2);
	lid = be16toh(lid);
	port = q->data[2];
	memcpy(&arg2, q->data + 2, 2);
	arg2 = be16toh(arg2);
	if ((i = by_lid(f, lid)) < 0) {
		r->mad_status = 0x0300;
		return 0;
	}
	switch (be16toh(q->attr_id)) {
	case 0x0011:
		node_rec(f, i, rec);
		break;
	case 0x0012: {
		ib_portinfo_record_t pr;

		if (port > f->n[i].nports || (!f->n[i].sw && port != 1)) {
			r->mad_status = 0x0300;
			break;
		}
		memset(&pr, 0, sizeof(pr));
		pr.lid = htobe16(lid);
		pr.port_num = port;
		pr.port_info.base_lid = htobe16(port == 0 || !f->n[i].sw ? lid : 0);
		pr.port_info.master_sm_base_lid = htobe16(SM_LID);
		pr.port_info.state_info1 = port == 0 || f->n[i].peer[port] >= 0 ?
		    IB_LINK_ACTIVE : IB_LINK_DOWN;
		pr.port_info.state_info2 = (port == 0 || f->n[i].peer[port] >= 0 ? 5 : 2) << 4;
		pr.port_info.link_width_active = pr.port_info.link_width_supported = 2;
		memcpy(rec, &pr, sizeof(pr));
		break;
	}
	case 0x0020: {
		ib_link_record_t lr;
		int p = f->n[i].peer[port];

		if (port == 0 || port > f->n[i].nports || p < 0) {
			r->mad_status = 0x0300;
			break;
		}
		lr.from_lid = htobe16(lid);
		lr.from_port_num = port;
		lr.to_port_num = f->n[i].peer_port[port];
		lr.to_lid = htobe16(f->n[p].lid);
		memcpy(rec, &lr, sizeof(lr));
		break;
	}
	case 0x0014: {
		ib_switch_info_record_t sr;

		if (!f->n[i].sw) {
			r->mad_status = 0x0300;
			break;
		}
		memset(&sr, 0, sizeof(sr));
		sr.lid = htobe16(lid);
		sr.switch_info.lin_cap = htobe16(0xC000);
		sr.switch_info.lin_top = htobe16(4);
		memcpy(rec, &sr, sizeof(sr));
		break;
	}
	case 0x0015: {
		ib_lft_record_t lr;

		if (!f->n[i].sw || arg2 != 0) {
			r->mad_status = 0x0300;
			break;
		}
		lr.lid = htobe16(lid);
		lr.block_num = 0;
		memcpy(lr.lft, f->n[i].lft, 64);
		memcpy(rec, &lr, sizeof(lr));
		break;
	}
	default:
		r->mad_status = 0x0300;
	}
	return 0;
}

static size_t
fake_drain(struct fake *f)
{
	size_t n = 0;

	while (f->head < f->tail) {
		struct reply r = f->q[f->head++];
		struct mad_result res = { .status = r.status, .mad_status = r.mad_status };

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

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	char path[96], **errs;
	size_t nerr;
	FILE *fp;

	assert_non_null(w);
	snprintf(w->dir, sizeof(w->dir), "/tmp/fabricd-observer-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(path, sizeof(path), "%s/fabricd.yaml", w->dir);
	assert_non_null(fp = fopen(path, "w"));
	fprintf(fp, "socket: %s/sock\nstate_dir: %s\nsm:\n  enabled: false\n"
	    "  observer:\n    enabled: true\n    refresh: 1s\n    max_outstanding: 4\n", w->dir, w->dir);
	fclose(fp);
	assert_int_equal(config_load(path, fabricd_modules, &w->cfg, &errs, &nerr), 0);
	w->fd.config = w->cfg;
	assert_non_null(w->fd.base = event_base_new());
	assert_int_equal(store_open(w->dir, &w->fd.store), 0);
	fabricd = &w->fd;
	events_attach(w->fd.base, w->fd.store);
	fake_init(&w->fk);
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
	events_flush_all();
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

static json_t *
observer_status(struct world *w)
{
	json_t *st = sm_module.status(&w->fd);

	assert_non_null(st);
	return st;
}

/* Run the loop (and the fake) until `views` views were published, for
 * at most secs seconds. */
static void
run_until_views(struct world *w, long long views, int secs)
{
	for (int i = 0; i < secs * 100; i++) {
		struct timeval tv = { 0, 10000 };
		json_t *st;
		long long got;

		event_base_loopexit(w->fd.base, &tv);
		event_base_loop(w->fd.base, 0);
		fake_drain(&w->fk);
		st = observer_status(w);
		got = json_integer_value(json_object_get(json_object_get(st, "observer"), "views"));
		json_decref(st);
		if (got >= views)
			return;
	}
	fail_msg("fewer than %lld views within %d s", views, secs);
}

static const struct fabric_port *
port_of(const struct fabric *f, int node, uint8_t port, const struct fake *fk)
{
	const struct fabric_node *n = fabric_node_by_guid(f, fk->n[node].guid);

	assert_non_null(n);
	assert_true(port <= n->nports);
	return &n->ports[port];
}

static void
test_observer_view(void **state)
{
	struct world *w = *state;
	struct mad_io io = { .smp = fake_smp, .raw = fake_raw, .ctx = &w->fk };
	const struct fabric *f;
	struct sm *sm;
	char why[160];
	json_t *st, *o;

	sm_test_use_io(&io, w->fk.n[US].guid + 1, 1);
	assert_int_equal(sm_module.start(&w->fd, w->cfg->module[MOD_SM]), 0);
	assert_non_null(sm = w->fd.sm);
	assert_false(sm_is_master(sm));
	run_until_views(w, 1, 3);

	/* the model: what the SA holds */
	assert_non_null(f = sm_fabric(sm));
	assert_int_equal(fabric_node_count(f), NNODES);
	for (int i = 0; i < NNODES; i++) {
		const struct fabric_node *n = fabric_node_by_guid(f, w->fk.n[i].guid);

		assert_non_null(n);
		assert_string_equal(n->desc, w->fk.n[i].desc);
		assert_int_equal(n->lid, w->fk.n[i].lid);
		assert_int_equal(n->type, w->fk.n[i].sw ? FABRIC_SWITCH : FABRIC_CA);
		for (uint8_t p = 1; p <= w->fk.n[i].nports; p++) {
			const struct fabric_port *fp = port_of(f, i, p, &w->fk);
			int peer = w->fk.n[i].peer[p];

			if (peer < 0) {
				assert_null(fp->peer);
				continue;
			}
			assert_non_null(fp->peer);
			assert_int_equal(fp->peer->node->guid, w->fk.n[peer].guid);
			assert_int_equal(fp->peer->num, w->fk.n[i].peer_port[p]);
			assert_int_equal(fp->state, FABRIC_PORT_ACTIVE);
		}
		if (w->fk.n[i].sw) {
			assert_true(n->lft_known);
			assert_int_equal(n->lft_top, 4);
			assert_memory_equal(n->lft, w->fk.n[i].lft, 5);
		}
	}
	assert_int_equal(fabric_port_by_lid(f, SM_LID)->node->guid, w->fk.n[THEM].guid);
	assert_int_equal(sm_own_lid(sm), w->fk.n[US].lid);
	{	/* health's own node, from our own port's answers */
		uint64_t guid;
		const char *desc;
		uint8_t port;
		uint16_t lid;

		assert_true(sm_observer_own_node(sm, &guid, &desc, &port, &lid));
		assert_int_equal(guid, w->fk.n[US].guid);
		assert_string_equal(desc, w->fk.n[US].desc);
		assert_int_equal(lid, w->fk.n[US].lid);
	}

	/* whom it follows, and what it refuses */
	st = observer_status(w);
	assert_string_equal(json_string_value(json_object_get(st, "state")), "observer");
	o = json_object_get(st, "observer");
	assert_string_equal(json_string_value(json_object_get(o, "view")), "fresh");
	assert_int_equal(json_integer_value(json_object_get(o, "master_lid")), SM_LID);
	assert_string_equal(json_string_value(json_object_get(o, "master_guid")),
	    "0x0002c90300000401");
	assert_int_equal(json_integer_value(json_object_get(o, "links")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "last_read"),
	    "errors")), 0);
	json_decref(st);
	assert_non_null(sm_observer_refusal(sm, why, sizeof(why)));
	assert_string_equal(why, "observer mode: the SM is 0x0002c90300000401 (LID 2) elsewhere");

	/* nothing but Gets (one SMP a read, SA Gets to the SM's LID) and,
	 * after the first view, the subscriptions to traps 64, 65 and 128 */
	assert_int_equal(w->fk.others, 0);
	assert_int_equal(w->fk.informs, 3);
	assert_int_equal(w->fk.inform_traps[0], 64);
	assert_int_equal(w->fk.inform_traps[1], 65);
	assert_int_equal(w->fk.inform_traps[2], 128);
	assert_true(w->fk.smp_gets >= 1);
	/* one read: 4 NodeRecords, 1+1+4+4 PortInfo, 1+1+3+3 Link, 2 SwitchInfo, 2 LFT */
	assert_int_equal(w->fk.sa_gets, 26);

	/* one of the cables between the switches goes: gone from the next view */
	w->fk.n[S1].peer[2] = w->fk.n[S2].peer[2] = -1;
	run_until_views(w, 2, 3);
	f = sm_fabric(sm);
	assert_null(port_of(f, S1, 2, &w->fk)->peer);
	assert_null(port_of(f, S2, 2, &w->fk)->peer);
	assert_non_null(port_of(f, S1, 3, &w->fk)->peer);
	assert_non_null(port_of(f, THEM, 1, &w->fk)->peer);
	assert_int_equal(fabric_node_count(f), NNODES);
	assert_int_equal(w->fk.others, 0);
}

/* No master named by our port (not configured yet): no view, no SA query. */
static void
test_observer_no_master(void **state)
{
	struct world *w = *state;
	struct mad_io io = { .smp = fake_smp, .raw = fake_raw, .ctx = &w->fk };
	json_t *st;

	w->fk.n[US].lid = 0;	/* PortInfo says LID 0 */
	sm_test_use_io(&io, w->fk.n[US].guid + 1, 1);
	assert_int_equal(sm_module.start(&w->fd, w->cfg->module[MOD_SM]), 0);
	for (int i = 0; i < 150; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(w->fd.base, &tv);
		event_base_loop(w->fd.base, 0);
		fake_drain(&w->fk);
	}
	assert_true(w->fk.smp_gets >= 1);
	assert_int_equal(w->fk.sa_gets, 0);
	assert_null(sm_fabric(w->fd.sm));
	st = observer_status(w);
	assert_string_equal(json_string_value(json_object_get(json_object_get(st, "observer"),
	    "view")), "none");
	json_decref(st);
}

static const char *
obs_field(struct world *w, const char *key, char *buf, size_t len)
{
	json_t *st = observer_status(w), *v = json_object_get(json_object_get(st, "observer"), key);

	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false" : "?");
	json_decref(st);
	return buf;
}

/* The master dies and no other takes over (no MasterSMLID changes): two
 * SMInfo Gets unanswered and the view is stale, the master said silent;
 * one that answers but no longer as MASTER the same; answering again as
 * MASTER, the view is fresh and read again. */
static void
test_observer_master_silent(void **state)
{
	struct world *w = *state;
	struct mad_io io = { .smp = fake_smp, .raw = fake_raw, .ctx = &w->fk };
	struct sm_observer *o;
	char buf[160];
	long long views;
	json_t *st;

	sm_test_use_io(&io, w->fk.n[US].guid + 1, 1);
	assert_int_equal(sm_module.start(&w->fd, w->cfg->module[MOD_SM]), 0);
	run_until_views(w, 1, 3);
	o = w->fd.sm->observer;
	assert_non_null(o);

	obs_master_poll(o);
	fake_drain(&w->fk);
	assert_string_equal(obs_field(w, "view", buf, sizeof(buf)), "fresh");
	assert_string_equal(obs_field(w, "master_answers", buf, sizeof(buf)), "true");

	w->fk.sm_dead = true;
	obs_master_poll(o);
	fake_drain(&w->fk);
	assert_string_equal(obs_field(w, "view", buf, sizeof(buf)), "fresh");	/* one miss */
	obs_master_poll(o);
	fake_drain(&w->fk);
	assert_string_equal(obs_field(w, "view", buf, sizeof(buf)), "stale");
	assert_string_equal(obs_field(w, "master_answers", buf, sizeof(buf)), "false");
	assert_non_null(strstr(obs_field(w, "last_error", buf, sizeof(buf)),
	    "the master SM at LID 2 does not answer its SMInfo"));

	/* back: fresh, and a read soon (the refresh here is 1 s) */
	w->fk.sm_dead = false;
	st = observer_status(w);
	views = json_integer_value(json_object_get(json_object_get(st, "observer"), "views"));
	json_decref(st);
	obs_master_poll(o);
	fake_drain(&w->fk);
	assert_string_equal(obs_field(w, "master_answers", buf, sizeof(buf)), "true");
	assert_string_equal(obs_field(w, "view", buf, sizeof(buf)), "fresh");
	run_until_views(w, views + 1, 3);

	/* answering as a standby is no master either */
	w->fk.sm_standby = true;
	obs_master_poll(o);
	fake_drain(&w->fk);
	obs_master_poll(o);
	fake_drain(&w->fk);
	assert_string_equal(obs_field(w, "view", buf, sizeof(buf)), "stale");
	assert_non_null(strstr(obs_field(w, "last_error", buf, sizeof(buf)),
	    "is no longer MASTER"));
	assert_true(w->fk.sminfo_gets >= 6);
	assert_int_equal(w->fk.others, 0);
}

/* A GetTable answer's records (table mode, obs_sa_table): AttributeOffset
 * (8-byte words) apart from byte 56 on, a partial last one dropped, none
 * when the answer ends with the header; refused when shorter than the
 * header, or when its records are shorter than the kind's. */
static void
test_sa_table_records(void **state)
{
	uint8_t mad[256] __attribute__((aligned(8)));
	ib_sa_mad_t *sa = (ib_sa_mad_t *)mad;
	const size_t len = 56 + 3 * 16 + 5;	/* three records and a cut one */
	struct obs_sa_table t;

	(void)state;
	memset(mad, 0, sizeof(mad));
	sa->attr_offset = htobe16(2);
	assert_true(obs_sa_table(mad, len, sizeof(ib_link_record_t), &t));
	assert_int_equal(t.n, 3);
	assert_int_equal(t.stride, 16);
	assert_ptr_equal(t.rec, mad + 56);
	assert_true(obs_sa_table(mad, 56, sizeof(ib_link_record_t), &t));
	assert_int_equal(t.n, 0);
	assert_false(obs_sa_table(mad, 55, sizeof(ib_link_record_t), &t));
	assert_false(obs_sa_table(mad, len, sizeof(ib_node_record_t), &t));
	sa->attr_offset = 0;
	assert_false(obs_sa_table(mad, len, sizeof(ib_link_record_t), &t));
	assert_false(obs_sa_table(NULL, 0, 1, &t));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sa_table_records),
		cmocka_unit_test_setup_teardown(test_observer_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_observer_no_master, setup, teardown),
		cmocka_unit_test_setup_teardown(test_observer_master_silent, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
