/*
 * The access rule (control_access.h).  The jobs role is deliberately not
 * a superset of read: a scheduler's certificate that leaks should let its
 * holder touch job partitions and nothing else, not map the fabric.
 */
#include "daemon/control_access.h"

bool
ctl_access_allows(enum ctl_role role, enum ctl_access access)
{
	switch (role) {
	case ROLE_ADMIN:
		return true;
	case ROLE_READ:
		return access == CTL_READ;
	case ROLE_JOBS:
		return access == CTL_JOBS;
	default:
		return false;
	}
}

const char *
ctl_role_name(enum ctl_role role)
{
	static const char *const names[ROLE_COUNT] = { "none", "read", "admin", "jobs" };

	return role < ROLE_COUNT ? names[role] : "none";
}
