/*
 * The control socket's transport: listening, peer credentials, and one
 * newline-delimited stream per client with the descriptors (SCM_RIGHTS)
 * that arrived with each line.  It knows nothing of JSON: daemon/control.c
 * gets each complete line through ctl_conn_ops.line and answers through
 * ctl_conn_send().
 *
 * What a client can cost the daemon is bounded here:
 * - connections: max_conns in all, of which the last eighth are kept for
 *   root and admin_group, and max_per_user for any other uid; the listen
 *   backlog takes bursts of hundreds;
 * - time: a connection with nothing in flight that sends nothing for
 *   idle_ms is closed, and so is one whose replies have not drained for
 *   that long (a client that does not read);
 * - memory: a line is at most PROTO_MAX_REQUEST bytes; once CTL_OUT_PAUSE
 *   bytes of replies wait for a client, its further requests wait in the
 *   kernel until it reads; a client with more than CTL_OUT_DROP unread
 *   when the next reply comes (a stream nobody reads) is dropped, so one
 *   reply of up to CTL_MAX_REPLY always goes out whole.
 * Credentials come from the kernel at accept (SO_PEERCRED, SO_PEERGROUPS),
 * never from /etc/group: a process that dropped a group has lost it here.
 */
#ifndef FABRICD_CONTROL_CONN_H
#define FABRICD_CONTROL_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>
#include <event2/event.h>

#include "daemon/control_access.h"

#define CTL_MAX_FDS	4		/* descriptors one request may carry */
#define CTL_OUT_PAUSE	(64u << 10)	/* stop reading a client's requests */
#define CTL_OUT_RESUME	(16u << 10)	/* ... until its replies drain to this */
#define CTL_OUT_DROP	(4u << 20)	/* drop a client this far behind */
#define CTL_BACKLOG	1024

/*
 * Event priorities on the daemon's loop (event_base_priority_init with
 * CTL_PRIO_COUNT): an admin's connection runs before everything else, so
 * that root's status answers at once however many read-only clients are
 * busy; all other events keep libevent's default, the middle one.
 */
#define CTL_PRIO_ADMIN	0
#define CTL_PRIO_COUNT	2

struct ctl_conn;


struct ctl_policy {
	gid_t		 admin_gid, read_gid, jobs_gid;	/* (gid_t)-1: no such group */
	unsigned	 max_conns;
	unsigned	 max_per_user;
	uint64_t	 idle_ms;
};

/* Descriptors that came with one line; the callee takes one by setting
 * its slot to -1, the rest are closed after the callback. */
struct ctl_fds {
	int	 fd[CTL_MAX_FDS];
	size_t	 n;
};

struct ctl_conn_ops {
	void	(*line)(struct ctl_conn *c, const char *line, size_t len, struct ctl_fds *fds);
	void	(*closed)(struct ctl_conn *c);		/* before it is freed */
	bool	(*in_flight)(struct ctl_conn *c);	/* requests still running */
};

int ctl_conn_listen(struct event_base *base, const char *path, const struct ctl_conn_ops *ops);
/* The remote channel on HOST:PORT (resolved now) with TLS context ctx
 * (kept and freed at shutdown), after ctl_conn_listen: the same
 * protocol layer, limits and idle timeout.  Its peers have uid
 * (uid_t)-1 and their certificate's role; their identity ("cert CN") is
 * the unit of max_per_user. */
struct ssl_ctx_st;
int ctl_conn_listen_tls(const char *hostport, struct ssl_ctx_st *ctx);
/* After ctl_conn_shutdown(): the listener and the context (control_conn_tls.c). */
void ctl_conn_tls_shutdown(void);
/* The remote channel's part of status: listen, connections, refusals. */
json_t *ctl_conn_tls_stats(void);
void ctl_conn_shutdown(void);
void ctl_conn_set_policy(const struct ctl_policy *p);

/* Queue one line (a newline is added).  Dropped for a connection that is
 * being closed. */
void ctl_conn_send(struct ctl_conn *c, const char *text, size_t len);
/* Bytes of replies the client has not taken yet (a stream paces on it). */
size_t ctl_conn_unsent(const struct ctl_conn *c);
/* Close once everything queued has been written. */
void ctl_conn_close_when_flushed(struct ctl_conn *c);

uid_t ctl_conn_uid(const struct ctl_conn *c);
enum ctl_role ctl_conn_role(const struct ctl_conn *c);
/* "uid N" on the socket, "cert CN" over TLS: for messages and audit. */
const char *ctl_conn_who(const struct ctl_conn *c);
/* Over TLS (control.listen) rather than the Unix socket. */
bool ctl_conn_remote(const struct ctl_conn *c);
/* One pointer of the protocol layer's own per connection. */
void **ctl_conn_data(struct ctl_conn *c);

/* Counts for status: connections by role, limits, refusals, closings. */
json_t *ctl_conn_stats(void);

#endif
