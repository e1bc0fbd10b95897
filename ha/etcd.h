/*
 * A client of etcd's v3 JSON gateway (POST /v3/kv/range, /v3/kv/txn,
 * /v3/lease/..., /v3/maintenance/status) over libevent's HTTP client:
 * nothing blocks the loop.  Debian has no C client for etcd v3; the
 * gateway is part of every etcd server since 3.3 and speaks the same
 * protobuf messages as JSON (64-bit numbers as strings, bytes as base64).
 *
 * One endpoint is used at a time.  A call that gets no answer (refused,
 * timed out) or an error moves the next call to the next endpoint; an
 * endpoint that failed is skipped for a backoff (200 ms doubling to 5 s)
 * while another is not in backoff.
 */
#ifndef FABRICD_HA_ETCD_H
#define FABRICD_HA_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <event2/event.h>

#define ETCD_MAX_ENDPOINTS	8

struct etcd;

/* TLS for https endpoints: the CA that signed the members' certificates
 * (required), and the client certificate and key etcd asks for with
 * --client-cert-auth (both or neither). */
struct etcd_tls {
	const char	*ca, *cert, *key;
};
/* endpoints: "http://HOST:PORT" or "https://HOST:PORT" (checked by the
 * configuration).  NULL, with why, when the TLS files do not load. */
struct etcd *etcd_new(struct event_base *base, char *const *endpoints, size_t n,
    unsigned timeout_ms, const struct etcd_tls *tls, char *why, size_t len);
/* Calls in flight are answered with an error first. */
void etcd_free(struct etcd *e);
/* Every call in flight answered now with an error (a module above is
 * stopping: its callbacks must run while its state is still there). */
void etcd_fail_all(struct etcd *e, const char *why);

/* reply: the gateway's JSON object (borrowed for the call), NULL on
 * failure; err then says why ("127.0.0.1:2379: connection refused",
 * "etcdserver: request timed out", ...). */
typedef void (*etcd_cb)(json_t *reply, const char *err, void *arg);
/* POST body (stolen) to path; 0, or -1 when it could not be sent (cb is
 * then not called). */
int etcd_call(struct etcd *e, const char *path, json_t *body, etcd_cb cb, void *arg);

/* The endpoint the next call goes to, "HOST:PORT". */
const char *etcd_endpoint(const struct etcd *e);
size_t etcd_inflight(const struct etcd *e);

/* Base64 as the gateway wants bytes (heap strings); unb64 returns NULL on
 * bad input, *len the decoded length (the buffer is NUL-terminated). */
char *etcd_b64(const void *data, size_t len);
char *etcd_unb64(const char *text, size_t *len);
/* A 64-bit field the gateway writes as a string ("12") or leaves out (0). */
int64_t etcd_int(json_t *o, const char *key);

#endif
