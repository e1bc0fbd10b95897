/*
 * The partition control commands (common/commands.def).  Reading commands
 * answer from the committed state; changing ones copy the committed
 * model, edit the copy and hand it to the pipeline (change.c), which
 * answers once the fabric has confirmed or refused it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/fabricd.h"
#include "partitions/files.h"
#include "partitions/internal.h"
#include "partitions/jobs.h"
#include "partitions/replica.h"
#include "partitions/partitions.h"

static bool
ready(struct ctl_req *req)
{
	if (!pt_state.running) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the partitions module is disabled "
		    "(partitions: enabled: true in the configuration)");
		return false;
	}
	return true;
}

static const char *
arg_required(struct ctl_req *req, json_t *args, const char *key)
{
	const char *s = ctl_arg_str(args, key);

	if (s == NULL || s[0] == '\0')
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s is required", key);
	return s && s[0] ? s : NULL;
}

static void
run_change(struct ctl_req *req, json_t *args, const char *action, struct pt_config *proposed)
{
	pt_note_caller(req, args);
	struct pt_change ch = {
		.action = action, .detail = args, .req = req,
		.uid = ctl_req_uid(req), .has_uid = ctl_req_uid(req) != (uid_t)-1,
		.dry_run = ctl_arg_bool(args, "dry_run"), .proposed = proposed,
	};

	pt_change_run(&ch);
}

/* An edit refused by the model itself is also history. */
static void
refuse(struct ctl_req *req, json_t *args, const char *action, struct pt_config *copy,
    const struct pt_err *e)
{
	char *detail;

	pt_note_caller(req, args);
	detail = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
	pt_state.changes_rejected++;
	pt_history_add(ctl_req_uid(req), ctl_req_uid(req) != (uid_t)-1, action, detail, "rejected",
	    e->msg);
	free(detail);
	pt_config_free(copy);
	ctl_reply_error(req, e->code, "%s", e->msg);
}

/*
 * Job partitions change only through the job path (jobs.c): an operator's
 * member add, remove or delete on one is refused, and an operator's
 * partition never takes a key of the job pool or a job's name, so the
 * two never share a key.
 */
static bool
job_owned(struct ctl_req *req, json_t *args, const char *action, const char *name)
{
	const struct pt_partition *p = pt_find(pt_state.model, name);
	struct pt_err e;

	if (p == NULL || p->job == NULL)
		return false;
	pt_err_set(&e, PERR_CONFLICT, "\"%s\" is the partition of job %s: it changes only "
	    "through `partition job` (the job's prolog and epilog)", name, p->job->id);
	refuse(req, args, action, NULL, &e);
	return true;
}

static bool
job_reserved(struct ctl_req *req, json_t *args, const char *action, const char *name,
    uint16_t pkey)
{
	struct pt_err e;

	if (pt_jobs_pool_has(pkey))
		pt_err_set(&e, PERR_CONFLICT, "P_Key 0x%04x is in the job pool "
		    "(partitions.jobs.pkeys): operator partitions take keys outside it", pkey);
	else if (strncmp(name, "job-", 4) == 0)
		pt_err_set(&e, PERR_INVALID_ARGUMENT, "partition name \"%s\": names starting "
		    "with \"job-\" are the job partitions'", name);
	else
		return false;
	refuse(req, args, action, NULL, &e);
	return true;
}

/* An import replaces the operator's partitions only: the jobs' stay,
 * and the file may not hold a key of the pool. */
static int
keep_jobs(struct pt_config *c, struct pt_err *e)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (pt_jobs_pool_has(c->parts[i].pkey) || strncmp(c->parts[i].name, "job-", 4) == 0) {
			pt_err_set(e, PERR_CONFLICT, "partition \"%s\" (P_Key 0x%04x): %s",
			    c->parts[i].name, c->parts[i].pkey, pt_jobs_pool_has(c->parts[i].pkey) ?
			    "the key is in the job pool (partitions.jobs.pkeys)" :
			    "names starting with \"job-\" are the job partitions'");
			return -1;
		}
	for (size_t i = 0; i < pt_state.model->nparts; i++) {
		const struct pt_partition *j = &pt_state.model->parts[i];
		struct pt_partition *p;

		if (j->job == NULL)
			continue;
		if (pt_partition_add(c, j->name, j->tenant, j->pkey, e) != 0)
			return -1;
		p = pt_find(c, j->name);
		p->ipoib = j->ipoib;
		pt_partition_set_job(p, j->job);
		p->members = xcalloc(j->nmembers ? j->nmembers : 1, sizeof(*p->members));
		for (size_t k = 0; k < j->nmembers; k++) {
			p->members[k] = j->members[k];
			p->members[k].pattern = j->members[k].pattern ?
			    xstrdup(j->members[k].pattern) : NULL;
		}
		p->nmembers = j->nmembers;
	}
	return 0;
}

/* Ports (end ports only) that hold pkey per the committed tables. */
static json_t *
holders(uint16_t pkey)
{
	json_t *ports = json_array();
	char guid[24];

	for (size_t i = 0; i < pt_state.ntables; i++) {
		const struct pt_table *t = &pt_state.tables[i];

		for (uint16_t k = 0; k < t->n; k++) {
			if (t->entries[k] == 0 || (t->entries[k] & ~PT_PKEY_FULL) != pkey)
				continue;
			snprintf(guid, sizeof(guid), "0x%016" PRIx64, t->port_guid);
			json_array_append_new(ports, json_pack("{s:s, s:s, s:b, s:i, s:s}",
			    "port", t->label, "guid", guid, "switch_port", t->switch_ext, "index", k,
			    "membership", (t->entries[k] & PT_PKEY_FULL) ? "full" : "limited"));
			if (pt_state.nplanes > 1)
				json_object_set_new(json_array_get(ports, json_array_size(ports) - 1),
				    "subnet", json_string(pt_plane_name(t->plane)));
		}
	}
	return ports;
}

static json_t *
partition_row(const struct pt_partition *p, bool detail)
{
	char pkey[8], buf[80];
	json_t *row, *ports = holders(p->pkey);
	size_t nend = 0;

	for (size_t i = 0; i < json_array_size(ports); i++)
		nend += !json_is_true(json_object_get(json_array_get(ports, i), "switch_port"));
	snprintf(pkey, sizeof(pkey), "0x%04x", p->pkey);
	int idx = pt_committed_index(p->pkey);

	/* no index yet: the key is on no port (no member present, no SM) */
	row = json_pack("{s:s, s:s, s:s, s:o}", "name", p->name, "tenant", p->tenant,
	    "pkey", pkey, "index", idx >= 0 ? json_integer(idx) : json_null());
	if (!detail) {
		json_object_set_new(row, "members", json_integer((json_int_t)p->nmembers));
		json_object_set_new(row, "ports", json_integer((json_int_t)nend));
		json_object_set_new(row, "switch_ports",
		    json_integer((json_int_t)(json_array_size(ports) - nend)));
		json_decref(ports);
		return row;
	}
	json_t *members = json_array();
	for (size_t i = 0; i < p->nmembers; i++)
		json_array_append_new(members, json_pack("{s:s, s:s}", "member",
		    pt_member_text(&p->members[i], buf, sizeof(buf)),
		    "membership", p->members[i].full ? "full" : "limited"));
	json_object_set_new(row, "members", members);
	json_object_set_new(row, "ports", ports);
	return row;
}

/* The default partition (0x7fff), first: every port holds it, the SM's
 * full and the others as partitions.default_membership says; its
 * members are every port, not a list ("members" null, "default" true). */
static json_t *
default_row(bool detail)
{
	json_t *ports = holders(PT_PKEY_DEFAULT), *row;
	int idx = -1;
	size_t nend = 0;
	char pkey[8];

	for (size_t i = 0; i < json_array_size(ports); i++) {
		json_t *h = json_array_get(ports, i);

		nend += !json_is_true(json_object_get(h, "switch_port"));
		if (idx < 0)	/* where the SM keeps it: index 0 on every port */
			idx = (int)json_integer_value(json_object_get(h, "index"));
	}
	snprintf(pkey, sizeof(pkey), "0x%04x", PT_PKEY_DEFAULT);
	row = json_pack("{s:s, s:s, s:s, s:o, s:n, s:I, s:I, s:b, s:s}", "name", PT_DEFAULT_NAME,
	    "tenant", "-", "pkey", pkey, "index", idx >= 0 ? json_integer(idx) : json_null(),
	    "members", "ports", (json_int_t)nend, "switch_ports",
	    (json_int_t)(json_array_size(ports) - nend), "default", true, "others",
	    pt_default_policy_name(pt_state.model->default_policy));
	if (detail)	/* partition show default: the ports themselves */
		json_object_set_new(row, "ports", ports);
	else
		json_decref(ports);
	return row;
}

void
ctl_partition_list(struct ctl_req *req, json_t *args)
{
	json_t *rows;

	if (!ready(req))
		return;
	rows = json_array();
	json_array_append_new(rows, default_row(false));
	for (size_t i = 0; i < pt_state.model->nparts; i++)
		json_array_append_new(rows, partition_row(&pt_state.model->parts[i], false));
	ctl_reply_ok(req, rows);
}

void
ctl_partition_show(struct ctl_req *req, json_t *args)
{
	const char *name;
	const struct pt_partition *p;

	if (!ready(req) || (name = arg_required(req, args, "name")) == NULL)
		return;
	if (strcmp(name, PT_DEFAULT_NAME) == 0) {
		ctl_reply_ok(req, default_row(true));
		return;
	}
	if ((p = pt_find(pt_state.model, name)) == NULL) {
		ctl_reply_error(req, PERR_NOT_FOUND, "no partition \"%s\"", name);
		return;
	}
	ctl_reply_ok(req, partition_row(p, true));
}

void
ctl_partition_create(struct ctl_req *req, json_t *args)
{
	const char *name, *pkey_text;
	struct pt_config *c;
	struct pt_err e;
	uint16_t pkey;

	if (!ready(req) || (name = arg_required(req, args, "name")) == NULL ||
	    (pkey_text = arg_required(req, args, "pkey")) == NULL)
		return;
	if (pt_pkey_parse(pkey_text, &pkey, &e) == 0 &&
	    job_reserved(req, args, "create", name, pkey))
		return;
	c = pt_config_dup(pt_state.model);
	if (pt_pkey_parse(pkey_text, &pkey, &e) != 0 ||
	    pt_partition_add(c, name, ctl_arg_str(args, "tenant"), pkey, &e) != 0) {
		refuse(req, args, "create", c, &e);
		return;
	}
	run_change(req, args, "create", c);
}

void
ctl_partition_delete(struct ctl_req *req, json_t *args)
{
	const char *name;
	struct pt_config *c;
	struct pt_err e;

	if (!ready(req) || (name = arg_required(req, args, "name")) == NULL ||
	    job_owned(req, args, "delete", name))
		return;
	c = pt_config_dup(pt_state.model);
	if (pt_partition_delete(c, name, &e) != 0) {
		refuse(req, args, "delete", c, &e);
		return;
	}
	run_change(req, args, "delete", c);
}

void
ctl_partition_member_add(struct ctl_req *req, json_t *args)
{
	const char *name, *member;
	struct pt_config *c;
	struct pt_err e;

	if (!ready(req) || (name = arg_required(req, args, "name")) == NULL ||
	    (member = arg_required(req, args, "member")) == NULL ||
	    job_owned(req, args, "member add", name))
		return;
	if (ctl_arg_bool(args, "full") && ctl_arg_bool(args, "limited")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--full and --limited exclude each other");
		return;
	}
	c = pt_config_dup(pt_state.model);
	if (pt_member_add(c, name, member, !ctl_arg_bool(args, "limited"), &e) != 0) {
		refuse(req, args, "member add", c, &e);
		return;
	}
	run_change(req, args, "member add", c);
}

void
ctl_partition_member_remove(struct ctl_req *req, json_t *args)
{
	const char *name, *member;
	struct pt_config *c;
	struct pt_err e;

	if (!ready(req) || (name = arg_required(req, args, "name")) == NULL ||
	    (member = arg_required(req, args, "member")) == NULL ||
	    job_owned(req, args, "member remove", name))
		return;
	c = pt_config_dup(pt_state.model);
	if (pt_member_remove(c, name, member, &e) != 0) {
		refuse(req, args, "member remove", c, &e);
		return;
	}
	run_change(req, args, "member remove", c);
}

void
ctl_partition_history(struct ctl_req *req, json_t *args)
{
	long long limit = 100;

	if (!ready(req))
		return;
	if (ctl_arg_int(args, "limit", &limit) && (limit < 1 || limit > 100000)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--limit: expected 1-100000");
		return;
	}
	ctl_reply_ok(req, pt_store_history_list(pt_state.store, limit));
}

/* --hosts items are Slurm hostlists (gpu[01-08]): one array of names, or
 * NULL after an error reply. */
static json_t *
expand_hosts(struct ctl_req *req, json_t *items)
{
	json_t *out = json_array(), *v;
	char **names, err[160];
	size_t i, n;

	json_array_foreach(items, i, v) {
		if (hostlist_expand(json_string_value(v) ? json_string_value(v) : "", &names, &n,
		    4096, err, sizeof(err)) != 0) {
			ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts: %s", err);
			json_decref(out);
			return NULL;
		}
		for (size_t k = 0; k < n; k++) {
			json_array_append_new(out, json_string(names[k]));
			free(names[k]);
		}
		free(names);
	}
	return out;
}

/* A port's name in answers: "host5:1", or "plane2/host5:1" over planes. */
static const char *
port_name(const struct pt_table *t, char *buf, size_t len)
{
	if (pt_state.nplanes < 2)
		return t->label;
	snprintf(buf, len, "%s/%s", pt_plane_name(t->plane), t->label);
	return buf;
}

/*
 * One index for the job: every port of every host, on every plane of the
 * group, holds the key at the same index, or there is no NCCL_IB_PKEY to
 * give (NCCL takes one index for all its HCAs).
 */
void
ctl_partition_nccl_env(struct ctl_req *req, json_t *args)
{
	const char *name;
	const struct pt_partition *p;
	json_t *hosts = NULL, *ports = json_array(), *h;
	int index = -2;
	size_t i;

	if (!ready(req) || (name = arg_required(req, args, "name")) == NULL) {
		json_decref(ports);
		return;
	}
	if ((p = pt_find(pt_state.model, name)) == NULL) {
		json_decref(ports);
		ctl_reply_error(req, PERR_NOT_FOUND, "no partition \"%s\"", name);
		return;
	}
	if (json_is_array(json_object_get(args, "hosts"))) {
		if ((hosts = expand_hosts(req, json_object_get(args, "hosts"))) == NULL) {
			json_decref(ports);
			return;
		}
		/* args owns the expanded list from here: freed with the request. */
		json_object_set_new(args, "hosts", hosts);
	}
	if (!json_is_array(hosts) || json_array_size(hosts) == 0) {
		json_decref(ports);
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts=H1,H2,... is required");
		return;
	}
	json_array_foreach(hosts, i, h) {
		const char *host = json_string_value(h);
		bool on_plane[PT_MAX_PLANES] = { false };
		size_t found = 0;
		char lbl[2 * FABRIC_NODE_DESC_LEN];

		for (size_t k = 0; host && k < pt_state.ntables; k++) {
			const struct pt_table *t = &pt_state.tables[k];
			bool full = false;
			int idx;

			if (t->switch_ext || t->port == 0 || !pt_label_is_host(t->label, host))
				continue;
			found++;
			on_plane[t->plane < PT_MAX_PLANES ? t->plane : 0] = true;
			idx = pt_table_index(t, p->pkey, &full);
			if (idx < 0 || (index != -2 && idx != index)) {
				json_decref(ports);
				if (idx < 0)
					ctl_reply_error(req, PERR_CHECK_FAILED, "port %s does not hold "
					    "P_Key 0x%04x of \"%s\"", port_name(t, lbl, sizeof(lbl)),
					    p->pkey, name);
				else
					ctl_reply_error(req, PERR_CHECK_FAILED, "P_Key 0x%04x is at index "
					    "%d on %s but %d elsewhere: no single NCCL_IB_PKEY fits",
					    p->pkey, idx, port_name(t, lbl, sizeof(lbl)), index);
				return;
			}
			index = idx;
			json_array_append_new(ports, json_pack("{s:s, s:i, s:s}", "port",
			    port_name(t, lbl, sizeof(lbl)), "index", idx, "membership",
			    full ? "full" : "limited"));
		}
		for (size_t pl = 0; found > 0 && pl < pt_state.nplanes; pl++)
			if (!on_plane[pl]) {
				json_decref(ports);
				ctl_reply_error(req, PERR_CHECK_FAILED, "host \"%s\" has no port known to "
				    "hold a P_Key table on %s: no NCCL_IB_PKEY is valid on every plane",
				    host, pt_plane_name(pl));
				return;
			}
		if (found == 0) {
			json_decref(ports);
			ctl_reply_error(req, PERR_NOT_FOUND, "host \"%s\": no port of it is known "
			    "to hold any P_Key table", host ? host : "");
			return;
		}
	}
	char env[32];
	snprintf(env, sizeof(env), "NCCL_IB_PKEY=%d", index);
	ctl_reply_ok(req, json_pack("{s:s, s:i, s:s, s:o}", "env", env, "index", index,
	    "partition", name, "ports", ports));
}

void
ctl_partition_import(struct ctl_req *req, json_t *args)
{
	const struct ctl_file *file = ctl_arg_file(req, "file");
	struct pt_config *c;
	struct pt_err e;
	char *err;

	if (!ready(req))
		return;
	if (file == NULL) {	/* the spec makes FILE required: a bug if so */
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "FILE is missing");
		return;
	}
	if (pt_text_load(file->name, file->data, file->len, &c, &err) != 0) {
		pt_err_set(&e, PERR_INVALID_ARGUMENT, "%s", err);
		free(err);
		refuse(req, args, "import", NULL, &e);
		return;
	}
	if (keep_jobs(c, &e) != 0) {
		refuse(req, args, "import", c, &e);
		return;
	}
	run_change(req, args, "import", c);
}

void
ctl_partition_export(struct ctl_req *req, json_t *args)
{
	char *text;

	if (!ready(req))
		return;
	text = pt_yaml_export(pt_state.model);
	ctl_reply_ok(req, json_pack("{s:s}", "yaml", text));
	free(text);
}
