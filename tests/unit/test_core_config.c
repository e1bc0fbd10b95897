/* Config framework: field tables, positions, collected errors, defaults. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/config.h"
#include "daemon/control_access.h"
#include "daemon/fabricd.h"


static char *
write_tmp(const char *text)
{
	char *path = strdup("/tmp/fabricd-cfg-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static int
load(const char *text, struct fabricd_config **cfg, char ***errs, size_t *n)
{
	char *path = write_tmp(text);
	int rc = config_load(path, fabricd_modules, cfg, errs, n);

	unlink(path);
	free(path);
	return rc;
}

static bool
has_error(char **errs, size_t n, const char *needle)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(errs[i], needle))
			return true;
	return false;
}

static void
test_defaults_on_empty_file(void **state)
{
	struct fabricd_config *cfg;
	char **errs;
	size_t n;

	(void)state;
	assert_int_equal(load("", &cfg, &errs, &n), 0);
	assert_string_equal(cfg->socket, "/run/fabricd/fabricd.sock");
	assert_string_equal(cfg->state_dir, "/var/lib/fabricd");
	assert_int_equal(cfg->log_level, LOG_LVL_INFO);
	assert_null(cfg->admin_group);
	cfg_errors_free(errs, n);
	config_free(cfg);
}

static void
test_all_errors_reported_with_positions(void **state)
{
	struct fabricd_config *cfg;
	char **errs;
	size_t n;

	(void)state;
	assert_int_equal(load("state_dir: rel\nsokcet: /x\ncontrol:\n  read_group: [a]\n"
	    "log_level: loud\n", &cfg, &errs, &n), -1);
	assert_null(cfg);
	assert_int_equal(n, 4);
	assert_true(has_error(errs, n, ":1:12: expected an absolute path"));
	assert_true(has_error(errs, n, ":2:1: unknown key \"sokcet\" in the top level (did you mean \"socket\"?)"));
	assert_true(has_error(errs, n, ":4:15: expected a string"));
	assert_true(has_error(errs, n, ":5:12: invalid log_level"));
	cfg_errors_free(errs, n);
}

/* A key twice in one mapping, at any depth and in flow style, is an error
 * at the second one; the same key in two different mappings is not; a
 * mapping of many keys (sorted, not compared pairwise) reports each repeat
 * and stays within the error cap. */
static void
test_duplicate_keys(void **state)
{
	struct fabricd_config *cfg;
	char **errs, *big;
	size_t n, len = 0;

	(void)state;
	assert_int_equal(load("log_level: info\nsm: {priority: 1, priority: 2}\n"
	    "log_level: debug\n", &cfg, &errs, &n), -1);
	assert_true(has_error(errs, n, ":2:19: duplicate key \"priority\" (first given at line 2)"));
	assert_true(has_error(errs, n, ":3:1: duplicate key \"log_level\" (first given at line 1)"));
	assert_int_equal(n, 2);
	cfg_errors_free(errs, n);

	assert_int_equal(load("control: {admin_group: a}\nsm: {priority: 1}\n"
	    "health: {enabled: true}\n", &cfg, &errs, &n), 0);
	cfg_errors_free(errs, n);
	config_free(cfg);

	big = malloc(20000 * 12 + 32);
	len += (size_t)sprintf(big, "health:\n");
	for (int i = 0; i < 20000; i++)
		len += (size_t)sprintf(big + len, "  k%d: 1\n", i % 19990);
	assert_int_equal(load(big, &cfg, &errs, &n), -1);
	/* 10 repeats and 19,990 unknown keys: CFG_MAX_ERRORS kept, then "and N more" */
	assert_int_equal(n, CFG_MAX_ERRORS + 1);
	assert_true(has_error(errs, n, "duplicate key \"k0\" (first given at line 2)"));
	cfg_errors_free(errs, n);
	free(big);
}

struct demo { bool on; uint64_t count; uint64_t period; int mode; char *name; };
static const char *const modes[] = { "fast", "safe", NULL };
static const struct cfg_field demo_fields[] = {
	CFG_F_BOOL("on", struct demo, on),
	CFG_F_UINT("count", struct demo, count, 1, 64),
	CFG_F_DURATION("period", struct demo, period, 100, 3600000),
	CFG_F_ENUM("mode", struct demo, mode, modes),
	CFG_F_STR("name", struct demo, name),
	CFG_F_END
};

static void
parse_demo(const char *text, struct demo *d, struct cfg_ctx *ctx, yaml_document_t *doc)
{
	yaml_parser_t p;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	assert_true(yaml_parser_load(&p, doc));
	ctx->file = "t.yaml";
	ctx->doc = doc;
	cfg_parse_fields(ctx, yaml_document_get_root_node(doc), demo_fields, d);
	yaml_parser_delete(&p);
}

static void
test_field_types(void **state)
{
	struct demo d = { 0 };
	struct cfg_ctx ctx = { 0 };
	yaml_document_t doc;

	(void)state;
	parse_demo("on: yes\ncount: 0x10\nperiod: 2m\nmode: safe\nname: x\n", &d, &ctx, &doc);
	assert_int_equal(ctx.nerrors, 0);
	assert_true(d.on);
	assert_int_equal(d.count, 16);
	assert_int_equal(d.period, 120000);
	assert_int_equal(d.mode, 1);
	assert_string_equal(d.name, "x");
	cfg_fields_free(demo_fields, &d);
	yaml_document_delete(&doc);
}

static void
test_field_range_errors(void **state)
{
	struct demo d = { 0 };
	struct cfg_ctx ctx = { 0 };
	yaml_document_t doc;

	(void)state;
	parse_demo("count: 65\nperiod: 10ms\nmode: quick\ncont: 1\nperiod: 5x\n", &d, &ctx, &doc);
	assert_int_equal(ctx.nerrors, 5);
	assert_true(has_error(ctx.errors, ctx.nerrors, "t.yaml:1:8: 65 is out of range: must be between 1 and 64"));
	assert_true(has_error(ctx.errors, ctx.nerrors, "t.yaml:2:9: duration 10ms is out of range"));
	assert_true(has_error(ctx.errors, ctx.nerrors, "expected one of fast, safe"));
	assert_true(has_error(ctx.errors, ctx.nerrors, "did you mean \"count\""));
	assert_true(has_error(ctx.errors, ctx.nerrors, "t.yaml:5:9: expected a duration"));
	cfg_errors_free(ctx.errors, ctx.nerrors);
	yaml_document_delete(&doc);
}

static void
test_closest(void **state)
{
	const char *const c[] = { "sweep_interval", "priority", "routing" };

	(void)state;
	assert_string_equal(cfg_closest("priorty", c, 3), "priority");
	assert_string_equal(cfg_closest("ROUTING", c, 3), "routing");
	assert_null(cfg_closest("zzzzzz", c, 3));
}


/* control.listen, tls, clients and peers: values kept, errors placed. */
static void
test_remote_control(void **state)
{
	struct fabricd_config *cfg;
	char **errs;
	size_t n;

	(void)state;
	assert_int_equal(load("control:\n  listen: \"[::1]:9700\"\n  jobs_group: slurm\n"
	    "  tls: {cert: /c.pem, key: /k.pem, ca: /ca.pem}\n"
	    "  clients:\n    - {cn: slurmctld, role: jobs}\n"
	    "    - {fingerprint: \"sha256:00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF\", role: admin}\n"
	    "  peers:\n    - 10.0.0.2:9700\n    - {address: sm2.example:9700, guid: 0x1234}\n",
	    &cfg, &errs, &n), 0);
	assert_string_equal(cfg->control_listen, "[::1]:9700");
	assert_string_equal(cfg->jobs_group, "slurm");
	assert_string_equal(cfg->control_tls.ca, "/ca.pem");
	assert_int_equal(cfg->nclients, 2);
	assert_string_equal(cfg->clients[0].cn, "slurmctld");
	assert_int_equal(cfg->clients[0].role, ROLE_JOBS);
	assert_string_equal(cfg->clients[1].fingerprint, "sha256:00:11:22:33:44:55:66:77:88:99:AA:BB:"
	    "CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF");
	assert_int_equal(cfg->npeers, 2);
	assert_string_equal(cfg->peers[0].address, "10.0.0.2:9700");
	assert_int_equal(cfg->peers[1].guid, 0x1234);
	cfg_errors_free(errs, n);
	config_free(cfg);

	assert_int_equal(load("control:\n  listen: 10.0.0.1\n  clients:\n"
	    "    - {cn: a, role: root}\n    - {role: read}\n    - {fingerprint: sha256:12, role: read}\n"
	    "  peers: [\"::1:9700\"]\n", &cfg, &errs, &n), -1);
	assert_true(has_error(errs, n, ":2:11: expected HOST:PORT"));
	assert_true(has_error(errs, n, ":4:21: invalid role \"root\""));
	assert_true(has_error(errs, n, ":5:7: a client needs exactly one of cn and fingerprint"));
	assert_true(has_error(errs, n, ":6:21: expected a certificate fingerprint"));
	assert_true(has_error(errs, n, ":7:11: expected HOST:PORT"));
	cfg_errors_free(errs, n);

	assert_int_equal(load("control:\n  listen: 127.0.0.1:9700\n", &cfg, &errs, &n), -1);
	assert_true(has_error(errs, n, ":2:3: control.listen needs control.tls"));
	cfg_errors_free(errs, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_on_empty_file),
		cmocka_unit_test(test_all_errors_reported_with_positions),
		cmocka_unit_test(test_field_types),
		cmocka_unit_test(test_field_range_errors),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_remote_control),
	};
	log_init("test", LOG_LVL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
