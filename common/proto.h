/*
 * The control protocol shared by fabricd and fabricctl.
 *
 * Transport: a Unix stream socket; each message is one JSON object on one
 * line (newline-delimited JSON).  schemas/protocol.md is the full reference.
 *
 * Request:  {"v":1, "id":<int>, "cmd":"<name>", "args":{...}}
 * Reply:    {"v":1, "id":<same>, "ok":true,  "result":{...}}
 *           {"v":1, "id":<same>, "ok":false, "error":{"code":"<code>","message":"..."}}
 * Stream:   {"v":1, "id":<same>, "stream":{...}}   (zero or more, before the reply)
 *
 * Bump PROTO_VERSION when the meaning or shape of an existing message
 * changes; adding a command or a result field does not need a bump.
 *   1: first version.
 */
#ifndef FABRICD_PROTO_H
#define FABRICD_PROTO_H

#define PROTO_VERSION		1
#define PROTO_MAX_REQUEST	65536	/* bytes in one request line */
#define FABRICD_VERSION		"0.1.0"
#define FABRICD_DEFAULT_SOCKET	"/run/fabricd/fabricd.sock"
#define FABRICD_DEFAULT_STATE	"/var/lib/fabricd"
#define FABRICD_DEFAULT_CONFIG	"/etc/fabricd/fabricd.yaml"

/* A real on the wire and in --json: 12 significant digits, so that a
 * figure reads 8.631863, not 8.631862999999997 (jansson's default 17
 * shows the binary rounding).  OR it into json_dump*'s flags. */
#define PROTO_JSON_REAL		JSON_REAL_PRECISION(12)

/*
 * Stable error codes.  Only ever append; never renumber or reuse.
 * The string form is what travels on the wire.
 */
enum proto_error {
	PERR_NONE = 0,
	PERR_BAD_JSON,		/* "bad_json": the line was not a JSON object */
	PERR_TOO_LARGE,		/* "too_large": request above PROTO_MAX_REQUEST */
	PERR_BAD_REQUEST,	/* "bad_request": missing/invalid v, id, cmd or args */
	PERR_VERSION,		/* "version_mismatch": unsupported protocol version */
	PERR_UNKNOWN_COMMAND,	/* "unknown_command" */
	PERR_PERMISSION,	/* "permission_denied": caller may not do this */
	PERR_INVALID_ARGUMENT,	/* "invalid_argument": an argument is malformed */
	PERR_NOT_FOUND,		/* "not_found": named object does not exist */
	PERR_CONFLICT,		/* "conflict": duplicates or clashes with existing state */
	PERR_BUSY,		/* "busy": another operation is in progress */
	PERR_UNAVAILABLE,	/* "unavailable": module disabled or not ready */
	PERR_FABRIC,		/* "fabric_error": MADs failed or were rejected */
	PERR_CAPACITY,		/* "capacity": a hardware table would overflow */
	PERR_INTERNAL,		/* "internal": a bug or a database failure */
	PERR_TIMEOUT,		/* "timeout": the operation did not finish in time */
	PERR_CHECK_FAILED,	/* "check_failed": lint or verification failed */
	PERR_NOT_MASTER,	/* "not_master": a standby; error.master names the master's
				 * control address when known (remote channel) */
	PERR_MAX
};

const char *proto_error_code(enum proto_error e);
enum proto_error proto_error_from_code(const char *code);

#endif
