/* The partitions' intent in etcd (replica.c); all no-ops without ha. */
#ifndef FABRICD_PARTITIONS_REPLICA_H
#define FABRICD_PARTITIONS_REPLICA_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/proto.h"

struct ha;
struct pt_config;
struct pt_index;

void pt_replica_start(struct ha *ha);	/* ha NULL: off */
void pt_replica_stop(void);
bool pt_replica_on(void);
/* {"revision": the model's etcd revision held here, "ready": this master
 * may write (lease held, latest intent read)}. */
json_t *pt_replica_status(void);
/* The master may program P_Keys: it holds the writer lease and has read
 * the latest intent (claimed and read when not; true without ha). */
bool pt_replica_ready(void);
/* Why a change is refused now (buf), NULL when it may go to etcd. */
const char *pt_replica_refusal(char *buf, size_t len);
/* The change into etcd (model and journal, fenced, compared with the
 * revision read): then(PERR_NONE, NULL) once committed, else the error
 * and why; nothing is on the fabric yet.  -1: refused at once. */
typedef void (*pt_replica_fn)(enum proto_error code, const char *msg, void *arg);
int pt_replica_publish(const struct pt_config *proposed, const struct pt_index *idx, size_t n,
    const char *action, pt_replica_fn then, void *arg);
/* A row of `partition history` (sqlite; with ha, the master's mirror puts
 * it within a second). */
void pt_history_add(uid_t uid, bool has_uid, const char *action, const char *detail,
    const char *result, const char *message);
/* The change is on the fabric (ok) or was rolled back to committed. */
void pt_replica_applied(bool ok, const struct pt_config *committed, const struct pt_index *idx,
    size_t n);

#endif
