/*
 * The remote control channel's connections (control.listen): the TLS
 * handshake, who the certificate is, and the listener.  Once a peer is
 * known its connection is like a socket client's (control_conn.c): the
 * same lines, limits and close; only its bytes come through the TLS
 * bufferevent rather than recvmsg.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netdb.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/listener.h>
#include <openssl/err.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "daemon/config.h"
#include "daemon/control_conn.h"
#include "daemon/control_conn_priv.h"
#include "daemon/control_tls.h"

static struct {
	struct evconnlistener	*listener;
	SSL_CTX			*ctx;
	char			*addr;
	uint64_t		 handshake_failed, unknown;
} tls;

/* A conn_refusal on a connection already set up (TLS: after the handshake):
 * one error line, then closed once it is written. */
static void
conn_refuse(struct ctl_conn *c, enum proto_error code, const char *why)
{
	json_t *r = json_pack("{s:i, s:n, s:b, s:{s:s, s:s}}", "v", PROTO_VERSION, "id", "ok", 0,
	    "error", "code", proto_error_code(code), "message", why);
	char *text = json_dumps(r, JSON_COMPACT | PROTO_JSON_REAL);

	if (text)
		ctl_conn_send(c, text, strlen(text));
	free(text);
	json_decref(r);
	ctl_conn_close_when_flushed(c);
}

/* The handshake proved a certificate the CA signed: who is it, and may it
 * have another connection? */
static void
tls_ready(struct ctl_conn *c)
{
	SSL *ssl = bufferevent_openssl_get_ssl(c->bev);
	char who[sizeof(c->who)], buf[200];
	enum ctl_role role = ctl_tls_identify(ssl, who, sizeof(who));
	const char *why;

	/* counted against its cap before it bears the name */
	why = role == ROLE_NONE ? NULL : conn_refusal(role, who, buf, sizeof(buf));
	snprintf(c->who, sizeof(c->who), "%s", who);
	c->handshaking = false;
	c->last_active = (uint64_t)clock_mono_ms();
	if (role == ROLE_NONE) {
		tls.unknown++;
		log_info("control: %s: a certificate in no control.clients entry; refused", c->who);
		snprintf(buf, sizeof(buf), "%s is in no control.clients entry of this fabricd", c->who);
		conn_refuse(c, PERR_PERMISSION, buf);
		return;
	}
	if (why != NULL) {
		conn_count_refused();
		log_debug("control: refusing %s: %s", c->who, why);
		conn_refuse(c, PERR_BUSY, why);
		return;
	}
	c->role = role;
	conn_serve_first(c);
	conn_update_reading(c);
}

static void
on_tls_read(struct bufferevent *bev, void *arg)
{
	struct ctl_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n = evbuffer_get_length(in);

	if (c->handshaking || c->doomed || c->closing) {
		evbuffer_drain(in, n);
		return;
	}
	evbuffer_add_buffer(c->in, in);
	c->in_total += n;
	c->last_active = (uint64_t)clock_mono_ms();
	conn_process_lines(c);
}

/* Why a TLS connection failed, as OpenSSL has it (a peer without a
 * certificate, one the CA did not sign, not TLS at all). */
static void
tls_failed(struct ctl_conn *c)
{
	unsigned long e = bufferevent_get_openssl_error(c->bev);
	char buf[160] = "the connection closed";

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	tls.handshake_failed++;
	log_info("control: TLS handshake with %s failed: %s", c->who, buf);
}

static void
on_tls_event(struct bufferevent *bev, short what, void *arg)
{
	struct ctl_conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		tls_ready(c);
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		if (c->handshaking)
			tls_failed(c);
		conn_doom(c);
	}
}

static void
peer_name(const struct sockaddr *sa, int len, char *out, size_t olen)
{
	char host[64], port[8];

	if (getnameinfo(sa, (socklen_t)len, host, sizeof(host), port, sizeof(port),
	    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(out, olen, "a peer");
	else
		snprintf(out, olen, "%s%s%s:%s", sa->sa_family == AF_INET6 ? "[" : "", host,
		    sa->sa_family == AF_INET6 ? "]" : "", port);
}

/*
 * A TCP peer: nothing is known of it until its handshake ends, so it
 * gets no role and reads nothing, and only the total cap applies now
 * (the per-certificate cap once it is known).  The handshake runs on the
 * loop in steps; one that stalls is closed like an idle connection.
 */
static void
on_accept_tls(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int socklen,
    void *arg)
{
	struct ctl_conn *c;
	SSL *ssl;

	(void)l; (void)arg;
	if (!conn_room() || (ssl = SSL_new(tls.ctx)) == NULL) {
		conn_count_refused();
		close(fd);	/* no TLS yet: nothing can be said */
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->tls = c->handshaking = true;
	c->uid = (uid_t)-1;
	c->role = ROLE_NONE;
	peer_name(sa, socklen, c->who, sizeof(c->who));
	c->last_active = c->last_progress = (uint64_t)clock_mono_ms();
	c->in = evbuffer_new();
	c->bev = bufferevent_openssl_socket_new(conn_base(), fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
	    BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		SSL_free(ssl);
		close(fd);
		evbuffer_free(c->in);
		free(c);
		return;
	}
	bufferevent_setcb(c->bev, on_tls_read, conn_on_drained, on_tls_event, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, CTL_OUT_RESUME, 0);
	/* a bound on what one read takes in: conn_process_lines() holds the rest */
	bufferevent_setwatermark(c->bev, EV_READ, 0, CTL_READ_CHUNK);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	c->kill = evtimer_new(conn_base(), conn_on_kill, c);
	c->more = evtimer_new(conn_base(), conn_on_more, c);
	conn_link(c);
}

int
ctl_conn_listen_tls(const char *hostport, SSL_CTX *ctx)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res = NULL;
	char host[256], port[8];
	unsigned p;
	int rc;

	if (conn_base() == NULL || cfg_host_port(hostport, host, sizeof(host), &p) != 0) {
		log_warnx("control: cannot listen on %s: not HOST:PORT", hostport);
		return -1;
	}
	snprintf(port, sizeof(port), "%u", p);
	/* resolved once, at start: the loop is not running yet */
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		log_warnx("control: cannot resolve %s: %s", hostport, gai_strerror(rc));
		return -1;
	}
	tls.ctx = ctx;
	tls.listener = evconnlistener_new_bind(conn_base(), on_accept_tls, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE, CTL_BACKLOG,
	    res->ai_addr, (int)res->ai_addrlen);
	freeaddrinfo(res);
	if (tls.listener == NULL) {
		log_warn("control: cannot listen on %s", hostport);
		return -1;
	}
	tls.addr = xstrdup(hostport);
	log_info("control: listening on %s (TLS, client certificates required)", hostport);
	return 0;
}

void
ctl_conn_tls_shutdown(void)
{
	if (tls.listener)
		evconnlistener_free(tls.listener);
	SSL_CTX_free(tls.ctx);
	free(tls.addr);
	memset(&tls, 0, sizeof(tls));
}

json_t *
ctl_conn_tls_stats(void)
{
	return json_pack("{s:s?, s:i, s:I, s:I}", "listen", tls.addr, "connections",
	    (int)conn_remote_count(), "handshake_failed_total", (json_int_t)tls.handshake_failed,
	    "unknown_certificate_total", (json_int_t)tls.unknown);
}
