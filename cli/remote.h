/*
 * fabricctl's remote channel: fabricd's control.listen over TLS with a
 * client certificate.  Blocking OpenSSL: the CLI has nothing else to do.
 */
#ifndef FABRICCTL_REMOTE_H
#define FABRICCTL_REMOTE_H

#include <stddef.h>
#include <sys/types.h>
#include <openssl/ssl.h>

#define CLI_REMOTE_MAX	8	/* addresses in one --remote list */

struct cli_remote {
	char	*addr[CLI_REMOTE_MAX];	/* HOST:PORT, in the order tried */
	size_t	 naddr;
	char	*cert, *key, *ca;
};

/* Fill what is unset in r from a client config file ("remote: A,B",
 * "cert: FILE", "key: FILE", "ca: FILE"; '#' comments; a relative FILE is
 * taken from the file's folder).  -1 after saying why on stderr. */
int cli_remote_config(const char *path, struct cli_remote *r);
/* Split "A,B,C" into r->addr; -1 after saying why. */
int cli_remote_addrs(const char *list, struct cli_remote *r);
/* -1 after naming what is missing (cert, key, ca). */
int cli_remote_complete(const struct cli_remote *r);
void cli_remote_free(struct cli_remote *r);

/* A verified connection to addr, or NULL after saying why on stderr;
 * *unreachable tells a peer that is not there (try the next) from one
 * that refused us or that we refused. */
SSL *cli_tls_connect(const char *addr, const struct cli_remote *r, int *unreachable);
void cli_tls_close(SSL *ssl);
/* SSL_read and SSL_write.  A failed read says why on stderr, notably the
 * server's alert when it refused our certificate, which TLS 1.3 delivers
 * only at the first read; a failed write says nothing: a server that
 * refused us after the handshake has sent its reason, to be read. */
ssize_t cli_tls_read(SSL *ssl, void *buf, size_t len);
int cli_tls_write_all(SSL *ssl, const char *buf, size_t len);

#endif
