/*
 * What fabricd accepts from outside, below the socket: UTF-8 in messages,
 * the commands.def argument spec, bounded file reads and bounded YAML.
 * Each bound is shown refusing the input it exists for, and letting the
 * ordinary input through.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/clock.h"
#include "common/file.h"
#include "common/spec.h"
#include "common/utf8.h"
#include "daemon/config.h"
#include "daemon/fabricd.h"

/* ---- UTF-8 ---- */

static void
test_utf8_clean_keeps_valid_text(void **state)
{
	char *s;

	(void)state;
	s = utf8_clean("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 64);
	assert_string_equal(s, "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
	free(s);
	/* stray, overlong, surrogate: each malformed byte is one '?' */
	s = utf8_clean("a\xff" "b\xc0\xaf" "c\xed\xa0\x80", 64);
	assert_true(utf8_valid(s, strlen(s)));
	assert_int_equal(strlen(s), strlen("a\xff" "b\xc0\xaf" "c\xed\xa0\x80"));
	free(s);
	/* a character cut short at the end (a bounded printf) is dropped */
	s = utf8_clean("ok \xe2\x82", 64);
	assert_string_equal(s, "ok ");
	free(s);
}

static void
test_utf8_cut_on_boundary(void **state)
{
	char big[10001], *s;

	(void)state;
	for (int i = 0; i < 5000; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);	/* 10,000 bytes of "é" */
	big[10000] = '\0';
	s = utf8_clean(big, 16384);			/* fits: whole */
	assert_string_equal(s, big);
	free(s);
	for (size_t max = 8; max < 40; max++) {		/* cut: boundary, "...", <= max */
		s = utf8_clean(big, max);
		assert_true(strlen(s) < max);
		assert_true(utf8_valid(s, strlen(s)));
		assert_string_equal(s + strlen(s) - 3, "...");
		free(s);
	}
	assert_int_equal(utf8_cut(big, 7), 6);
	assert_int_equal(utf8_cut(big, 8), 8);
	assert_int_equal(utf8_cut("abc", 64), 3);
}

/* ---- argument spec ---- */

static void
test_spec_types(void **state)
{
	struct spec sp;
	char why[256];
	json_t *a;

	(void)state;
	assert_int_equal(spec_parse("NAME [NODE] --limit=INT --hosts=LIST --file=FILE --dry-run",
	    &sp), 0);
	assert_int_equal(sp.n, 6);
	assert_true(sp.arg[0].required);
	assert_false(sp.arg[1].required);
	assert_int_equal(spec_find(&sp, "dry_run")->type, SPEC_FLAG);
	assert_int_equal(spec_find(&sp, "file")->type, SPEC_FILE);

	a = json_pack("{s:s, s:i, s:[s], s:b}", "name", "x", "limit", 3, "hosts", "h1", "dry_run", 1);
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), 0);
	json_object_set_new(a, "bogus", json_true());
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "\"bogus\""));
	json_object_del(a, "bogus");
	json_object_set_new(a, "limit", json_string("3"));
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "\"limit\""));
	json_object_set_new(a, "limit", json_integer(3));
	/* a path is not a file: only a descriptor is */
	json_object_set_new(a, "file", json_string("/etc/shadow"));
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "descriptor"));
	json_object_set_new(a, "file", json_pack("{s:i, s:s}", "fd", 0, "name", "/x"));
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), 0);
	json_object_del(a, "name");
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "missing argument \"name\""));
	json_decref(a);

	/* a declared range is checked too */
	assert_int_equal(spec_parse("--limit=INT:1-100", &sp), 0);
	a = json_pack("{s:i}", "limit", 100);
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), 0);
	json_object_set_new(a, "limit", json_integer(101));
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "\"limit\" must be between 1 and 100"));
	json_object_set_new(a, "limit", json_integer(0));
	assert_int_equal(spec_check(&sp, a, why, sizeof(why)), -1);
	json_decref(a);
	assert_int_equal(spec_parse("--limit=INT:5-1", &sp), -1);

	assert_int_equal(spec_parse("--x=FLOAT", &sp), -1);
	assert_int_equal(spec_parse("[BROKEN", &sp), -1);
}

/* ---- bounded file reads ---- */

static void
test_file_read_refuses_what_is_not_a_small_regular_file(void **state)
{
	char dir[] = "/tmp/fabricd-input-XXXXXX", path[64], *buf;
	const char *why;
	size_t len;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	/* no writer: a blocking open would hang here forever */
	assert_int_equal(file_read_path(path, FILE_MAX_INPUT, &buf, &len, &why), -1);
	assert_string_equal(why, "not a regular file");
	unlink(path);

	snprintf(path, sizeof(path), "%s/big", dir);
	fd = open(path, O_CREAT | O_RDWR, 0600);
	assert_int_equal(ftruncate(fd, FILE_MAX_INPUT + 1), 0);
	assert_int_equal(file_read_fd(fd, FILE_MAX_INPUT, &buf, &len, &why), -1);
	assert_non_null(strstr(why, "larger than"));
	assert_int_equal(ftruncate(fd, 5), 0);
	assert_int_equal(pwrite(fd, "hello", 5, 0), 5);
	lseek(fd, 3, SEEK_SET);		/* the offset a client left does not matter */
	assert_int_equal(file_read_fd(fd, FILE_MAX_INPUT, &buf, &len, &why), 0);
	assert_int_equal(len, 5);
	assert_string_equal(buf, "hello");
	free(buf);
	close(fd);
	fd = open(path, O_WRONLY);
	assert_int_equal(file_read_fd(fd, FILE_MAX_INPUT, &buf, &len, &why), -1);
	assert_string_equal(why, "not open for reading");
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* ---- bounded YAML ---- */

/* Load text as a config; the errors joined, or NULL when it loaded. */
static char *
load_errors(const char *text, size_t len, double *ms)
{
	struct fabricd_config *cfg;
	char **errs, *out = NULL;
	size_t n, total = 1;
	/* CPU time, not the wall clock: a busy machine stretches the second,
	 * not the first (issue 39); a walk of 10^10 nodes takes hours of either */
	int64_t t0 = clock_thread_cpu_us();

	if (config_load_text("t.yaml", text, len, fabricd_modules, &cfg, &errs, &n) == 0) {
		config_free(cfg);
		cfg_errors_free(errs, n);
		return NULL;
	}
	*ms = (double)(clock_thread_cpu_us() - t0) / 1e3;
	for (size_t i = 0; i < n; i++)
		total += strlen(errs[i]) + 1;
	out = calloc(1, total);
	for (size_t i = 0; i < n; i++) {
		strcat(out, errs[i]);
		strcat(out, "\n");
	}
	cfg_errors_free(errs, n);
	return out;
}

static void
test_yaml_depth(void **state)
{
	size_t len = 100000;
	char *deep = malloc(len + 1), *e;
	double ms;

	(void)state;
	memset(deep, '[', len);
	deep[len] = '\0';
	e = load_errors(deep, len, &ms);
	assert_non_null(e);
	assert_non_null(strstr(e, "t.yaml:1:65: nested deeper than 64 levels"));
	assert_true(ms < 1000);
	free(e);
	free(deep);
	/* 63 levels under a key are still fine syntax (and then a config error) */
	char ok[256] = "log_level: ";
	for (int i = 0; i < 63; i++)
		strcat(ok, "[");
	for (int i = 0; i < 63; i++)
		strcat(ok, "]");
	e = load_errors(ok, strlen(ok), &ms);
	assert_non_null(e);
	assert_null(strstr(e, "nested deeper"));
	free(e);
}

static void
test_yaml_aliases(void **state)
{
	char bomb[2048] = "a: &a [x, x, x, x, x, x, x, x, x, x]\n", prev = 'a', *e;
	double ms;

	(void)state;
	for (char l = 'b'; l <= 'j'; l++) {
		char line[128];
		snprintf(line, sizeof(line), "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, "
		    "*%c]\n", l, l, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev);
		strcat(bomb, line);
		prev = l;
	}
	e = load_errors(bomb, strlen(bomb), &ms);	/* 10^10 nodes if walked */
	assert_non_null(e);
	assert_non_null(strstr(e, "aliases expand the document past 100000 nodes"));
	assert_true(ms < 1000);
	free(e);
	e = load_errors("a: &a [*a]\n", 11, &ms);		/* walked forever */
	assert_non_null(e);
	assert_non_null(strstr(e, "t.yaml:1:4: an alias refers to a node that contains it"));
	free(e);
	/* an ordinary anchor is fine */
	assert_null(load_errors("control: &c {admin_group: wheel}\n", 33, &ms));
}

static void
test_error_count_is_capped(void **state)
{
	size_t cap = 2000 * 12 + 16, len = 0;
	char *text = malloc(cap), *e;
	double ms;

	(void)state;
	len += (size_t)sprintf(text, "sm:\n");
	for (int i = 0; i < 2000; i++)		/* 2,000 unknown keys */
		len += (size_t)sprintf(text + len, " k%d: 1\n", i);
	e = load_errors(text, len, &ms);
	if (e == NULL || strlen(e) > 64 * 1024)
		fail_msg("errors not capped: %zu bytes", e ? strlen(e) : 0);
	assert_non_null(strstr(e, "t.yaml: and 1950 more errors"));
	free(e);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_clean_keeps_valid_text),
		cmocka_unit_test(test_utf8_cut_on_boundary),
		cmocka_unit_test(test_spec_types),
		cmocka_unit_test(test_file_read_refuses_what_is_not_a_small_regular_file),
		cmocka_unit_test(test_yaml_depth),
		cmocka_unit_test(test_yaml_aliases),
		cmocka_unit_test(test_error_count_is_capped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
