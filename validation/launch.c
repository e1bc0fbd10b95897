/*
 * Command lines for the real launchers.  Pure: argv and environment from
 * the configuration and a job spec; the runner executes them.
 *
 *   local   the test binary itself on this host (-g GPUs per host)
 *   mpirun  Open MPI: one rank per GPU, "-H h1:G,h2:G", NUMA binding,
 *           hcoll off, every NCCL_ variable forwarded with -x
 *   srun    Slurm: --nodelist, one task per GPU, PMIx
 *
 * An rdma job is a perftest pair: the server on the first host, the
 * client on the second after a short delay, both through the launcher,
 * wrapped in one /bin/sh so that the job is one process group.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "validation/validation.h"

struct argv_buf {
	char	**v;
	size_t	  n;
};

static void __attribute__((format(printf, 2, 3)))
push(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s == NULL)
		return;
	a->v = xreallocarray(a->v, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void
launch_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static bool
parse_size(const char *s, size_t len, uint64_t *out)
{
	char buf[32], *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (len == 0 || len >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno != 0)
		return false;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': mult = 1ULL << 10; end++; break;
	case 'M': mult = 1ULL << 20; end++; break;
	case 'G': mult = 1ULL << 30; end++; break;
	default: return false;
	}
	if (*end != '\0' || v > UINT64_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

int
launch_parse_sizes(const char *s, uint64_t *min, uint64_t *max)
{
	const char *colon;

	if (s == NULL)
		return -1;
	colon = strchr(s, ':');
	if (colon == NULL) {
		if (!parse_size(s, strlen(s), min))
			return -1;
		*max = *min;
		return 0;
	}
	if (!parse_size(s, (size_t)(colon - s), min) || !parse_size(colon + 1, strlen(colon + 1), max) ||
	    *min > *max)
		return -1;
	return 0;
}

static void
push_test_args(struct argv_buf *a, const struct validation_config *c, const struct job_spec *s,
    const char *dir, uint64_t gpus)
{
	uint64_t min = 0, max = 0;

	if (launch_parse_sizes(s->sizes, &min, &max) != 0)
		launch_parse_sizes("1G:16G", &min, &max);
	push(a, "%s/%s", c->nccl_tests_dir ? c->nccl_tests_dir : ".", s->test);
	push(a, "-b");
	push(a, "%" PRIu64, min);
	push(a, "-e");
	push(a, "%" PRIu64, max);
	push(a, "-f");
	push(a, "2");
	push(a, "-g");
	push(a, "%" PRIu64, gpus);
	/* check data, 20 timed iterations, report the slowest rank (-a 3) */
	push(a, "-c");
	push(a, "1");
	push(a, "-n");
	push(a, "20");
	push(a, "-a");
	push(a, "3");
	if (c->json_report) {
		push(a, "-J");
		push(a, "%s/result.json", dir);
	}
}

static void
push_mpirun(struct argv_buf *a, const struct validation_config *c, char *const *hosts,
    size_t nhosts, uint64_t ranks_per_host, char **env)
{
	size_t i, len = 0;
	char *hl;

	push(a, "%s", c->mpirun ? c->mpirun : "mpirun");
	push(a, "-np");
	push(a, "%zu", (size_t)(nhosts * ranks_per_host));
	for (i = 0; i < nhosts; i++)
		len += strlen(hosts[i]) + 24;
	hl = xmalloc(len + 1);
	hl[0] = '\0';
	for (i = 0; i < nhosts; i++) {
		char one[32];
		strcat(hl, hosts[i]);
		snprintf(one, sizeof(one), ":%" PRIu64 "%s", ranks_per_host, i + 1 < nhosts ? "," : "");
		strcat(hl, one);
	}
	push(a, "-H");
	push(a, "%s", hl);
	free(hl);
	push(a, "--bind-to");
	push(a, "numa");
	push(a, "-mca");
	push(a, "coll_hcoll_enable");
	push(a, "0");
	for (i = 0; env != NULL && env[i] != NULL; i++) {
		push(a, "-x");
		push(a, "%.*s", (int)strcspn(env[i], "="), env[i]);
	}
}

static void
push_srun(struct argv_buf *a, const struct validation_config *c, char *const *hosts,
    size_t nhosts, uint64_t tasks_per_node)
{
	size_t i, len = 1;
	char *hl;

	for (i = 0; i < nhosts; i++)
		len += strlen(hosts[i]) + 1;
	hl = xmalloc(len);
	hl[0] = '\0';
	for (i = 0; i < nhosts; i++) {
		if (i > 0)
			strcat(hl, ",");
		strcat(hl, hosts[i]);
	}
	push(a, "%s", c->srun ? c->srun : "srun");
	push(a, "-N");
	push(a, "%zu", nhosts);
	push(a, "--ntasks-per-node=%" PRIu64, tasks_per_node);
	push(a, "--nodelist=%s", hl);
	push(a, "--mpi=pmix");
	push(a, "--export=ALL");
	free(hl);
}

/* Single-quote s for /bin/sh. */
static void
shell_quote(char **out, size_t *len, const char *s)
{
	size_t need = strlen(s) * 4 + 3, at = *len, i;

	*out = xreallocarray(*out, at + need + 2, 1);
	(*out)[at++] = '\'';
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == '\'') {
			memcpy(*out + at, "'\\''", 4);
			at += 4;
		} else
			(*out)[at++] = s[i];
	}
	(*out)[at++] = '\'';
	(*out)[at++] = ' ';
	(*out)[at] = '\0';
	*len = at;
}

static void
append_side(char **script, size_t *len, const struct validation_config *c,
    const struct job_spec *s, const char *host, const char *server)
{
	struct argv_buf a = { NULL, 0 };
	size_t i;

	if (strcmp(s->launcher, "mpirun") == 0) {
		push_mpirun(&a, c, (char *const *)&host, 1, 1, NULL);
	} else if (strcmp(s->launcher, "srun") == 0) {
		push_srun(&a, c, (char *const *)&host, 1, 1);
	}
	push(&a, "%s/%s", c->perftest_dir ? c->perftest_dir : ".", s->test);
	if (s->hca != NULL) {
		push(&a, "-d");
		push(&a, "%s", s->hca);
	}
	push(&a, "-p");
	push(&a, "%" PRIu64, s->rdma_port ? s->rdma_port : c->rdma_port);
	push(&a, "-s");
	push(&a, "%" PRIu64, s->rdma_size ? s->rdma_size : 8388608);
	push(&a, "-D");
	push(&a, "5");
	push(&a, "-F");
	push(&a, "--report_gbits");
	if (server != NULL)
		push(&a, "%s", server);
	for (i = 0; i < a.n; i++)
		shell_quote(script, len, a.v[i]);
	launch_free(a.v);
}

static char **
rdma_argv(const struct validation_config *c, const struct job_spec *s)
{
	struct argv_buf a = { NULL, 0 };
	char *script = xstrdup("");
	size_t len = 0;
	const char *server = s->hosts[0], *client = s->nhosts > 1 ? s->hosts[1] : s->hosts[0];

	/* server in the background; client after it listens; the job's
	 * status is the client's, the server is reaped with the group */
	append_side(&script, &len, c, s, server, NULL);
	script = xreallocarray(script, len + 64, 1);
	strcat(script, "& sleep 2; ");
	len = strlen(script);
	append_side(&script, &len, c, s, client, server);
	script = xreallocarray(script, len + 64, 1);
	strcat(script, "; rc=$?; wait; exit $rc");
	push(&a, "/bin/sh");
	push(&a, "-c");
	push(&a, "%s", script);
	free(script);
	return a.v;
}

char **
launch_argv(const struct validation_config *c, const struct job_spec *s, const char *dir,
    char **env)
{
	struct argv_buf a = { NULL, 0 };
	uint64_t gpus = c->gpus_per_host ? c->gpus_per_host : 1;

	if (s->kind == JOB_RDMA)
		return rdma_argv(c, s);
	if (strcmp(s->launcher, "mpirun") == 0) {
		push_mpirun(&a, c, s->hosts, s->nhosts, gpus, env);
		push_test_args(&a, c, s, dir, 1);
	} else if (strcmp(s->launcher, "srun") == 0) {
		push_srun(&a, c, s->hosts, s->nhosts, gpus);
		push_test_args(&a, c, s, dir, 1);
	} else {
		push_test_args(&a, c, s, dir, gpus);
	}
	return a.v;
}
