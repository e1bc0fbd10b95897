/*
 * The YAML section, partition import files and OpenSM partitions.conf:
 * every error names file:line:column, and nothing that OpenSM would turn
 * into "everyone in the default partition" gets through.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/config.h"
#include "daemon/fabricd.h"
#include "partitions/files.h"

static const char two_tenants[] =
    "partitions:\n"
    "  enabled: true\n"
    "  default_membership: limited\n"
    "  tenants:\n"
    "    acme:\n"
    "      acme-train:\n"
    "        pkey: 0x0a01\n"
    "        full: [ \"h1*\", 0x1001 ]\n"
    "        limited: [ switches ]\n"
    "      acme-eval: { pkey: 0x0a02, full: h2 }\n"
    "    beta:\n"
    "      beta-train:\n"
    "        pkey: 0x0b01\n"
    "        full: [ all-cas ]\n";

static struct pt_config *
parse_ok(const char *text)
{
	struct pt_config *c;
	char *err;

	if (pt_yaml_parse_text("t.yaml", text, strlen(text), &c, &err) != 0)
		fail_msg("unexpected error: %s", err);
	return c;
}

/* Parse text that must fail; the message must contain needle. */
static void
parse_bad(const char *text, const char *needle)
{
	struct pt_config *c;
	char *err;

	assert_int_equal(pt_yaml_parse_text("t.yaml", text, strlen(text), &c, &err), -1);
	assert_null(c);
	if (strstr(err, needle) == NULL)
		fail_msg("error \"%s\" lacks \"%s\"", err, needle);
	free(err);
}

static void
test_yaml_two_tenants(void **state)
{
	struct pt_config *c = parse_ok(two_tenants);
	struct pt_partition *p;

	(void)state;
	assert_int_equal(c->nparts, 3);
	p = pt_find(c, "acme-train");
	assert_non_null(p);
	assert_string_equal(p->tenant, "acme");
	assert_int_equal(p->pkey, 0x0a01);
	assert_int_equal(p->nmembers, 3);
	assert_true(p->members[0].full);
	assert_int_equal(p->members[1].kind, PT_MEMBER_GUID);
	assert_false(p->members[2].full);
	assert_int_equal(p->members[2].kind, PT_MEMBER_SWITCHES);
	assert_int_equal(pt_find(c, "acme-eval")->nmembers, 1);
	assert_string_equal(pt_find(c, "beta-train")->tenant, "beta");
	pt_config_free(c);
}

static void
test_yaml_errors(void **state)
{
	(void)state;
	parse_bad("", "t.yaml: the file is empty");
	parse_bad("# only a comment\n", "empty");
	parse_bad("partitions:\n  tenants: {}\n", "t.yaml:2:12: tenants: expected at least one tenant");
	parse_bad("partitions:\n  enabled: true\n", "declares no partition");
	parse_bad("partitions:\n  tenants:\n    a: [\n", "t.yaml:4:1:");	/* syntax */
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { pkey: 0x0000 }\n",
	    "t.yaml:4:18: P_Key 0x0000 out of range");
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { pkey: 0x8001 }\n", "out of range");
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { pkey: 0x7fff }\n", "default partition");
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { pkey: 0x0001 }\n"
	    "      q: { pkey: 0x0001 }\n", "t.yaml:5:7: P_Key 0x0001 is already used by partition \"p\"");
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { pkey: 0x0001 }\n"
	    "    b:\n      p: { pkey: 0x0002 }\n", "partition \"p\" already exists");
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { pkey: 0x0001, ful: [h1] }\n",
	    "unknown key \"ful\" in a partition (did you mean \"full\"?)");
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { full: [h1] }\n", "pkey is required");
	parse_bad("partitions:\n  default_membership: both\n  tenants:\n    a:\n"
	    "      p: { pkey: 0x0001 }\n", "t.yaml:2:23: default_membership \"both\"");
	parse_bad("partitions:\n  tenants:\n    a:\n      p: { pkey: 0x0001, full: [h1, h1] }\n",
	    "already a full member");
}

/* The fabricd.yaml section goes through config_load like every other one. */
/* A partition or a key given twice is refused at the second one's place,
 * not silently replaced by it. */
static void
test_yaml_duplicate_keys(void **state)
{
	(void)state;
	parse_bad("partitions:\n  tenants:\n    acme:\n      a: { pkey: 0x0a01, full: h1 }\n"
	    "      a: { pkey: 0x0a02, full: h2 }\n",
	    "t.yaml:5:7: duplicate key \"a\" (first given at line 4)");
	parse_bad("partitions:\n  tenants:\n    acme:\n      a: { pkey: 0x0a01, pkey: 0x0a02 }\n",
	    "t.yaml:4:26: duplicate key \"pkey\"");
}

static void
test_config_section(void **state)
{
	char path[] = "/tmp/fabricd-pt-XXXXXX";
	int fd = mkstemp(path);
	struct fabricd_config *cfg;
	const struct partitions_config *pc;
	char **errs;
	size_t n;
	const char *bad = "partitions:\n  enabeld: true\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, two_tenants, strlen(two_tenants)), (ssize_t)strlen(two_tenants));
	close(fd);
	assert_int_equal(config_load(path, fabricd_modules, &cfg, &errs, &n), 0);
	pc = cfg->module[MOD_PARTITIONS];
	assert_true(pc->enabled);
	assert_non_null(pc->model);
	assert_int_equal(pc->model->nparts, 3);
	config_free(cfg);

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	assert_int_equal(config_load(path, fabricd_modules, &cfg, &errs, &n), -1);
	assert_true(n >= 1);
	assert_non_null(strstr(errs[0], ":2:3: unknown key \"enabeld\""));
	cfg_errors_free(errs, n);
	unlink(path);
}

static void
test_export_roundtrip(void **state)
{
	struct pt_config *c = parse_ok(two_tenants), *d;
	char *text = pt_yaml_export(c), *again;

	(void)state;
	d = parse_ok(text);
	again = pt_yaml_export(d);
	assert_string_equal(text, again);
	assert_int_equal(d->nparts, 3);
	assert_int_equal(pt_find(d, "acme-train")->nmembers, 3);
	free(text);
	free(again);
	pt_config_free(c);
	pt_config_free(d);
}

static void
osm_bad(const char *text, const char *needle)
{
	struct pt_config *c;
	char *err;

	assert_int_equal(pt_osm_parse_text("p.conf", text, &c, &err), -1);
	assert_null(c);
	if (strstr(err, needle) == NULL)
		fail_msg("error \"%s\" lacks \"%s\"", err, needle);
	free(err);
}

/* A megabyte of garbage is refused quickly with a bounded message: the
 * first 50 errors and a count (each error used to rescan the text). */
static void
test_osm_garbage_is_bounded(void **state)
{
	size_t n = 1u << 20;
	char *text = malloc(n + 1), *err;
	struct pt_config *c;
	clock_t t0 = clock();

	(void)state;
	for (size_t i = 0; i < n; i += 4)
		memcpy(text + i, "x=;\n", 4);
	text[n] = '\0';
	assert_int_equal(pt_osm_parse_text("g.conf", text, &c, &err), -1);
	assert_true(strlen(err) < 16384);
	assert_non_null(strstr(err, "g.conf: and "));
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
	free(err);
	free(text);
}

static void
test_osm_import(void **state)
{
	struct pt_config *c;
	char *err;
	const char *conf =
	    "# tenants\n"
	    "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
	    "acme=0x0a01, ipoib, mtu=4, defmember=full : 0x0002c9030000a001,\n"
	    "    0x0002c9030000a002=limited ;\n"
	    "beta=0x0b01 : ALL_SWITCHES=full, 0x0002c9030000b001 ;\n";

	(void)state;
	assert_int_equal(pt_osm_parse_text("p.conf", conf, &c, &err), 0);
	assert_int_equal(c->default_policy, PT_DEFAULT_OTHERS_LIMITED);
	assert_int_equal(c->nparts, 2);
	assert_int_equal(pt_find(c, "acme")->pkey, 0x0a01);
	assert_true(pt_find(c, "acme")->members[0].full);
	assert_false(pt_find(c, "acme")->members[1].full);
	assert_false(pt_find(c, "beta")->members[1].full);	/* OpenSM's default: limited */
	assert_true(pt_find(c, "beta")->members[0].full);
	pt_config_free(c);

	/* the footguns of opensm-and-peers 2.1, each refused with a position */
	osm_bad("", "no partition besides the default");
	osm_bad("# nothing\n", "no partition besides the default");
	osm_bad("Default=0x7fff : ALL=full ;\n", "no partition besides the default");
	osm_bad("a=0x0001 : 0x1000=fulll ;\n", "p.conf:1:19: membership \"fulll\"");
	osm_bad("a=0x0001 : A=full ;\n", "p.conf:1:12: member \"A\"");
	osm_bad("a=0x0001 : 0x1000=both ;\n", "one membership per port");
	osm_bad("a=0x0001, bogus : 0x1000 ;\n", "p.conf:1:11: unknown flag \"bogus\"");
	osm_bad("a=0x0001 : 0x1000\n", "missing ';'");
	osm_bad("a : 0x1000 ;\n", "a P_Key is required");
	osm_bad("a=0x0001 : 0x1000 ;\nb=0x0001 : 0x1001 ;\n", "p.conf:2:1: P_Key 0x0001 is already used");
	/* one error anywhere rejects the whole file */
	osm_bad("a=0x0001 : 0x1000 ;\nb=0x0002 : 0x1001=x ;\n", "p.conf:2:");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml_two_tenants),
		cmocka_unit_test(test_yaml_errors),
		cmocka_unit_test(test_yaml_duplicate_keys),
		cmocka_unit_test(test_config_section),
		cmocka_unit_test(test_export_roundtrip),
		cmocka_unit_test(test_osm_import),
		cmocka_unit_test(test_osm_garbage_is_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
