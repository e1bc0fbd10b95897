/* Error code names of the control protocol (common/proto.h). */
#include <string.h>

#include "common/proto.h"

static const char *const error_codes[PERR_MAX] = {
	[PERR_NONE] = "ok",
	[PERR_BAD_JSON] = "bad_json",
	[PERR_TOO_LARGE] = "too_large",
	[PERR_BAD_REQUEST] = "bad_request",
	[PERR_VERSION] = "version_mismatch",
	[PERR_UNKNOWN_COMMAND] = "unknown_command",
	[PERR_PERMISSION] = "permission_denied",
	[PERR_INVALID_ARGUMENT] = "invalid_argument",
	[PERR_NOT_FOUND] = "not_found",
	[PERR_CONFLICT] = "conflict",
	[PERR_BUSY] = "busy",
	[PERR_UNAVAILABLE] = "unavailable",
	[PERR_FABRIC] = "fabric_error",
	[PERR_CAPACITY] = "capacity",
	[PERR_INTERNAL] = "internal",
	[PERR_TIMEOUT] = "timeout",
	[PERR_CHECK_FAILED] = "check_failed",
	[PERR_NOT_MASTER] = "not_master",
};

const char *
proto_error_code(enum proto_error e)
{
	return (e >= 0 && e < PERR_MAX && error_codes[e]) ? error_codes[e] : "internal";
}

enum proto_error
proto_error_from_code(const char *code)
{
	for (int i = 0; i < PERR_MAX; i++)
		if (error_codes[i] && strcmp(error_codes[i], code) == 0)
			return (enum proto_error)i;
	return PERR_INTERNAL;
}
