/*
 * The SM's own records in the replicated intent (ha/ha.h), so that the next
 * master carries on where this one left off: "sm/state" holds
 *
 *   lids      every GUID -> LID assignment (a node this standby never saw
 *             keeps its LID under it; a standby's older copy moves nothing)
 *   disabled  the ports an operator disabled (they stay down under it)
 *   mkeys     the per-port M_Key records, sealed (sm_mkey_seal): etcd is
 *             readable by whoever reaches it, the secret is on SM nodes only
 *   qos       the master's QoS policy, compared, not taken: QoS is each
 *             node's configuration file (changed by editing it and
 *             `reload`, never by a command), so a standby whose file
 *             differs says so (status, an event) before a failover would
 *             change the fabric's QoS, rather than quietly overriding its
 *             own file
 *
 * The master puts it after a sweep that assigned a LID, a port that took a
 * key, or a `port disable|enable` (ha_mirror_changed); a standby takes each
 * new revision as its own, in memory and in sqlite, ready for the moment it
 * becomes master.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/store_writer.h"
#include "sm/core/sm_internal.h"

#define KEY	"sm/state"

static json_t *
lids_json(const struct sm_lids *l)
{
	json_t *a = json_array();
	char g[20];

	for (unsigned lid = 1; l->owner && lid <= FABRIC_MAX_LID; lid++)
		if (l->owner[lid]) {
			snprintf(g, sizeof(g), "%016" PRIx64, l->owner[lid]);
			json_array_append_new(a, json_pack("[s, i]", g, lid));
		}
	return a;
}

static json_t *
disabled_json(const struct port_disabled_set *s)
{
	json_t *a = json_array();
	char g[20];

	for (size_t i = 0; i < s->n; i++) {
		snprintf(g, sizeof(g), "%016" PRIx64, s->v[i].node_guid);
		json_array_append_new(a, json_pack("[s, i, s, I]", g, s->v[i].port, s->v[i].desc,
		    (json_int_t)s->v[i].set_ms));
	}
	return a;
}

/* The sealed records, NULL with M_Key off or none given yet. */
static json_t *
mkeys_json(const struct sm_mkey *k)
{
	json_t *a = json_array(), *out = NULL;
	char g[20], key[20], *plain, *sealed;

	for (size_t i = 0; k->enabled && i < k->ports.cap; i++) {
		const struct sm_mkey_port *p = k->ports.keys[i] ? k->ports.vals[i] : NULL;

		if (p == NULL || p->key == 0)
			continue;
		snprintf(g, sizeof(g), "%016" PRIx64, k->ports.keys[i]);
		snprintf(key, sizeof(key), "%016" PRIx64, p->key);
		json_array_append_new(a, json_pack("[s, s]", g, key));
	}
	if (json_array_size(a) > 0 && (plain = json_dumps(a, JSON_COMPACT)) != NULL) {
		if ((sealed = sm_mkey_seal(k, plain, strlen(plain))) != NULL)
			out = json_string(sealed);
		explicit_bzero(plain, strlen(plain));
		free(plain);
		free(sealed);
	}
	json_decref(a);		/* the plain keys: not kept */
	return out;
}

static json_t *
qos_json(const struct qos_policy *q)
{
	json_t *classes = json_array();

	for (size_t i = 0; i < q->nclasses; i++) {
		const struct qos_class *c = &q->classes[i];
		json_t *pk = json_array(), *sids = json_array();

		for (size_t j = 0; j < c->npkeys; j++)
			json_array_append_new(pk, json_integer(c->pkeys[j]));
		for (size_t j = 0; j < c->nsids; j++) {
			char lo[20], hi[20];

			snprintf(lo, sizeof(lo), "%016" PRIx64, c->sids[j].lo);
			snprintf(hi, sizeof(hi), "%016" PRIx64, c->sids[j].hi);
			json_array_append_new(sids, json_pack("[s, s]", lo, hi));
		}
		json_array_append_new(classes, json_pack("{s:s, s:i, s:i, s:i, s:b, s:o, s:o}",
		    "name", c->name, "sl", c->sl, "vl", c->vl, "share", c->share, "high", c->high,
		    "pkeys", pk, "sids", sids));
	}
	return json_pack("{s:b, s:I, s:o}", "enabled", q->enabled, "high_limit",
	    (json_int_t)q->high_limit, "classes", classes);
}

/* The standby's verdict on the master's policy, told once per change. */
static void
compare_qos(struct sm *sm)
{
	json_t *own;
	bool same;

	if (sm->replica_qos == NULL)
		return;
	own = qos_json(&sm->cfg.qos);
	same = json_equal(own, sm->replica_qos);
	json_decref(own);
	if (same == !sm->qos_differs)
		return;
	sm->qos_differs = !same;
	if (same)
		event_post(EV_INFO, sm_source(sm), NULL, "this node's QoS policy is the master's again");
	else
		event_post(EV_WARNING, sm_source(sm), NULL, "this node's QoS policy (sm.qos in its file) "
		    "differs from the master's: at a failover it would program its own; give "
		    "both nodes the same file");
}

void
sm_replica_config_changed(struct sm *sm)
{
	ha_mirror_changed(sm->mirror);	/* a master's policy goes out */
	compare_qos(sm);		/* a standby's is judged again */
}

const char *
sm_replica_qos_verdict(const struct sm *sm)
{
	if (sm->mirror == NULL)
		return NULL;
	if (sm->state == SM_STATE_MASTER)
		return "this node is the master";
	if (sm->replica_qos == NULL)
		return "the master's not read yet";
	return sm->qos_differs ? "differs from the master's" : "the master's";
}

static char *
snapshot(void *arg)
{
	struct sm *sm = arg;
	json_t *o = json_pack("{s:i, s:o, s:o, s:o}", "version", 1, "lids", lids_json(&sm->lids),
	    "disabled", disabled_json(&sm->disabled), "qos", qos_json(&sm->cfg.qos)),
	    *mk = mkeys_json(&sm->mkey);
	char *text;

	if (mk)
		json_object_set_new(o, "mkeys", mk);
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

static uint64_t
hex64(json_t *v)
{
	const char *s = json_string_value(v);

	return s ? strtoull(s, NULL, 16) : 0;
}

/* ---- a standby takes the master's ---- */

static size_t
adopt_lids(struct sm *sm, json_t *a, struct store_batch *b)
{
	size_t n = json_array_size(a), i, took;
	uint64_t *guids = xcalloc(n ? n : 1, sizeof(*guids));
	uint16_t *lids = xcalloc(n ? n : 1, sizeof(*lids));
	json_t *e;

	json_array_foreach(a, i, e) {
		guids[i] = hex64(json_array_get(e, 0));
		lids[i] = (uint16_t)json_integer_value(json_array_get(e, 1));
	}
	took = sm_lids_replace(&sm->lids, guids, lids, n);
	if (b) {
		store_batch_sql(b, "DELETE FROM sm_lids WHERE subnet = ?");
		store_batch_text(b, sm->subnet);
		for (unsigned lid = 1; lid <= FABRIC_MAX_LID; lid++) {
			char g[GUID_STR_LEN];

			if (sm->lids.owner[lid] == 0)
				continue;
			store_batch_sql(b, "INSERT OR REPLACE INTO sm_lids (subnet, guid, lid, time_ms) "
			    "VALUES (?, ?, ?, ?)");
			store_batch_text(b, sm->subnet);
			store_batch_text(b, guid_format(sm->lids.owner[lid], g, sizeof(g)));
			store_batch_int(b, lid);
			store_batch_int(b, event_now_ms());
		}
	}
	free(guids);
	free(lids);
	return took;
}

static void
adopt_disabled(struct sm *sm, json_t *a, struct store_batch *b)
{
	json_t *e;
	size_t i;

	pds_free(&sm->disabled);
	if (b) {
		store_batch_sql(b, "DELETE FROM sm_disabled_ports WHERE subnet = ?");
		store_batch_text(b, sm->subnet);
	}
	json_array_foreach(a, i, e) {
		uint64_t guid = hex64(json_array_get(e, 0));
		json_int_t port = json_integer_value(json_array_get(e, 1));
		const char *desc = json_string_value(json_array_get(e, 2)) ?: "";
		int64_t ms = json_integer_value(json_array_get(e, 3));

		if (guid == 0 || port < 1 || port > 254)
			continue;
		pds_add(&sm->disabled, guid, (uint8_t)port, desc, ms);
		if (b) {
			store_batch_sql(b, "INSERT OR REPLACE INTO sm_disabled_ports "
			    "(subnet, node_guid, port, desc, set_ms) VALUES (?, ?, ?, ?, ?)");
			store_batch_text(b, sm->subnet);
			store_batch_int(b, (int64_t)guid);
			store_batch_int(b, port);
			store_batch_text(b, desc);
			store_batch_int(b, ms);
		}
	}
}

static void
adopt_mkeys(struct sm *sm, json_t *sealed, int64_t rev, struct store_batch *b)
{
	json_t *a, *e;
	size_t len = 0, i;
	char *plain;

	if (!sm->mkey.enabled)
		return;
	if (sealed == NULL) {
		plain = NULL;
		a = json_array();	/* the master gave no key yet */
	} else if ((plain = sm_mkey_open(&sm->mkey, json_string_value(sealed) ?: "", &len))
	    == NULL) {
		event_post(EV_ERROR, sm_source(sm), NULL, "the M_Key records in etcd (revision %" PRId64 ") "
		    "do not open with this node's M_Key secret: kept its own; give every SM node "
		    "the same sm.mkey secret", rev);
		return;
	} else
		a = json_loadb(plain, len, 0, NULL);
	for (i = 0; i < sm->mkey.ports.cap; i++)	/* what the master does not list: none */
		if (sm->mkey.ports.keys[i])
			((struct sm_mkey_port *)sm->mkey.ports.vals[i])->key = 0;
	if (b) {
		store_batch_sql(b, "DELETE FROM sm_mkeys WHERE subnet = ?");
		store_batch_text(b, sm->subnet);
	}
	json_array_foreach(a, i, e) {
		uint64_t guid = hex64(json_array_get(e, 0)), key = hex64(json_array_get(e, 1));

		if (guid == 0 || key == 0)
			continue;
		sm_mkey_accepted(&sm->mkey, guid, key);
		if (b) {
			store_batch_sql(b, "INSERT OR REPLACE INTO sm_mkeys (subnet, port_guid, mkey, "
			    "set_ms) VALUES (?, ?, ?, ?)");
			store_batch_text(b, sm->subnet);
			store_batch_int(b, (int64_t)guid);
			store_batch_int(b, (int64_t)key);
			store_batch_int(b, event_now_ms());
		}
	}
	json_decref(a);
	if (plain) {
		explicit_bzero(plain, len);
		free(plain);
	}
}

static void
adopt(const char *value, size_t len, int64_t rev, void *arg)
{
	struct sm *sm = arg;
	struct store *st = sm->fd ? sm->fd->store : NULL;
	json_t *o = json_loadb(value, len, 0, NULL);
	struct store_batch *b;
	size_t lids;

	if (!json_is_array(json_object_get(o, "lids"))) {
		log_warnx("sm: the state in etcd at revision %" PRId64 " is not fabricd's: ignored",
		    rev);
		json_decref(o);
		return;
	}
	b = st ? store_batch_new() : NULL;
	lids = adopt_lids(sm, json_object_get(o, "lids"), b);
	adopt_disabled(sm, json_object_get(o, "disabled"), b);
	adopt_mkeys(sm, json_object_get(o, "mkeys"), rev, b);
	json_decref(sm->replica_qos);
	sm->replica_qos = json_incref(json_object_get(o, "qos"));
	compare_qos(sm);
	if (b)
		store_write_later(st, b);	/* the writer thread: the loop does not wait */
	log_info("sm: took the master's records from etcd (revision %" PRId64 "): %zu LIDs, "
	    "%zu disabled ports", rev, lids, sm->disabled.n);
	json_decref(o);
}

static bool
is_master(void *arg)
{
	const struct sm *sm = arg;

	return sm->state == SM_STATE_MASTER;
}

static uint64_t
own_guid(void *arg)
{
	const struct sm *sm = arg;

	return sm->own_guid;
}

void
sm_replica_start(struct sm *sm)
{
	static const struct ha_mirror_ops ops = { KEY, snapshot, adopt, is_master, own_guid, 0 };

	sm->mirror = ha_mirror_start(sm->fd ? sm->fd->ha : NULL, &ops, sm);
}

void
sm_replica_stop(struct sm *sm)
{
	ha_mirror_stop(sm->mirror);
	sm->mirror = NULL;
	json_decref(sm->replica_qos);
	sm->replica_qos = NULL;
	/* a clean stop hands the lease on at once, not after its TTL */
	if (sm->fd)
		ha_release(sm->fd->ha);
}
