/* The access rule of the control channel (daemon/control_access.c): each
 * role against each access level of commands.def, and the commands.def
 * table itself: a jobs caller reaches no command that reads or changes
 * the fabric outside the JOBS ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/control.h"
#include "daemon/control_access.h"

static void
test_matrix(void **state)
{
	(void)state;
	assert_true(ctl_access_allows(ROLE_ADMIN, CTL_READ));
	assert_true(ctl_access_allows(ROLE_ADMIN, CTL_ADMIN));
	assert_true(ctl_access_allows(ROLE_ADMIN, CTL_JOBS));
	assert_true(ctl_access_allows(ROLE_READ, CTL_READ));
	assert_false(ctl_access_allows(ROLE_READ, CTL_ADMIN));
	assert_false(ctl_access_allows(ROLE_READ, CTL_JOBS));
	/* the jobs role: JOBS commands only, not even reading */
	assert_true(ctl_access_allows(ROLE_JOBS, CTL_JOBS));
	assert_false(ctl_access_allows(ROLE_JOBS, CTL_READ));
	assert_false(ctl_access_allows(ROLE_JOBS, CTL_ADMIN));
	assert_false(ctl_access_allows(ROLE_NONE, CTL_READ));
	assert_false(ctl_access_allows(ROLE_NONE, CTL_JOBS));
	assert_false(ctl_access_allows(ROLE_NONE, CTL_ADMIN));
	assert_false(ctl_access_allows(ROLE_COUNT, CTL_READ));
}

/* Over the real table: status, sweep and partition create are out of a
 * jobs caller's reach whatever commands.def grows. */
static void
test_table(void **state)
{
	static const struct { const char *wire; enum ctl_access access; } cmds[] = {
#define CMD(ident, wire, access, ...) { wire, CTL_##access },
#include "common/commands.def"
#undef CMD
	};
	size_t seen = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(cmds[i].wire, "status") == 0 || strcmp(cmds[i].wire, "sweep") == 0 ||
		    strcmp(cmds[i].wire, "partition.create") == 0) {
			assert_false(ctl_access_allows(ROLE_JOBS, cmds[i].access));
			seen++;
		}
		if (cmds[i].access == CTL_JOBS)
			assert_true(ctl_access_allows(ROLE_JOBS, cmds[i].access));
	}
	assert_int_equal(seen, 3);
}

/* Each PER_SUBNET line names a declared command (a typo there would
 * leave a command quietly serving the first subnet only), and the SM's
 * own status is one of them. */
static void
test_per_subnet(void **state)
{
	static const char *const wires[] = {
#define CMD(ident, wire, ...) wire,
#include "common/commands.def"
#undef CMD
	};
	static const char *const per_subnet[] = {
#define CMD(...)
#define PER_SUBNET(wire) wire,
#include "common/commands.def"
#undef PER_SUBNET
#undef CMD
	};
	bool status = false;

	(void)state;
	assert_true(sizeof(per_subnet) / sizeof(per_subnet[0]) >= 17);
	for (size_t i = 0; i < sizeof(per_subnet) / sizeof(per_subnet[0]); i++) {
		size_t j;

		for (j = 0; j < sizeof(wires) / sizeof(wires[0]); j++)
			if (strcmp(wires[j], per_subnet[i]) == 0)
				break;
		if (j == sizeof(wires) / sizeof(wires[0]))
			fail_msg("PER_SUBNET(\"%s\") names no command", per_subnet[i]);
		status = status || strcmp(per_subnet[i], "status") == 0;
	}
	assert_true(status);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(ctl_role_name(ROLE_JOBS), "jobs");
	assert_string_equal(ctl_role_name(ROLE_ADMIN), "admin");
	assert_string_equal(ctl_role_name(ROLE_COUNT), "none");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_per_subnet),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
