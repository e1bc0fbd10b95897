/*
 * TLS for the remote control channel (control_tls.h).  Client
 * certificates are required at the handshake (SSL_VERIFY_FAIL_IF_NO_PEER_CERT):
 * a peer without one, or with one the CA did not sign, never reaches the
 * protocol layer and is sent nothing but TLS's own alert.  A verified
 * certificate that no control.clients entry names is refused after the
 * handshake with permission_denied, so that its owner learns why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control_tls.h"

static struct {
	struct cfg_ctl_client	*v;
	size_t			 n;
} known;

static void
ssl_why(const char *what, const char *file, char *why, size_t len)
{
	unsigned long e = ERR_peek_last_error();
	char buf[160];

	ERR_error_string_n(e, buf, sizeof(buf));
	snprintf(why, len, "%s %s: %s", what, file, e ? buf : "unknown error");
	ERR_clear_error();
}

SSL_CTX *
ctl_tls_context(const struct cfg_ctl_tls *t, char *why, size_t len)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	STACK_OF(X509_NAME) *names;

	if (ctx == NULL) {
		ssl_why("cannot create a TLS context for", "control.listen", why, len);
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* no ticket or session reuse: every connection proves its
	 * certificate again, so a removed client entry takes effect at once */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	if (SSL_CTX_use_certificate_chain_file(ctx, t->cert) != 1)
		ssl_why("cannot load the certificate", t->cert, why, len);
	else if (SSL_CTX_use_PrivateKey_file(ctx, t->key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1)
		ssl_why("cannot load the key (or it does not match the certificate)", t->key, why, len);
	else if (SSL_CTX_load_verify_locations(ctx, t->ca, NULL) != 1 ||
	    (names = SSL_load_client_CA_file(t->ca)) == NULL)
		ssl_why("cannot load the CA", t->ca, why, len);
	else {
		SSL_CTX_set_client_CA_list(ctx, names);
		return ctx;
	}
	SSL_CTX_free(ctx);
	return NULL;
}

void
ctl_tls_clear(void)
{
	for (size_t i = 0; i < known.n; i++) {
		free(known.v[i].fingerprint);
		free(known.v[i].cn);
	}
	free(known.v);
	known.v = NULL;
	known.n = 0;
}

void
ctl_tls_set_clients(const struct cfg_ctl_client *v, size_t n)
{
	ctl_tls_clear();
	known.v = xcalloc(n ? n : 1, sizeof(*known.v));
	for (size_t i = 0; i < n; i++) {
		known.v[i].fingerprint = v[i].fingerprint ? xstrdup(v[i].fingerprint) : NULL;
		known.v[i].cn = v[i].cn ? xstrdup(v[i].cn) : NULL;
		known.v[i].role = v[i].role;
	}
	known.n = n;
}

/* "sha256:AB:CD:...", the form control.clients keeps. */
static void
fingerprint(X509 *x, char *out, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	size_t off;

	out[0] = '\0';
	if (X509_digest(x, EVP_sha256(), md, &n) != 1)
		return;
	off = (size_t)snprintf(out, len, "sha256:");
	for (unsigned int i = 0; i < n && off + 3 < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%02X", i ? ":" : "", md[i]);
}

static enum ctl_role
lookup(const char *fp, const char *cn)
{
	for (size_t i = 0; i < known.n; i++)
		if (known.v[i].fingerprint && strcmp(known.v[i].fingerprint, fp) == 0)
			return (enum ctl_role)known.v[i].role;
	for (size_t i = 0; cn[0] && i < known.n; i++)
		if (known.v[i].cn && strcmp(known.v[i].cn, cn) == 0)
			return (enum ctl_role)known.v[i].role;
	return ROLE_NONE;
}

enum ctl_role
ctl_tls_identify(SSL *ssl, char *who, size_t wlen)
{
	X509 *x = SSL_get1_peer_certificate(ssl);
	char fp[7 + EVP_MAX_MD_SIZE * 3], cn[64] = "";
	enum ctl_role role;
	int n;

	if (x == NULL || SSL_get_verify_result(ssl) != X509_V_OK) {
		snprintf(who, wlen, "an unverified peer");
		X509_free(x);
		return ROLE_NONE;
	}
	fingerprint(x, fp, sizeof(fp));
	/* a CN with a NUL in it, or of 63 bytes or more (maybe cut), matches
	 * no entry: only the fingerprint can name such a certificate */
	n = X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof(cn));
	if (n < 0 || (size_t)n != strlen(cn) || (size_t)n >= sizeof(cn) - 1)
		cn[0] = '\0';
	role = lookup(fp, cn);
	snprintf(who, wlen, "cert %s", cn[0] ? cn : fp);
	X509_free(x);
	return role;
}
