/*
 * The partitions module's tables in sqlite (schemas/200_partitions.sql).
 * Every write is one transaction: the partition set, its indices and the
 * port tables are replaced together or not at all.
 */
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "partitions/internal.h"
#include "sm/sm.h"

static void
load_members(struct store *st, struct pt_config *c, const char *name)
{
	sqlite3_stmt *s = store_prepare(st,
	    "SELECT member, full FROM pt_members WHERE partition = ? ORDER BY position");
	struct pt_err e;

	if (s == NULL)
		return;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW)
		if (pt_member_add(c, name, (const char *)sqlite3_column_text(s, 0),
		    sqlite3_column_int(s, 1) != 0, &e) != 0)
			log_warnx("partitions: stored member of %s skipped: %s", name, e.msg);
	sqlite3_reset(s);
}

static void
load_ipoib(struct store *st, struct pt_config *c)
{
	sqlite3_stmt *s = store_prepare(st,
	    "SELECT partition, mtu, rate, sl, qkey FROM pt_ipoib");
	struct pt_partition *p;

	if (s == NULL)
		return;
	while (sqlite3_step(s) == SQLITE_ROW)
		if ((p = pt_find(c, (const char *)sqlite3_column_text(s, 0))) != NULL)
			p->ipoib = (struct pt_ipoib){ true, (uint8_t)sqlite3_column_int(s, 1),
			    (uint8_t)sqlite3_column_int(s, 2), (uint8_t)sqlite3_column_int(s, 3),
			    (uint32_t)sqlite3_column_int64(s, 4) };
	sqlite3_reset(s);
}

static void
load_jobs(struct store *st, struct pt_config *c)
{
	sqlite3_stmt *s = store_prepare(st,
	    "SELECT partition, job_id, user, account, hosts, created_ms FROM pt_jobs");
	struct pt_partition *p;

	if (s == NULL)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct pt_job j = {
			.id = (char *)sqlite3_column_text(s, 1),
			.user = (char *)sqlite3_column_text(s, 2),
			.account = (char *)sqlite3_column_text(s, 3),
			.hosts = (char *)sqlite3_column_text(s, 4),
			.created_ms = sqlite3_column_int64(s, 5),
		};

		if ((p = pt_find(c, (const char *)sqlite3_column_text(s, 0))) != NULL)
			pt_partition_set_job(p, &j);
	}
	sqlite3_reset(s);
}

static struct pt_config *
load_model(struct store *st)
{
	struct pt_config *c = pt_config_new();
	sqlite3_stmt *s = store_prepare(st,
	    "SELECT name, tenant, pkey FROM pt_partitions ORDER BY position");
	char **names = NULL;
	size_t n = 0;
	struct pt_err e;

	if (s == NULL)
		return c;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (pt_partition_add(c, name, (const char *)sqlite3_column_text(s, 1),
		    (uint16_t)sqlite3_column_int(s, 2), &e) != 0) {
			log_warnx("partitions: stored partition %s skipped: %s", name, e.msg);
			continue;
		}
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = xstrdup(name);
	}
	sqlite3_reset(s);
	/* members after the partitions: one statement at a time is open */
	for (size_t i = 0; i < n; i++) {
		load_members(st, c, names[i]);
		free(names[i]);
	}
	free(names);
	load_ipoib(st, c);
	load_jobs(st, c);
	return c;
}

/* The plane a stored row's subnet is, or -1 (a subnet not served now:
 * its rows wait, read again if it is). */
static int
plane_of(const struct pt_state *ps, const char *subnet)
{
	if (ps->nplanes == 0)	/* no plane set up (tests): the one subnet '' */
		return subnet == NULL || subnet[0] == '\0' ? 0 : -1;
	for (size_t i = 0; i < ps->nplanes; i++)
		if (strcmp(sm_subnet_name(ps->planes[i]), subnet ? subnet : "") == 0)
			return (int)i;
	return -1;
}

static void
load_tables(struct store *st, struct pt_state *ps)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT node_guid, port, port_guid, switch_ext, "
	    "label, entries, subnet FROM pt_port_tables ORDER BY subnet, node_guid, port");

	if (s == NULL)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const uint8_t *b = sqlite3_column_blob(s, 5);
		int len = sqlite3_column_bytes(s, 5);
		int plane = plane_of(ps, (const char *)sqlite3_column_text(s, 6));
		struct pt_table *t;

		/* a subnet not served now: its rows wait (read again if it is) */
		if (len <= 0 || len % 2 != 0 || plane < 0)
			continue;
		ps->tables = xreallocarray(ps->tables, ps->ntables + 1, sizeof(*ps->tables));
		t = &ps->tables[ps->ntables++];
		memset(t, 0, sizeof(*t));
		t->plane = (uint8_t)plane;
		t->subnet = ps->nplanes ? sm_subnet_name(ps->planes[plane]) : "";
		t->node_guid = (uint64_t)sqlite3_column_int64(s, 0);
		t->port = (uint8_t)sqlite3_column_int(s, 1);
		t->port_guid = (uint64_t)sqlite3_column_int64(s, 2);
		t->switch_ext = sqlite3_column_int(s, 3) != 0;
		snprintf(t->label, sizeof(t->label), "%s", (const char *)sqlite3_column_text(s, 4));
		t->n = (uint16_t)(len / 2);
		t->entries = xcalloc(t->n, sizeof(uint16_t));
		for (int i = 0; i < t->n; i++)
			t->entries[i] = (uint16_t)(b[2 * i] << 8 | b[2 * i + 1]);
	}
	sqlite3_reset(s);
}

int
pt_store_load(struct store *st, struct pt_state *ps, bool *seeded)
{
	sqlite3_stmt *s;
	enum pt_default_policy pol;

	*seeded = false;
	ps->model = load_model(st);
	if ((s = store_prepare(st, "SELECT key, value FROM pt_meta")) != NULL) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *k = (const char *)sqlite3_column_text(s, 0);
			const char *v = (const char *)sqlite3_column_text(s, 1);

			if (strcmp(k, "seeded") == 0)
				*seeded = true;
			else if (strcmp(k, "default_membership") == 0 &&
			    pt_default_policy_parse(v, &pol) == 0)
				ps->model->default_policy = pol;
		}
		sqlite3_reset(s);
	}
	if ((s = store_prepare(st, "SELECT pkey, pindex FROM pt_index ORDER BY pkey")) != NULL) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			ps->index = xreallocarray(ps->index, ps->nindex + 1, sizeof(*ps->index));
			ps->index[ps->nindex].pkey = (uint16_t)sqlite3_column_int(s, 0);
			ps->index[ps->nindex++].index = (uint16_t)sqlite3_column_int(s, 1);
		}
		sqlite3_reset(s);
	}
	load_tables(st, ps);
	return 0;
}

static int
save_partition(struct store *st, const struct pt_partition *p, int pos)
{
	sqlite3_stmt *s = store_prepare(st,
	    "INSERT INTO pt_partitions (name, tenant, pkey, position) VALUES (?, ?, ?, ?)");
	char buf[80];

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, p->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, p->tenant, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 3, p->pkey);
	sqlite3_bind_int(s, 4, pos);
	if (store_step_done(st, s) != 0)
		return -1;
	if (p->ipoib.enabled) {
		if ((s = store_prepare(st, "INSERT INTO pt_ipoib (partition, mtu, rate, sl, qkey) "
		    "VALUES (?, ?, ?, ?, ?)")) == NULL)
			return -1;
		sqlite3_bind_text(s, 1, p->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(s, 2, p->ipoib.mtu);
		sqlite3_bind_int(s, 3, p->ipoib.rate);
		sqlite3_bind_int(s, 4, p->ipoib.sl);
		sqlite3_bind_int64(s, 5, p->ipoib.qkey);
		if (store_step_done(st, s) != 0)
			return -1;
	}
	if (p->job != NULL) {
		if ((s = store_prepare(st, "INSERT INTO pt_jobs (partition, job_id, user, account, "
		    "hosts, created_ms) VALUES (?, ?, ?, ?, ?, ?)")) == NULL)
			return -1;
		sqlite3_bind_text(s, 1, p->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 2, p->job->id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 3, p->job->user, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 4, p->job->account, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 5, p->job->hosts, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 6, p->job->created_ms);
		if (store_step_done(st, s) != 0)
			return -1;
	}
	for (size_t j = 0; j < p->nmembers; j++) {
		s = store_prepare(st, "INSERT INTO pt_members (partition, member, full, position) "
		    "VALUES (?, ?, ?, ?)");
		if (s == NULL)
			return -1;
		sqlite3_bind_text(s, 1, p->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 2, pt_member_text(&p->members[j], buf, sizeof(buf)), -1,
		    SQLITE_TRANSIENT);
		sqlite3_bind_int(s, 3, p->members[j].full);
		sqlite3_bind_int(s, 4, (int)j);
		if (store_step_done(st, s) != 0)
			return -1;
	}
	return 0;
}

int
pt_store_save_model(struct store *st, const struct pt_config *c, const struct pt_index *idx,
    size_t nidx)
{
	sqlite3_stmt *s;

	if (store_begin(st) != 0)
		return -1;
	if ((s = store_prepare(st, "DELETE FROM pt_members")) == NULL || store_step_done(st, s) != 0)
		goto fail;
	if ((s = store_prepare(st, "DELETE FROM pt_ipoib")) == NULL || store_step_done(st, s) != 0)
		goto fail;
	if ((s = store_prepare(st, "DELETE FROM pt_jobs")) == NULL || store_step_done(st, s) != 0)
		goto fail;
	if ((s = store_prepare(st, "DELETE FROM pt_partitions")) == NULL || store_step_done(st, s) != 0)
		goto fail;
	if ((s = store_prepare(st, "DELETE FROM pt_index")) == NULL || store_step_done(st, s) != 0)
		goto fail;
	for (size_t i = 0; i < c->nparts; i++)
		if (save_partition(st, &c->parts[i], (int)i) != 0)
			goto fail;
	for (size_t i = 0; i < nidx; i++) {
		if ((s = store_prepare(st, "INSERT INTO pt_index (pkey, pindex) VALUES (?, ?)")) == NULL)
			goto fail;
		sqlite3_bind_int(s, 1, idx[i].pkey);
		sqlite3_bind_int(s, 2, idx[i].index);
		if (store_step_done(st, s) != 0)
			goto fail;
	}
	if ((s = store_prepare(st, "INSERT OR REPLACE INTO pt_meta (key, value) "
	    "VALUES ('default_membership', ?)")) == NULL)
		goto fail;
	sqlite3_bind_text(s, 1, pt_default_policy_name(c->default_policy), -1, SQLITE_STATIC);
	if (store_step_done(st, s) != 0)
		goto fail;
	return store_commit(st);
fail:
	store_rollback(st);
	return -1;
}

static int
save_table(struct store *st, const struct pt_table *t)
{
	sqlite3_stmt *s = store_prepare(st, "INSERT OR REPLACE INTO pt_port_tables "
	    "(node_guid, port, port_guid, switch_ext, label, entries, subnet) "
	    "VALUES (?, ?, ?, ?, ?, ?, ?)");
	uint8_t *b;

	if (s == NULL)
		return -1;
	b = xcalloc(t->n ? t->n : 1, 2);
	for (int k = 0; k < t->n; k++) {
		b[2 * k] = (uint8_t)(t->entries[k] >> 8);
		b[2 * k + 1] = (uint8_t)t->entries[k];
	}
	sqlite3_bind_int64(s, 1, (sqlite3_int64)t->node_guid);
	sqlite3_bind_int(s, 2, t->port);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)t->port_guid);
	sqlite3_bind_int(s, 4, t->switch_ext);
	sqlite3_bind_text(s, 5, t->label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob(s, 6, b, t->n * 2, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 7, t->subnet ? t->subnet : "", -1, SQLITE_TRANSIENT);
	free(b);
	return store_step_done(st, s);
}

int
pt_store_save_tables(struct store *st, const struct pt_table *t, size_t n)
{
	if (store_begin(st) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (save_table(st, &t[i]) != 0) {
			store_rollback(st);
			return -1;
		}
	return store_commit(st);
}

int
pt_store_save_tables_slice(struct store *st, const struct pt_table *t, size_t n, size_t *done,
    int64_t budget_us)
{
	int64_t t0 = clock_mono_us();
	size_t i = *done;

	if (store_begin(st) != 0)
		return -1;
	do {
		if (save_table(st, &t[i]) != 0) {
			store_rollback(st);
			log_warnx("partitions: the P_Key table of %s could not be stored", t[i].label);
			return -1;
		}
	} while (++i < n && clock_mono_us() - t0 < budget_us);
	if (store_commit(st) != 0)
		return -1;
	*done = i;
	return 0;
}

int
pt_store_forget_table(struct store *st, const char *subnet, uint64_t node_guid, uint8_t port)
{
	sqlite3_stmt *s = store_prepare(st,
	    "DELETE FROM pt_port_tables WHERE node_guid = ? AND port = ? AND subnet = ?");

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)node_guid);
	sqlite3_bind_int(s, 2, port);
	sqlite3_bind_text(s, 3, subnet ? subnet : "", -1, SQLITE_TRANSIENT);
	return store_step_done(st, s);
}

int
pt_store_set_seeded(struct store *st)
{
	sqlite3_stmt *s = store_prepare(st,
	    "INSERT OR REPLACE INTO pt_meta (key, value) VALUES ('seeded', '1')");

	return s == NULL ? -1 : store_step_done(st, s);
}

void
pt_store_history(struct store *st, uid_t uid, bool has_uid, const char *action,
    const char *detail, const char *result, const char *message)
{
	sqlite3_stmt *s = store_prepare(st, "INSERT INTO pt_history "
	    "(time_ms, uid, action, detail, result, message) VALUES (?, ?, ?, ?, ?, ?)");

	if (s == NULL)
		return;
	sqlite3_bind_int64(s, 1, event_now_ms());
	if (has_uid)
		sqlite3_bind_int64(s, 2, (sqlite3_int64)uid);
	else
		sqlite3_bind_null(s, 2);
	sqlite3_bind_text(s, 3, action, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 4, detail ? detail : "{}", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 5, result, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 6, message ? message : "", -1, SQLITE_TRANSIENT);
	store_step_done(st, s);
}

json_t *
pt_store_history_list(struct store *st, long long limit)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT id, time_ms, uid, action, detail, result, "
	    "message FROM (SELECT * FROM pt_history ORDER BY id DESC LIMIT ?) ORDER BY id");
	json_t *rows = json_array();

	if (s == NULL)
		return rows;
	sqlite3_bind_int64(s, 1, limit);
	while (sqlite3_step(s) == SQLITE_ROW) {
		json_t *uid = sqlite3_column_type(s, 2) == SQLITE_NULL ? json_null() :
		    json_integer(sqlite3_column_int64(s, 2));

		/* the request's arguments are stored as JSON text: given back
		 * as JSON, not as a string holding it (text that is not JSON
		 * stays a string) */
		const char *text = (const char *)sqlite3_column_text(s, 4);
		json_t *detail = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;

		if (detail == NULL)
			detail = text ? json_string(text) : json_null();
		json_array_append_new(rows, json_pack("{s:I, s:I, s:o, s:s, s:o, s:s, s:s}",
		    "id", (json_int_t)sqlite3_column_int64(s, 0),
		    "time_ms", (json_int_t)sqlite3_column_int64(s, 1),
		    "uid", uid,
		    "action", (const char *)sqlite3_column_text(s, 3),
		    "detail", detail ? detail : json_null(),
		    "result", (const char *)sqlite3_column_text(s, 5),
		    "message", (const char *)sqlite3_column_text(s, 6)));
	}
	sqlite3_reset(s);
	return rows;
}
