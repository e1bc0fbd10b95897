/*
 * The replicated intent's client side (ha.h): the cluster's state polled
 * once a second, the writer's lease, reads, fenced transactions, and the
 * keys standbys follow.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "ha/ha_internal.h"

#define POLL_MS		1000
#define MEMBERS_EVERY	5	/* polls between member lists */

bool ha_on(const struct ha *ha) { return ha != NULL; }
bool ha_is_writer(const struct ha *ha) { return ha && ha->writer; }

void
ha_scope(struct ha *ha, uint64_t subnet_prefix)
{
	if (ha)
		snprintf(ha->root, sizeof(ha->root), "%s%016" PRIx64 "/", ha->cfg.prefix,
		    subnet_prefix);
}

static json_t *
key_json(const struct ha *ha, const char *key)
{
	char *k = ha_key64(ha, key);
	json_t *o = json_pack("{s:s}", "key", k);

	free(k);
	return o;
}

/* ---- the cluster, polled ---- */

static void
on_members(json_t *reply, const char *err, void *arg)
{
	struct ha *ha = arg;
	json_t *m = reply ? json_object_get(reply, "members") : NULL;

	if (json_is_array(m))
		ha->members = json_array_size(m);
}

static void
on_status(json_t *reply, const char *err, void *arg)
{
	struct ha *ha = arg;
	json_t *errs = reply ? json_object_get(reply, "errors") : NULL;
	bool had = ha->quorum;

	ha->polls_out--;
	if (ha->stopping || ha->draining)
		return;
	if (reply == NULL) {
		snprintf(ha->why, sizeof(ha->why), "etcd unreachable: %s", err);
		ha->quorum = false;
		ha->leader = 0;
	} else if (json_array_size(errs) > 0 || etcd_int(reply, "leader") == 0) {
		snprintf(ha->why, sizeof(ha->why), "etcd has no quorum: %s says \"%s\"",
		    etcd_endpoint(ha->etcd), json_array_size(errs) ?
		    json_string_value(json_array_get(errs, 0)) : "no leader");
		ha->quorum = false;
		ha->leader = 0;
	} else {
		ha->why[0] = '\0';
		ha->quorum = true;
		ha->leader = (uint64_t)etcd_int(reply, "leader");
		ha->revision = etcd_int(json_object_get(reply, "header"), "revision");
		ha->lag = etcd_int(reply, "raftIndex") - etcd_int(reply, "raftAppliedIndex");
		ha->last_ok_ms = clock_mono_ms();
	}
	if (had != ha->quorum)
		event_post(ha->quorum ? EV_INFO : EV_WARNING, "ha", NULL, "%s",
		    ha->quorum ? "etcd reachable with a quorum: changes are accepted" : ha->why);
}

static void
poll_tick(evutil_socket_t fd, short what, void *arg)
{
	struct ha *ha = arg;
	struct timeval tv = clock_tv_ms(POLL_MS);

	if (ha->polls_out == 0 && etcd_call(ha->etcd, "/v3/maintenance/status", json_object(),
	    on_status, ha) == 0)
		ha->polls_out++;
	if (ha->npolls++ % MEMBERS_EVERY == 0)
		(void)etcd_call(ha->etcd, "/v3/cluster/member/list", json_object(), on_members, ha);
	ha_watch_poll(ha);
	ha_lease_tick(ha);
	evtimer_add(ha->poll_ev, &tv);
}

struct ha *
ha_new(struct event_base *base, const struct ha_config *cfg)
{
	struct etcd_tls tls = { cfg->ca, cfg->cert, cfg->key };
	struct ha *ha;
	struct etcd *e;
	char why[256];

	e = etcd_new(base, cfg->endpoints, cfg->nendpoints, (unsigned)cfg->timeout_ms, &tls, why,
	    sizeof(why));
	if (e == NULL) {
		log_warnx("ha: %s", why);
		return NULL;
	}
	ha = xcalloc(1, sizeof(*ha));
	ha->base = base;
	ha->etcd = e;
	ha->cfg = *cfg;		/* its strings copied: a reload frees the configuration's */
	for (size_t i = 0; i < cfg->nendpoints; i++)
		ha->cfg.endpoints[i] = xstrdup(cfg->endpoints[i]);
	ha->cfg.prefix = xstrdup(cfg->prefix);
	ha->cfg.ca = ha->cfg.cert = ha->cfg.key = NULL;	/* read once, above */
	snprintf(ha->why, sizeof(ha->why), "etcd not asked yet");
	ha_scope(ha, 0xfe80000000000000ULL);
	ha->poll_ev = evtimer_new(base, poll_tick, ha);
	poll_tick(-1, 0, ha);
	return ha;
}

void
ha_free(struct ha *ha)
{
	if (ha == NULL)
		return;
	if (ha->poll_ev)
		event_free(ha->poll_ev);
	ha_lease_flush(ha);
	ha->stopping = true;
	etcd_free(ha->etcd);	/* calls in flight answered with an error */
	for (size_t i = 0; i < ha->nwatches; i++)
		free(ha->watches[i].key);
	for (size_t i = 0; i < ha->cfg.nendpoints; i++)
		free(ha->cfg.endpoints[i]);
	free(ha->cfg.prefix);
	free(ha);
}

void
ha_drain(struct ha *ha)
{
	if (ha == NULL)
		return;
	ha->draining = true;
	etcd_fail_all(ha->etcd, "stopping");
	ha->draining = false;
}

const char *
ha_write_refusal(const struct ha *ha, char *buf, size_t len)
{
	if (ha == NULL)
		return NULL;
	if (!ha->quorum)
		snprintf(buf, len, "%s", ha->why);
	else if (!ha->writer)
		snprintf(buf, len, "this node does not hold the etcd writer lease (%s)",
		    ha->holder[0] ? ha->holder : "not claimed yet");
	else
		return NULL;
	return buf;
}

/* ---- reading ---- */

struct get {
	struct ha	*ha;
	ha_get_cb	 cb;
	void		*arg;
};

static void
on_get(json_t *reply, const char *err, void *arg)
{
	struct get *g = arg;
	size_t len = 0;
	int64_t rev = 0;
	char *v;

	if (reply == NULL)
		g->cb(-1, NULL, 0, 0, err, g->arg);
	else if ((v = ha_first_kv(reply, &len, &rev)) == NULL)
		g->cb(1, NULL, 0, etcd_int(json_object_get(reply, "header"), "revision"), NULL,
		    g->arg);
	else {
		g->cb(0, v, len, rev, NULL, g->arg);
		free(v);
	}
	free(g);
}

int
ha_get(struct ha *ha, const char *key, ha_get_cb cb, void *arg)
{
	struct get *g;

	if (ha == NULL)
		return -1;
	g = xcalloc(1, sizeof(*g));
	*g = (struct get){ ha, cb, arg };
	if (etcd_call(ha->etcd, "/v3/kv/range", key_json(ha, key), on_get, g) != 0) {
		free(g);
		return -1;
	}
	return 0;
}

/* ---- writing ---- */

struct txn {
	struct ha	*ha;
	ha_txn_cb	 cb;
	void		*arg;
};

static json_t *
op_json(const struct ha *ha, const struct ha_op *op)
{
	char *k = ha_key64(ha, op->key), *v;
	json_t *o;

	if (op->del) {
		o = json_pack("{s:{s:s}}", "request_delete_range", "key", k);
	} else {
		v = etcd_b64(op->value, strlen(op->value));
		o = json_pack("{s:{s:s, s:s}}", "request_put", "key", k, "value", v);
		free(v);
	}
	free(k);
	return o;
}

static void
on_txn(json_t *reply, const char *err, void *arg)
{
	struct txn *t = arg;
	struct ha *ha = t->ha;
	int64_t rev = reply ? etcd_int(json_object_get(reply, "header"), "revision") : 0;
	json_t *fail, *kvs;
	const char *held = NULL;
	char *mine;
	bool fenced;

	if (reply == NULL) {
		t->cb(HA_TXN_UNAVAILABLE, 0, err, t->arg);
	} else if (json_is_true(json_object_get(reply, "succeeded"))) {
		ha->writes++;
		t->cb(HA_TXN_OK, rev, NULL, t->arg);
	} else {
		/* the failure branch read "writer": ours or not */
		fail = json_array_get(json_object_get(reply, "responses"), 0);
		kvs = json_object_get(json_object_get(fail, "response_range"), "kvs");
		held = json_string_value(json_object_get(json_array_get(kvs, 0), "value"));
		mine = etcd_b64(ha->id, strlen(ha->id));
		fenced = held == NULL || strcmp(held, mine) != 0;
		free(mine);
		if (fenced) {
			ha_lease_lost(ha, "a write found the writer key not ours");
			t->cb(HA_TXN_FENCED, rev, "this node no longer holds the etcd writer lease",
			    t->arg);
		} else
			t->cb(HA_TXN_CONFLICT, rev, "the intent changed since it was read", t->arg);
	}
	free(t);
}

int
ha_txn(struct ha *ha, const char *cmp_key, int64_t cmp_rev, const struct ha_op *ops, size_t n,
    ha_txn_cb cb, void *arg)
{
	char buf[200], *wk, *id;
	json_t *cmp, *succ, *body;
	struct txn *t;

	if (ha == NULL || ha_write_refusal(ha, buf, sizeof(buf)) != NULL)
		return -1;
	wk = ha_key64(ha, "writer");
	id = etcd_b64(ha->id, strlen(ha->id));
	cmp = json_pack("[{s:s, s:s, s:s, s:s}]", "key", wk, "target", "VALUE", "result", "EQUAL",
	    "value", id);
	free(id);
	if (cmp_key && cmp_rev >= 0) {
		char *ck = ha_key64(ha, cmp_key), rv[24];

		snprintf(rv, sizeof(rv), "%" PRId64, cmp_rev);
		json_array_append_new(cmp, json_pack("{s:s, s:s, s:s, s:s}", "key", ck,
		    "target", "MOD", "result", "EQUAL", "mod_revision", rv));
		free(ck);
	}
	succ = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(succ, op_json(ha, &ops[i]));
	body = json_pack("{s:o, s:o, s:[{s:{s:s}}]}", "compare", cmp, "success", succ,
	    "failure", "request_range", "key", wk);
	free(wk);
	t = xcalloc(1, sizeof(*t));
	*t = (struct txn){ ha, cb, arg };
	if (etcd_call(ha->etcd, "/v3/kv/txn", body, on_txn, t) != 0) {
		free(t);
		return -1;
	}
	return 0;
}

/* ---- status ---- */

json_t *
ha_status(const struct ha *ha)
{
	json_t *eps = json_array();
	char buf[200];

	for (size_t i = 0; i < ha->cfg.nendpoints; i++)
		json_array_append_new(eps, json_string(ha->cfg.endpoints[i]));
	return json_pack("{s:s, s:o, s:s, s:s, s:I, s:s?, s:I, s:I, s:I, s:b, s:s, s:I, s:s?}",
	    "state", ha->quorum ? "running" : "unavailable", "endpoints", eps,
	    "endpoint", etcd_endpoint(ha->etcd), "root", ha->root,
	    "members", (json_int_t)ha->members,
	    "leader", ha->leader ? (snprintf(buf, sizeof(buf), "%" PRIx64, ha->leader), buf) : NULL,
	    "revision", (json_int_t)ha->revision, "lag", (json_int_t)ha->lag,
	    "last_ok_ms_ago", (json_int_t)(ha->last_ok_ms ? clock_mono_ms() - ha->last_ok_ms : -1),
	    "writer", ha->writer, "holder", ha->holder, "writes", (json_int_t)ha->writes,
	    "why", ha->quorum ? NULL : ha->why);
}
