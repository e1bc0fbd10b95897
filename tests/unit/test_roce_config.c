/*
 * The roce_qos: section: a full custom profile lands in the right fields,
 * built-ins and "base:" overrides work, and errors are located.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/fabricd.h"
#include "roce_qos/config.h"

static int
load(const char *text, struct fabricd_config **cfg, char ***errs, size_t *n)
{
	char path[] = "/tmp/roce-cfg-XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = config_load(path, fabricd_modules, cfg, errs, n);
	unlink(path);
	return rc;
}

static const char full[] =
"roce_qos:\n"
"  enabled: true\n"
"  root: /tmp/fake\n"
"  interfaces: [eth2, eth3]\n"
"  poll_interval: 2s\n"
"  remediate: true\n"
"  profile:\n"
"    dcbx: host\n"
"    trust: dscp\n"
"    dscp_map: {3: 3, 4: 4, 48: 6}\n"
"    pfc:\n"
"      priorities: [3, 4]\n"
"      cable_length: 50\n"
"    ets:\n"
"      prio_tc: [0, 0, 0, 3, 4, 0, 6, 0]\n"
"      tsa: [ets, ets, ets, ets, ets, ets, strict, ets]\n"
"      bandwidth: [40, 0, 0, 30, 30, 0, 0, 0]\n"
"    buffer:\n"
"      prio2buffer: [0, 0, 0, 1, 2, 0, 0, 0]\n"
"      sizes: [131072, 65536, 65536, 0, 0, 0, 0, 0]\n"
"    maxrate: [0, 0, 0, 0, 0, 0, 1000000, 0]\n"
"    ecn:\n"
"      mode: enabled\n"
"      priorities: [3, 4]\n"
"      cnp_dscp: 48\n"
"      cnp_priority: 6\n"
"      params: {rp_ai_rate: 10, np_min_time_between_cnps: 0}\n"
"    roce_tos: 12\n"
"    pfc_storm_prevention: auto\n"
"    nccl_tc: 12\n";

static void
test_full_custom_profile(void **state)
{
	struct fabricd_config *cfg;
	const struct roce_qos_config *c;
	const struct roce_profile *p;
	char **errs;
	size_t n;

	assert_int_equal(load(full, &cfg, &errs, &n), 0);
	c = cfg->module[MOD_ROCE_QOS];
	assert_true(c->enabled && c->remediate && c->has_profile);
	assert_string_equal(c->root, "/tmp/fake");
	assert_false(c->all_interfaces);
	assert_int_equal(c->nifnames, 2);
	assert_string_equal(c->ifnames[1], "eth3");
	assert_int_equal(c->poll_ms, 2000);
	p = &c->profile;
	assert_int_equal(p->dcbx, ROCE_DCBX_HOST);
	assert_int_equal(p->trust, ROCE_TRUST_DSCP);
	assert_int_equal(p->dscp_prio[3], 3);
	assert_int_equal(p->dscp_prio[48], 6);
	assert_int_equal(p->dscp_prio[26], ROCE_NO_PRIO);
	assert_int_equal(p->pfc_en, 0x18);
	assert_int_equal(p->cable_len_m, 50);
	assert_int_equal(p->prio_tc[4], 4);
	assert_int_equal(p->tc_tsa[6], IEEE_8021QAZ_TSA_STRICT);
	assert_int_equal(p->tc_bw[3], 30);
	assert_int_equal(p->buffer, ROCE_BUF_MANUAL);
	assert_int_equal(p->prio2buffer[4], 2);
	assert_int_equal(p->buffer_size[1], 65536);
	assert_true(p->maxrate_managed);
	assert_int_equal(p->maxrate_kbps[6], 1000000);
	assert_int_equal(p->cc.mode, ROCE_CC_ENABLED);
	assert_int_equal(p->cc.prios, 0x18);
	assert_int_equal(p->cc.cnp_dscp, 48);
	assert_int_equal(p->cc.nparams, 2);
	assert_string_equal(p->cc.params[0].name, "rp_ai_rate");
	assert_int_equal(p->cc.params[0].value, 10);
	assert_int_equal(p->roce_tos, 12);
	assert_int_equal(p->storm_ms, ROCE_STORM_AUTO);
	/* positions: line 28 "    roce_tos: 12", value at column 15 */
	assert_int_equal(p->tos_pos.line, 28);
	assert_int_equal(p->tos_pos.col, 15);
	assert_non_null(p->tos_pos.file);
	config_free(cfg);
	cfg_errors_free(errs, n);
}

static void
test_builtin_and_base_override(void **state)
{
	struct fabricd_config *cfg;
	const struct roce_qos_config *c;
	char **errs;
	size_t n;

	assert_int_equal(load("roce_qos:\n  enabled: true\n  profile: sonic-default\n", &cfg, &errs, &n), 0);
	c = cfg->module[MOD_ROCE_QOS];
	assert_string_equal(c->profile.name, "sonic-default");
	assert_int_equal(c->profile.pfc_en, 0x18);
	assert_true(c->all_interfaces);
	config_free(cfg);
	cfg_errors_free(errs, n);

	assert_int_equal(load("roce_qos:\n  profile:\n    base: nvidia-lossless\n    pfc:\n"
	    "      priorities: [3]\n      cable_length: 100\n", &cfg, &errs, &n), 0);
	c = cfg->module[MOD_ROCE_QOS];
	assert_int_equal(c->profile.dscp_prio[26], 3);
	assert_int_equal(c->profile.cable_len_m, 100);
	config_free(cfg);
	cfg_errors_free(errs, n);
}

static void
test_errors_located(void **state)
{
	struct fabricd_config *cfg;
	char **errs;
	size_t n;
	bool found_name = false, found_range = false;

	assert_int_equal(load("roce_qos:\n  profile: nvidia-lossles\n", &cfg, &errs, &n), -1);
	for (size_t i = 0; i < n; i++)
		found_name |= strstr(errs[i], ":2:12: expected one of nvidia-lossless") != NULL;
	assert_true(found_name);
	cfg_errors_free(errs, n);

	assert_int_equal(load("roce_qos:\n  profile:\n    dscp_map: {64: 3}\n", &cfg, &errs, &n), -1);
	for (size_t i = 0; i < n; i++)
		found_range |= strstr(errs[i], ":3:16:") != NULL;
	assert_true(found_range);
	cfg_errors_free(errs, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_custom_profile),
		cmocka_unit_test(test_builtin_and_base_override),
		cmocka_unit_test(test_errors_located),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
