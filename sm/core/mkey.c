/*
 * M_Key derivation, storage and lease recovery (sm/core/mkey.h).
 */
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "sm/core/mkey.h"

#define LEASE_MARGIN_MS	1000	/* the port's timer and ours do not start together */
#define SEAL_IV		12	/* AES-GCM's nonce */
#define SEAL_TAG	16

uint64_t
sm_mkey_derive(const uint8_t *secret, size_t len, uint64_t port_guid)
{
	uint8_t msg[8], mac[EVP_MAX_MD_SIZE];
	unsigned maclen = 0;
	uint64_t key = 0;

	port_guid = htobe64(port_guid);
	memcpy(msg, &port_guid, sizeof(msg));
	if (HMAC(EVP_sha256(), secret, (int)len, msg, sizeof(msg), mac, &maclen) == NULL ||
	    maclen < 8)
		return 1;	/* cannot happen with SHA-256; never 0 */
	memcpy(&key, mac, sizeof(key));
	key = be64toh(key);
	return key ? key : 1;
}

static struct sm_mkey_port *
port_state(struct sm_mkey *k, uint64_t guid, bool create)
{
	struct sm_mkey_port *p = guid_map_get(&k->ports, guid);

	if (p == NULL && create && guid != 0) {
		p = xcalloc(1, sizeof(*p));
		guid_map_put(&k->ports, guid, p);
	}
	return p;
}

uint64_t
sm_mkey_of(struct sm_mkey *k, uint64_t port_guid)
{
	const struct sm_mkey_port *p;

	if (!k->enabled || port_guid == 0)
		return 0;
	if ((p = port_state(k, port_guid, false)) != NULL && p->key)
		return p->key;
	return sm_mkey_derive(k->secret, k->secret_len, port_guid);
}

const struct fabric_port *
sm_mkey_port_of(const struct fabric *f, uint64_t own_port_guid, const struct mad_addr *a)
{
	const struct fabric_port *p;
	unsigned i;

	if (f == NULL)
		return NULL;
	if (!a->directed) {
		p = fabric_port_by_lid(f, a->dlid);
		return p && p->node->type == FABRIC_SWITCH ? &p->node->ports[0] : p;
	}
	if ((p = fabric_port_by_guid(f, own_port_guid)) == NULL)
		return NULL;
	/* path[1] leaves our node; each next hop leaves the node reached */
	for (i = 1; i <= a->hops; i++) {
		const struct fabric_node *n = p->node;

		if (a->path[i] > n->nports || (p = n->ports[a->path[i]].peer) == NULL)
			return NULL;
	}
	return p->node->type == FABRIC_SWITCH ? &p->node->ports[0] : p;
}

enum sm_mkey_step
sm_mkey_recovery(const struct sm_mkey_port *p, uint16_t lease_s, int64_t now_ms)
{
	if (p == NULL || !p->unknown)
		return SM_MKEY_SEND;
	if (lease_s == 0)
		return SM_MKEY_STUCK;
	if (now_ms - p->unknown_since_ms >= (int64_t)lease_s * 1000 + LEASE_MARGIN_MS)
		return SM_MKEY_SEND;
	return SM_MKEY_WAIT;
}

struct sm_mkey_port *
sm_mkey_rejected(struct sm_mkey *k, uint64_t port_guid, int64_t now_ms)
{
	struct sm_mkey_port *p = port_state(k, port_guid, true);

	/* the lease timer restarts with every refused try */
	if (p) {
		p->unknown = true;
		p->unknown_since_ms = now_ms;
	}
	return p;
}

int
sm_mkey_accepted(struct sm_mkey *k, uint64_t port_guid, uint64_t key)
{
	struct sm_mkey_port *p = port_state(k, port_guid, true);
	bool news;

	if (p == NULL)
		return 0;
	news = p->key != key;
	p->key = key;
	p->unknown = false;
	p->told = false;
	return news;
}

int
sm_mkey_load(struct sm_mkey *k, struct store *st, const char *subnet)
{
	sqlite3_stmt *s;

	if (st == NULL)
		return 0;
	if ((s = store_prepare(st, "SELECT port_guid, mkey FROM sm_mkeys WHERE subnet = ?")) == NULL)
		return -1;
	sqlite3_bind_text(s, 1, subnet, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW)
		port_state(k, (uint64_t)sqlite3_column_int64(s, 0), true)->key =
		    (uint64_t)sqlite3_column_int64(s, 1);
	sqlite3_reset(s);
	return 0;
}

void
sm_mkey_save(struct store *st, const char *subnet, uint64_t port_guid, uint64_t key)
{
	sqlite3_stmt *s;

	if (st == NULL || (s = store_prepare(st, "INSERT OR REPLACE INTO sm_mkeys "
	    "(port_guid, mkey, set_ms, subnet) VALUES (?, ?, ?, ?)")) == NULL)
		return;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)port_guid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)key);
	sqlite3_bind_int64(s, 3, event_now_ms());
	sqlite3_bind_text(s, 4, subnet, -1, SQLITE_TRANSIENT);
	store_step_done(st, s);
}

/* The sealing key: HMAC-SHA256(secret, a label), so that it is never the
 * secret itself nor any port's key. */
static int
seal_key(const struct sm_mkey *k, uint8_t out[32])
{
	static const char label[] = "fabricd: M_Key records in etcd, v1";
	unsigned len = 0;

	if (k->secret_len == 0 || HMAC(EVP_sha256(), k->secret, (int)k->secret_len,
	    (const uint8_t *)label, sizeof(label) - 1, out, &len) == NULL || len != 32)
		return -1;
	return 0;
}

/* enc 1: plain -> iv | cipher | tag; enc 0: the reverse, checking the tag. */
static int
gcm(const uint8_t key[32], int enc, const uint8_t *iv, const uint8_t *in, size_t len,
    uint8_t *out, uint8_t *tag)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n = 0, fin = 0, ok;

	ok = c != NULL && EVP_CipherInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL, enc) == 1 &&
	    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, SEAL_IV, NULL) == 1 &&
	    EVP_CipherInit_ex(c, NULL, NULL, key, iv, enc) == 1 &&
	    EVP_CipherUpdate(c, out, &n, in, (int)len) == 1 &&
	    (enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, SEAL_TAG, tag) == 1) &&
	    EVP_CipherFinal_ex(c, out + n, &fin) == 1 &&
	    (!enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, SEAL_TAG, tag) == 1);
	EVP_CIPHER_CTX_free(c);
	return ok ? 0 : -1;
}

char *
sm_mkey_seal(const struct sm_mkey *k, const char *plain, size_t len)
{
	uint8_t key[32], *buf = xmalloc(SEAL_IV + len + SEAL_TAG);
	char *b64 = NULL;

	if (seal_key(k, key) == 0 && RAND_bytes(buf, SEAL_IV) == 1 &&
	    gcm(key, 1, buf, (const uint8_t *)plain, len, buf + SEAL_IV,
	    buf + SEAL_IV + len) == 0) {
		b64 = xmalloc(4 * ((SEAL_IV + len + SEAL_TAG + 2) / 3) + 1);
		EVP_EncodeBlock((uint8_t *)b64, buf, (int)(SEAL_IV + len + SEAL_TAG));
	}
	explicit_bzero(key, sizeof(key));
	free(buf);
	return b64;
}

char *
sm_mkey_open(const struct sm_mkey *k, const char *sealed, size_t *len)
{
	size_t slen = strlen(sealed), raw;
	uint8_t key[32], *buf;
	char *plain = NULL;
	int n;

	if (slen % 4 != 0 || slen < 4 * ((SEAL_IV + SEAL_TAG + 2) / 3))
		return NULL;
	buf = xmalloc(slen / 4 * 3 + 1);
	n = EVP_DecodeBlock(buf, (const uint8_t *)sealed, (int)slen);
	/* DecodeBlock counts the padding as bytes */
	raw = n < 0 ? 0 : (size_t)n - (slen >= 1 && sealed[slen - 1] == '=') -
	    (slen >= 2 && sealed[slen - 2] == '=');
	if (n >= 0 && raw >= SEAL_IV + SEAL_TAG && seal_key(k, key) == 0) {
		*len = raw - SEAL_IV - SEAL_TAG;
		plain = xmalloc(*len + 1);
		if (gcm(key, 0, buf, buf + SEAL_IV, *len, (uint8_t *)plain,
		    buf + SEAL_IV + *len) == 0)
			plain[*len] = '\0';
		else {
			explicit_bzero(plain, *len);
			free(plain);
			plain = NULL;
		}
		explicit_bzero(key, sizeof(key));
	}
	free(buf);
	return plain;
}

void
sm_mkey_free(struct sm_mkey *k)
{
	size_t i;

	for (i = 0; i < k->ports.cap; i++)
		if (k->ports.keys && k->ports.keys[i])
			free(k->ports.vals[i]);
	guid_map_free(&k->ports);
	explicit_bzero(k->secret, sizeof(k->secret));
	memset(k, 0, sizeof(*k));
}
