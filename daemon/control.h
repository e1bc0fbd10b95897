/*
 * The control socket: newline-delimited JSON over a Unix stream socket
 * (common/proto.h).  Peer credentials (SO_PEERCRED) taken at accept decide
 * the caller's rights; each command's access level comes from
 * common/commands.def and is enforced here, before any handler runs, so a
 * handler never has to remember to check.
 *
 * A handler receives a request and must answer it exactly once, now or
 * later, with ctl_reply_ok() or ctl_reply_error().  Long operations keep the
 * request and answer when done; if the client went away meanwhile the
 * answer is dropped quietly.  Streaming commands send ctl_reply_stream()
 * items before the final answer.
 */
#ifndef FABRICD_CONTROL_H
#define FABRICD_CONTROL_H

#include <stdbool.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/proto.h"

struct ctl_req;
struct fabricd;

enum ctl_access { CTL_READ, CTL_ADMIN };

typedef void (*ctl_handler)(struct ctl_req *req, json_t *args);

/* One prototype per declared command: ctl_<ident>(). */
#define CMD(ident, wire, access, words, spec, help) \
	void ctl_##ident(struct ctl_req *req, json_t *args);
#include "common/commands.def"
#undef CMD

int control_init(struct fabricd *fd, const char *path, const char *admin_group,
    const char *read_group);
void control_set_groups(const char *admin_group, const char *read_group);
void control_shutdown(void);

void ctl_reply_ok(struct ctl_req *req, json_t *result);	/* steals result (may be NULL) */
void ctl_reply_error(struct ctl_req *req, enum proto_error code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Send one stream item (stolen); -1 when the client is gone. */
int ctl_reply_stream(struct ctl_req *req, json_t *item);

uid_t ctl_req_uid(const struct ctl_req *req);
bool ctl_req_admin(const struct ctl_req *req);
bool ctl_req_gone(const struct ctl_req *req);
const char *ctl_req_command(const struct ctl_req *req);
/* Called once if the client disconnects before the final reply. */
void ctl_req_on_gone(struct ctl_req *req, void (*cb)(struct ctl_req *, void *), void *arg);

/* Argument helpers: NULL/default when absent; a wrong type is reported
 * with invalid_argument by ctl_args_check(). */
const char *ctl_arg_str(json_t *args, const char *key);
bool ctl_arg_bool(json_t *args, const char *key);
bool ctl_arg_int(json_t *args, const char *key, long long *out);

#endif
