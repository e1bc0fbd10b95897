/*
 * etcd's JSON gateway over libevent's HTTP client (etcd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "common/clock.h"
#include "common/xmalloc.h"
#include "ha/etcd.h"

#define BACKOFF_MIN_MS	200
#define BACKOFF_MAX_MS	5000
#define MAX_REPLY	(4u << 20)	/* a reply larger than this is an error */

struct endpoint {
	char			 host[128];
	uint16_t		 port;
	char			 label[160];	/* "HOST:PORT" */
	bool			 tls;		/* https */
	char			 tls_why[160];	/* what the last failed handshake said, until
						 * a call is answered */
	int64_t			 down_until_ms;	/* backoff after a failure */
	unsigned		 backoff_ms;
};

struct call {
	struct etcd	*e;
	size_t		 ep;
	etcd_cb		 cb;
	void		*arg;
	char		*path, *body;	/* kept to try the next endpoint */
	/* its own connection: a call that waits (a read without quorum
	 * waits for etcd's own timeout) holds up no other, the status poll
	 * least of all; freed on the next turn once the call is answered
	 * (not inside libevent's callback) */
	struct evhttp_connection *conn;
	unsigned	 tries;
	int64_t		 sent_ms;
	struct call	*prev, *next;	/* in flight */
};

struct etcd {
	struct event_base	*base;
	struct endpoint		 ep[ETCD_MAX_ENDPOINTS];
	size_t			 nep, cur;
	unsigned		 timeout_ms;
	struct call		*calls;
	size_t			 ninflight;
	SSL_CTX			*ssl;		/* NULL: no https endpoint */
	struct evhttp_connection **dead;	/* answered: freed by reap() */
	size_t			 ndead, capdead;
	struct event		*reap_ev;
};

static void
reap(evutil_socket_t fd, short what, void *arg)
{
	struct etcd *e = arg;

	for (size_t i = 0; i < e->ndead; i++)
		evhttp_connection_free(e->dead[i]);
	e->ndead = 0;
}

static void
bury(struct etcd *e, struct evhttp_connection *conn)
{
	struct timeval zero = { 0, 0 };

	if (conn == NULL)
		return;
	if (e->ndead == e->capdead) {
		e->capdead = e->capdead ? 2 * e->capdead : 8;
		e->dead = xreallocarray(e->dead, e->capdead, sizeof(*e->dead));
	}
	e->dead[e->ndead++] = conn;
	evtimer_add(e->reap_ev, &zero);
}

static bool
parse_endpoint(const char *url, struct endpoint *ep)
{
	struct evhttp_uri *u = evhttp_uri_parse(url);
	const char *host = u ? evhttp_uri_get_host(u) : NULL;
	int port = u ? evhttp_uri_get_port(u) : -1;
	bool ok = host != NULL && strlen(host) < sizeof(ep->host);

	if (ok) {
		ep->tls = strncmp(url, "https://", 8) == 0;
		ep->port = (uint16_t)(port > 0 ? port : 2379);
		snprintf(ep->label, sizeof(ep->label), "%s:%u", host, ep->port);
		snprintf(ep->host, sizeof(ep->host), "%s", host);
	}
	if (u)
		evhttp_uri_free(u);
	return ok;
}

static void
ssl_why(const char *what, const char *file, char *why, size_t len)
{
	char err[160];

	ERR_error_string_n(ERR_get_error(), err, sizeof(err));
	snprintf(why, len, "%s %s: %s", what, file ? file : "", err);
}

/* What a failed handshake says is kept on its endpoint (the SSL's app
 * data) as it happens: by the time evhttp reports the call unanswered it
 * has reset the connection, and OpenSSL's own state with it. */
static int
verify_cb(int ok, X509_STORE_CTX *x)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx());
	struct endpoint *ep = ssl ? SSL_get_app_data(ssl) : NULL;

	if (!ok && ep)
		snprintf(ep->tls_why, sizeof(ep->tls_why), "the member's certificate does not "
		    "verify against ha.etcd.ca (%s)",
		    X509_verify_cert_error_string(X509_STORE_CTX_get_error(x)));
	return ok;
}

static void
info_cb(const SSL *ssl, int where, int ret)
{
	struct endpoint *ep = SSL_get_app_data(ssl);
	const char *desc = SSL_alert_desc_string_long(ret);
	int code = ret & 0xff;

	/* A member that wants a client certificate may drop the connection
	 * right after the handshake (TLS 1.3: its alert can come too late to
	 * be read); kept until a call is answered. */
	if (ep && (where & SSL_CB_HANDSHAKE_DONE) && ep->tls_why[0] == '\0') {
		snprintf(ep->tls_why, sizeof(ep->tls_why), "the member closed the connection after "
		    "the handshake: does it want a client certificate it trusts (ha.etcd.cert, key)?");
		return;
	}
	/* an alert the member sent (ours, after our own check failed, is told
	 * by verify_cb); the two flags share a bit */
	if (ep == NULL || (where & SSL_CB_READ_ALERT) != SSL_CB_READ_ALERT ||
	    (ret >> 8) != SSL3_AL_FATAL)
		return;
	/* 42 bad_certificate, 48 unknown_ca, 116 certificate_required */
	snprintf(ep->tls_why, sizeof(ep->tls_why), "the member refused the handshake (%s)%s",
	    desc, code == 42 || code == 48 || code == 116 ?
	    ": it wants a client certificate it trusts (ha.etcd.cert, key)" : "");
}

/* Verify the members against ca; present cert/key when given. */
static SSL_CTX *
tls_context(const struct etcd_tls *tls, char *why, size_t len)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (ctx == NULL) {
		ssl_why("TLS", NULL, why, len);
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, verify_cb);
	SSL_CTX_set_info_callback(ctx, info_cb);
	if (tls == NULL || tls->ca == NULL) {
		snprintf(why, len, "https endpoints need ha.etcd.ca");
		goto fail;
	}
	if (SSL_CTX_load_verify_locations(ctx, tls->ca, NULL) != 1) {
		ssl_why("cannot load the CA", tls->ca, why, len);
		goto fail;
	}
	if ((tls->cert == NULL) != (tls->key == NULL)) {
		snprintf(why, len, "ha.etcd.cert and ha.etcd.key go together");
		goto fail;
	}
	if (tls->cert && SSL_CTX_use_certificate_chain_file(ctx, tls->cert) != 1) {
		ssl_why("cannot load the client certificate", tls->cert, why, len);
		goto fail;
	}
	if (tls->key && (SSL_CTX_use_PrivateKey_file(ctx, tls->key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1)) {
		ssl_why("cannot load the client key", tls->key, why, len);
		goto fail;
	}
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

struct etcd *
etcd_new(struct event_base *base, char *const *endpoints, size_t n, unsigned timeout_ms,
    const struct etcd_tls *tls, char *why, size_t len)
{
	struct etcd *e = xcalloc(1, sizeof(*e));
	bool any_tls = false;

	e->base = base;
	e->timeout_ms = timeout_ms;
	for (size_t i = 0; i < n && e->nep < ETCD_MAX_ENDPOINTS; i++)
		if (parse_endpoint(endpoints[i], &e->ep[e->nep])) {
			any_tls |= e->ep[e->nep].tls;
			e->ep[e->nep++].backoff_ms = BACKOFF_MIN_MS;
		}
	if (any_tls && (e->ssl = tls_context(tls, why, len)) == NULL) {
		free(e);
		return NULL;
	}
	e->reap_ev = evtimer_new(base, reap, e);
	return e;
}

static void
call_unlink(struct call *c)
{
	struct etcd *e = c->e;

	if (c->prev)
		c->prev->next = c->next;
	else
		e->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	e->ninflight--;
}

void
etcd_fail_all(struct etcd *e, const char *why)
{
	while (e->calls) {
		struct call *c = e->calls;

		call_unlink(c);
		/* its request is freed unanswered: no callback into c */
		evhttp_connection_free(c->conn);
		c->cb(NULL, why, c->arg);
		free(c->path);
		free(c->body);
		free(c);
	}
}

void
etcd_free(struct etcd *e)
{
	if (e == NULL)
		return;
	etcd_fail_all(e, "the etcd client is shutting down");
	reap(-1, 0, e);
	if (e->reap_ev)
		event_free(e->reap_ev);
	free(e->dead);
	SSL_CTX_free(e->ssl);
	free(e);
}

/* The next endpoint not in backoff after the one that failed; the one
 * whose backoff ends first when all are. */
static void
fail_over(struct etcd *e, size_t failed)
{
	int64_t now = clock_mono_ms();
	struct endpoint *f = &e->ep[failed];
	size_t best = failed;

	f->down_until_ms = now + f->backoff_ms;
	f->backoff_ms = f->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : f->backoff_ms * 2;
	if (e->cur != failed)
		return;		/* another call moved on already */
	for (size_t k = 1; k <= e->nep; k++) {
		size_t i = (failed + k) % e->nep;

		if (e->ep[i].down_until_ms <= now) {
			best = i;
			break;
		}
		if (e->ep[i].down_until_ms < e->ep[best].down_until_ms)
			best = i;
	}
	e->cur = best;
}

static json_t *
reply_json(struct evhttp_request *req, char *err, size_t errlen)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	json_error_t je;
	json_t *o;

	if (len > MAX_REPLY) {
		snprintf(err, errlen, "reply of %zu bytes", len);
		return NULL;
	}
	o = json_loadb((const char *)evbuffer_pullup(in, -1), len, 0, &je);
	if (!json_is_object(o)) {
		snprintf(err, errlen, "not a JSON object (HTTP %d)",
		    evhttp_request_get_response_code(req));
		json_decref(o);
		return NULL;
	}
	if (json_is_string(json_object_get(o, "error"))) {
		snprintf(err, errlen, "%s", json_string_value(json_object_get(o, "error")));
		json_decref(o);
		return NULL;
	}
	return o;
}

static int send_call(struct etcd *e, struct call *c);

static void
call_free(struct call *c)
{
	free(c->path);
	free(c->body);
	free(c);
}

/* Why a call over TLS got no answer, when its handshake said (false:
 * it did not get that far). */
static bool
tls_reason(const struct endpoint *ep, char *why, size_t len)
{
	if (!ep->tls || ep->tls_why[0] == '\0')
		return false;
	snprintf(why, len, "TLS: %s", ep->tls_why);
	return true;
}

static void
on_reply(struct evhttp_request *req, void *arg)
{
	struct call *c = arg;
	struct etcd *e = c->e;
	struct endpoint *ep = &e->ep[c->ep];
	char err[256], why[200];
	json_t *o = NULL;

	bool unanswered = req == NULL || evhttp_request_get_response_code(req) == 0;

	if (!unanswered)
		o = reply_json(req, why, sizeof(why));
	else if (!tls_reason(ep, why, sizeof(why)))
		snprintf(why, sizeof(why), "no answer (refused, reset or timed out)");
	call_unlink(c);
	bury(e, c->conn);	/* not freed inside its own callback */
	c->conn = NULL;
	if (o == NULL) {
		snprintf(err, sizeof(err), "%s: %s", ep->label, why);
		fail_over(e, c->ep);
		/* refused or reset at once (a member down), not timed out: the
		 * next member is asked.  A compared write that did land is then
		 * answered "conflict", never applied twice. */
		if (unanswered && ++c->tries < e->nep && e->cur != c->ep &&
		    clock_mono_ms() - c->sent_ms < e->timeout_ms / 2 && send_call(e, c) == 0)
			return;
		c->cb(NULL, err, c->arg);
	} else {
		ep->backoff_ms = BACKOFF_MIN_MS;
		ep->tls_why[0] = '\0';	/* a handshake went through since */
		c->cb(o, NULL, c->arg);
		json_decref(o);
	}
	call_free(c);
}

static struct evhttp_connection *
connection(struct etcd *e, struct endpoint *ep)
{
	struct timeval tv = { e->timeout_ms / 1000, (e->timeout_ms % 1000) * 1000 };
	struct evhttp_connection *conn;
	struct bufferevent *bev;
	unsigned char addr[16];
	SSL *ssl;

	if (!ep->tls) {
		conn = evhttp_connection_base_new(e->base, NULL, ep->host, ep->port);
	} else {
		if ((ssl = SSL_new(e->ssl)) == NULL)
			return NULL;
		SSL_set_app_data(ssl, ep);
		/* the member's certificate must name the endpoint: its IP
		 * address or its host name */
		if (inet_pton(AF_INET, ep->host, addr) == 1 || inet_pton(AF_INET6, ep->host, addr) == 1)
			X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), ep->host);
		else {
			SSL_set1_host(ssl, ep->host);
			SSL_set_tlsext_host_name(ssl, ep->host);
		}
		bev = bufferevent_openssl_socket_new(e->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
		    BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
		if (bev == NULL) {
			SSL_free(ssl);
			return NULL;
		}
		conn = evhttp_connection_base_bufferevent_new(e->base, NULL, bev, ep->host, ep->port);
	}
	if (conn == NULL)
		return NULL;
	evhttp_connection_set_timeout_tv(conn, &tv);
	evhttp_connection_set_retries(conn, 0);
	return conn;
}

/* c to the current endpoint; 0, or -1 (c not linked, not freed). */
static int
send_call(struct etcd *e, struct call *c)
{
	struct endpoint *ep = &e->ep[e->cur];
	struct evhttp_connection *conn;
	struct evhttp_request *req;

	c->ep = e->cur;
	c->sent_ms = clock_mono_ms();
	if ((conn = connection(e, ep)) == NULL)
		return -1;
	if ((req = evhttp_request_new(on_reply, c)) == NULL) {
		evhttp_connection_free(conn);
		return -1;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host", ep->host);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	    "application/json");
	evbuffer_add(evhttp_request_get_output_buffer(req), c->body, strlen(c->body));
	c->prev = NULL;
	c->next = e->calls;
	if (e->calls)
		e->calls->prev = c;
	e->calls = c;
	e->ninflight++;
	if (evhttp_make_request(conn, req, EVHTTP_REQ_POST, c->path) != 0) {
		call_unlink(c);	/* libevent freed the request */
		evhttp_connection_free(conn);
		return -1;
	}
	c->conn = conn;
	return 0;
}

int
etcd_call(struct etcd *e, const char *path, json_t *body, etcd_cb cb, void *arg)
{
	struct call *c;
	char *text;

	if (e->nep == 0 || (text = json_dumps(body, JSON_COMPACT)) == NULL) {
		json_decref(body);
		return -1;
	}
	json_decref(body);
	c = xcalloc(1, sizeof(*c));
	c->e = e;
	c->cb = cb;
	c->arg = arg;
	c->path = xstrdup(path);
	c->body = text;
	if (send_call(e, c) != 0) {
		call_free(c);
		return -1;
	}
	return 0;
}

const char *etcd_endpoint(const struct etcd *e) { return e->nep ? e->ep[e->cur].label : ""; }
size_t etcd_inflight(const struct etcd *e) { return e->ninflight; }

char *
etcd_b64(const void *data, size_t len)
{
	char *out = xmalloc(4 * ((len + 2) / 3) + 1);

	EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	return out;
}

char *
etcd_unb64(const char *text, size_t *len)
{
	size_t n = strlen(text), pad = 0;
	char *out;
	int got;

	if (n % 4 != 0)
		return NULL;
	out = xmalloc(n / 4 * 3 + 1);
	if ((got = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)text, (int)n)) < 0) {
		free(out);
		return NULL;
	}
	/* EVP_DecodeBlock counts the padding's zero bytes */
	if (n >= 1 && text[n - 1] == '=')
		pad++;
	if (n >= 2 && text[n - 2] == '=')
		pad++;
	*len = (size_t)got - pad;
	out[*len] = '\0';
	return out;
}

int64_t
etcd_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_string(v))
		return (int64_t)strtoull(json_string_value(v), NULL, 10);	/* IDs are uint64 */
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}
