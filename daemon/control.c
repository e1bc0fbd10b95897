/*
 * Control socket server.
 *
 * Order of checks for each request line, cheapest first: length bound,
 * JSON syntax, shape (v, id, cmd, args), protocol version, command known,
 * caller allowed, then dispatch.  Every failure is answered with an error
 * object and the connection keeps serving: a bad client can waste only its
 * own connection.  Output is buffered by libevent; a client that stops
 * reading and lets too much pile up is disconnected, so a stalled peer
 * never blocks the loop or grows our memory without bound.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <libgen.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/fabricd.h"

#define CTL_MAX_CONNS		128
#define CTL_MAX_PENDING_OUT	(8u << 20)	/* bytes queued to one client */

struct ctl_command {
	const char	*name;
	enum ctl_access	 access;
	ctl_handler	 handler;
};

static const struct ctl_command ctl_commands[] = {
#define CMD(ident, wire, access, words, spec, help) { wire, CTL_##access, ctl_##ident },
#include "common/commands.def"
#undef CMD
};

enum ctl_role { ROLE_NONE, ROLE_READ, ROLE_ADMIN };

struct ctl_conn {
	struct bufferevent	*bev;
	uid_t			 uid;
	enum ctl_role		 role;
	bool			 skipping;	/* discarding the rest of an oversized line */
	struct ctl_req		*pending;	/* requests not yet answered */
	struct ctl_conn		*next;
};

struct ctl_req {
	struct ctl_conn	*conn;		/* NULL once the client is gone */
	json_t		*id;
	char		*cmd;
	uid_t		 uid;
	bool		 admin;
	void		(*gone_cb)(struct ctl_req *, void *);
	void		*gone_arg;
	struct ctl_req	*next;		/* in conn->pending */
};

static struct {
	struct evconnlistener	*listener;
	char			*path;
	char			*admin_group, *read_group;
	struct ctl_conn		*conns;
	int			 nconns;
} ctl;

static bool
uid_in_group(uid_t uid, gid_t primary, const char *group)
{
	struct group *gr;
	struct passwd *pw;
	gid_t groups[256];
	int ngroups = 256;

	if (group == NULL || (gr = getgrnam(group)) == NULL)
		return false;
	if (primary == gr->gr_gid)
		return true;
	if ((pw = getpwuid(uid)) == NULL)
		return false;
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &ngroups) < 0)
		return false;
	for (int i = 0; i < ngroups; i++)
		if (groups[i] == gr->gr_gid)
			return true;
	return false;
}

/* Root, the daemon's own user and admin_group may change things;
 * read_group may only read; everyone else is refused. */
static enum ctl_role
peer_role(uid_t uid, gid_t gid)
{
	if (uid == 0 || uid == geteuid() || uid_in_group(uid, gid, ctl.admin_group))
		return ROLE_ADMIN;
	if (uid_in_group(uid, gid, ctl.read_group))
		return ROLE_READ;
	return ROLE_NONE;
}

static void
conn_send(struct ctl_conn *c, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);

	if (text == NULL)
		return;
	bufferevent_write(c->bev, text, strlen(text));
	bufferevent_write(c->bev, "\n", 1);
	free(text);
}

static json_t *
reply_base(json_t *id)
{
	return json_pack("{s:i, s:O}", "v", PROTO_VERSION, "id", id ? id : json_null());
}

static void
send_error(struct ctl_conn *c, json_t *id, enum proto_error code, const char *msg)
{
	json_t *r = reply_base(id);

	json_object_set_new(r, "ok", json_false());
	json_object_set_new(r, "error", json_pack("{s:s, s:s}", "code", proto_error_code(code),
	    "message", msg));
	conn_send(c, r);
	json_decref(r);
}

static void
req_unlink(struct ctl_req *req)
{
	struct ctl_req **pp;

	if (req->conn == NULL)
		return;
	for (pp = &req->conn->pending; *pp; pp = &(*pp)->next) {
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
	json_decref(req->id);
	free(req->cmd);
	free(req);
}

void
ctl_reply_ok(struct ctl_req *req, json_t *result)
{
	if (req->conn) {
		json_t *r = reply_base(req->id);
		json_object_set_new(r, "ok", json_true());
		json_object_set_new(r, "result", result ? result : json_object());
		conn_send(req->conn, r);
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
	conn_send(req->conn, r);
	json_decref(r);
	return 0;
}

uid_t ctl_req_uid(const struct ctl_req *req) { return req->uid; }
bool ctl_req_admin(const struct ctl_req *req) { return req->admin; }
bool ctl_req_gone(const struct ctl_req *req) { return req->conn == NULL; }
const char *ctl_req_command(const struct ctl_req *req) { return req->cmd; }

void
ctl_req_on_gone(struct ctl_req *req, void (*cb)(struct ctl_req *, void *), void *arg)
{
	req->gone_cb = cb;
	req->gone_arg = arg;
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
	const char *s;
	char *end;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if ((s = json_string_value(v)) != NULL && *s) {
		errno = 0;
		*out = strtoll(s, &end, 0);
		return errno == 0 && *end == '\0';
	}
	return false;
}

static const struct ctl_command *
find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(ctl_commands) / sizeof(ctl_commands[0]); i++)
		if (strcmp(ctl_commands[i].name, name) == 0)
			return &ctl_commands[i];
	return NULL;
}

static void
handle_line(struct ctl_conn *c, const char *line, size_t len)
{
	const struct ctl_command *cmd;
	json_t *msg, *id, *v, *args;
	struct ctl_req *req;
	json_error_t jerr;
	const char *name;
	char text[160];

	msg = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (msg == NULL || !json_is_object(msg)) {
		snprintf(text, sizeof(text), "not a JSON object: %.120s", msg ? "wrong type" : jerr.text);
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
	} else if ((cmd = find_command(name)) == NULL) {
		snprintf(text, sizeof(text), "unknown command \"%.64s\"", name);
		send_error(c, id, PERR_UNKNOWN_COMMAND, text);
	} else if (c->role == ROLE_NONE ||
	    (cmd->access == CTL_ADMIN && c->role != ROLE_ADMIN)) {
		snprintf(text, sizeof(text), "%s: permission denied for uid %u", cmd->name,
		    (unsigned)c->uid);
		send_error(c, id, PERR_PERMISSION, text);
	} else {
		req = xcalloc(1, sizeof(*req));
		req->conn = c;
		req->id = json_incref(id);
		req->cmd = xstrdup(cmd->name);
		req->uid = c->uid;
		req->admin = c->role == ROLE_ADMIN;
		req->next = c->pending;
		c->pending = req;
		if (args == NULL) {
			args = json_object();
			json_object_set_new(msg, "args", args);
		}
		cmd->handler(req, args);
	}
	json_decref(msg);
}

static void
conn_close(struct ctl_conn *c)
{
	struct ctl_conn **pp;

	/* Requests still running lose their client; their handlers finish
	 * and answer into the void. */
	while (c->pending) {
		struct ctl_req *req = c->pending;
		c->pending = req->next;
		req->conn = NULL;
		if (req->gone_cb)
			req->gone_cb(req, req->gone_arg);
	}
	for (pp = &ctl.conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	bufferevent_free(c->bev);
	ctl.nconns--;
	free(c);
}

static void
conn_read(struct bufferevent *bev, void *arg)
{
	struct ctl_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len;
	char *line;

	for (;;) {
		struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, &len, EVBUFFER_EOL_LF);
		if (eol.pos < 0) {
			/* No complete line: bound what we hold. */
			if (evbuffer_get_length(in) > PROTO_MAX_REQUEST) {
				if (!c->skipping)
					send_error(c, NULL, PERR_TOO_LARGE, "request exceeds 65536 bytes");
				c->skipping = true;
				evbuffer_drain(in, evbuffer_get_length(in));
			}
			break;
		}
		if (c->skipping || (size_t)eol.pos > PROTO_MAX_REQUEST) {
			if (!c->skipping)
				send_error(c, NULL, PERR_TOO_LARGE, "request exceeds 65536 bytes");
			evbuffer_drain(in, eol.pos + len);
			c->skipping = false;
			continue;
		}
		line = xmalloc(eol.pos + 1);
		evbuffer_remove(in, line, eol.pos);
		evbuffer_drain(in, len);
		line[eol.pos] = '\0';
		if (eol.pos > 0)
			handle_line(c, line, eol.pos);
		free(line);
	}
	if (evbuffer_get_length(bufferevent_get_output(bev)) > CTL_MAX_PENDING_OUT) {
		log_warnx("control: client uid %u is not reading its replies; disconnecting",
		    (unsigned)c->uid);
		conn_close(c);
	}
}

static void
conn_write(struct bufferevent *bev, void *arg)
{
	(void)bev;
	(void)arg;
}

static void
conn_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		conn_close(arg);
}

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int socklen,
    void *arg)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct ctl_conn *c;

	(void)l; (void)sa; (void)socklen; (void)arg;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		log_warn("control: SO_PEERCRED");
		close(fd);
		return;
	}
	if (ctl.nconns >= CTL_MAX_CONNS) {
		log_warnx("control: too many clients; refusing uid %u", (unsigned)cred.uid);
		close(fd);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->uid = cred.uid;
	c->role = peer_role(cred.uid, cred.gid);
	c->bev = bufferevent_socket_new(fabricd->base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	c->next = ctl.conns;
	ctl.conns = c;
	ctl.nconns++;
}

/* Refuse to start if a daemon already answers on the path; remove a
 * stale socket left by a crash. */
static int
check_existing(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		close(fd);
		log_warnx("control: socket %s already in use by another daemon", path);
		return -1;
	}
	close(fd);
	if (unlink(path) != 0 && errno != ENOENT) {
		log_warn("control: cannot remove stale %s", path);
		return -1;
	}
	return 0;
}

/* The directory, not the socket's mode, is what some systems honour, so
 * create it 0750 with the group that may connect. */
static int
make_socket_dir(const char *path, const char *group)
{
	char *copy = xstrdup(path), *dir = dirname(copy);
	struct group *gr;
	int rc = 0;

	if (mkdir(dir, 0750) == 0) {
		if (group && (gr = getgrnam(group)) != NULL && chown(dir, (uid_t)-1, gr->gr_gid) != 0)
			log_warn("control: chown %s", dir);
	} else if (errno != EEXIST) {
		log_warn("control: cannot create %s", dir);
		rc = -1;
	}
	free(copy);
	return rc;
}

void
control_set_groups(const char *admin_group, const char *read_group)
{
	free(ctl.admin_group);
	free(ctl.read_group);
	ctl.admin_group = admin_group ? xstrdup(admin_group) : NULL;
	ctl.read_group = read_group ? xstrdup(read_group) : NULL;
}

int
control_init(struct fabricd *fd, const char *path, const char *admin_group,
    const char *read_group)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *access_group = read_group ? read_group : admin_group;
	mode_t old;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("control: socket path too long: %s", path);
		return -1;
	}
	control_set_groups(admin_group, read_group);
	if (make_socket_dir(path, access_group) != 0 || check_existing(path) != 0)
		return -1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	old = umask(0117);
	ctl.listener = evconnlistener_new_bind(fd->base, accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 16, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (ctl.listener == NULL) {
		log_warn("control: cannot listen on %s", path);
		return -1;
	}
	/* Anyone who can reach the directory may connect; peer credentials
	 * decide what they may do. */
	if (chmod(path, 0666) != 0)
		log_warn("control: chmod %s", path);
	ctl.path = xstrdup(path);
	log_info("control: listening on %s", path);
	return 0;
}

void
control_shutdown(void)
{
	while (ctl.conns)
		conn_close(ctl.conns);
	if (ctl.listener)
		evconnlistener_free(ctl.listener);
	ctl.listener = NULL;
	if (ctl.path) {
		unlink(ctl.path);
		free(ctl.path);
		ctl.path = NULL;
	}
	control_set_groups(NULL, NULL);
}
