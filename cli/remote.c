/*
 * The remote channel's client side (cli/remote.h): the client config
 * file, the TLS connection and its errors in words an operator can act
 * on (which file does not load, which certificate does not verify, who
 * refused whom).
 */
#include <errno.h>
#include <libgen.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "cli/remote.h"

#define CONNECT_MS	5000	/* a host that does not answer: try the next */
#define HANDSHAKE_S	10

static char *
dup_or_die(const char *s)
{
	char *d = strdup(s);

	if (d == NULL) {
		fprintf(stderr, "fabricctl: out of memory\n");
		exit(2);
	}
	return d;
}

int
cli_remote_addrs(const char *list, struct cli_remote *r)
{
	char *copy = dup_or_die(list), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (r->naddr == CLI_REMOTE_MAX) {
			fprintf(stderr, "fabricctl: --remote: at most %d addresses\n", CLI_REMOTE_MAX);
			free(copy);
			return -1;
		}
		r->addr[r->naddr++] = dup_or_die(t);
	}
	free(copy);
	if (r->naddr == 0) {
		fprintf(stderr, "fabricctl: --remote: no address\n");
		return -1;
	}
	return 0;
}

/* A relative path in the config file means beside the file. */
static char *
path_from(const char *cfgpath, const char *v)
{
	char *dcopy, *out;

	if (v[0] == '/')
		return dup_or_die(v);
	dcopy = dup_or_die(cfgpath);
	if (asprintf(&out, "%s/%s", dirname(dcopy), v) < 0)
		out = NULL;
	free(dcopy);
	return out ? out : dup_or_die(v);
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	if (e - s >= 2 && (*s == '"' || *s == '\'') && e[-1] == *s) {
		e[-1] = '\0';
		s++;
	}
	return s;
}

static int
config_line(const char *path, unsigned n, char *line, struct cli_remote *r)
{
	char *colon, *k, *v, **slot = NULL;

	if ((colon = strchr(line, '#')) != NULL)
		*colon = '\0';
	k = trim(line);
	if (*k == '\0')
		return 0;
	if ((colon = strchr(k, ':')) == NULL) {
		fprintf(stderr, "fabricctl: %s:%u: expected \"key: value\"\n", path, n);
		return -1;
	}
	*colon = '\0';
	k = trim(k);
	v = trim(colon + 1);
	if (strcmp(k, "remote") == 0)
		return r->naddr ? 0 : cli_remote_addrs(v, r);
	if (strcmp(k, "cert") == 0)
		slot = &r->cert;
	else if (strcmp(k, "key") == 0)
		slot = &r->key;
	else if (strcmp(k, "ca") == 0)
		slot = &r->ca;
	if (slot == NULL) {
		fprintf(stderr, "fabricctl: %s:%u: unknown key \"%s\" (remote, cert, key, ca)\n",
		    path, n, k);
		return -1;
	}
	if (*slot == NULL)	/* the command line wins */
		*slot = path_from(path, v);
	return 0;
}

int
cli_remote_config(const char *path, struct cli_remote *r)
{
	FILE *f = fopen(path, "re");
	char line[4096];
	unsigned n = 0;
	int rc = 0;

	if (f == NULL) {
		fprintf(stderr, "fabricctl: client config %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL)
		rc = config_line(path, ++n, line, r);
	fclose(f);
	return rc;
}

int
cli_remote_complete(const struct cli_remote *r)
{
	const char *missing = r->cert == NULL ? "--cert" : r->key == NULL ? "--key" :
	    r->ca == NULL ? "--ca" : NULL;

	if (missing == NULL)
		return 0;
	fprintf(stderr, "fabricctl: --remote needs %s (or a client config file: --client-config, "
	    "FABRICCTL_REMOTE_CONFIG)\n", missing);
	return -1;
}

void
cli_remote_free(struct cli_remote *r)
{
	for (size_t i = 0; i < r->naddr; i++)
		free(r->addr[i]);
	free(r->cert);
	free(r->key);
	free(r->ca);
	memset(r, 0, sizeof(*r));
}

static const char *
ssl_err(void)
{
	static char buf[256];
	unsigned long e = ERR_peek_last_error();

	if (e == 0)
		return "no reason given";
	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return buf;
}

static SSL_CTX *
client_context(const struct cli_remote *r)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (ctx == NULL) {
		fprintf(stderr, "fabricctl: TLS: %s\n", ssl_err());
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_load_verify_locations(ctx, r->ca, NULL) != 1)
		fprintf(stderr, "fabricctl: --ca %s does not load: %s\n", r->ca, ssl_err());
	else if (SSL_CTX_use_certificate_chain_file(ctx, r->cert) != 1)
		fprintf(stderr, "fabricctl: --cert %s does not load: %s\n", r->cert, ssl_err());
	else if (SSL_CTX_use_PrivateKey_file(ctx, r->key, SSL_FILETYPE_PEM) != 1)
		fprintf(stderr, "fabricctl: --key %s does not load: %s\n", r->key, ssl_err());
	else if (SSL_CTX_check_private_key(ctx) != 1)
		fprintf(stderr, "fabricctl: --key %s is not the key of --cert %s\n", r->key, r->cert);
	else
		return ctx;
	SSL_CTX_free(ctx);
	return NULL;
}

/* host and port of "HOST:PORT" or "[V6]:PORT". */
static int
split(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(addr, ':'), *h = addr;
	size_t n;

	if (colon == NULL || colon[1] == '\0')
		return -1;
	n = (size_t)(colon - addr);
	if (addr[0] == '[') {
		if (n < 3 || colon[-1] != ']')
			return -1;
		h++;
		n -= 2;
	}
	if (n == 0 || n >= hlen || strlen(colon + 1) >= plen)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, plen, "%s", colon + 1);
	return 0;
}

/* A non-blocking connect bounded by CONNECT_MS, then blocking again. */
static int
connect_bounded(const struct addrinfo *ai)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int err = 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS)
		goto fail;
	if (poll(&p, 1, CONNECT_MS) != 1) {
		errno = ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
		errno = err ? err : errno;
		goto fail;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static int
tcp_connect(const char *addr, const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1, rc;

	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", addr, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_bounded(ai);
	if (fd < 0)
		fprintf(stderr, "fabricctl: cannot reach fabricd at %s: %s\n", addr, strerror(errno));
	freeaddrinfo(res);
	return fd;
}

/* The server's certificate must name the host dialled: its IP address
 * for a literal, its DNS name otherwise. */
static void
expect_host(SSL *ssl, const char *host)
{
	unsigned char bin[16];

	if (inet_pton(AF_INET, host, bin) == 1 || inet_pton(AF_INET6, host, bin) == 1) {
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
	} else {
		SSL_set1_host(ssl, host);
		SSL_set_tlsext_host_name(ssl, host);
	}
}

static void
handshake_failed(SSL *ssl, const char *addr)
{
	long v = SSL_get_verify_result(ssl);

	if (v != X509_V_OK)
		fprintf(stderr, "fabricctl: the certificate of %s does not verify against --ca: %s\n",
		    addr, X509_verify_cert_error_string(v));
	else
		fprintf(stderr, "fabricctl: TLS with %s failed: %s (does it refuse our --cert, "
		    "one its control.tls.ca did not sign?)\n", addr, ssl_err());
}

SSL *
cli_tls_connect(const char *addr, const struct cli_remote *r, int *unreachable)
{
	struct timeval tv = { HANDSHAKE_S, 0 }, none = { 0, 0 };
	char host[256], port[16];
	SSL_CTX *ctx;
	SSL *ssl;
	int fd;

	*unreachable = 0;
	if (split(addr, host, sizeof(host), port, sizeof(port)) != 0) {
		fprintf(stderr, "fabricctl: --remote %s: expected HOST:PORT or [V6]:PORT\n", addr);
		return NULL;
	}
	if ((ctx = client_context(r)) == NULL)
		return NULL;
	if ((fd = tcp_connect(addr, host, port)) < 0) {
		*unreachable = 1;
		SSL_CTX_free(ctx);
		return NULL;
	}
	ssl = SSL_new(ctx);
	SSL_CTX_free(ctx);	/* the SSL holds its own reference */
	expect_host(ssl, host);
	SSL_set_fd(ssl, fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (SSL_connect(ssl) != 1) {
		handshake_failed(ssl, addr);
		cli_tls_close(ssl);
		return NULL;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	return ssl;
}

void
cli_tls_close(SSL *ssl)
{
	int fd;

	if (ssl == NULL)
		return;
	fd = SSL_get_fd(ssl);
	SSL_free(ssl);
	if (fd >= 0)
		close(fd);
}

ssize_t
cli_tls_read(SSL *ssl, void *buf, size_t len)
{
	int n = SSL_read(ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
	int e;

	if (n > 0)
		return n;
	e = SSL_get_error(ssl, n);
	if (e == SSL_ERROR_ZERO_RETURN)
		return 0;
	if (e == SSL_ERROR_SSL && ERR_peek_last_error() != 0) {
		/* TLS 1.3: the server checks our certificate after we think
		 * the handshake is done; its alert comes here */
		fprintf(stderr, "fabricctl: the server refused the connection: %s (is --cert "
		    "signed by the CA of its control.tls.ca?)\n", ssl_err());
		return -2;
	}
	return e == SSL_ERROR_SYSCALL && errno != 0 ? -1 : 0;
}

int
cli_tls_write_all(SSL *ssl, const char *buf, size_t len)
{
	while (len > 0) {
		int n = SSL_write(ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);

		if (n <= 0) {	/* the reason, if any, is read next (cli/fabricctl.c) */
			ERR_clear_error();
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}
