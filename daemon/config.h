/*
 * Configuration: fabricd.yaml parsed with libyaml into typed structs.
 *
 * Every error names FILE:LINE:COLUMN (1-based) and what was expected, and
 * parsing goes on after an error so that one run reports all of them.
 * Unknown keys are errors, with a "did you mean" when a known key is close.
 *
 * Modules own their sections: each declares a struct, its defaults and
 * either a field table (simple keys) or a parse function (nested data);
 * config_load() calls them for the section named after the module.
 */
#ifndef FABRICD_CONFIG_H
#define FABRICD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "common/log.h"

/*
 * Bounds on any YAML fabricd reads (the config, a file a client passes):
 * see daemon/yaml_load.c for why each exists.
 */
#define CFG_MAX_DEPTH		64	/* levels of nesting */
#define CFG_MAX_NODES		100000	/* nodes, aliases expanded */
#define CFG_PARSE_BUDGET_MS	500	/* parsing's CPU time */
#define CFG_MAX_ERRORS		50	/* kept; the rest are counted */

struct cfg_ctx {
	const char	*file;
	const char	*section;	/* for messages: "sm", "control", ... */
	yaml_document_t	*doc;
	char		**errors;	/* "file:line:col: message" */
	size_t		 nerrors;
	size_t		 ndropped;	/* errors past CFG_MAX_ERRORS */
};

/* Load text into doc within the bounds above; false after recording why
 * in ctx (doc is then not initialised). */
bool cfg_yaml_load(struct cfg_ctx *ctx, const char *text, size_t len, yaml_document_t *doc);
/* After the last cfg_error: one closing "and N more errors" line if any
 * were dropped. */
void cfg_errors_finish(struct cfg_ctx *ctx);

/* Record an error at a node's position (node may be NULL: file-level). */
void cfg_error(struct cfg_ctx *ctx, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

yaml_node_t *cfg_node(struct cfg_ctx *ctx, int index);
/* The scalar text of node, or NULL after recording "expected <what>". */
const char *cfg_scalar(struct cfg_ctx *ctx, yaml_node_t *node, const char *what);
bool cfg_expect_mapping(struct cfg_ctx *ctx, yaml_node_t *node, const char *what);
bool cfg_expect_sequence(struct cfg_ctx *ctx, yaml_node_t *node, const char *what);
/* Scalar conversions; each records an error naming the range on failure. */
bool cfg_get_bool(struct cfg_ctx *ctx, yaml_node_t *node, bool *out);
bool cfg_get_uint(struct cfg_ctx *ctx, yaml_node_t *node, uint64_t min, uint64_t max, uint64_t *out);
bool cfg_get_duration_ms(struct cfg_ctx *ctx, yaml_node_t *node, uint64_t min_ms, uint64_t max_ms, uint64_t *out);
/* "did you mean" helper: the candidate closest to word, or NULL. */
const char *cfg_closest(const char *word, const char *const *candidates, size_t n);

enum cfg_type {
	CFG_BOOL,	/* bool */
	CFG_STR,	/* char *, heap, freed by cfg_fields_free */
	CFG_UINT,	/* uint64_t within [min, max] */
	CFG_DURATION,	/* uint64_t milliseconds: "10s", "500ms", "2m", or plain seconds */
	CFG_ENUM,	/* int index into names[] */
	CFG_CUSTOM,	/* parse(ctx, node, field pointer) */
};

struct cfg_field {
	const char		 *key;
	enum cfg_type		  type;
	size_t			  offset;
	uint64_t		  min, max;
	const char *const	 *names;	/* CFG_ENUM, NULL-terminated */
	bool			(*parse)(struct cfg_ctx *, yaml_node_t *, void *field);
};

#define CFG_F_BOOL(k, T, m)		{ k, CFG_BOOL, offsetof(T, m), 0, 1, NULL, NULL }
#define CFG_F_STR(k, T, m)		{ k, CFG_STR, offsetof(T, m), 0, 0, NULL, NULL }
#define CFG_F_UINT(k, T, m, lo, hi)	{ k, CFG_UINT, offsetof(T, m), lo, hi, NULL, NULL }
#define CFG_F_DURATION(k, T, m, lo, hi)	{ k, CFG_DURATION, offsetof(T, m), lo, hi, NULL, NULL }
#define CFG_F_ENUM(k, T, m, names)	{ k, CFG_ENUM, offsetof(T, m), 0, 0, names, NULL }
#define CFG_F_CUSTOM(k, T, m, fn)	{ k, CFG_CUSTOM, offsetof(T, m), 0, 0, NULL, fn }
#define CFG_F_END			{ NULL, 0, 0, 0, 0, NULL, NULL }

/*
 * A key whose change takes a restart: a reload that changes it is refused
 * whole with `conflict` naming it.  Each module lists its own (restart_keys
 * in daemon/fabricd.h), the daemon its own; reload compares the simple
 * ones here, a module's reload_check the CFG_CUSTOM ones (a list, or a key
 * that takes a restart only in some state).  These tables are the one
 * place that decides: fabricctl(8) and fabricd.yaml(5) list exactly their
 * keys (tests/integration/core_docs.sh reads them from the sources).
 */
struct cfg_restart_key {
	const char	*key;		/* whole: "sm.port_guid" */
	enum cfg_type	 type;		/* BOOL, STR, UINT, DURATION, ENUM; CUSTOM */
	size_t		 offset;
};
#define CFG_RESTART(k, type, T, m)	{ k, type, offsetof(T, m) }
#define CFG_RESTART_CUSTOM(k)		{ k, CFG_CUSTOM, 0 }
#define CFG_RESTART_END			{ NULL, 0, 0 }

/* Whether the key's value differs between two configurations of its
 * section (false for CFG_CUSTOM: its module's reload_check decides). */
bool cfg_restart_key_changed(const struct cfg_restart_key *k, const void *a, const void *b);

/* HOST:PORT (HOST a name, an IPv4 address or [IPv6]) split into host
 * (without brackets) and port; -1 when s is not one. */
int cfg_host_port(const char *s, char *host, size_t hlen, unsigned *port);

/* CFG_F_CUSTOM parser for a char * that must be an absolute path. */
bool cfg_parse_abs_path(struct cfg_ctx *ctx, yaml_node_t *node, void *field);

/* Parse a mapping against a field table; unknown keys are errors. */
void cfg_parse_fields(struct cfg_ctx *ctx, yaml_node_t *map, const struct cfg_field *fields, void *obj);
/* Free the CFG_STR members a table describes. */
void cfg_fields_free(const struct cfg_field *fields, void *obj);

/* The modules, in start order (daemon/modules.c has the table); also the
 * index of each one's section in fabricd_config. */
/*
 * A certificate the TLS channel knows (control.clients): by its SHA-256
 * fingerprint (exact: one certificate) or by its subject CN (any
 * certificate the CA signs with that CN: a renewed one too).  A
 * fingerprint entry wins over a CN entry.
 */
struct cfg_ctl_client {
	char	*fingerprint;	/* "sha256:AB:CD:..." upper case, or NULL */
	char	*cn;		/* or NULL */
	int	 role;		/* enum ctl_role (daemon/control_access.h) */
};

/* Another SM node's control channel (control.peers): where a standby
 * sends a client, told by the master's port GUID that SMInfo gives. */
struct cfg_ctl_peer {
	char	 *address;	/* "HOST:PORT" as a client dials it */
	uint64_t  guid;		/* its SM port's GUID; 0: not given */
};

enum module_id { MOD_HA, MOD_SM, MOD_PARTITIONS, MOD_ROCE_QOS, MOD_HEALTH, MOD_VALIDATION, MOD_COUNT };

struct fabricd_config {
	char		*file;
	char		*socket;
	char		*state_dir;
	enum log_level	 log_level;
	char		*admin_group;	/* NULL: only root may change things */
	char		*read_group;	/* NULL: only admins may read */
	char		*jobs_group;	/* NULL: nobody has the jobs role on the socket */
	uint64_t	 max_connections;		/* control socket, in all */
	uint64_t	 max_connections_per_user;	/* for a uid not root or admin */
	uint64_t	 idle_timeout_ms;		/* close a silent connection */
	char		*metrics_listen;	/* "HOST:PORT" of GET /metrics; NULL: none */
	/* the remote control channel (daemon/control_tls.c); NULL: none */
	char		*control_listen;	/* "HOST:PORT", the host resolved at start */
	struct cfg_ctl_tls {
		char	*cert, *key, *ca;	/* the server's pair; the clients' CA */
	}		 control_tls;
	struct cfg_ctl_client	*clients;	/* control.clients */
	size_t			 nclients;
	struct cfg_ctl_peer	*peers;		/* control.peers */
	size_t			 npeers;
	void		*module[MOD_COUNT];	/* indexed by enum module_id */
	/* the modules whose sections these are (main.c's fabricd_modules,
	 * handed in: config.c names none of them) */
	const struct fabricd_module *const *modules;
};

/*
 * Load and validate a file.  On success returns 0 and *out; on failure
 * returns -1, *out is NULL and errors/nerrors hold every message (the
 * caller frees them with cfg_errors_free).
 */
struct fabricd_module;
int config_load(const char *path, const struct fabricd_module *const *modules,
    struct fabricd_config **out, char ***errors, size_t *nerrors);
/* The same from text already read (name labels the messages). */
int config_load_text(const char *name, const char *text, size_t len,
    const struct fabricd_module *const *modules, struct fabricd_config **out, char ***errors,
    size_t *nerrors);
void config_free(struct fabricd_config *cfg);
void cfg_errors_free(char **errors, size_t n);

#endif
