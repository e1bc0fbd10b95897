/*
 * Job partitions (jobs.h): the queue of job changes and the commands that
 * feed it (`partition job create|delete|list`).
 *
 * A job's partition is named "job-<id>", in tenant "jobs", with the lowest
 * free key of the pool; its members are the port GUIDs of the job's hosts
 * as the fabric has them when it is made (a host is a CA whose
 * NodeDescription is its name, or starts with "<name> ").  A host that is
 * not on the fabric refuses the whole job: a job partition is made whole
 * or not at all, like every partition change.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "partitions/internal.h"
#include "partitions/jobs.h"
#include "partitions/replica.h"
#include "sm/sm.h"

#define JOB_PREFIX	"job-"
#define JOB_TENANT	"jobs"
#define JOB_MAX_HOSTS	65536
#define JOB_RETRY_MS	20	/* a sweep holds the P_Key tables: look again soon */

enum op_kind { OP_CREATE, OP_DELETE, OP_RECONCILE };

struct job_op {
	enum op_kind	 kind;
	struct ctl_req	*req;		/* NULL: the reconcile's, no one to answer */
	json_t		*args;		/* the request's, for history (own reference) */
	char		*id;
	char		**hosts;	/* OP_CREATE: expanded */
	size_t		 nhosts;
	char		*user, *account;
	char		**alive;	/* OP_RECONCILE: the jobs squeue listed */
	size_t		 nalive;
	int64_t		 asked_ms;
	json_t		*gone;		/* OP_DELETE: the partition as it was */
	struct job_op	*next;
};

static struct {
	bool		 running;
	struct pt_jobs_config cfg;	/* squeue not owned here */
	struct event	*kick;
	struct job_op	*head, *tail, *current;
	uint64_t	 created, deleted, reconciled;
} pj;

/* ---- pure parts ---- */

uint16_t
pt_jobs_free_key(const struct pt_config *c, uint16_t lo, uint16_t hi)
{
	for (uint32_t k = lo; k <= hi; k++)
		if (pt_find_pkey(c, (uint16_t)k) == NULL)
			return (uint16_t)k;
	return 0;
}

bool
pt_jobs_pool_has(uint16_t pkey)
{
	return pj.running && pj.cfg.enabled && pkey >= pj.cfg.pkey_lo && pkey <= pj.cfg.pkey_hi;
}

size_t
pt_jobs_count(void)
{
	size_t n = 0;

	for (size_t i = 0; pt_state.model && i < pt_state.model->nparts; i++)
		n += pt_state.model->parts[i].job != NULL;
	return n;
}

/* What the reconcile has to look at: the job partitions, on the master
 * only.  A standby holds the master's (replicated) or stale ones of its
 * own; it reconciles them once it is master, not before. */
static size_t
reconcilable(void)
{
	return pt_fabric_now() != NULL ? pt_jobs_count() : 0;
}

/* ---- the queue ---- */

static void
op_free(struct job_op *op)
{
	for (size_t i = 0; i < op->nhosts; i++)
		free(op->hosts[i]);
	free(op->hosts);
	for (size_t i = 0; i < op->nalive; i++)
		free(op->alive[i]);
	free(op->alive);
	json_decref(op->args);
	json_decref(op->gone);
	free(op->id);
	free(op->user);
	free(op->account);
	free(op);
}

static void
kick_soon(unsigned ms)
{
	struct timeval tv = { 0, (suseconds_t)ms * 1000 };

	if (pj.kick != NULL)
		event_add(pj.kick, &tv);
}

static void
enqueue(struct job_op *op)
{
	if (pj.tail)
		pj.tail->next = op;
	else
		pj.head = op;
	pj.tail = op;
	kick_soon(0);
}

static void
answer_error(struct job_op *op, enum proto_error code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
answer_error(struct job_op *op, enum proto_error code, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (op->req != NULL) {
		char *detail = json_dumps(op->args, JSON_COMPACT | JSON_SORT_KEYS);

		pt_state.changes_rejected++;
		pt_history_add(ctl_req_uid(op->req), ctl_req_uid(op->req) != (uid_t)-1,
		    op->kind == OP_CREATE ? "job create" :
		    "job delete", detail, "rejected", msg);
		free(detail);
		ctl_reply_error(op->req, code, "%s", msg);
	} else
		log_warnx("partitions: %s", msg);
}

/* The pipeline has ended the current change: the next one, at the next
 * turn of the loop (a sweep that waited for this one goes first). */
static void
op_done(void *arg, bool ok)
{
	struct job_op *op = arg;

	if (ok && op->kind == OP_CREATE)
		pj.created++;
	else if (ok && op->kind == OP_DELETE)
		pj.deleted++;
	if (pj.current == op)
		pj.current = NULL;
	op_free(op);
	kick_soon(0);
}

static json_t *job_json(const struct pt_partition *p);

/* The committed job partition in the answer (its index known by now). */
static void
decorate(void *arg, json_t *result)
{
	const struct job_op *op = arg;
	const struct pt_partition *p = pt_find_job(pt_state.model, op->id);

	if (p != NULL)
		json_object_update_missing_new(result, job_json(p));
	else if (op->gone != NULL)
		json_object_update_missing(result, op->gone);
	else
		json_object_set_new(result, "job", json_string(op->id));
}

static void
run_change(struct job_op *op, const char *action, struct pt_config *proposed)
{
	struct pt_change ch = {
		.action = action, .detail = op->args, .req = op->req,
		.uid = op->req ? ctl_req_uid(op->req) : 0,
		.has_uid = op->req != NULL && ctl_req_uid(op->req) != (uid_t)-1,
		.proposed = proposed, .done = op_done, .decorate = decorate, .done_arg = op,
	};

	pj.current = op;
	pt_change_run(&ch);
}

/* ---- create ---- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The host a NodeDescription names: all of it, or what precedes " ". */
static char *
desc_host(const char *desc, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(desc, " "), desc);
	return buf;
}

/*
 * The cabled ports of the job's hosts, as GUID members of p.  Hosts that
 * match no CA with a cabled port go into *missing (a hostlist) and the
 * partition is not to be made.
 */
static size_t
add_host_ports(struct fabric *f, char **hosts, size_t nhosts, struct pt_config *c,
    const char *name, bool full, char **missing)
{
	char **sorted = xcalloc(nhosts ? nhosts : 1, sizeof(*sorted));
	bool *found = xcalloc(nhosts ? nhosts : 1, sizeof(*found));
	const char **lost = xcalloc(nhosts ? nhosts : 1, sizeof(*lost));
	struct fabric_node *node;
	size_t i, nlost = 0, nports = 0;
	char host[FABRIC_NODE_DESC_LEN + 1], member[24];
	struct pt_err e;

	memcpy(sorted, hosts, nhosts * sizeof(*sorted));
	qsort(sorted, nhosts, sizeof(*sorted), cmp_str);
	FABRIC_FOREACH_NODE(f, i, node) {
		char *key = desc_host(node->desc, host, sizeof(host)), **hit;

		if (node->type != FABRIC_CA ||
		    (hit = bsearch(&key, sorted, nhosts, sizeof(*sorted), cmp_str)) == NULL)
			continue;
		for (uint8_t k = 1; k <= node->nports; k++) {
			const struct fabric_port *fp = &node->ports[k];

			if (fp->guid == 0 || fp->peer == NULL)
				continue;
			snprintf(member, sizeof(member), "0x%016" PRIx64, fp->guid);
			if (pt_member_add(c, name, member, full, &e) == 0)
				nports++;
			found[hit - sorted] = true;
		}
	}
	for (i = 0; i < nhosts; i++)
		if (!found[i] && (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0))
			lost[nlost++] = sorted[i];
	*missing = nlost ? hostlist_compress(lost, nlost) : NULL;
	free(lost);
	free(found);
	free(sorted);
	return nports;
}

static json_t *
job_json(const struct pt_partition *p)
{
	char pkey[8];
	int idx = pt_committed_index(p->pkey);

	snprintf(pkey, sizeof(pkey), "0x%04x", p->pkey);
	return json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:I}", "job", p->job->id,
	    "partition", p->name, "pkey", pkey, "index", idx >= 0 ? json_integer(idx) : json_null(),
	    "user", p->job->user, "account", p->job->account, "hosts", p->job->hosts,
	    "created_ms", (json_int_t)p->job->created_ms);
}

static void
run_create(struct job_op *op)
{
	const struct pt_partition *old = pt_find_job(pt_state.model, op->id);
	char name[PT_NAME_MAX + 1], *hosts, *missing = NULL, why[160];
	struct fabric *f = pt_fabric_now();
	struct pt_partition *p;
	struct pt_config *c;
	struct pt_err e;
	uint16_t pkey;

	hosts = hostlist_compress((const char *const *)op->hosts, op->nhosts);
	if (old != NULL) {	/* a prolog run twice: the same answer, nothing written */
		if (strcmp(old->job->hosts, hosts) == 0 && op->req) {
			json_t *res = job_json(old);

			json_object_set_new(res, "result", json_string("exists"));
			ctl_reply_ok(op->req, res);
		} else
			answer_error(op, PERR_CONFLICT, "job %s already has partition \"%s\" on "
			    "other hosts (%s)", op->id, old->name, old->job->hosts);
		goto out;
	}
	if (f == NULL && sm_observer_refusal(pt_state.sm, why, sizeof(why)) != NULL) {
		answer_error(op, PERR_UNAVAILABLE, "%s: a job partition is made only where it "
		    "can be verified", why);
		goto out;
	}
	if (f == NULL) {
		answer_error(op, PERR_UNAVAILABLE, "no fabric is managed here (this node is not "
		    "the master SM): a job partition is made only where it can be verified");
		goto out;
	}
	snprintf(name, sizeof(name), JOB_PREFIX "%s", op->id);
	if (pt_find(pt_state.model, name) != NULL) {
		answer_error(op, PERR_CONFLICT, "a partition named \"%s\" exists and is no job's",
		    name);
		goto out;
	}
	if ((pkey = pt_jobs_free_key(pt_state.model, (uint16_t)pj.cfg.pkey_lo,
	    (uint16_t)pj.cfg.pkey_hi)) == 0) {
		answer_error(op, PERR_CAPACITY, "the job P_Key pool 0x%04" PRIx64 "-0x%04" PRIx64
		    " (partitions.jobs.pkeys) is exhausted: %" PRIu64 " keys, all taken",
		    pj.cfg.pkey_lo, pj.cfg.pkey_hi, pj.cfg.pkey_hi - pj.cfg.pkey_lo + 1);
		goto out;
	}
	c = pt_config_dup(pt_state.model);
	if (pt_partition_add(c, name, JOB_TENANT, pkey, &e) != 0) {
		pt_config_free(c);
		answer_error(op, e.code, "%s", e.msg);
		goto out;
	}
	add_host_ports(f, op->hosts, op->nhosts, c, name, pj.cfg.full, &missing);
	if (missing != NULL) {
		pt_config_free(c);
		answer_error(op, PERR_NOT_FOUND, "job %s: not on the fabric: %s (no CA of that name "
		    "with a cabled port); nothing was written", op->id, missing);
		goto out;
	}
	p = pt_find(c, name);
	if (pj.cfg.ipoib)
		p->ipoib = PT_IPOIB_DEFAULT;
	pt_partition_set_job(p, &(struct pt_job){ op->id, op->user, op->account, hosts,
	    event_now_ms() });
	run_change(op, "job create", c);
	free(hosts);
	return;
out:
	free(missing);
	free(hosts);
	op_done(op, false);
}

/* ---- delete and reconcile ---- */

static void
run_delete(struct job_op *op)
{
	const struct pt_partition *old = pt_find_job(pt_state.model, op->id);
	struct pt_config *c;
	struct pt_err e;

	if (old == NULL) {	/* an epilog run twice, or after the reconcile */
		if (op->req)
			ctl_reply_ok(op->req, json_pack("{s:s, s:s, s:s}", "result", "absent", "job",
			    op->id, "message", "no partition for this job: nothing to delete"));
		op_done(op, false);
		return;
	}
	op->gone = job_json(old);
	c = pt_config_dup(pt_state.model);
	if (pt_partition_delete(c, old->name, &e) != 0) {
		pt_config_free(c);
		answer_error(op, e.code, "%s", e.msg);
		op_done(op, false);
		return;
	}
	run_change(op, "job delete", c);
}

static bool
listed(char **ids, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

/* Job partitions older than the question whose job squeue did not list:
 * their epilog never ran (slurmctld down, a node lost).  All in one
 * change. */
static void
run_reconcile(struct job_op *op)
{
	struct pt_config *c = pt_config_dup(pt_state.model);
	json_t *gone = json_array();
	struct pt_err e;
	size_t i = 0;

	while (i < c->nparts) {
		struct pt_partition *p = &c->parts[i];

		if (p->job == NULL || p->job->created_ms >= op->asked_ms ||
		    listed(op->alive, op->nalive, p->job->id)) {
			i++;
			continue;
		}
		json_array_append_new(gone, json_pack("{s:s, s:s}", "job", p->job->id,
		    "partition", p->name));
		event_post(EV_WARNING, "partitions", p->name, "job %s is no longer known to the "
		    "scheduler: its partition %s (P_Key 0x%04x) is removed", p->job->id, p->name,
		    p->pkey);
		(void)pt_partition_delete(c, p->name, &e);
	}
	if (json_array_size(gone) == 0) {
		json_decref(gone);
		pt_config_free(c);
		op_done(op, false);
		return;
	}
	pj.reconciled += json_array_size(gone);
	op->args = json_pack("{s:o}", "removed", gone);
	run_change(op, "job reconcile", c);
}

void
pt_jobs_reconcile_remove(char **ids, size_t n, int64_t asked_ms)
{
	struct job_op *op;

	if (!pj.running)
		return;
	op = xcalloc(1, sizeof(*op));
	op->kind = OP_RECONCILE;
	op->alive = xcalloc(n ? n : 1, sizeof(*op->alive));
	for (size_t i = 0; i < n; i++)
		op->alive[i] = xstrdup(ids[i]);
	op->nalive = n;
	op->asked_ms = asked_ms;
	enqueue(op);
}

static void
on_kick(evutil_socket_t fd, short what, void *arg)
{
	struct job_op *op;

	if (pj.current != NULL || pj.head == NULL)
		return;
	if (pt_state.busy) {	/* a sweep's tables, or an operator's change */
		kick_soon(JOB_RETRY_MS);
		return;
	}
	op = pj.head;
	if ((pj.head = op->next) == NULL)
		pj.tail = NULL;
	op->next = NULL;
	pj.current = op;
	switch (op->kind) {
	case OP_CREATE:
		run_create(op);
		break;
	case OP_DELETE:
		run_delete(op);
		break;
	case OP_RECONCILE:
		run_reconcile(op);
		break;
	}
}

/* ---- commands ---- */

static bool
jobs_ready(struct ctl_req *req)
{
	if (!pt_state.running)
		ctl_reply_error(req, PERR_UNAVAILABLE, "the partitions module is disabled "
		    "(partitions: enabled: true in the configuration)");
	else if (!pj.cfg.enabled)
		ctl_reply_error(req, PERR_UNAVAILABLE, "job partitions are off "
		    "(partitions.jobs.enabled: false)");
	else
		return true;
	return false;
}

static struct job_op *
op_new(struct ctl_req *req, json_t *args, enum op_kind kind)
{
	const char *id = ctl_arg_str(args, "job");
	struct job_op *op;

	if (!pt_job_id_valid(id)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "job id \"%s\": expected 1-40 of "
		    "0-9 A-Z a-z _ . - (SLURM_JOB_ID)", id ? id : "");
		return NULL;
	}
	op = xcalloc(1, sizeof(*op));
	op->kind = kind;
	op->req = req;
	pt_note_caller(req, args);
	op->args = json_incref(args);
	op->id = xstrdup(id);
	return op;
}

static bool
text_ok(struct ctl_req *req, const char *what, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			n = 0;
	if (s != NULL && (n == 0 || n > PT_NAME_MAX)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--%s: expected 1-%d printable "
		    "characters", what, PT_NAME_MAX);
		return false;
	}
	return true;
}

static int
expand(struct ctl_req *req, json_t *items, struct job_op *op)
{
	json_t *v;
	size_t i;
	char err[160];

	json_array_foreach(items, i, v) {
		char **names;
		size_t n;

		if (hostlist_expand(json_string_value(v) ?: "", &names, &n,
		    JOB_MAX_HOSTS - op->nhosts, err, sizeof(err)) != 0) {
			ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts: %s", err);
			return -1;
		}
		op->hosts = xreallocarray(op->hosts, op->nhosts + n + 1, sizeof(*op->hosts));
		memcpy(op->hosts + op->nhosts, names, n * sizeof(*names));
		op->nhosts += n;
		free(names);
	}
	if (op->nhosts == 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts is required: the job's hosts, "
		    "a Slurm hostlist (SLURM_JOB_NODELIST)");
		return -1;
	}
	return 0;
}

void
ctl_partition_job_create(struct ctl_req *req, json_t *args)
{
	const char *user = ctl_arg_str(args, "user"), *account = ctl_arg_str(args, "account");
	struct job_op *op;

	if (!jobs_ready(req) || !text_ok(req, "user", user) || !text_ok(req, "account", account) ||
	    (op = op_new(req, args, OP_CREATE)) == NULL)
		return;
	if (expand(req, json_object_get(args, "hosts"), op) != 0) {
		op_free(op);
		return;
	}
	op->user = xstrdup(user ? user : "");
	op->account = xstrdup(account ? account : "");
	enqueue(op);
}

void
ctl_partition_job_delete(struct ctl_req *req, json_t *args)
{
	struct job_op *op;

	if (jobs_ready(req) && (op = op_new(req, args, OP_DELETE)) != NULL)
		enqueue(op);
}

void
ctl_partition_job_list(struct ctl_req *req, json_t *args)
{
	json_t *rows;
	int64_t now = event_now_ms();

	if (!jobs_ready(req))
		return;
	rows = json_array();
	for (size_t i = 0; i < pt_state.model->nparts; i++) {
		const struct pt_partition *p = &pt_state.model->parts[i];
		json_t *row;

		if (p->job == NULL)
			continue;
		row = job_json(p);
		json_object_set_new(row, "age_s", json_integer((now - p->job->created_ms) / 1000));
		json_object_set_new(row, "members", json_integer((json_int_t)p->nmembers));
		json_array_append_new(rows, row);
	}
	ctl_reply_ok(req, json_pack("{s:o, s:o}", "jobs", rows, "reconcile", pt_reconcile_status()));
}

/* ---- life cycle ---- */

static void
warn_pool_overlap(void)
{
	for (size_t i = 0; i < pt_state.model->nparts; i++) {
		const struct pt_partition *p = &pt_state.model->parts[i];

		if (p->job == NULL && pt_jobs_pool_has(p->pkey))
			event_post(EV_WARNING, "partitions", p->name, "operator partition %s holds "
			    "P_Key 0x%04x, inside the job pool partitions.jobs.pkeys: no job gets that "
			    "key; move the partition or the pool", p->name, p->pkey);
	}
}

void
pt_jobs_configure(const struct pt_jobs_config *cfg)
{
	pj.cfg = *cfg;
	pj.cfg.squeue = NULL;
	pt_reconcile_configure(cfg);
}

void
pt_jobs_start(struct event_base *base, const struct pt_jobs_config *cfg)
{
	pj.running = true;
	pj.kick = evtimer_new(base, on_kick, NULL);
	pt_jobs_configure(cfg);
	warn_pool_overlap();
	pt_reconcile_start(base, cfg, &(struct pt_reconcile_ops){ reconcilable,
	    pt_jobs_reconcile_remove });
}

void
pt_jobs_stop(void)
{
	struct job_op *op;

	pt_reconcile_stop();
	/* the pipeline no longer calls done once the module has stopped: the
	 * change in flight is freed here, its run by the pipeline */
	if (pj.current != NULL)
		op_free(pj.current);
	while ((op = pj.head) != NULL) {
		pj.head = op->next;
		if (op->req)
			ctl_reply_error(op->req, PERR_UNAVAILABLE, "fabricd is stopping");
		op_free(op);
	}
	if (pj.kick)
		event_free(pj.kick);
	memset(&pj, 0, sizeof(pj));
}

json_t *
pt_jobs_status(void)
{
	size_t queued = 0;
	char pool[16];

	for (struct job_op *op = pj.head; op; op = op->next)
		queued++;
	snprintf(pool, sizeof(pool), "0x%04" PRIx64 "-0x%04" PRIx64, pj.cfg.pkey_lo,
	    pj.cfg.pkey_hi);
	return json_pack("{s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:o}", "enabled", pj.cfg.enabled,
	    "pool", pool, "partitions", (json_int_t)pt_jobs_count(), "queued", (json_int_t)queued,
	    "created", (json_int_t)pj.created, "deleted", (json_int_t)pj.deleted,
	    "reconciled", (json_int_t)pj.reconciled, "reconcile", pt_reconcile_status());
}
