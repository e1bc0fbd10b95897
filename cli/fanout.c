/*
 * fabricctl preflight --hosts LIST --fanout srun|mpirun|ssh: run
 * `fabricctl preflight --local --json` on every host at once, one launcher
 * process per host (so that each answer belongs to one host, whatever the
 * launcher does with output), all started together and all given the same
 * deadline (--timeout, default 30 s, half of Slurm's HealthCheckProgram
 * limit).  A host that does not answer in time is inconclusive for that
 * host only; its launcher's process group is killed.  The verdicts are
 * merged: a port that runs slower than the same port (HCA and number) of
 * the other hosts is degraded, which no host can tell by itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/proto.h"
#include "common/clock.h"
#include "cli/fanout.h"
#include "common/hostlist.h"

#define FANOUT_MAX_HOSTS 4096

struct child {
	char	*host;
	pid_t	 pid;
	int	 fd;		/* stdout of the launcher; -1 once at EOF */
	char	*out;
	size_t	 len, cap;
	int	 status;
	bool	 reaped, killed;
	json_t	*res;		/* the host's answer, or NULL */
};

const char *
fanout_verdict_name(int code)
{
	return code == 0 ? "pass" : code == 1 ? "fail" : "inconclusive";
}

void
fanout_fault(json_t *res, const char *host, const char *hca, unsigned port, const char *code,
    const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(json_object_get(res, "faults"), json_pack("{s:s, s:s, s:s, s:s, "
	    "s:i, s:s, s:s}", "check", "local", "code", code, "host", host, "hca", hca,
	    "port_num", (int)port, "port", "", "message", msg));
	json_object_set_new(json_array_get(json_object_get(res, "faults"),
	    json_array_size(json_object_get(res, "faults")) - 1), "port",
	    json_sprintf("%s %s/%u", host, hca, port));
}

static double
now_s(void)
{
	return (double)clock_mono_us() / 1e6;
}

/* The launcher's command line for one host. */
static void
launcher_argv(const char *launcher, const char *host, char *nodelist, size_t len, char **argv)
{
	const char *remote = getenv("FABRICCTL_REMOTE");
	int n = 0;

	if (remote == NULL || *remote == '\0')
		remote = "fabricctl";
	argv[n++] = (char *)launcher;
	if (strcmp(launcher, "srun") == 0) {
		snprintf(nodelist, len, "--nodelist=%s", host);
		argv[n++] = "-N1";
		argv[n++] = "-n1";
		argv[n++] = "--quiet";
		argv[n++] = nodelist;
	} else if (strcmp(launcher, "mpirun") == 0) {
		argv[n++] = "-np";
		argv[n++] = "1";
		argv[n++] = "-H";
		argv[n++] = (char *)host;
	} else {
		argv[n++] = "-o";
		argv[n++] = "BatchMode=yes";
		argv[n++] = (char *)host;
	}
	argv[n++] = (char *)remote;
	argv[n++] = "--json";
	argv[n++] = "preflight";
	argv[n++] = "--local";
	argv[n] = NULL;
}

static void
child_start(struct child *c, const char *launcher)
{
	char nodelist[300], *argv[16];
	int p[2];

	c->fd = -1;
	if (pipe(p) != 0 || (c->pid = fork()) < 0) {
		c->reaped = true;
		c->status = -1;
		return;
	}
	if (c->pid == 0) {
		int null = open("/dev/null", O_RDWR);
		/* Its own process group: a hung host's whole tree is killed. */
		setpgid(0, 0);
		dup2(p[1], 1);
		dup2(null, 0);
		dup2(null, 2);
		close(p[0]);
		launcher_argv(launcher, c->host, nodelist, sizeof(nodelist), argv);
		execvp(argv[0], argv);
		_exit(127);
	}
	setpgid(c->pid, c->pid);
	close(p[1]);
	c->fd = p[0];
}

static void
child_read(struct child *c)
{
	ssize_t n;

	if (c->cap - c->len < 4096) {
		c->cap = c->cap ? c->cap * 2 : 8192;
		c->out = realloc(c->out, c->cap);
		if (c->out == NULL)
			abort();
	}
	n = read(c->fd, c->out + c->len, c->cap - c->len - 1);
	if (n > 0) {
		c->len += (size_t)n;
	} else if (n == 0 || errno != EINTR) {
		close(c->fd);
		c->fd = -1;
	}
}

/* Read every answer until all launchers are done or the deadline passes. */
static void
collect(struct child *cs, size_t n, double deadline)
{
	struct pollfd *pf = calloc(n ? n : 1, sizeof(*pf));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx)), left = n;

	while (left > 0 && now_s() < deadline) {
		size_t np = 0;
		left = 0;
		for (size_t i = 0; i < n; i++) {
			if (cs[i].fd >= 0) {
				pf[np] = (struct pollfd){ cs[i].fd, POLLIN, 0 };
				idx[np++] = i;
			} else if (!cs[i].reaped && waitpid(cs[i].pid, &cs[i].status, WNOHANG) > 0) {
				cs[i].reaped = true;
			}
			left += !cs[i].reaped;
		}
		if (poll(pf, np, np ? 50 : 10) > 0)
			for (size_t k = 0; k < np; k++)
				if (pf[k].revents)
					child_read(&cs[idx[k]]);
	}
	for (size_t i = 0; i < n; i++) {
		if (cs[i].reaped)
			continue;
		kill(-cs[i].pid, SIGKILL);
		cs[i].killed = true;
		waitpid(cs[i].pid, &cs[i].status, 0);
		if (cs[i].fd >= 0)
			close(cs[i].fd);
	}
	free(pf);
	free(idx);
}

/* A host's answer: its JSON result, or why there is none. */
static void
child_judge(struct child *c, long timeout_s)
{
	char *brace;

	if (c->out)
		c->out[c->len] = '\0';
	brace = c->out ? strchr(c->out, '{') : NULL;
	if (!c->killed && brace)
		c->res = json_loads(brace, JSON_DISABLE_EOF_CHECK, NULL);
	if (c->res && json_is_integer(json_object_get(c->res, "exit_code")))
		return;
	json_decref(c->res);
	c->res = json_pack("{s:s, s:i, s:s, s:[], s:[]}", "host", c->host, "exit_code", 2,
	    "verdict", "inconclusive", "ports", "faults");
	if (c->killed)
		json_object_set_new(c->res, "detail", json_sprintf("no answer within %ld s", timeout_s));
	else
		json_object_set_new(c->res, "detail", json_sprintf("the launcher exited %d without "
		    "a verdict", WIFEXITED(c->status) ? WEXITSTATUS(c->status) : 128 + WTERMSIG(c->status)));
}

static bool
port_active(json_t *p)
{
	return strcmp(cli_str(p, "state", ""), "ACTIVE") == 0;
}

/* A port slower than the same port of the other hosts is degraded: the
 * fastest rate any host's port of that HCA and number runs at is what the
 * cable and switch allow. */
static void
merge_rates(struct child *cs, size_t n)
{
	json_t *best = json_object(), *p;
	char key[96];
	size_t i, j;

	for (i = 0; i < n; i++)
		json_array_foreach(json_object_get(cs[i].res, "ports"), j, p) {
			double r = json_number_value(json_object_get(p, "rate_gbps"));
			snprintf(key, sizeof(key), "%s/%lld", cli_str(p, "hca", ""),
			    (long long)json_integer_value(json_object_get(p, "port")));
			if (port_active(p) && r > json_number_value(json_object_get(best, key)))
				json_object_set_new(best, key, json_real(r));
		}
	for (i = 0; i < n; i++)
		json_array_foreach(json_object_get(cs[i].res, "ports"), j, p) {
			double r = json_number_value(json_object_get(p, "rate_gbps"));
			double b;
			snprintf(key, sizeof(key), "%s/%lld", cli_str(p, "hca", ""),
			    (long long)json_integer_value(json_object_get(p, "port")));
			b = json_number_value(json_object_get(best, key));
			if (!port_active(p) || r >= b)
				continue;
			fanout_fault(cs[i].res, cs[i].host, cli_str(p, "hca", ""),
			    (unsigned)json_integer_value(json_object_get(p, "port")), "IBPortDegraded",
			    "%s runs %s, the same port of other hosts %g Gb/sec", key,
			    cli_str(p, "rate", "?"), b);
			json_object_set_new(cs[i].res, "exit_code", json_integer(1));
			json_object_set_new(cs[i].res, "verdict", json_string("fail"));
		}
	json_decref(best);
}

static json_t *
merged(struct child *cs, size_t n, const char *launcher, double secs)
{
	json_t *hosts = json_array(), *faults = json_array(), *inc = json_array(), *f;
	int code = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		int c = (int)json_integer_value(json_object_get(cs[i].res, "exit_code"));
		json_array_append_new(hosts, json_pack("{s:s, s:s, s:s}", "host", cs[i].host,
		    "verdict", fanout_verdict_name(c), "detail", cli_str(cs[i].res, "detail", "")));
		json_array_foreach(json_object_get(cs[i].res, "faults"), j, f) {
			json_object_set_new(f, "host", json_string(cs[i].host));
			json_array_append(faults, f);
		}
		if (c == 2)
			json_array_append_new(inc, json_string(cs[i].host));
		code = c == 1 ? 1 : code == 1 ? 1 : c == 2 ? 2 : code;
	}
	return json_pack("{s:s, s:i, s:s, s:i, s:f, s:o, s:o, s:o}", "verdict",
	    fanout_verdict_name(code), "exit_code", code, "fanout", launcher, "hosts_total", (int)n,
	    "seconds", secs, "hosts", hosts, "faults", faults, "inconclusive", inc);
}

static void
print_merged(json_t *res, bool slurm)
{
	json_t *f, *h, *seen = json_object();
	size_t i;

	if (!slurm)
		printf("preflight --fanout %s: %s (%lld hosts in %.2f s)\n", cli_str(res, "fanout", "-"),
		    cli_str(res, "verdict", "-"),
		    (long long)json_integer_value(json_object_get(res, "hosts_total")),
		    json_number_value(json_object_get(res, "seconds")));
	json_array_foreach(json_object_get(res, "faults"), i, f) {
		const char *host = cli_str(f, "host", "-");
		if (!slurm)
			printf("  %s: %s: %s\n", host, cli_str(f, "code", "-"), cli_str(f, "message", "-"));
		else if (json_object_get(seen, host) == NULL)
			printf("scontrol update nodename=%s state=drain reason=\"fabricd: %s %s\"\n",
			    host, cli_str(f, "code", "-"), cli_str(f, "port", host));
		json_object_set_new(seen, host, json_true());
	}
	json_array_foreach(json_object_get(res, "hosts"), i, h)
		if (!slurm && strcmp(cli_str(h, "verdict", ""), "inconclusive") == 0)
			printf("  %s: inconclusive: %s\n", cli_str(h, "host", "-"), cli_str(h, "detail", "-"));
	json_decref(seen);
}

/* Every host of the --hosts expressions, or NULL after a message. */
static char **
fanout_hosts(json_t *args, size_t *n)
{
	char **all = calloc(FANOUT_MAX_HOSTS + 1, sizeof(*all)), **one, err[160];
	json_t *v;
	size_t i, m;

	*n = 0;
	json_array_foreach(json_object_get(args, "hosts"), i, v) {
		if (hostlist_expand(json_string_value(v) ?: "", &one, &m, FANOUT_MAX_HOSTS - *n,
		    err, sizeof(err)) != 0) {
			fprintf(stderr, "fabricctl: --hosts: %s\n", err);
			for (size_t k = 0; k < *n; k++)
				free(all[k]);
			free(all);
			return NULL;
		}
		memcpy(all + *n, one, m * sizeof(*one));
		*n += m;
		free(one);
	}
	return all;
}

int
cli_preflight_fanout(json_t *args, int json_out)
{
	const char *launcher = cli_str(args, "fanout", "");
	long timeout = json_is_integer(json_object_get(args, "timeout")) ?
	    (long)json_integer_value(json_object_get(args, "timeout")) : 30;
	bool slurm = strcmp(cli_str(args, "format", ""), "slurm") == 0;
	struct rlimit rl;
	struct child *cs;
	char **hosts;
	double t0 = now_s();
	size_t n;
	json_t *res;
	int code;

	if (strcmp(launcher, "srun") && strcmp(launcher, "mpirun") && strcmp(launcher, "ssh")) {
		fprintf(stderr, "fabricctl: --fanout: expected srun, mpirun or ssh\n");
		return 2;
	}
	if (timeout < 1 || timeout > 86400) {
		fprintf(stderr, "fabricctl: --timeout: 1 to 86400 seconds\n");
		return 2;
	}
	if ((hosts = fanout_hosts(args, &n)) == NULL)
		return 2;
	if (n == 0) {
		fprintf(stderr, "fabricctl: --fanout needs --hosts\n");
		free(hosts);
		return 2;
	}
	/* One pipe per host: lift the soft descriptor limit to the hard one. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	cs = calloc(n, sizeof(*cs));
	for (size_t i = 0; i < n; i++) {
		cs[i].host = hosts[i];
		child_start(&cs[i], launcher);
	}
	collect(cs, n, t0 + (double)timeout);
	for (size_t i = 0; i < n; i++)
		child_judge(&cs[i], timeout);
	merge_rates(cs, n);
	res = merged(cs, n, launcher, now_s() - t0);
	code = (int)json_integer_value(json_object_get(res, "exit_code"));
	if (json_out) {
		json_dumpf(res, stdout, JSON_INDENT(2) | PROTO_JSON_REAL);
		putchar('\n');
	} else {
		print_merged(res, slurm);
	}
	for (size_t i = 0; i < n; i++) {
		json_decref(cs[i].res);
		free(cs[i].out);
		free(cs[i].host);
	}
	free(cs);
	free(hosts);
	json_decref(res);
	return code;
}
