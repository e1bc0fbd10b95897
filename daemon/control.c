/*
 * Control protocol: requests, access, dispatch, replies.  The transport
 * (connections, credentials, limits, passed descriptors) is
 * daemon/control_conn.c.
 *
 * Order of checks for each request line, cheapest first: JSON syntax,
 * shape (v, id, cmd, args), protocol version, command known, caller
 * allowed, arguments against the command's spec (common/spec.h), files
 * passed as descriptors, then dispatch.  Every failure is answered with an
 * error object; a caller with no access at all is answered once and
 * disconnected, anyone else keeps the connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/guid.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/spec.h"
#include "common/utf8.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/control_conn.h"
#include "daemon/control_files.h"
#include "daemon/control_tls.h"
#include "daemon/fabricd.h"

#define CTL_MAX_ERROR	16384		/* bytes of one error message */
#define CTL_MAX_REPLY	(32u << 20)	/* bytes of one reply line */

/* the commands (control_init), each one's spec parsed once at start */
static struct fabricd *ctl_daemon;	/* whose requests these are */
static const struct ctl_command *ctl_commands;
static size_t ncommands;
static struct spec *ctl_specs;
#define NCOMMANDS ncommands

/* the SM's mastership, asked for each remote request (control.h) */
static ctl_sm_probe sm_probe;
static void *sm_probe_arg;

struct ctl_req {
	struct ctl_conn	*conn;		/* NULL once the client is gone */
	json_t		*id;
	char		*cmd;
	uid_t		 uid;		/* (uid_t)-1 over TLS */
	bool		 admin;
	char		 who[96];	/* "uid N", "cert CN" */
	void		(*gone_cb)(struct ctl_req *, void *);
	void		*gone_arg;
	struct ctl_file	 files[CTL_MAX_FDS];
	size_t		 nfiles;
	char		 subnet[CTL_SUBNET_NAME_MAX + 1];	/* "" when none named */
	struct ctl_req	*next;		/* in the connection's pending list */
};

static struct ctl_req **
pending_of(struct ctl_conn *c)
{
	return (struct ctl_req **)ctl_conn_data(c);
}

static void
conn_send_json(struct ctl_conn *c, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);

	if (text == NULL)
		return;
	ctl_conn_send(c, text, strlen(text));
	free(text);
}

static json_t *
reply_base(json_t *id)
{
	return json_pack("{s:i, s:O}", "v", PROTO_VERSION, "id", id ? id : json_null());
}

/* The message may quote a client, a file or the fabric: make it valid
 * UTF-8 and bounded, so that "error" is never lost to jansson refusing it. */
static void
send_error_with(struct ctl_conn *c, json_t *id, enum proto_error code, const char *msg,
    json_t *extra)
{
	char *clean = utf8_clean(msg, CTL_MAX_ERROR);
	json_t *r = reply_base(id), *e = json_pack("{s:s, s:s}", "code", proto_error_code(code),
	    "message", clean);

	if (extra)
		json_object_update(e, extra);
	json_object_set_new(r, "ok", json_false());
	json_object_set_new(r, "error", e);
	conn_send_json(c, r);
	json_decref(r);
	json_decref(extra);
	free(clean);
}

static void
send_error(struct ctl_conn *c, json_t *id, enum proto_error code, const char *msg)
{
	send_error_with(c, id, code, msg, NULL);
}

static void
req_unlink(struct ctl_req *req)
{
	struct ctl_req **pp;

	if (req->conn == NULL)
		return;
	for (pp = pending_of(req->conn); *pp; pp = &(*pp)->next) {
		if (*pp == req) {
			*pp = req->next;
			break;
		}
	}
	req->conn = NULL;
}

static void
req_free(struct ctl_req *req)
{
	req_unlink(req);
	for (size_t i = 0; i < req->nfiles; i++) {
		free(req->files[i].name);
		free(req->files[i].data);
	}
	json_decref(req->id);
	free(req->cmd);
	free(req);
}

void
ctl_reply_ok(struct ctl_req *req, json_t *result)
{
	if (req->conn) {
		json_t *r = reply_base(req->id);
		char *text;

		json_object_set_new(r, "ok", json_true());
		json_object_set_new(r, "result", result ? result : json_object());
		text = json_dumps(r, JSON_COMPACT | PROTO_JSON_REAL);
		if (text == NULL)
			send_error(req->conn, req->id, PERR_INTERNAL, "the reply could not be encoded");
		else if (strlen(text) > CTL_MAX_REPLY)
			send_error(req->conn, req->id, PERR_TOO_LARGE, "the reply exceeds 32 MiB; "
			    "ask for less (a node, a port)");
		else
			ctl_conn_send(req->conn, text, strlen(text));
		free(text);
		json_decref(r);
	} else {
		json_decref(result);
	}
	req_free(req);
}

void
ctl_reply_error(struct ctl_req *req, enum proto_error code, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		fatal("ctl_reply_error");
	va_end(ap);
	if (req->conn)
		send_error(req->conn, req->id, code, msg);
	free(msg);
	req_free(req);
}

int
ctl_reply_stream(struct ctl_req *req, json_t *item)
{
	json_t *r;

	if (req->conn == NULL) {
		json_decref(item);
		return -1;
	}
	r = reply_base(req->id);
	json_object_set_new(r, "stream", item);
	conn_send_json(req->conn, r);
	json_decref(r);
	return 0;
}

uid_t ctl_req_uid(const struct ctl_req *req) { return req->uid; }
const char *ctl_req_who(const struct ctl_req *req) { return req->who; }
struct fabricd *ctl_req_daemon(const struct ctl_req *req) { (void)req; return ctl_daemon; }
bool ctl_req_admin(const struct ctl_req *req) { return req->admin; }
bool ctl_req_gone(const struct ctl_req *req) { return req->conn == NULL; }
size_t ctl_req_unsent(const struct ctl_req *req) { return req->conn ? ctl_conn_unsent(req->conn) : 0; }
const char *ctl_req_command(const struct ctl_req *req) { return req->cmd; }

void
ctl_req_on_gone(struct ctl_req *req, void (*cb)(struct ctl_req *, void *), void *arg)
{
	req->gone_cb = cb;
	req->gone_arg = arg;
}

const struct ctl_file *
ctl_arg_file(const struct ctl_req *req, const char *key)
{
	for (size_t i = 0; i < req->nfiles; i++)
		if (strcmp(req->files[i].key, key) == 0)
			return &req->files[i];
	return NULL;
}

const char *
ctl_arg_str(json_t *args, const char *key)
{
	return json_string_value(json_object_get(args, key));
}

bool
ctl_arg_bool(json_t *args, const char *key)
{
	return json_is_true(json_object_get(args, key));
}

bool
ctl_arg_int(json_t *args, const char *key, long long *out)
{
	json_t *v = json_object_get(args, key);

	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

static size_t
find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(ctl_commands[i].name, name) == 0)
			return i;
	return NCOMMANDS;
}

/*
 * The files a request names: each FILE argument is {"fd": i, "name":
 * label}, i indexing the descriptors that came with the request.  Reading
 * through the caller's descriptor is what keeps the daemon from reading
 * anything the caller could not: it never opens the label.  Here, on the
 * loop, only the indices are checked and each descriptor duplicated
 * (that never blocks); the reading is done by a reader thread
 * (control_files.c), and the command runs when it is done.
 */
/*
 * Over TLS no descriptor can travel: fabricctl reads the file with its
 * caller's rights and sends it inline, {"data": text, "name": label},
 * bounded as a passed file is.  Only there: on the socket a path's
 * contents always come through the caller's own descriptor.
 */
static int
inline_file(struct ctl_req *req, const struct spec_arg *a, json_t *v, char *why, size_t len)
{
	json_t *d = json_object_get(v, "data");
	struct ctl_file *f;
	size_t n;

	if (!json_is_string(d)) {
		snprintf(why, len, "argument \"%s\": over the remote channel a file travels inline "
		    "({\"data\": text, \"name\": label}): no descriptor can pass over TCP", a->key);
		return -1;
	}
	n = json_string_length(d);
	if (n > FILE_MAX_INPUT || memchr(json_string_value(d), '\0', n) != NULL ||
	    req->nfiles == CTL_MAX_FDS) {
		snprintf(why, len, "argument \"%s\": inline data must be text of at most %u bytes",
		    a->key, (unsigned)FILE_MAX_INPUT);
		return -1;
	}
	f = &req->files[req->nfiles++];
	snprintf(f->key, sizeof(f->key), "%s", a->key);
	f->name = xstrdup(json_string_value(json_object_get(v, "name")));
	f->data = xmalloc(n + 1);
	memcpy(f->data, json_string_value(d), n + 1);
	f->len = n;
	return 0;
}

static int
collect_files(struct ctl_req *req, const struct spec *sp, json_t *args, struct ctl_fds *fds,
    int *fdv, char *why, size_t len)
{
	for (size_t i = 0; i < sp->n; i++) {
		const struct spec_arg *a = &sp->arg[i];
		json_t *v = json_object_get(args, a->key);
		struct ctl_file *f;
		json_int_t idx;

		if (a->type != SPEC_FILE || v == NULL)
			continue;
		if (ctl_conn_remote(req->conn)) {
			if (inline_file(req, a, v, why, len) != 0)
				return -1;
			continue;
		}
		if (json_object_get(v, "data") != NULL) {
			snprintf(why, len, "argument \"%s\": inline file data is taken only over the "
			    "remote channel; on the socket pass the file as a descriptor", a->key);
			return -1;
		}
		idx = json_integer_value(json_object_get(v, "fd"));
		if (idx < 0 || (size_t)idx >= fds->n || fds->fd[idx] < 0) {
			snprintf(why, len, "argument \"%s\": no descriptor %lld came with the request "
			    "(fabricd opens no path for a client: pass the file with SCM_RIGHTS)",
			    a->key, (long long)idx);
			return -1;
		}
		if (req->nfiles == CTL_MAX_FDS ||
		    (fdv[req->nfiles] = fcntl(fds->fd[idx], F_DUPFD_CLOEXEC, 0)) < 0) {
			snprintf(why, len, "argument \"%s\": the descriptor cannot be kept", a->key);
			return -1;
		}
		f = &req->files[req->nfiles++];
		snprintf(f->key, sizeof(f->key), "%s", a->key);
		f->name = xstrdup(json_string_value(json_object_get(v, "name")));
	}
	return 0;
}

/* A request waiting for its files to be read. */
struct files_wait {
	struct ctl_req	*req;
	size_t		 ci;
	json_t		*args;
};

static void
files_read(void *arg, struct ctl_files_result *r)
{
	struct files_wait *w = arg;
	struct ctl_req *req = w->req;
	json_t *args = w->args;
	size_t ci = w->ci;

	free(w);
	if (r->status != CTL_FILES_OK) {
		size_t k = r->status == CTL_FILES_REFUSED ? r->failed : 0;
		ctl_reply_error(req, r->status == CTL_FILES_TIMEOUT ? PERR_TIMEOUT :
		    PERR_INVALID_ARGUMENT, "argument \"%s\": %s", req->files[k].key, r->why);
	} else if (req->conn == NULL) {		/* the caller left: nobody to run it for */
		req_free(req);
	} else {
		for (size_t i = 0; i < req->nfiles; i++) {
			req->files[i].data = r->data[i];
			req->files[i].len = r->len[i];
			r->data[i] = NULL;
		}
		ctl_commands[ci].handler(req, args);
	}
	json_decref(args);
}

static void
dispatch(struct ctl_conn *c, size_t ci, json_t *id, json_t *args, struct ctl_fds *fds,
    const char *subnet)
{
	const struct ctl_command *cmd = &ctl_commands[ci];
	struct ctl_req *req;
	struct files_wait *w;
	int fdv[CTL_MAX_FDS];
	char why[256];

	if (spec_check(&ctl_specs[ci], args, why, sizeof(why)) != 0) {
		send_error(c, id, PERR_INVALID_ARGUMENT, why);
		return;
	}
	req = xcalloc(1, sizeof(*req));
	req->conn = c;
	req->id = json_incref(id);
	req->cmd = xstrdup(cmd->name);
	req->uid = ctl_conn_uid(c);
	req->admin = ctl_conn_role(c) == ROLE_ADMIN;
	snprintf(req->who, sizeof(req->who), "%s", ctl_conn_who(c));
	snprintf(req->subnet, sizeof(req->subnet), "%s", subnet ? subnet : "");
	req->next = *pending_of(c);
	*pending_of(c) = req;
	if (collect_files(req, &ctl_specs[ci], args, fds, fdv, why, sizeof(why)) != 0) {
		for (size_t i = 0; i < req->nfiles; i++)
			close(fdv[i]);
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s", why);
		return;
	}
	if (req->nfiles == 0 || ctl_conn_remote(c)) {	/* nothing to read, or read inline */
		cmd->handler(req, args);
		return;
	}
	w = xmalloc(sizeof(*w));
	*w = (struct files_wait){ req, ci, json_incref(args) };
	if (ctl_files_read(fdv, req->nfiles, req->uid, files_read, w, why, sizeof(why)) != 0) {
		for (size_t i = 0; i < req->nfiles; i++)
			close(fdv[i]);
		json_decref(w->args);
		free(w);
		ctl_reply_error(req, PERR_BUSY, "%s", why);
	}
}

/* The control.peers entry of the SM port guid, or NULL. */
static const char *
peer_address(uint64_t guid)
{
	const struct fabricd_config *cfg = ctl_daemon ? ctl_daemon->config : NULL;

	for (size_t i = 0; cfg && guid && i < cfg->npeers; i++)
		if (cfg->peers[i].guid == guid)
			return cfg->peers[i].address;
	return NULL;
}

/*
 * A remote client asking a standby anything but status or version is
 * sent to the master: only the master changes the fabric, and what a
 * standby would read is its last copy.  The master is the SM this one
 * follows (its SMInfo's port GUID), named by control.peers when an entry
 * carries that GUID.  true when it answered.
 */
static bool
refuse_not_master(struct ctl_conn *c, json_t *id, const char *name)
{
	struct ctl_sm_state st = { .master = true };
	const char *addr;
	char msg[256], g[24];

	if (!ctl_conn_remote(c) || sm_probe == NULL || strcmp(name, "status") == 0 ||
	    strcmp(name, "version") == 0)
		return false;
	sm_probe(sm_probe_arg, &st);
	if (st.master)
		return false;
	addr = peer_address(st.master_guid);
	guid_format(st.master_guid, g, sizeof(g));
	if (st.master_guid == 0)
		snprintf(msg, sizeof(msg), "not master: no master is known yet (this SM is still "
		    "discovering or the master stopped answering)");
	else if (addr)
		snprintf(msg, sizeof(msg), "not master: the master is %s (SM port %s)", addr, g);
	else
		snprintf(msg, sizeof(msg), "not master: the master is SM port %s, LID %u, which no "
		    "control.peers entry of this fabricd names", g, st.master_lid);
	send_error_with(c, id, PERR_NOT_MASTER, msg, json_pack("{s:s?, s:s?}", "master", addr,
	    "master_guid", st.master_guid ? g : NULL));
	return true;
}

void
control_set_sm_probe(ctl_sm_probe probe, void *arg)
{
	sm_probe = probe;
	sm_probe_arg = arg;
}

/* sm.subnets' names, the primary first (control.h) */
#define CTL_MAX_SUBNETS	16
static char subnet_names[CTL_MAX_SUBNETS][CTL_SUBNET_NAME_MAX + 1];
static bool subnet_planes[CTL_MAX_SUBNETS];	/* in the first's tenant space */
static size_t nsubnet_names;

void
control_set_subnets(const char *const *names, const bool *planes, size_t n)
{
	nsubnet_names = 0;
	for (size_t i = 0; i < n && i < CTL_MAX_SUBNETS; i++) {
		subnet_planes[nsubnet_names] = planes != NULL && planes[i];
		snprintf(subnet_names[nsubnet_names++], sizeof(subnet_names[0]), "%s", names[i]);
	}
}

const char *
ctl_req_subnet(const struct ctl_req *req)
{
	return req->subnet[0] ? req->subnet : NULL;
}

/* The commands a subnet's SM answers (commands.def's PER_SUBNET): they
 * take any subnet; status shows the one named; the rest (partitions,
 * health, RoCE, validation, the daemon's own) serve the primary subnet. */
static bool
command_per_subnet(const char *wire)
{
	static const char *const per_subnet[] = {
#define CMD(ident, wire, access, words, spec, help, ...)
#define PER_SUBNET(wire) wire,
#include "common/commands.def"
#undef PER_SUBNET
#undef CMD
		NULL
	};

	for (size_t i = 0; per_subnet[i]; i++)
		if (strcmp(per_subnet[i], wire) == 0)
			return true;
	return false;
}

/* Why the request's "subnet" cannot be served (into why), or false. */
static bool
refuse_subnet(const char *cmd, json_t *subnet, char *why, size_t len)
{
	const char *name = json_string_value(subnet);
	size_t i, off;

	if (subnet == NULL)
		return false;
	if (name == NULL || *name == '\0' || strlen(name) > CTL_SUBNET_NAME_MAX) {
		snprintf(why, len, "\"subnet\" must be a subnet's name (at most %d characters)",
		    CTL_SUBNET_NAME_MAX);
		return true;
	}
	if (nsubnet_names == 0) {
		snprintf(why, len, "--subnet %.*s: this fabricd serves one subnet (no sm.subnets "
		    "in its configuration); leave --subnet out", utf8_cut(name, 32), name);
		return true;
	}
	for (i = 0; i < nsubnet_names && strcmp(subnet_names[i], name) != 0; i++)
		;
	if (i == nsubnet_names) {
		off = (size_t)snprintf(why, len, "--subnet %.*s: no such subnet here; the subnets "
		    "are", utf8_cut(name, 32), name);
		for (i = 0; i < nsubnet_names && off < len; i++)
			off += (size_t)snprintf(why + off, len - off, "%s %s", i ? "," : "",
			    subnet_names[i]);
		return true;
	}
	/* partitions are one tenant space over the first subnet's planes */
	if (i > 0 && !command_per_subnet(cmd) &&
	    !(subnet_planes[i] && strncmp(cmd, "partition.", 10) == 0)) {
		snprintf(why, len, "--subnet %s: %s serves the first subnet, %s, only (partitions "
		    "outside its plane group, health, RoCE, validation and the daemon's own "
		    "commands are not per subnet yet)", name, cmd, subnet_names[0]);
		return true;
	}
	return false;
}

static void
handle_line(struct ctl_conn *c, const char *line, size_t len, struct ctl_fds *fds)
{
	json_t *msg, *id, *v, *args;
	enum ctl_role role = ctl_conn_role(c);
	json_error_t jerr;
	const char *name;
	char text[256];
	size_t ci;

	msg = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (msg == NULL || !json_is_object(msg)) {
		snprintf(text, sizeof(text), "not a JSON object: %s", msg ? "wrong type" : jerr.text);
		send_error(c, NULL, PERR_BAD_JSON, text);
		json_decref(msg);
		return;
	}
	id = json_object_get(msg, "id");
	v = json_object_get(msg, "v");
	name = json_string_value(json_object_get(msg, "cmd"));
	args = json_object_get(msg, "args");
	if (!json_is_integer(id) || !json_is_integer(v) || name == NULL ||
	    (args && !json_is_object(args))) {
		send_error(c, json_is_integer(id) ? id : NULL, PERR_BAD_REQUEST,
		    "a request needs integer \"v\" and \"id\", string \"cmd\", object \"args\"");
	} else if (json_integer_value(v) != PROTO_VERSION) {
		snprintf(text, sizeof(text), "protocol version mismatch (client %lld, server %d)",
		    (long long)json_integer_value(v), PROTO_VERSION);
		send_error(c, id, PERR_VERSION, text);
	} else if ((ci = find_command(name)) == NCOMMANDS) {
		snprintf(text, sizeof(text), "unknown command \"%.*s\"", utf8_cut(name, 64), name);
		send_error(c, id, PERR_UNKNOWN_COMMAND, text);
	} else if (!ctl_access_allows(role, ctl_commands[ci].access)) {
		snprintf(text, sizeof(text), "%s: permission denied for %s (role %s)", name,
		    ctl_conn_who(c), ctl_role_name(role));
		send_error(c, id, PERR_PERMISSION, text);
		if (role == ROLE_NONE)	/* nothing else to offer: free the slot */
			ctl_conn_close_when_flushed(c);
	} else if (refuse_subnet(name, json_object_get(msg, "subnet"), text, sizeof(text))) {
		send_error(c, id, PERR_INVALID_ARGUMENT, text);
	} else if (!refuse_not_master(c, id, name)) {
		if (args == NULL) {
			args = json_object();
			json_object_set_new(msg, "args", args);
		}
		dispatch(c, ci, id, args, fds, json_string_value(json_object_get(msg, "subnet")));
	}
	json_decref(msg);
}

/* Requests still running lose their client; their handlers finish and
 * answer into the void. */
static void
conn_closed(struct ctl_conn *c)
{
	struct ctl_req **pending = pending_of(c);

	while (*pending) {
		struct ctl_req *req = *pending;
		*pending = req->next;
		req->conn = NULL;
		if (req->gone_cb)
			req->gone_cb(req, req->gone_arg);
	}
}

static bool
conn_in_flight(struct ctl_conn *c)
{
	return *pending_of(c) != NULL;
}

static const struct ctl_conn_ops ctl_ops = {
	.line = handle_line,
	.closed = conn_closed,
	.in_flight = conn_in_flight,
};

/* Group names are resolved when the configuration is loaded, never per
 * connection: the caller's groups then come from the kernel alone. */
static gid_t
group_gid(const char *name)
{
	struct group *gr;

	if (name == NULL)
		return (gid_t)-1;
	if ((gr = getgrnam(name)) == NULL) {
		log_warnx("control: group \"%s\" does not exist; nobody gets its access", name);
		return (gid_t)-1;
	}
	return gr->gr_gid;
}

void
control_configure(const struct fabricd_config *cfg)
{
	struct ctl_policy p = {
		.admin_gid = group_gid(cfg->admin_group),
		.read_gid = group_gid(cfg->read_group),
		.jobs_gid = group_gid(cfg->jobs_group),
		.max_conns = (unsigned)cfg->max_connections,
		.max_per_user = (unsigned)cfg->max_connections_per_user,
		.idle_ms = cfg->idle_timeout_ms,
	};

	ctl_conn_set_policy(&p);
	ctl_tls_set_clients(cfg->clients, cfg->nclients);
}

/* The TLS channel: its files are loaded now, so that a wrong path or a
 * key that does not match stops the start with its reason. */
static int
listen_remote(const struct fabricd_config *cfg)
{
	char why[512];
	SSL_CTX *ctx = ctl_tls_context(&cfg->control_tls, why, sizeof(why));

	if (ctx == NULL) {
		log_warnx("control.tls: %s", why);
		return -1;
	}
	if (ctl_conn_listen_tls(cfg->control_listen, ctx) != 0) {
		SSL_CTX_free(ctx);
		return -1;
	}
	return 0;
}

int
control_init(struct fabricd *fd, const struct fabricd_config *cfg,
    const struct ctl_command *cmds, size_t n)
{
	ctl_daemon = fd;
	ctl_commands = cmds;
	ncommands = n;
	free(ctl_specs);
	ctl_specs = xcalloc(n ? n : 1, sizeof(*ctl_specs));
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (spec_parse(ctl_commands[i].spec_text, &ctl_specs[i]) != 0)
			fatalx("commands.def: bad argument spec for %s", ctl_commands[i].name);
	control_configure(cfg);
	if (ctl_files_init(fd->base) != 0 || ctl_conn_listen(fd->base, cfg->socket, &ctl_ops) != 0)
		return -1;
	return cfg->control_listen ? listen_remote(cfg) : 0;
}

json_t *
control_status(void)
{
	json_t *o = ctl_conn_stats();

	json_object_set_new(o, "remote", ctl_conn_tls_stats());
	return o;
}

void
control_shutdown(void)
{
	ctl_conn_shutdown();
	ctl_conn_tls_shutdown();
	ctl_tls_clear();
	ctl_files_shutdown();
	free(ctl_specs);
	ctl_specs = NULL;
	ncommands = 0;
	ctl_daemon = NULL;
}
