/*
 * iproute2 dcb as a byte-level oracle for fabricd's dcbnl encoding.
 *
 * For each case, dcb and fabricd (this program re-executed as a child
 * that runs roce_apply_port over a real libmnl socket) both run under the
 * LD_PRELOAD netlink double (libroce_nlfake.so) from the same starting
 * NIC state.  The double logs every request in canonical form (seq, pid
 * and NLA padding zeroed); the RTM_SETDCB lines of both logs must be
 * identical, and so must the NIC states they leave.  A deliberately
 * different case must differ, so the comparison can fail.
 *
 * PFC storm prevention the same way with ethtool(8): the ethtool_tunable
 * request fabricd passes to ioctl(SIOCETHTOOL) for a setting must equal,
 * byte for byte, what "ethtool --set-tunable mlx0 pfc-prevention-tout N"
 * passes under the same shim (its NLFAKE_ETHTOOL_LOG).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "roce_qos/plan.h"

static char shim[PATH_MAX], dir[PATH_MAX], self[PATH_MAX];
static int dcb_new_maxrate;	/* dcb >= 6.18 sends kbit/s; older sends bytes/s */
static int have_ethtool;

/* ---- the cases: a profile, and the dcb commands that say the same ---- */

static void
case_profile(const char *name, struct roce_profile *p)
{
	if (strcmp(name, "custom") == 0 || strcmp(name, "negative") == 0) {
		roce_profile_empty(p);
		p->trust = ROCE_TRUST_PCP;
		p->pfc_managed = true;
		p->pfc_en = 1u << 4;
		p->cable_len_m = 100;
		p->ets_managed = true;
		for (int i = 0; i < 8; i++) {
			p->prio_tc[i] = i == 4 ? 2 : i == 6 ? 6 : i == 1 ? 1 : 0;
			p->tc_tsa[i] = i == 6 ? IEEE_8021QAZ_TSA_STRICT : IEEE_8021QAZ_TSA_ETS;
		}
		p->tc_bw[0] = 30;
		p->tc_bw[1] = 30;
		p->tc_bw[2] = 40;
		p->buffer = ROCE_BUF_MANUAL;
		p->prio2buffer[4] = 1;
		p->buffer_size[0] = 131072;
		p->buffer_size[1] = 196608;
		p->maxrate_managed = true;
		p->maxrate_kbps[0] = 25000000;
		if (strcmp(name, "negative") == 0)
			p->pfc_en = 1u << 5;
	} else if (strcmp(name, "three-class") == 0) {
		/* training, storage and kv on one NIC (docs/qos.md) */
		static const struct { const char *name; int prio, dscp, ets; bool lossless; } c[] = {
			{ "training", 3, 26, 50, true }, { "storage", 4, 28, 30, true },
			{ "kv", 5, 34, 15, false },
		};
		assert_int_equal(roce_profile_builtin("nvidia-lossless", p), 0);
		for (size_t i = 0; i < 3; i++) {
			struct roce_class *k = &p->classes[p->nclasses++];
			snprintf(k->name, sizeof(k->name), "%s", c[i].name);
			k->prio = c[i].prio;
			k->dscp[k->ndscp++] = (uint8_t)c[i].dscp;
			k->ets = c[i].ets;
			k->lossless = c[i].lossless;
			k->ecn = true;
		}
		roce_profile_apply_classes(p);
	} else
		assert_int_equal(roce_profile_builtin(name, p), 0);
}

static const char *
case_seed(const char *name)
{
	if (strcmp(name, "custom") == 0 || strcmp(name, "negative") == 0)
		return "app=26:3,48:6\nhost=1\n";
	if (strcmp(name, "sonic-default") == 0)
		return "pfc_delay=30\n";
	if (strcmp(name, "lossy-dcqcn") == 0)	/* moving a lossless host to lossy */
		return "pfc_en=8\n";
	return "";
}

static void
dcb_cmds(const char *name, char cmds[][512], int *n)
{
	struct roce_profile p;
	char buf[512];
	size_t o;

	*n = 0;
	if (strcmp(name, "three-class") == 0) {
		/* the same settings as an operator types them, not derived from
		 * the profile: TC 0 gets the 5% the classes leave */
		snprintf(cmds[(*n)++], 512, "dcbx set dev mlx0 host ieee");
		snprintf(cmds[(*n)++], 512, "ets set dev mlx0 tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets "
		    "5:ets 6:strict 7:ets tc-bw 0:5 1:0 2:0 3:50 4:30 5:15 6:0 7:0 "
		    "prio-tc 0:0 1:0 2:0 3:3 4:4 5:5 6:6 7:0");
		snprintf(cmds[(*n)++], 512, "pfc set dev mlx0 prio-pfc all:off 3:on 4:on");
		snprintf(cmds[(*n)++], 512, "app add dev mlx0 dscp-prio 26:3 28:4 34:5 48:6");
		return;
	}
	case_profile(strcmp(name, "negative") == 0 ? "custom" : name, &p);
	if (p.dcbx == ROCE_DCBX_HOST)
		snprintf(cmds[(*n)++], 512, "dcbx set dev mlx0 host ieee");
	if (p.ets_managed) {
		o = snprintf(buf, sizeof(buf), "ets set dev mlx0 tc-tsa");
		for (int i = 0; i < 8; i++)
			o += snprintf(buf + o, sizeof(buf) - o, " %d:%s", i, roce_tsa_name(p.tc_tsa[i]));
		o += snprintf(buf + o, sizeof(buf) - o, " tc-bw");
		for (int i = 0; i < 8; i++)
			o += snprintf(buf + o, sizeof(buf) - o, " %d:%u", i, p.tc_bw[i]);
		o += snprintf(buf + o, sizeof(buf) - o, " prio-tc");
		for (int i = 0; i < 8; i++)
			o += snprintf(buf + o, sizeof(buf) - o, " %d:%u", i, p.prio_tc[i]);
		snprintf(cmds[(*n)++], 512, "%s", buf);
	}
	if (p.pfc_managed) {
		o = snprintf(buf, sizeof(buf), "pfc set dev mlx0 prio-pfc all:off");
		for (int i = 0; i < 8; i++)
			if (p.pfc_en & (1u << i))
				o += snprintf(buf + o, sizeof(buf) - o, " %d:on", i);
		if (p.cable_len_m != ROCE_UNSET)
			snprintf(buf + o, sizeof(buf) - o, " delay %d", p.cable_len_m);
		snprintf(cmds[(*n)++], 512, "%s", buf);
	}
	if (p.buffer == ROCE_BUF_MANUAL) {
		o = snprintf(buf, sizeof(buf), "buffer set dev mlx0 prio-buffer");
		for (int i = 0; i < 8; i++)
			o += snprintf(buf + o, sizeof(buf) - o, " %d:%u", i, p.prio2buffer[i]);
		o += snprintf(buf + o, sizeof(buf) - o, " buffer-size");
		for (int i = 0; i < 8; i++)
			o += snprintf(buf + o, sizeof(buf) - o, " %d:%u", i, p.buffer_size[i]);
		snprintf(cmds[(*n)++], 512, "%s", buf);
	}
	if (p.trust == ROCE_TRUST_DSCP) {
		o = snprintf(buf, sizeof(buf), "app add dev mlx0 dscp-prio");
		for (int d = 0; d < 64; d++)
			if (p.dscp_prio[d] != ROCE_NO_PRIO)
				o += snprintf(buf + o, sizeof(buf) - o, " %d:%u", d, p.dscp_prio[d]);
		snprintf(cmds[(*n)++], 512, "%s", buf);
	} else if (p.trust == ROCE_TRUST_PCP)
		snprintf(cmds[(*n)++], 512, "app del dev mlx0 dscp-prio 26:3 48:6");
	if (p.maxrate_managed) {
		o = snprintf(buf, sizeof(buf), "maxrate set dev mlx0 tc-maxrate");
		for (int i = 0; i < 8; i++) {
			unsigned long long k = p.maxrate_kbps[i];
			/* dcb < 6.18 puts bytes/s in the kbit/s field */
			o += snprintf(buf + o, sizeof(buf) - o, dcb_new_maxrate ? " %d:%llukbit" : " %d:%llubit",
			    i, dcb_new_maxrate ? k : k * 8);
		}
		snprintf(cmds[(*n)++], 512, "%s", buf);
	}
}

/* ---- running things under the double ---- */

static int
run(char *const argv[], const char *state, const char *log)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		setenv("LD_PRELOAD", shim, 1);
		setenv("NLFAKE_STATE", state, 1);
		setenv("NLFAKE_LOG", log, 1);
		{
			char etlog[PATH_MAX + 8];
			snprintf(etlog, sizeof(etlog), "%s.et", log);
			setenv("NLFAKE_ETHTOOL_LOG", etlog, 1);
		}
		/* the sanitizer build: our shim comes before its runtime */
		setenv("ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void
seed(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static char *
slurp_sets(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	size_t len = 0;
	char *out = calloc(1, 1);

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		/* nlmsg_type at byte 4: 0x4f = RTM_SETDCB */
		if (strncmp(line + 8, "4f00", 4) != 0)
			continue;
		out = realloc(out, len + strlen(line) + 1);
		memcpy(out + len, line, strlen(line) + 1);
		len += strlen(line);
	}
	fclose(f);
	return out;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

/* fabricd's side of a case: this program again, as the child that applies
 * the profile NAME under the double. */
static void
run_fabricd_child(char *name, const char *state, const char *log)
{
	char *argv[] = { self, name, NULL };

	setenv("ROCE_ORACLE_CHILD", "1", 1);
	assert_int_equal(run(argv, state, log), 0);
	unsetenv("ROCE_ORACLE_CHILD");
}

/* The oracle's bytes (a) against fabricd's (b); when they must be equal,
 * the NIC states the two left behind must be equal too.  Frees a and b. */
static void
compare_runs(char *a, char *b, bool expect_equal, const char *state_a, const char *state_b)
{
	assert_true(strlen(a) > 0);
	if (expect_equal) {
		assert_string_equal(a, b);
		free(a);
		free(b);
		a = slurp(state_a);
		b = slurp(state_b);
		assert_string_equal(a, b);
	} else
		assert_string_not_equal(a, b);
	free(a);
	free(b);
}

static void
run_case(const char *name, bool expect_equal)
{
	char s_dcb[PATH_MAX + 32], s_fab[PATH_MAX + 32], l_dcb[PATH_MAX + 32], l_fab[PATH_MAX + 32];
	char cmds[8][512];
	int n;

	snprintf(s_dcb, sizeof(s_dcb), "%s/%s.dcb.state", dir, name);
	snprintf(s_fab, sizeof(s_fab), "%s/%s.fab.state", dir, name);
	snprintf(l_dcb, sizeof(l_dcb), "%s/%s.dcb.log", dir, name);
	snprintf(l_fab, sizeof(l_fab), "%s/%s.fab.log", dir, name);
	seed(s_dcb, case_seed(name));
	seed(s_fab, case_seed(name));
	seed(l_dcb, "");
	seed(l_fab, "");

	dcb_cmds(name, cmds, &n);
	for (int i = 0; i < n; i++) {
		char *argv[80], *save = NULL;
		int argc = 0;
		argv[argc++] = "dcb";
		for (char *t = strtok_r(cmds[i], " ", &save); t && argc < 79; t = strtok_r(NULL, " ", &save))
			argv[argc++] = t;
		argv[argc] = NULL;
		assert_int_equal(run(argv, s_dcb, l_dcb), 0);
	}
	run_fabricd_child((char *)name, s_fab, l_fab);
	compare_runs(slurp_sets(l_dcb), slurp_sets(l_fab), expect_equal, s_dcb, s_fab);
}

/* ---- storm prevention: ethtool as the oracle ---- */

/* The STUNABLE lines (cmd 0x49) of an ethtool log. */
static char *
slurp_stunable(const char *log)
{
	char path[PATH_MAX + 8], line[512];
	char *out = calloc(1, 1);
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.et", log);
	if ((f = fopen(path, "r")) == NULL)
		return out;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "mlx0 49000000", 13) != 0)
			continue;
		out = realloc(out, len + strlen(line) + 1);
		memcpy(out + len, line, strlen(line) + 1);
		len += strlen(line);
	}
	fclose(f);
	return out;
}

/* fabricd applies want (a profile value), ethtool is given arg. */
static void
run_storm(const char *want, const char *arg, bool expect_equal)
{
	char s_et[PATH_MAX + 32], s_fab[PATH_MAX + 32], l_et[PATH_MAX + 32], l_fab[PATH_MAX + 32];
	char name[64];

	if (!have_ethtool)
		skip();
	snprintf(s_et, sizeof(s_et), "%s/storm-%s-%s.et.state", dir, want, arg);
	snprintf(s_fab, sizeof(s_fab), "%s/storm-%s-%s.fab.state", dir, want, arg);
	snprintf(l_et, sizeof(l_et), "%s/storm-%s-%s.et.log", dir, want, arg);
	snprintf(l_fab, sizeof(l_fab), "%s/storm-%s-%s.fab.log", dir, want, arg);
	/* a start value that none of the cases asks for, so fabricd must write */
	seed(s_et, "storm_tout=300\n");
	seed(s_fab, "storm_tout=300\n");
	{
		char *argv[] = { "ethtool", "--set-tunable", "mlx0", "pfc-prevention-tout", (char *)arg, NULL };
		assert_int_equal(run(argv, s_et, l_et), 0);
	}
	snprintf(name, sizeof(name), "storm:%s", want);
	/* equal runs also leave the same NIC (fabricd's GETs change nothing) */
	run_fabricd_child(name, s_fab, l_fab);
	compare_runs(slurp_stunable(l_et), slurp_stunable(l_fab), expect_equal, s_et, s_fab);
}

static void
test_storm_values(void **state)
{
	run_storm("500", "500", true);
	run_storm("80", "80", true);
	run_storm("8000", "8000", true);
	run_storm("0", "0", true);
	/* ethtool 6.1 has no "auto" word: auto is PFC_STORM_PREVENTION_AUTO */
	run_storm("auto", "65535", true);
}

static void test_storm_negative_differs(void **state) { run_storm("500", "501", false); }

static void test_nvidia_lossless(void **state) { run_case("nvidia-lossless", true); }
static void test_lossy_dcqcn(void **state) { run_case("lossy-dcqcn", true); }
static void test_sonic_default(void **state) { run_case("sonic-default", true); }
static void test_custom_pcp_buffer_maxrate(void **state) { run_case("custom", true); }
static void test_negative_differs(void **state) { run_case("negative", false); }
static void test_three_classes(void **state) { run_case("three-class", true); }

/* The child for storm cases: a storm-only profile through the real doors. */
static int
child_storm(const char *value)
{
	struct roce_port port = { .ifname = "mlx0", .port = 1 };
	struct roce_plan *plan = calloc(1, sizeof(*plan));
	struct dcb_transport t;
	struct roce_tun tun;
	struct dcb_conn c;
	struct roce_profile p;
	char err[256];
	size_t writes;
	int ret = 0;

	roce_profile_empty(&p);
	p.storm_ms = strcmp(value, "auto") == 0 ? ROCE_STORM_AUTO : atoi(value);
	if (dcb_transport_mnl(&t, false, NULL) == -1 || roce_tun_open(&tun) == -1) {
		perror("open");
		return 1;
	}
	dcb_conn_init(&c, &t);
	if (roce_apply_port(&c, &tun, "/nonexistent-roce-root", &p, &port, plan, &writes, err, sizeof(err)) == -1 ||
	    writes != 1) {
		fprintf(stderr, "storm %s: %s (%zu writes)\n", value, err, writes);
		ret = 1;
	}
	roce_tun_close(&tun);
	dcb_conn_close(&c);
	free(plan);
	return ret;
}

/* The child: fabricd's apply path over a real (faked) libmnl socket. */
static int
child(const char *name)
{
	struct roce_port port = { .ifname = "mlx0", .port = 1 };
	struct dcb_transport t;
	struct dcb_conn c;
	struct roce_profile p;
	struct roce_plan *plan = calloc(1, sizeof(*plan));
	char err[256];
	size_t writes;

	if (strncmp(name, "storm:", 6) == 0)
		return child_storm(name + 6);
	case_profile(name, &p);
	if (dcb_transport_mnl(&t, false, NULL) == -1) {
		perror("netlink");
		return 1;
	}
	dcb_conn_init(&c, &t);
	if (roce_apply_port(&c, NULL, "/nonexistent-roce-root", &p, &port, plan, &writes, err, sizeof(err)) == -1) {
		fprintf(stderr, "apply %s: %s\n", name, err);
		return strcmp(name, "negative") == 0 ? 0 : 1;
	}
	dcb_conn_close(&c);
	free(plan);
	return 0;
}

static int
find_tools(void)
{
	char exe[PATH_MAX], ver[128] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int major = 0, minor = 0;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(self, sizeof(self), "%s", exe);
	snprintf(shim, sizeof(shim), "%s/libroce_nlfake.so", dirname(exe));
	if (access(shim, R_OK) != 0 || (f = popen("dcb -V 2>/dev/null", "r")) == NULL)
		return -1;
	if (!fgets(ver, sizeof(ver), f))
		ver[0] = '\0';
	pclose(f);
	if (sscanf(strstr(ver, "iproute2-") ? strstr(ver, "iproute2-") + 9 : "", "%d.%d", &major, &minor) != 2)
		return -1;
	dcb_new_maxrate = major > 6 || (major == 6 && minor >= 18);
	have_ethtool = system("ethtool --version >/dev/null 2>&1") == 0;
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvidia_lossless),
		cmocka_unit_test(test_lossy_dcqcn),
		cmocka_unit_test(test_sonic_default),
		cmocka_unit_test(test_custom_pcp_buffer_maxrate),
		cmocka_unit_test(test_negative_differs),
		cmocka_unit_test(test_three_classes),
		cmocka_unit_test(test_storm_values),
		cmocka_unit_test(test_storm_negative_differs),
	};
	char tmpl[] = "/tmp/roce-oracle.XXXXXX";
	int ret;

	if (getenv("ROCE_ORACLE_CHILD"))
		return child(argc > 1 ? argv[1] : "");
	if (find_tools() == -1) {
		printf("skip: iproute2 dcb or libroce_nlfake.so not found\n");
		return 0;
	}
	if (mkdtemp(tmpl) == NULL)
		return 1;
	snprintf(dir, sizeof(dir), "%s", tmpl);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	if (ret == 0) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			ret = 1;
	} else
		fprintf(stderr, "logs kept in %s\n", dir);
	return ret;
}
