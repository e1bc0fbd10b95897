/*
 * fabricctl's readable times, durations and sizes (cli/human.c, included
 * to build without the client's other files): ISO 8601 with the zone,
 * checked in UTC and in a fixed +05:30 zone against the epoch values
 * date -u prints; --json twins added beside raw values, never replacing
 * them or an existing key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cli/human.c"
#include "cli/output.c"

static void
test_time(void **state)
{
	char buf[40];

	(void)state;
	setenv("TZ", "UTC0", 1);
	tzset();
	/* date -u -d @1767323045 +%FT%T: 2026-01-02T03:04:05 */
	assert_string_equal(cli_time_text(1767323045123LL, buf, sizeof(buf)), "2026-01-02T03:04:05+00:00");
	setenv("TZ", "IST-5:30", 1);
	tzset();
	assert_string_equal(cli_time_text(1767323045000LL, buf, sizeof(buf)), "2026-01-02T08:34:05+05:30");
}

static void
test_duration_size(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(cli_duration_text(350, buf, sizeof(buf)), "350 ms");
	assert_string_equal(cli_duration_text(12345, buf, sizeof(buf)), "12.3 s");
	assert_string_equal(cli_duration_text(245000, buf, sizeof(buf)), "4m 05s");
	assert_string_equal(cli_duration_text(3 * 3600000LL + 120000, buf, sizeof(buf)), "3h 02m");
	assert_string_equal(cli_duration_text(2 * 86400000LL + 4 * 3600000LL, buf, sizeof(buf)), "2d 04h");
	assert_string_equal(cli_size_text(512, buf, sizeof(buf)), "512 B");
	assert_string_equal(cli_size_text(1536, buf, sizeof(buf)), "1.5 KiB");
	assert_string_equal(cli_size_text(1LL << 30, buf, sizeof(buf)), "1.0 GiB");
	assert_string_equal(cli_size_text(17179869184LL, buf, sizeof(buf)), "16 GiB");
}

static void
test_humanize(void **state)
{
	json_t *v = json_pack("{s:I, s:I, s:I, s:I, s:s, s:[{s:I}]}", "time_ms", (json_int_t)1767323045000LL,
	    "elapsed_ms", (json_int_t)1500, "uptime_s", (json_int_t)90, "bytes", (json_int_t)2048,
	    "elapsed_human", "kept", "rows", "size_bytes", (json_int_t)1048576);

	(void)state;
	setenv("TZ", "UTC0", 1);
	tzset();
	cli_humanize(v);
	assert_int_equal(json_integer_value(json_object_get(v, "time_ms")), 1767323045000LL);
	assert_string_equal(json_string_value(json_object_get(v, "time_iso")), "2026-01-02T03:04:05+00:00");
	assert_string_equal(json_string_value(json_object_get(v, "elapsed_human")), "kept");
	assert_string_equal(json_string_value(json_object_get(v, "uptime_human")), "1m 30s");
	assert_string_equal(json_string_value(json_object_get(v, "bytes_human")), "2.0 KiB");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(v, "rows"), 0),
	    "size_bytes_human")), "1.0 MiB");
	json_decref(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_duration_size),
		cmocka_unit_test(test_humanize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
