/*
 * The remote control channel's TLS side: the server's context (its
 * certificate and key, the CA that signs clients, a client certificate
 * required at the handshake) and who a verified certificate is
 * (control.clients: by fingerprint or by subject CN, each with a role).
 * The connections themselves are daemon/control_conn.c's, so the same
 * limits and the same protocol layer serve both channels.
 */
#ifndef FABRICD_CONTROL_TLS_H
#define FABRICD_CONTROL_TLS_H

#include <stddef.h>
#include <openssl/ssl.h>

#include "daemon/config.h"
#include "daemon/control_access.h"

/* NULL with why ("cannot load the CA /etc/...: ...") when a file does
 * not load or the key does not match the certificate. */
SSL_CTX *ctl_tls_context(const struct cfg_ctl_tls *t, char *why, size_t len);

/* The certificates known (copied: a reload frees the configuration). */
void ctl_tls_set_clients(const struct cfg_ctl_client *v, size_t n);
void ctl_tls_clear(void);

/*
 * The role of the peer's certificate, verified by the handshake against
 * the CA; who gets "cert CN" (or its fingerprint when it has no CN) for
 * caps, messages and audit.  ROLE_NONE when no entry names it.
 */
enum ctl_role ctl_tls_identify(SSL *ssl, char *who, size_t wlen);

#endif
