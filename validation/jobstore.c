/*
 * Job records in sqlite (schemas/500_validation.sql): what was run, how it
 * ended, the parsed rows and the verdict.  Every write is one transaction.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/store.h"
#include "validation/validation.h"

static const char *const kind_names[] = { "nccl", "rdma" };

static char *
json_text(json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT) : NULL;

	json_decref(v);
	return s;
}

static json_t *
string_array(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; v != NULL && (n == (size_t)-1 ? v[i] != NULL : i < n); i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *
env_object(char *const *env)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		const char *eq = strchr(env[i], '=');
		char *k;
		if (eq == NULL)
			continue;
		k = xstrndup(env[i], (size_t)(eq - env[i]));
		json_object_set_new(o, k, json_string(eq + 1));
		free(k);
	}
	return o;
}

static void
bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v != NULL)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

int64_t
jobstore_create(const struct job_spec *sp, bool campaign)
{
	struct store *st = fabricd->store;
	sqlite3_stmt *s;
	char *hosts = json_text(string_array(sp->hosts, sp->nhosts));
	char *envs = json_text(env_object(sp->env));
	int64_t id = -1;

	if (store_begin(st) != 0)
		goto out;
	s = store_prepare(st, "INSERT INTO validation_jobs(parent_id, kind, test, launcher, strategy, "
	    "hosts, tenant, profile, min_ok, min_warn, environment, state, created_ms) "
	    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)");
	if (s == NULL) {
		store_rollback(st);
		goto out;
	}
	if (sp->parent > 0)
		sqlite3_bind_int64(s, 1, sp->parent);
	else
		sqlite3_bind_null(s, 1);
	bind_text(s, 2, campaign ? "campaign" : kind_names[sp->kind]);
	bind_text(s, 3, sp->test);
	bind_text(s, 4, sp->launcher);
	bind_text(s, 5, campaign ? sp->strategy : NULL);
	bind_text(s, 6, hosts);
	bind_text(s, 7, sp->tenant);
	bind_text(s, 8, sp->profile);
	sqlite3_bind_double(s, 9, sp->threshold.min_ok);
	sqlite3_bind_double(s, 10, sp->threshold.min_warn);
	bind_text(s, 11, envs);
	sqlite3_bind_int64(s, 12, event_now_ms());
	if (store_step_done(st, s) != 0) {
		store_rollback(st);
		goto out;
	}
	id = sqlite3_last_insert_rowid(store_db(st));
	if (store_commit(st) != 0)
		id = -1;
out:
	free(hosts);
	free(envs);
	return id;
}

void
jobstore_started(int64_t id, pid_t pid, char *const *argv, char *const *env, const char *dir,
    const char *out, const char *err)
{
	struct store *st = fabricd->store;
	sqlite3_stmt *s = store_prepare(st, "UPDATE validation_jobs SET pid = ?, started_ms = ?, "
	    "stdout_path = ?, stderr_path = ?, command = ?, environment = ?, dir = ? WHERE id = ?");
	char *cmd = json_text(string_array(argv, (size_t)-1));
	char *envs = json_text(env_object(env));

	if (s == NULL) {
		free(cmd);
		free(envs);
		return;
	}
	if (pid > 0)
		sqlite3_bind_int64(s, 1, pid);
	else
		sqlite3_bind_null(s, 1);
	sqlite3_bind_int64(s, 2, event_now_ms());
	bind_text(s, 3, out);
	bind_text(s, 4, err);
	bind_text(s, 5, cmd);
	bind_text(s, 6, envs);
	bind_text(s, 7, dir);
	sqlite3_bind_int64(s, 8, id);
	(void)store_step_done(st, s);
	free(cmd);
	free(envs);
}

static void
store_nccl_rows(int64_t id, const struct nccl_parsed *p)
{
	struct store *st = fabricd->store;
	size_t i;
	int side;

	for (i = 0; i < p->nrows; i++) {
		const struct nccl_row *r = &p->rows[i];
		for (side = 0; side < 2; side++) {
			const struct nccl_side *sd = side ? &r->ip : &r->oop;
			sqlite3_stmt *s = store_prepare(st, "INSERT OR REPLACE INTO validation_nccl_rows(job_id, seq, "
			    "in_place, size, count, type, redop, root, time_us, algbw, busbw, nwrong) "
			    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
			if (s == NULL)
				return;
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int64(s, 2, (int64_t)i);
			sqlite3_bind_int(s, 3, side);
			sqlite3_bind_int64(s, 4, (int64_t)r->size);
			sqlite3_bind_int64(s, 5, (int64_t)r->count);
			bind_text(s, 6, r->type);
			bind_text(s, 7, r->redop);
			if (r->root == NCCL_ROOT_NONE)
				sqlite3_bind_null(s, 8);
			else
				sqlite3_bind_int(s, 8, r->root);
			sqlite3_bind_double(s, 9, sd->time_us);
			sqlite3_bind_double(s, 10, sd->algbw);
			sqlite3_bind_double(s, 11, sd->busbw);
			if (sd->nwrong == NCCL_NWRONG_NA)
				sqlite3_bind_null(s, 12);
			else
				sqlite3_bind_int64(s, 12, sd->nwrong);
			(void)store_step_done(st, s);
		}
	}
}

static void
store_perftest_rows(int64_t id, const struct perftest_parsed *p)
{
	struct store *st = fabricd->store;
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		const struct perftest_row *r = &p->rows[i];
		sqlite3_stmt *s = store_prepare(st, "INSERT OR REPLACE INTO validation_perftest_rows(job_id, "
		    "seq, bytes, iterations, bw_peak, bw_avg, unit, msg_rate, t_typical, t_p99) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
		if (s == NULL)
			return;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_int64(s, 3, (int64_t)r->bytes);
		sqlite3_bind_int64(s, 4, (int64_t)r->iterations);
		sqlite3_bind_double(s, 5, r->bw_peak);
		sqlite3_bind_double(s, 6, r->bw_avg);
		bind_text(s, 7, p->unit);
		sqlite3_bind_double(s, 8, r->msg_rate);
		sqlite3_bind_double(s, 9, r->t_typical);
		sqlite3_bind_double(s, 10, r->t_p99);
		(void)store_step_done(st, s);
	}
}

static void
bind_verdict(sqlite3_stmt *s, int first, const struct verdict_result *r)
{
	bind_text(s, first, verdict_name(r->verdict));
	bind_text(s, first + 1, r->code);
	bind_text(s, first + 2, r->reason);
	bind_text(s, first + 3, r->host[0] ? r->host : NULL);
	bind_text(s, first + 4, r->hca[0] ? r->hca : NULL);
	if (r->measured >= 0)
		sqlite3_bind_double(s, first + 5, r->measured);
	else
		sqlite3_bind_null(s, first + 5);
	sqlite3_bind_int64(s, first + 6, (int64_t)r->judged_size);
}

void
jobstore_finished(int64_t id, const struct run_outcome *o, const struct verdict_result *r,
    const struct nccl_parsed *np, const struct perftest_parsed *pp, json_t *summary)
{
	struct store *st = fabricd->store;
	sqlite3_stmt *s;
	char *sum = summary ? json_dumps(summary, JSON_COMPACT) : NULL;

	if (store_begin(st) != 0)
		goto out;
	s = store_prepare(st, "UPDATE validation_jobs SET state = ?, ended_ms = ?, exit_status = ?, "
	    "term_signal = ?, timed_out = ?, verdict = ?, code = ?, reason = ?, culprit_host = ?, "
	    "culprit_hca = ?, measured = ?, judged_size = ?, summary = ? WHERE id = ?");
	if (s == NULL) {
		store_rollback(st);
		goto out;
	}
	bind_text(s, 1, o->cancelled ? "cancelled" : "done");
	sqlite3_bind_int64(s, 2, event_now_ms());
	if (o->started && o->exited)
		sqlite3_bind_int(s, 3, o->exit_status);
	else
		sqlite3_bind_null(s, 3);
	if (o->started && !o->exited)
		sqlite3_bind_int(s, 4, o->term_signal);
	else
		sqlite3_bind_null(s, 4);
	sqlite3_bind_int(s, 5, o->timed_out);
	bind_verdict(s, 6, r);
	bind_text(s, 13, sum);
	sqlite3_bind_int64(s, 14, id);
	if (store_step_done(st, s) != 0) {
		store_rollback(st);
		goto out;
	}
	if (np != NULL)
		store_nccl_rows(id, np);
	if (pp != NULL)
		store_perftest_rows(id, pp);
	if (store_commit(st) != 0)
		log_warnx("validation: job %lld: result not recorded", (long long)id);
out:
	free(sum);
}

void
jobstore_campaign_finished(int64_t id, const struct verdict_result *r, json_t *summary)
{
	struct store *st = fabricd->store;
	char *sum = summary ? json_dumps(summary, JSON_COMPACT) : NULL;
	sqlite3_stmt *s = store_prepare(st, "UPDATE validation_jobs SET state = 'done', ended_ms = ?, "
	    "verdict = ?, code = ?, reason = ?, culprit_host = ?, culprit_hca = ?, measured = ?, "
	    "judged_size = ?, summary = ? WHERE id = ?");

	if (s != NULL) {
		sqlite3_bind_int64(s, 1, event_now_ms());
		bind_verdict(s, 2, r);
		bind_text(s, 9, sum);
		sqlite3_bind_int64(s, 10, id);
		(void)store_step_done(st, s);
	}
	free(sum);
}

static json_t *
column_json(sqlite3_stmt *s, int i)
{
	const char *name = sqlite3_column_name(s, i);

	switch (sqlite3_column_type(s, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(s, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(s, i));
	case SQLITE_TEXT: {
		const char *t = (const char *)sqlite3_column_text(s, i);
		/* JSON columns come back as JSON */
		if (strcmp(name, "hosts") == 0 || strcmp(name, "command") == 0 ||
		    strcmp(name, "environment") == 0 || strcmp(name, "summary") == 0) {
			json_t *v = json_loads(t, 0, NULL);
			if (v != NULL)
				return v;
		}
		return json_string(t);
	}
	default:
		return json_null();
	}
}

static json_t *
row_object(sqlite3_stmt *s)
{
	json_t *o = json_object();
	int i, n = sqlite3_column_count(s);

	for (i = 0; i < n; i++)
		json_object_set_new(o, sqlite3_column_name(s, i), column_json(s, i));
	return o;
}

json_t *
jobstore_page(int64_t before, size_t n)
{
	sqlite3_stmt *s = store_prepare(fabricd->store, "SELECT id, parent_id AS parent, kind, test, "
	    "launcher, state, verdict, code, culprit_host AS culprit, measured, hosts, created_ms "
	    "FROM validation_jobs WHERE id < ? ORDER BY id DESC LIMIT ?");
	json_t *a = json_array();

	if (s == NULL)
		return a;
	sqlite3_bind_int64(s, 1, before);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)n);
	while (sqlite3_step(s) == SQLITE_ROW)
		json_array_append_new(a, row_object(s));
	sqlite3_reset(s);
	return a;
}

static json_t *
job_rows(int64_t id)
{
	sqlite3_stmt *s = store_prepare(fabricd->store, "SELECT size, in_place, time_us, algbw, busbw, "
	    "nwrong FROM validation_nccl_rows WHERE job_id = ? ORDER BY seq, in_place");
	json_t *a = json_array();

	if (s == NULL)
		return a;
	sqlite3_bind_int64(s, 1, id);
	while (sqlite3_step(s) == SQLITE_ROW)
		json_array_append_new(a, row_object(s));
	sqlite3_reset(s);
	s = store_prepare(fabricd->store, "SELECT bytes, iterations, bw_peak, bw_avg, unit, msg_rate, "
	    "t_typical, t_p99 FROM validation_perftest_rows WHERE job_id = ? ORDER BY seq");
	if (s == NULL)
		return a;
	sqlite3_bind_int64(s, 1, id);
	while (sqlite3_step(s) == SQLITE_ROW)
		json_array_append_new(a, row_object(s));
	sqlite3_reset(s);
	return a;
}

json_t *
jobstore_show(int64_t id)
{
	sqlite3_stmt *s = store_prepare(fabricd->store, "SELECT * FROM validation_jobs WHERE id = ?");
	json_t *o = NULL, *probes;

	if (s == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	if (sqlite3_step(s) == SQLITE_ROW)
		o = row_object(s);
	sqlite3_reset(s);
	if (o == NULL)
		return NULL;
	json_object_set_new(o, "rows", job_rows(id));
	s = store_prepare(fabricd->store, "SELECT id, test, state, verdict, code, culprit_host AS culprit, "
	    "measured, hosts FROM validation_jobs WHERE parent_id = ? ORDER BY id");
	if (s != NULL) {
		probes = json_array();
		sqlite3_bind_int64(s, 1, id);
		while (sqlite3_step(s) == SQLITE_ROW)
			json_array_append_new(probes, row_object(s));
		sqlite3_reset(s);
		json_object_set_new(o, "probes", probes);
	}
	return o;
}

char *
jobstore_log_path(int64_t id, bool err)
{
	sqlite3_stmt *s = store_prepare(fabricd->store,
	    "SELECT stdout_path, stderr_path FROM validation_jobs WHERE id = ?");
	char *path = NULL;

	if (s == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, err ? 1 : 0) != NULL)
		path = xstrdup((const char *)sqlite3_column_text(s, err ? 1 : 0));
	sqlite3_reset(s);
	return path;
}

void
jobstore_recover(void)
{
	sqlite3_stmt *s = store_prepare(fabricd->store, "UPDATE validation_jobs SET state = 'lost', "
	    "ended_ms = ?, verdict = 'inconclusive', code = 'DaemonRestart', "
	    "reason = 'fabricd stopped while the job ran' WHERE state = 'running'");

	if (s == NULL)
		return;
	sqlite3_bind_int64(s, 1, event_now_ms());
	(void)store_step_done(fabricd->store, s);
}
