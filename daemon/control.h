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
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/proto.h"
#include "daemon/control_access.h"

struct ctl_req;
struct fabricd;

typedef void (*ctl_handler)(struct ctl_req *req, json_t *args);

/* One prototype per declared command: ctl_<ident>(). */
#define CMD(ident, wire, access, words, spec, help, ...) \
	void ctl_##ident(struct ctl_req *req, json_t *args);
#include "common/commands.def"
#undef CMD

struct fabricd_config;

/* A command of commands.def: its wire name, who may run it, its handler
 * and its argument spec.  The table (daemon/commands.c) names every
 * module's handlers, so it sits above them and is handed in. */
struct ctl_command {
	const char	*name;
	enum ctl_access	 access;
	ctl_handler	 handler;
	const char	*spec_text;
};

/* Listen on cfg->socket with cfg's groups and limits, answering the n
 * commands of cmds (kept: a static table). */
int control_init(struct fabricd *fd, const struct fabricd_config *cfg,
    const struct ctl_command *cmds, size_t n);
/* Apply a reloaded configuration's groups and limits (not the socket). */
void control_configure(const struct fabricd_config *cfg);
void control_shutdown(void);
/*
 * Whether this daemon's SM is master, asked for every remote request but
 * status and version (a standby answers not_master, naming the master by
 * control.peers).  The SM module sets the probe while it runs; without
 * one (no SM) every request is served.
 */
struct ctl_sm_state {
	bool		 master;
	uint64_t	 master_guid;	/* the SM a standby follows; 0 unknown */
	uint16_t	 master_lid;
};
typedef void (*ctl_sm_probe)(void *arg, struct ctl_sm_state *out);
void control_set_sm_probe(ctl_sm_probe probe, void *arg);

/*
 * The subnets this daemon serves (sm.subnets, the first the primary one),
 * set by the SM module while it runs; none: one subnet, unnamed.  A
 * request may name one (fabricctl --subnet, "subnet" beside "cmd"): the
 * SM's commands then ask that subnet's SM (ctl_req_subnet); status shows
 * it; partition commands take the primary's planes too (planes[i]: the
 * subnet is in the primary's plane group, one tenant space); every other
 * command serves the primary subnet only and refuses another.  An unknown
 * name is an invalid argument.
 */
#define CTL_SUBNET_NAME_MAX	31
void control_set_subnets(const char *const *names, const bool *planes, size_t n);
/* The subnet the request named, NULL when none. */
const char *ctl_req_subnet(const struct ctl_req *req);

/* Connection counts, limits, refusals: the "control" part of status. */
json_t *control_status(void);

void ctl_reply_ok(struct ctl_req *req, json_t *result);	/* steals result (may be NULL) */
void ctl_reply_error(struct ctl_req *req, enum proto_error code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Send one stream item (stolen); -1 when the client is gone. */
int ctl_reply_stream(struct ctl_req *req, json_t *item);

/* The caller's uid on the Unix socket; (uid_t)-1 over TLS (never root). */
uid_t ctl_req_uid(const struct ctl_req *req);
/* Who asked, for history and audit: "uid N" on the socket, "cert CN"
 * over TLS (the certificate's subject CN, else its fingerprint). */
const char *ctl_req_who(const struct ctl_req *req);
/* The daemon the request came to (its modules' instances: fd->sm). */
struct fabricd *ctl_req_daemon(const struct ctl_req *req);
bool ctl_req_admin(const struct ctl_req *req);
bool ctl_req_gone(const struct ctl_req *req);
/* Bytes of earlier replies its client has not read (0 once gone): a long
 * stream sends its next part when this is low, never faster than it reads. */
size_t ctl_req_unsent(const struct ctl_req *req);
const char *ctl_req_command(const struct ctl_req *req);
/* Called once if the client disconnects before the final reply. */
void ctl_req_on_gone(struct ctl_req *req, void (*cb)(struct ctl_req *, void *), void *arg);

/* Argument helpers: NULL/false when absent.  Types need no checking in
 * a handler: every request was checked against the command's spec in
 * commands.def before dispatch (unknown or wrong-typed: invalid_argument). */
const char *ctl_arg_str(json_t *args, const char *key);
bool ctl_arg_bool(json_t *args, const char *key);
bool ctl_arg_int(json_t *args, const char *key, long long *out);

/* A FILE argument (commands.def), already read from the descriptor the
 * client passed: a regular file of at most FILE_MAX_INPUT bytes.  name is
 * the client's label for messages, never a path the daemon opens. */
struct ctl_file {
	char	 key[32];
	char	*name;
	char	*data;		/* NUL-terminated */
	size_t	 len;
};
const struct ctl_file *ctl_arg_file(const struct ctl_req *req, const char *key);

#endif
