/*
 * Are the programs a job needs there?  The launcher the configuration
 * names (validation.launcher, found at validation.mpirun / .srun or on
 * PATH) and the default test binaries (all_reduce_perf in
 * nccl_tests_dir, ib_write_bw in perftest_dir).  Checked by `fabricd -n`
 * and at start, and shown by status, so that a missing mpirun is said
 * before the first job comes back inconclusive with exit 127.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "validation/validation.h"

/* name (a path, or a program looked up on PATH) -> an executable path. */
static bool
find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(name, X_OK) == 0;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", name);
		if (access(out, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

static void
check_test(json_t *missing, const char *dir, const char *key, const char *test)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", test);
	if (access(path, X_OK) != 0 && dir)
		json_array_append_new(missing, json_sprintf("%s: %s not found (validation.%s)", test,
		    path, key));
	else if (access(path, X_OK) != 0)
		json_array_append_new(missing, json_sprintf("%s: validation.%s is not set", test, key));
}

json_t *
validation_tools_check(const struct validation_config *c)
{
	const char *l = c->default_launcher ? c->default_launcher : "mpirun";
	json_t *missing = json_array(), *res;
	char path[4096];
	bool found = true;

	if (strcmp(l, "mpirun") == 0 || strcmp(l, "srun") == 0) {
		const char *configured = strcmp(l, "mpirun") == 0 ? c->mpirun : c->srun;
		found = find_program(configured ? configured : l, path, sizeof(path));
		if (!found)
			json_array_append_new(missing, configured ?
			    json_sprintf("launcher %s: %s is not executable (validation.%s)", l, configured, l) :
			    json_sprintf("launcher %s: not found on PATH (set validation.%s)", l, l));
	}
	check_test(missing, c->nccl_tests_dir, "nccl_tests_dir", "all_reduce_perf");
	check_test(missing, c->perftest_dir, "perftest_dir", "ib_write_bw");
	res = json_pack("{s:s, s:b, s:o}", "launcher", l, "launcher_found", found, "missing", missing);
	json_object_set_new(res, "launcher_path", found && strcmp(l, "local") != 0 ?
	    json_string(path) : json_null());
	return res;
}
