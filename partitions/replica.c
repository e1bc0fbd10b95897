/*
 * The partitions' intent in etcd (ha/ha.h), when the daemon has `ha`:
 *
 *   partitions/model    the committed partition set and the index of each
 *                       key ({"yaml": ..., "index": [[pkey, index], ...]})
 *   partitions/journal  the change in flight: written with the model,
 *                       before the first Set, deleted once it is applied
 *   partitions/history  the last HISTORY_KEPT rows of `partition history`,
 *                       a mirror (ha_mirror_start): put by the master
 *                       within a second of a row, taken by each standby
 *
 * A change is planned against the model at the revision this node last
 * read (pt_state.ha_rev) and goes to etcd in one transaction that
 * compares that revision and the writer lease: two operators on two nodes
 * cannot both win, and an old master cannot write at all.  Only then is
 * it applied to the fabric, so whatever the fabric holds when a master
 * dies, etcd holds the change whole: the next master reads it, says so
 * when a journal is left, and its sweep programs that model (writing only
 * the blocks that differ).  Standbys follow the model (ha_watch) and keep
 * it in sqlite; a master programs nothing before it holds the lease and
 * has read the latest model itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/store_writer.h"
#include "ha/ha.h"
#include "partitions/files.h"
#include "partitions/internal.h"
#include "partitions/replica.h"
#include "sm/sm.h"

#define KEY_MODEL	"partitions/model"
#define KEY_JOURNAL	"partitions/journal"
#define KEY_HISTORY	"partitions/history"
#define HISTORY_KEPT	1000

static struct {
	struct ha	*ha;
	int64_t		 rev;		/* mod revision of the model we hold; 0: none in etcd */
	bool		 fresh;		/* writer, and read the latest model since winning */
	bool		 reading;	/* that read in flight */
	struct ha_mirror *history;
} rp;

bool pt_replica_on(void) { return rp.ha != NULL; }

json_t *
pt_replica_status(void)
{
	char buf[160];

	return json_pack("{s:I, s:b}", "revision", (json_int_t)rp.rev, "ready",
	    rp.fresh && ha_is_writer(rp.ha) &&
	    sm_fabric_write_refusal(pt_state.sm, buf, sizeof(buf)) == NULL);
}

/* ---- the model as a value ---- */

/* The job partitions' records, beside the YAML that holds their keys and
 * members: a standby that takes over knows which job owns which key. */
static json_t *
jobs_value(const struct pt_config *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->nparts; i++) {
		const struct pt_job *j = c->parts[i].job;

		if (j != NULL)
			json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}",
			    "partition", c->parts[i].name, "id", j->id, "user", j->user,
			    "account", j->account, "hosts", j->hosts, "created_ms",
			    (json_int_t)j->created_ms));
	}
	return a;
}

static void
jobs_adopt(struct pt_config *c, json_t *jobs)
{
	json_t *e;
	size_t i;

	json_array_foreach(jobs, i, e) {
		struct pt_partition *p = pt_find(c,
		    json_string_value(json_object_get(e, "partition")) ?: "");
		struct pt_job j = {
			.id = (char *)json_string_value(json_object_get(e, "id")),
			.user = (char *)json_string_value(json_object_get(e, "user")),
			.account = (char *)json_string_value(json_object_get(e, "account")),
			.hosts = (char *)json_string_value(json_object_get(e, "hosts")),
			.created_ms = json_integer_value(json_object_get(e, "created_ms")),
		};

		if (p != NULL && j.id != NULL && pt_job_id_valid(j.id))
			pt_partition_set_job(p, &j);
	}
}

static char *
model_value(const struct pt_config *c, const struct pt_index *idx, size_t n, const char *by)
{
	char *yaml = pt_yaml_export_with(c, true), *text;
	json_t *index = json_array(), *o;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(index, json_pack("[i, i]", idx[i].pkey, idx[i].index));
	o = json_pack("{s:i, s:s, s:o, s:s, s:o}", "version", 1, "yaml", yaml ? yaml : "",
	    "index", index, "by", by, "jobs", jobs_value(c));
	free(yaml);
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

/* Take a model read from etcd as the committed one (sqlite too). */
static int
adopt(const char *value, size_t len, int64_t rev, const char *how)
{
	json_t *o = json_loadb(value, len, 0, NULL), *index, *e;
	const char *yaml = json_string_value(json_object_get(o, "yaml"));
	struct pt_config *c = NULL;
	struct pt_index *idx;
	size_t n, i;
	char *err = NULL;

	if (yaml == NULL || pt_yaml_parse_text("etcd", yaml, strlen(yaml), &c, &err) != 0) {
		event_post(EV_ERROR, "partitions", NULL, "the intent in etcd at revision %" PRId64
		    " does not parse (%s): kept the partitions held here", rev, err ? err : "no yaml");
		free(err);
		json_decref(o);
		return -1;
	}
	jobs_adopt(c, json_object_get(o, "jobs"));
	index = json_object_get(o, "index");
	n = json_array_size(index);
	idx = xcalloc(n ? n : 1, sizeof(*idx));
	json_array_foreach(index, i, e) {
		idx[i].pkey = (uint16_t)json_integer_value(json_array_get(e, 0));
		idx[i].index = (uint16_t)json_integer_value(json_array_get(e, 1));
	}
	pt_commit_model(c, idx, n);
	pt_store_save_model(pt_state.store, pt_state.model, idx, n);
	free(idx);
	rp.rev = rev;
	log_info("partitions: %s: %zu partition%s at etcd revision %" PRId64, how,
	    pt_state.model->nparts, pt_state.model->nparts == 1 ? "" : "s", rev);
	json_decref(o);
	return 0;
}

/* A standby's (and a master's) copy follows etcd. */
static void
on_model_changed(const char *value, size_t len, int64_t rev, void *arg)
{
	if (value == NULL || rev == rp.rev || pt_state.busy)
		return;		/* gone, ours already, or our own change landing */
	if (adopt(value, len, rev, "followed the intent in etcd") == 0 && ha_is_writer(rp.ha))
		sm_reroute(pt_state.sm);	/* committed but not applied here: apply it */
}

/* ---- the writer ---- */

static void ignore_txn(enum ha_txn_result r, int64_t rev, const char *err, void *arg) { }

/* A rollback's model written: that revision is the one held here. */
static void
on_restored(enum ha_txn_result r, int64_t rev, const char *err, void *arg)
{
	if (r == HA_TXN_OK)
		rp.rev = rev;
}

static bool
still_master(void *arg)
{
	return sm_is_master(pt_state.sm);
}

static void
on_seeded(enum ha_txn_result r, int64_t rev, const char *err, void *arg)
{
	rp.reading = false;
	if (r != HA_TXN_OK) {
		log_warnx("partitions: could not seed etcd with the partitions held here: %s", err);
		return;
	}
	rp.rev = rev;
	rp.fresh = true;
	event_post(EV_INFO, "partitions", NULL, "etcd held no partitions: seeded it with the %zu "
	    "held here (revision %" PRId64 ")", pt_state.model->nparts, rev);
	sm_reroute(pt_state.sm);
}

static void
on_journal(int rc, const char *value, size_t len, int64_t rev, const char *err, void *arg)
{
	json_t *o;
	static const struct ha_op del = { KEY_JOURNAL, NULL, true };

	rp.reading = false;
	if (rc < 0)
		return;		/* asked again at the next sweep */
	if (rc == 0) {
		o = json_loadb(value, len, 0, NULL);
		event_post(EV_WARNING, "partitions", NULL, "the previous master left '%s' "
		    "half-applied: this master finishes it (programs the intent of revision %"
		    PRId64 ")", json_string_value(json_object_get(o, "action")) ?: "a change",
		    rp.rev);
		json_decref(o);
		(void)ha_txn(rp.ha, NULL, -1, &del, 1, ignore_txn, NULL);
	}
	rp.fresh = true;
	sm_reroute(pt_state.sm);	/* the sweep that programs the latest intent */
}


static void
on_latest(int rc, const char *value, size_t len, int64_t rev, const char *err, void *arg)
{
	char *v;
	struct ha_op op = { KEY_MODEL, NULL, false };
	char by[24];

	if (rc < 0) {
		rp.reading = false;
		return;
	}
	if (rc == 1) {		/* nothing in etcd yet: the first writer seeds it */
		snprintf(by, sizeof(by), "%016" PRIx64, sm_own_port_guid(pt_state.sm));
		op.value = v = model_value(pt_state.model, pt_state.index, pt_state.nindex, by);
		if (ha_txn(rp.ha, KEY_MODEL, 0, &op, 1, on_seeded, NULL) != 0)
			rp.reading = false;
		free(v);
		return;
	}
	if (rev != rp.rev && adopt(value, len, rev, "took the latest intent as master") != 0) {
		rp.reading = false;
		return;
	}
	if (ha_get(rp.ha, KEY_JOURNAL, on_journal, NULL) != 0)
		rp.reading = false;
}

/* The lease is ours: read the latest intent before writing anything. */
static void
gained(void *arg)
{
	rp.fresh = false;
	if (!rp.reading && ha_get(rp.ha, KEY_MODEL, on_latest, NULL) == 0)
		rp.reading = true;
}

/* Writer, but the read after the win failed or never began (the lease
 * was won by another claimer's call before ours was registered): asked
 * again, whenever someone needs the answer. */
static void
read_again(void)
{
	if (ha_is_writer(rp.ha) && !rp.fresh && !rp.reading)
		gained(NULL);
}

bool
pt_replica_ready(void)
{
	if (rp.ha == NULL)
		return true;
	if (!ha_is_writer(rp.ha))
		rp.fresh = false;
	if (!rp.fresh)
		ha_claim(rp.ha, sm_own_port_guid(pt_state.sm), still_master, gained, NULL);
	read_again();
	return rp.fresh && ha_is_writer(rp.ha);
}

const char *
pt_replica_refusal(char *buf, size_t len)
{
	if (rp.ha == NULL)
		return NULL;
	if (!sm_is_master(pt_state.sm)) {
		snprintf(buf, len, "this node's SM is not the master: changes are made on the "
		    "master, which alone writes the intent");
		return buf;
	}
	if (ha_write_refusal(rp.ha, buf, len) != NULL)
		return buf;
	if (!rp.fresh) {
		read_again();
		snprintf(buf, len, "this master has not read the latest intent from etcd yet");
		return buf;
	}
	/* the P_Key Sets would be held back at the fabric's gate */
	return sm_fabric_write_refusal(pt_state.sm, buf, len);
}

/* ---- a change ---- */

struct publish {
	pt_replica_fn	 then;
	void		*arg;
};

static void
on_published(enum ha_txn_result r, int64_t rev, const char *err, void *arg)
{
	struct publish *p = arg;
	char msg[320];

	switch (r) {
	case HA_TXN_OK:
		rp.rev = rev;
		p->then(PERR_NONE, NULL, p->arg);
		break;
	case HA_TXN_CONFLICT:
		snprintf(msg, sizeof(msg), "the partitions changed on another node since this one "
		    "read them (etcd revision %" PRId64 "): nothing was written; run it again", rev);
		rp.fresh = false;	/* read again before the next change */
		gained(NULL);
		p->then(PERR_CONFLICT, msg, p->arg);
		break;
	case HA_TXN_FENCED:
		snprintf(msg, sizeof(msg), "not written: %s", err);
		p->then(PERR_UNAVAILABLE, msg, p->arg);
		break;
	case HA_TXN_UNAVAILABLE:
		snprintf(msg, sizeof(msg), "etcd did not confirm the change (%s): nothing was written "
		    "to the fabric; if etcd committed it, the master applies it when it reads it",
		    err);
		p->then(PERR_UNAVAILABLE, msg, p->arg);
		break;
	}
	free(p);
}

int
pt_replica_publish(const struct pt_config *proposed, const struct pt_index *idx, size_t n,
    const char *action, pt_replica_fn then, void *arg)
{
	char by[24], *model, *journal;
	struct ha_op ops[2];
	struct publish *p;
	json_t *j;
	int rc;

	snprintf(by, sizeof(by), "%016" PRIx64, sm_own_port_guid(pt_state.sm));
	model = model_value(proposed, idx, n, by);
	j = json_pack("{s:s, s:s, s:I}", "action", action, "by", by, "from_revision",
	    (json_int_t)rp.rev);
	journal = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	ops[0] = (struct ha_op){ KEY_MODEL, model, false };
	ops[1] = (struct ha_op){ KEY_JOURNAL, journal, false };
	p = xcalloc(1, sizeof(*p));
	*p = (struct publish){ then, arg };
	if ((rc = ha_txn(rp.ha, KEY_MODEL, rp.rev, ops, 2, on_published, p)) != 0)
		free(p);
	free(model);
	free(journal);
	return rc;
}

void
pt_replica_applied(bool ok, const struct pt_config *committed, const struct pt_index *idx,
    size_t n)
{
	struct ha_op ops[2] = { { KEY_JOURNAL, NULL, true }, { KEY_MODEL, NULL, false } };
	char by[24], *model = NULL;

	if (rp.ha == NULL)
		return;
	if (!ok) {	/* rolled back: the intent goes back to what the fabric holds */
		snprintf(by, sizeof(by), "%016" PRIx64, sm_own_port_guid(pt_state.sm));
		ops[1].value = model = model_value(committed, idx, n, by);
	}
	if (ha_txn(rp.ha, NULL, -1, ops, ok ? 1 : 2, ok ? ignore_txn : on_restored, NULL) != 0 &&
	    !ok)
		event_post(EV_ERROR, "partitions", NULL, "the rolled-back change stays in etcd's "
		    "intent (etcd unavailable): the next master applies it");
	free(model);
}

/* ---- the history, a mirror ---- */

static char *
history_snapshot(void *arg)
{
	json_t *rows = pt_store_history_list(pt_state.store, HISTORY_KEPT);
	char *text = json_dumps(rows, JSON_COMPACT);

	json_decref(rows);
	return text;
}

/* A standby's history is the master's: rows, ids and all. */
static void
history_adopt(const char *value, size_t len, int64_t rev, void *arg)
{
	json_t *rows = json_loadb(value, len, 0, NULL), *r;
	struct store_batch *b;
	size_t i;

	if (!json_is_array(rows) || pt_state.store == NULL) {
		json_decref(rows);
		return;
	}
	b = store_batch_new();
	store_batch_sql(b, "DELETE FROM pt_history");
	json_array_foreach(rows, i, r) {
		json_t *uid = json_object_get(r, "uid"), *detail = json_object_get(r, "detail");
		char *dtext = detail ? json_dumps(detail, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

		store_batch_sql(b, "INSERT INTO pt_history (id, time_ms, uid, action, detail, "
		    "result, message) VALUES (?, ?, ?, ?, ?, ?, ?)");
		store_batch_int(b, json_integer_value(json_object_get(r, "id")));
		store_batch_int(b, json_integer_value(json_object_get(r, "time_ms")));
		if (json_is_integer(uid))
			store_batch_int(b, json_integer_value(uid));
		else
			store_batch_text(b, NULL);
		store_batch_text(b, json_string_value(json_object_get(r, "action")) ?: "");
		store_batch_text(b, dtext ? dtext : "{}");
		store_batch_text(b, json_string_value(json_object_get(r, "result")) ?: "");
		store_batch_text(b, json_string_value(json_object_get(r, "message")) ?: "");
		free(dtext);
	}
	store_write_later(pt_state.store, b);
	log_debug("partitions: took %zu history rows of the master (revision %" PRId64 ")",
	    json_array_size(rows), rev);
	json_decref(rows);
}

static bool
history_master(void *arg)
{
	return sm_is_master(pt_state.sm);
}

static uint64_t
history_guid(void *arg)
{
	return sm_own_port_guid(pt_state.sm);
}

void
pt_history_add(uid_t uid, bool has_uid, const char *action, const char *detail,
    const char *result, const char *message)
{
	pt_store_history(pt_state.store, uid, has_uid, action, detail, result, message);
	ha_mirror_changed(rp.history);
}

void
pt_replica_start(struct ha *ha)
{
	static const struct ha_mirror_ops history = { KEY_HISTORY, history_snapshot,
	    history_adopt, history_master, history_guid, 0 };

	memset(&rp, 0, sizeof(rp));
	rp.ha = ha;
	ha_watch(ha, KEY_MODEL, on_model_changed, NULL);
	rp.history = ha_mirror_start(ha, &history, NULL);
}

void
pt_replica_stop(void)
{
	ha_mirror_stop(rp.history);
	ha_drain(rp.ha);	/* a change waiting for etcd is answered now */
	ha_unwatch(rp.ha, on_model_changed, NULL);
	memset(&rp, 0, sizeof(rp));
}
