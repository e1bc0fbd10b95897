/*
 * What the control connections (control_conn.c) share with the remote
 * channel's handshake and listener (control_conn_tls.c), and nothing else
 * includes: the connection itself and the few steps both take.
 */
#ifndef FABRICD_CONTROL_CONN_PRIV_H
#define FABRICD_CONTROL_CONN_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>
#include <jansson.h>

#include "daemon/control_conn.h"

#define CTL_READ_CHUNK	16384
#define CTL_FDQ		(CTL_MAX_FDS * 2)

struct bufferevent;

struct queued_fd {
	int		 fd;
	uint64_t	 at;	/* stream offset of the first byte it came with */
};

struct ctl_conn {
	int			 fd;
	struct bufferevent	*bev;		/* output only; over TLS input too */
	struct event		*rev;		/* input: recvmsg; NULL over TLS */
	struct event		*kill;		/* deferred close */
	struct event		*more;		/* next turn's share of a backlog */
	struct evbuffer		*in;
	uint64_t		 in_base;	/* stream offset of in's first byte */
	uint64_t		 in_total;	/* bytes received */
	struct queued_fd	 fdq[CTL_FDQ];
	size_t			 nfdq;
	uid_t			 uid;		/* (uid_t)-1 over TLS: never root */
	enum ctl_role		 role;
	char			 who[96];	/* "uid N", "cert CN": caps and messages */
	bool			 skipping;	/* discarding the rest of an oversized line */
	bool			 paused;	/* too many replies unread: not reading */
	bool			 backlog;	/* complete lines wait for their turn */
	bool			 closing;	/* close once flushed */
	bool			 doomed;	/* close at the next turn of the loop */
	bool			 tls;		/* the remote channel (control.listen) */
	bool			 handshaking;	/* TLS: no identity yet, nothing read */
	bool			 lingering;	/* TLS: all sent, FIN out, waiting for EOF */
	uint64_t		 last_active;	/* ms: last byte in, or replies drained */
	uint64_t		 queued;	/* bytes of replies queued in all */
	uint64_t		 drained_seen;	/* ... of which written at the last tick */
	uint64_t		 last_progress;	/* ms: when that last grew (or was all) */
	void			*data;
	struct ctl_conn		*next;
};

struct event_base *conn_base(void);
/* Is there room for one more connection of anyone (control.max_connections)? */
bool conn_room(void);
void conn_count_refused(void);
unsigned conn_remote_count(void);
/* A new connection, counted and served from now on. */
void conn_link(struct ctl_conn *c);
/* Freed at the next turn of the loop, never inside its own callback. */
void conn_doom(struct ctl_conn *c);
/* Why who, in role, may not have another connection, or NULL. */
const char *conn_refusal(enum ctl_role role, const char *who, char *buf, size_t len);
/* Admins first: their events run at the higher priority. */
void conn_serve_first(struct ctl_conn *c);
void conn_update_reading(struct ctl_conn *c);
void conn_process_lines(struct ctl_conn *c);
void conn_on_drained(struct bufferevent *bev, void *arg);
void conn_on_kill(evutil_socket_t fd, short what, void *arg);
void conn_on_more(evutil_socket_t fd, short what, void *arg);

#endif
