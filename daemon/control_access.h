/*
 * Who may run what: a caller's role (from its credentials on the Unix
 * socket, from its certificate on the TLS channel) against a command's
 * access level (common/commands.def).  A pure function of the two, so
 * that the rule is tested on its own (tests/unit/test_core_access.c).
 */
#ifndef FABRICD_CONTROL_ACCESS_H
#define FABRICD_CONTROL_ACCESS_H

#include <stdbool.h>

/* commands.def's access column */
enum ctl_access { CTL_READ, CTL_ADMIN, CTL_JOBS };

/* ROLE_JOBS is a job scheduler's: JOBS commands only, not even status. */
enum ctl_role { ROLE_NONE, ROLE_READ, ROLE_ADMIN, ROLE_JOBS, ROLE_COUNT };

bool ctl_access_allows(enum ctl_role role, enum ctl_access access);
const char *ctl_role_name(enum ctl_role role);

#endif
