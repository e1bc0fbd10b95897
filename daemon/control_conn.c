/*
 * Control socket transport (see control_conn.h).  Input is read with
 * recvmsg() rather than through a bufferevent, because libevent's reader
 * drops ancillary data and the descriptors a client passes (SCM_RIGHTS)
 * travel there.  Output goes through a bufferevent with a low watermark,
 * whose write callback is how a paused client resumes.
 *
 * A connection is never freed from inside its own callbacks: conn_doom()
 * marks it and activates a zero-delay event that frees it, so a handler
 * that answers into a connection which has just gone over its limits
 * still holds a valid pointer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <libgen.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "daemon/control_conn.h"
#include "daemon/control_conn_priv.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59	/* Linux 4.13; older headers lack the name */
#endif

#define CTL_LINES_A_TURN 2	/* requests of one client per turn of the loop */
/* Connections taken in one turn of the loop: libevent's listener accepts
 * until the backlog is empty, and a burst of 400 clients (each checked,
 * refused with an error line or set up, about 0.2 ms each) was one turn
 * of over 80 ms of CPU; after this many (about 6 ms) the listener waits
 * for the next turn, behind every busy client's (100 flooding clients
 * under the sanitizers let it take 32 every 0.4 s). */
#define CTL_ACCEPTS_A_TURN 32
static struct {
	struct event_base		*base;
	struct evconnlistener		*listener;
	struct event			*tick, *relisten;
	const struct ctl_conn_ops	*ops;
	struct ctl_policy		 policy;
	struct ctl_conn			*conns;
	unsigned			 nconns;
	uint64_t			 refused, idle_closed, slow_dropped;
	unsigned			 accepts;	/* taken since the listener last rested */
	char				*path;
} cc = {
	.policy = { (gid_t)-1, (gid_t)-1, (gid_t)-1, 512, 32, 60000 },
};

static size_t
out_len(const struct ctl_conn *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

/* A socket client's input is our own recvmsg event; a TLS client's is
 * its bufferevent's reading. */
static void
reading(struct ctl_conn *c, bool on)
{
	if (c->tls && on)
		bufferevent_enable(c->bev, EV_READ);
	else if (c->tls)
		bufferevent_disable(c->bev, EV_READ);
	else if (on)
		event_add(c->rev, NULL);
	else
		event_del(c->rev);
}

void
conn_doom(struct ctl_conn *c)
{
	if (c->doomed)
		return;
	c->doomed = true;
	reading(c, false);
	event_active(c->kill, EV_TIMEOUT, 1);
}

/* Read more only when everything read so far has been handled and the
 * client is reading its replies: what waits stays in the kernel. */
void
conn_update_reading(struct ctl_conn *c)
{
	reading(c, !c->doomed && (c->lingering ||
	    !(c->closing || c->paused || c->backlog || c->handshaking)));
}

static void
close_fds_upto(struct ctl_conn *c, uint64_t end)
{
	size_t keep = 0;

	for (size_t i = 0; i < c->nfdq; i++) {
		if (c->fdq[i].at > end)
			c->fdq[keep++] = c->fdq[i];
		else if (c->fdq[i].fd >= 0)
			close(c->fdq[i].fd);
	}
	c->nfdq = keep;
}

static void
conn_free(struct ctl_conn *c)
{
	struct ctl_conn **pp;

	if (cc.ops && cc.ops->closed)
		cc.ops->closed(c);
	for (pp = &cc.conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	close_fds_upto(c, UINT64_MAX);
	if (c->rev)
		event_free(c->rev);
	event_free(c->kill);
	event_free(c->more);
	bufferevent_free(c->bev);	/* closes the socket (and frees the SSL) */
	evbuffer_free(c->in);
	cc.nconns--;
	free(c);
}

void
conn_on_kill(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_free(arg);
}

/*
 * A client is behind when replies it has not read wait before the new one:
 * a single reply may be as large as CTL_MAX_REPLY (metrics of a 1,296-host
 * fabric are 4.2 MB), and counting it against CTL_OUT_DROP would drop a
 * client that reads everything, for the size of its answer.
 */
static bool
conn_too_far_behind(struct ctl_conn *c)
{
	size_t n = out_len(c);

	if (n <= CTL_OUT_DROP)
		return false;
	log_warnx("control: %s does not read its replies (%zu bytes waiting); "
	    "disconnecting", c->who, n);
	cc.slow_dropped++;
	conn_doom(c);
	return true;
}

static void
conn_check_pause(struct ctl_conn *c)
{
	if (out_len(c) > CTL_OUT_PAUSE && !c->paused) {
		c->paused = true;
		conn_update_reading(c);
	}
}

void
ctl_conn_send(struct ctl_conn *c, const char *text, size_t len)
{
	if (c->doomed || conn_too_far_behind(c))
		return;
	bufferevent_write(c->bev, text, len);
	bufferevent_write(c->bev, "\n", 1);
	c->queued += len + 1;
	conn_check_pause(c);
}

size_t
ctl_conn_unsent(const struct ctl_conn *c)
{
	return out_len(c);
}

/*
 * Everything is written: close.  A TCP peer whose request we have not
 * read would get a reset for it, and a reset makes its kernel drop the
 * answer it has not read yet (a conn_refusal's reason): so over TLS we send
 * our FIN, discard what comes, and close at its EOF or after a second.
 */
static void
conn_finish(struct ctl_conn *c)
{
	struct timeval tv = { 1, 0 };

	if (!c->tls || c->lingering || c->doomed) {
		conn_doom(c);
		return;
	}
	c->lingering = true;
	shutdown(c->fd, SHUT_WR);
	reading(c, true);
	evtimer_add(c->kill, &tv);
}

void
ctl_conn_close_when_flushed(struct ctl_conn *c)
{
	c->closing = true;
	conn_update_reading(c);
	if (out_len(c) == 0)
		conn_finish(c);
	else
		bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
}

static void
send_too_large(struct ctl_conn *c)
{
	static const char msg[] = "{\"v\":1,\"id\":null,\"ok\":false,\"error\":{\"code\":"
	    "\"too_large\",\"message\":\"request exceeds 65536 bytes\"}}";

	_Static_assert(PROTO_MAX_REQUEST == 65536, "the message names the limit");
	ctl_conn_send(c, msg, sizeof(msg) - 1);
}

/*
 * Hand each complete line, with the descriptors that came with it, to the
 * protocol layer, until the client must first read what it was sent.  At
 * most CTL_LINES_A_TURN a turn: the rest wait for the connection's "more"
 * event, queued behind every other client's and the fabric's events, so
 * that one client's pipeline cannot hold the loop.
 */
void
conn_process_lines(struct ctl_conn *c)
{
	int turn = 0;

	c->backlog = false;
	while (!c->paused && !c->doomed && !c->closing) {
		size_t eol_len, n = evbuffer_get_length(c->in);
		struct evbuffer_ptr eol = evbuffer_search_eol(c->in, NULL, &eol_len, EVBUFFER_EOL_LF);
		struct ctl_fds fds = { .n = 0 };
		uint64_t end;
		char *line;

		if (eol.pos < 0) {
			if (n > PROTO_MAX_REQUEST) {	/* no end in sight: bound what we hold */
				if (!c->skipping)
					send_too_large(c);
				c->skipping = true;
				evbuffer_drain(c->in, n);
				c->in_base += n;
				close_fds_upto(c, c->in_base);
			}
			break;
		}
		if (turn++ == CTL_LINES_A_TURN) {
			c->backlog = true;
			event_active(c->more, EV_TIMEOUT, 1);
			break;
		}
		end = c->in_base + (uint64_t)eol.pos;
		if (c->skipping || (size_t)eol.pos > PROTO_MAX_REQUEST) {
			if (!c->skipping)
				send_too_large(c);
			c->skipping = false;
			evbuffer_drain(c->in, (size_t)eol.pos + eol_len);
			c->in_base += (uint64_t)eol.pos + eol_len;
			close_fds_upto(c, end);
			continue;
		}
		line = xmalloc((size_t)eol.pos + 1);
		evbuffer_remove(c->in, line, (size_t)eol.pos);
		evbuffer_drain(c->in, eol_len);
		c->in_base += (uint64_t)eol.pos + eol_len;
		line[eol.pos] = '\0';
		for (size_t i = 0; i < c->nfdq && fds.n < CTL_MAX_FDS; i++)
			if (c->fdq[i].at <= end)
				fds.fd[fds.n++] = c->fdq[i].fd;
		/* the line's descriptors now belong to fds: forget them here */
		for (size_t i = 0; i < c->nfdq; i++)
			if (c->fdq[i].at <= end)
				c->fdq[i].fd = -1;
		close_fds_upto(c, end);
		if (eol.pos > 0)
			cc.ops->line(c, line, (size_t)eol.pos, &fds);
		for (size_t i = 0; i < fds.n; i++)
			if (fds.fd[i] >= 0)
				close(fds.fd[i]);
		free(line);
	}
	conn_update_reading(c);
}

void
conn_on_more(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_process_lines(arg);
}

static void
queue_fds(struct ctl_conn *c, struct msghdr *mh)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;
		int *fds;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		fds = (int *)CMSG_DATA(cm);
		for (size_t i = 0; i < n; i++) {
			if (c->nfdq < CTL_FDQ)
				c->fdq[c->nfdq++] = (struct queued_fd){ fds[i], c->in_total };
			else
				close(fds[i]);	/* more than any request can use */
		}
	}
}

/* One chunk a wake-up; conn_process_lines() decides whether to read on. */
static void
on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_conn *c = arg;
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
		struct cmsghdr align;
	} u;
	char buf[CTL_READ_CHUNK];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	(void)what;
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		conn_doom(c);	/* EOF or a broken socket */
		return;
	}
	queue_fds(c, &mh);
	evbuffer_add(c->in, buf, (size_t)n);
	c->in_total += (uint64_t)n;
	c->last_active = (uint64_t)clock_mono_ms();
	conn_process_lines(c);
}

void
conn_on_drained(struct bufferevent *bev, void *arg)
{
	struct ctl_conn *c = arg;

	(void)bev;
	c->last_active = (uint64_t)clock_mono_ms();
	if (c->closing) {
		if (out_len(c) == 0 && !c->lingering)
			conn_finish(c);
		return;
	}
	if (c->paused && !c->doomed) {
		c->paused = false;
		conn_process_lines(c);
	}
}

static void
on_bev_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		conn_doom(arg);
}

/* The caller's groups as the kernel has them for this socket: its
 * primary gid and, with SO_PEERGROUPS, the supplementary ones. */
static bool
peer_in_group(int fd, const struct ucred *cr, gid_t want)
{
	gid_t small[64], *g = small;
	socklen_t len = sizeof(small);
	bool found = false;

	if (want == (gid_t)-1)
		return false;
	if (cr->gid == want)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) != 0) {
		if (errno != ERANGE)
			return false;	/* an old kernel: the primary gid alone */
		g = xmalloc(len);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) != 0)
			len = 0;
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		found |= g[i] == want;
	if (g != small)
		free(g);
	return found;
}

/* Root, the daemon's own user and admin_group may change things;
 * read_group may only read; jobs_group may run the JOBS commands alone;
 * everyone else is refused.  A member of two groups gets the wider role. */
static enum ctl_role
peer_role(int fd, const struct ucred *cr)
{
	if (cr->uid == 0 || cr->uid == geteuid() || peer_in_group(fd, cr, cc.policy.admin_gid))
		return ROLE_ADMIN;
	if (peer_in_group(fd, cr, cc.policy.read_gid))
		return ROLE_READ;
	if (peer_in_group(fd, cr, cc.policy.jobs_gid))
		return ROLE_JOBS;
	return ROLE_NONE;
}

/* A uid on the socket, a certificate's identity over TLS: the unit of
 * control.max_connections_per_user. */
static unsigned
conns_of(const char *who)
{
	unsigned n = 0;

	for (struct ctl_conn *c = cc.conns; c; c = c->next)
		n += strcmp(c->who, who) == 0 && !c->doomed && !c->closing;
	return n;
}

/* Why this caller may not have another connection, or NULL. */
const char *
conn_refusal(enum ctl_role role, const char *who, char *buf, size_t len)
{
	unsigned kept = cc.policy.max_conns / 8;

	if (cc.nconns >= cc.policy.max_conns)
		snprintf(buf, len, "fabricd has %u connections, the most it takes "
		    "(control.max_connections)", cc.nconns);
	else if (role != ROLE_ADMIN && cc.nconns + kept >= cc.policy.max_conns)
		snprintf(buf, len, "the last %u connections are kept for administrators", kept);
	/* the jobs role is the scheduler: every job starting at once asks
	 * with its one certificate, and what it may ask queues anyway */
	else if (role != ROLE_ADMIN && role != ROLE_JOBS &&
	    conns_of(who) >= cc.policy.max_per_user)
		snprintf(buf, len, "%s already holds %u connections "
		    "(control.max_connections_per_user)", who, cc.policy.max_per_user);
	else
		return NULL;
	return buf;
}

/* Best effort: a refused client gets one error line, never a wait. */
static void
refuse(int fd, const char *why)
{
	json_t *r = json_pack("{s:i, s:n, s:b, s:{s:s, s:s}}", "v", PROTO_VERSION, "id", "ok", 0,
	    "error", "code", proto_error_code(PERR_BUSY), "message", why);
	char *text = json_dumps(r, JSON_COMPACT | PROTO_JSON_REAL);

	if (text && send(fd, text, strlen(text), MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
		(void)send(fd, "\n", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(text);
	json_decref(r);
	close(fd);
}

void
conn_serve_first(struct ctl_conn *c)
{
	if (c->role != ROLE_ADMIN)
		return;
	if (c->rev)
		event_priority_set(c->rev, CTL_PRIO_ADMIN);
	event_priority_set(c->more, CTL_PRIO_ADMIN);
	bufferevent_priority_set(c->bev, CTL_PRIO_ADMIN);
}

/* One more connection taken: at CTL_ACCEPTS_A_TURN the listener rests
 * until the next turn of the loop (on_relisten), the rest of the backlog
 * waiting in the kernel.  (Fewer in one callback carry over to the next:
 * it rests sooner, never later.) */
static void
accept_counted(struct evconnlistener *l)
{
	struct timeval now = { 0, 0 };

	if (++cc.accepts < CTL_ACCEPTS_A_TURN)
		return;
	evconnlistener_disable(l);
	evtimer_add(cc.relisten, &now);
}

static void
on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int socklen,
    void *arg)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct ctl_conn *c;
	enum ctl_role role;
	const char *why;
	char buf[200], who[32];

	(void)sa; (void)socklen; (void)arg;
	accept_counted(l);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		log_warn("control: SO_PEERCRED");
		close(fd);
		return;
	}
	role = peer_role(fd, &cred);
	snprintf(who, sizeof(who), "uid %u", (unsigned)cred.uid);
	if ((why = conn_refusal(role, who, buf, sizeof(buf))) != NULL) {
		cc.refused++;
		log_debug("control: refusing uid %u: %s", (unsigned)cred.uid, why);
		refuse(fd, why);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->uid = cred.uid;
	c->role = role;
	snprintf(c->who, sizeof(c->who), "%s", who);
	c->last_active = c->last_progress = (uint64_t)clock_mono_ms();
	c->in = evbuffer_new();
	c->bev = bufferevent_socket_new(cc.base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(c->bev, NULL, conn_on_drained, on_bev_event, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, CTL_OUT_RESUME, 0);
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_enable(c->bev, EV_WRITE);
	c->rev = event_new(cc.base, fd, EV_READ | EV_PERSIST, on_readable, c);
	c->kill = evtimer_new(cc.base, conn_on_kill, c);
	c->more = evtimer_new(cc.base, conn_on_more, c);
	/* root and admin_group are served first: a crowd of read-only
	 * clients delays them no more than one request each */
	conn_serve_first(c);
	event_add(c->rev, NULL);
	c->next = cc.conns;
	cc.conns = c;
	cc.nconns++;
}

/* ---- for the remote channel's file (control_conn_priv.h) ---- */

struct event_base *conn_base(void) { return cc.base; }
bool conn_room(void) { return cc.nconns < cc.policy.max_conns; }
void conn_count_refused(void) { cc.refused++; }

unsigned
conn_remote_count(void)
{
	unsigned n = 0;

	for (struct ctl_conn *c = cc.conns; c; c = c->next)
		n += c->tls;
	return n;
}

void
conn_link(struct ctl_conn *c)
{
	c->next = cc.conns;
	cc.conns = c;
	cc.nconns++;
}

/* Out of descriptors: stop accepting for a moment rather than spin on a
 * listening socket that stays readable. */
static void
on_accept_error(struct evconnlistener *l, void *arg)
{
	struct timeval tv = { 0, 100000 };

	(void)arg;
	log_warn("control: accept");
	evconnlistener_disable(l);
	evtimer_add(cc.relisten, &tv);
}

static void
on_relisten(evutil_socket_t fd, short what, void *arg)
{
	(void)fd; (void)what; (void)arg;
	cc.accepts = 0;
	if (cc.listener)
		evconnlistener_enable(cc.listener);
}

/* Idle connections and clients that stopped reading. */
static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
	uint64_t now = (uint64_t)clock_mono_ms(), idle = cc.policy.idle_ms;

	(void)fd; (void)what; (void)arg;
	for (struct ctl_conn *c = cc.conns; c; c = c->next) {
		uint64_t drained = c->queued - out_len(c);

		if (c->doomed)
			continue;
		if (out_len(c) == 0 || drained > c->drained_seen)
			c->last_progress = now;
		c->drained_seen = drained;
		if (out_len(c) > 0 && now - c->last_progress >= idle) {
			log_info("control: %s has read nothing for %llu ms; disconnecting",
			    c->who, (unsigned long long)(now - c->last_progress));
			cc.slow_dropped++;
			conn_doom(c);
		} else if (out_len(c) == 0 && now - c->last_active >= idle &&
		    !(cc.ops->in_flight && cc.ops->in_flight(c))) {
			log_debug("control: closing %s's idle connection", c->who);
			cc.idle_closed++;
			conn_doom(c);
		}
	}
}

static void
arm_tick(void)
{
	uint64_t ms = cc.policy.idle_ms / 4;
	struct timeval tv;

	if (ms > 1000)
		ms = 1000;
	if (ms < 50)
		ms = 50;
	tv = clock_tv_ms(ms);
	if (cc.tick)
		evtimer_add(cc.tick, &tv);
}

void
ctl_conn_set_policy(const struct ctl_policy *p)
{
	cc.policy = *p;
	if (cc.policy.max_conns == 0)
		cc.policy.max_conns = 1;
	if (cc.tick) {
		event_del(cc.tick);
		arm_tick();
	}
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

/*
 * The directory must let every allowed caller reach the socket, and
 * admin_group and read_group are two groups that a directory's one group
 * cannot both be: so it is 0711 (searchable, not listable), the socket
 * 0666, and the kernel's credentials decide (a stranger is refused on its
 * first request).  A directory someone else made (systemd's
 * RuntimeDirectory, root:root 0750) is set the same way when it is ours;
 * a shared one (/tmp) is left alone.
 */
static int
make_socket_dir(const char *path)
{
	char *copy = xstrdup(path), *dir = dirname(copy);
	struct stat st;
	int rc = 0;

	if (mkdir(dir, 0711) == 0 || errno == EEXIST) {
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		    !(st.st_mode & (S_IWOTH | S_ISVTX)) && (st.st_mode & 07777) != 0711 &&
		    chmod(dir, 0711) != 0)
			log_warn("control: chmod %s", dir);
	} else {
		log_warn("control: cannot create %s", dir);
		rc = -1;
	}
	free(copy);
	return rc;
}

/* Each connection costs a descriptor: make room for max_connections. */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			log_warn("control: setrlimit");
	}
}

int
ctl_conn_listen(struct event_base *base, const char *path, const struct ctl_conn_ops *ops)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("control: socket path too long: %s", path);
		return -1;
	}
	if (make_socket_dir(path) != 0 || check_existing(path) != 0)
		return -1;
	raise_fd_limit();
	cc.base = base;
	cc.ops = ops;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	old = umask(0117);
	cc.listener = evconnlistener_new_bind(base, on_accept, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, CTL_BACKLOG, (struct sockaddr *)&sun,
	    sizeof(sun));
	umask(old);
	if (cc.listener == NULL) {
		log_warn("control: cannot listen on %s", path);
		return -1;
	}
	evconnlistener_set_error_cb(cc.listener, on_accept_error);
	/* Anyone who can reach the directory may connect; peer credentials
	 * decide what they may do. */
	if (chmod(path, 0666) != 0)
		log_warn("control: chmod %s", path);
	cc.tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
	cc.relisten = evtimer_new(base, on_relisten, NULL);
	arm_tick();
	cc.path = xstrdup(path);
	log_info("control: listening on %s", path);
	return 0;
}

void
ctl_conn_shutdown(void)
{
	while (cc.conns)
		conn_free(cc.conns);
	if (cc.listener)
		evconnlistener_free(cc.listener);
	cc.listener = NULL;
	if (cc.tick)
		event_free(cc.tick);
	if (cc.relisten)
		event_free(cc.relisten);
	cc.tick = cc.relisten = NULL;
	if (cc.path) {
		unlink(cc.path);
		free(cc.path);
		cc.path = NULL;
	}
}

uid_t ctl_conn_uid(const struct ctl_conn *c) { return c->uid; }
enum ctl_role ctl_conn_role(const struct ctl_conn *c) { return c->role; }
const char *ctl_conn_who(const struct ctl_conn *c) { return c->who; }
bool ctl_conn_remote(const struct ctl_conn *c) { return c->tls; }
void **ctl_conn_data(struct ctl_conn *c) { return &c->data; }

json_t *
ctl_conn_stats(void)
{
	unsigned by[ROLE_COUNT] = { 0 };

	for (struct ctl_conn *c = cc.conns; c; c = c->next)
		by[c->role]++;
	json_t *o = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:I}",
	    "connections", (int)cc.nconns, "admin", (int)by[ROLE_ADMIN], "read", (int)by[ROLE_READ],
	    "jobs", (int)by[ROLE_JOBS],
	    "no_access", (int)by[ROLE_NONE], "max_connections", (int)cc.policy.max_conns,
	    "max_connections_per_user", (int)cc.policy.max_per_user,
	    "idle_timeout_ms", (json_int_t)cc.policy.idle_ms, "refused_total", (json_int_t)cc.refused,
	    "idle_closed_total", (json_int_t)cc.idle_closed,
	    "slow_dropped_total", (json_int_t)cc.slow_dropped);
	return o;
}
