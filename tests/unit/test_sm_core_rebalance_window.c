/*
 * sm.rebalance_window (sm/core/rebalance_window.c): the text parsed, and a
 * local time placed in one occurrence, with fake times (no clock): inside
 * and outside, the end excluded, a window past midnight owned by the day
 * it starts on, one occurrence per day and week, across a year's end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sm/core/rebalance_window.h"

#define SUN 0
#define MON 1
#define FRI 5
#define SAT 6

/* A broken-down local time as localtime_r would give it. */
static struct tm
at(int year, int mon, int mday, int wday, int hour, int min)
{
	struct tm t;

	memset(&t, 0, sizeof(t));
	t.tm_year = year - 1900;
	t.tm_mon = mon - 1;
	t.tm_mday = mday;
	t.tm_wday = wday;
	t.tm_hour = hour;
	t.tm_min = min;
	return t;
}

static struct rebalance_window
window(const char *s)
{
	struct rebalance_window w;
	char err[200];

	assert_true(rebalance_window_parse(s, &w, err, sizeof(err)));
	return w;
}

static int64_t
occ(const struct rebalance_window *w, struct tm t)
{
	return rebalance_window_occurrence(w, &t);
}

static void
test_parse(void **state)
{
	struct rebalance_window w;

	(void)state;
	w = window("Sat,Sun 02:00-04:00");
	assert_int_equal(w.days, (1 << SAT) | (1 << SUN));
	assert_int_equal(w.start_min, 120);
	assert_int_equal(w.end_min, 240);
	assert_string_equal(w.text, "Sat,Sun 02:00-04:00");
	assert_int_equal(window("02:00-04:00").days, 0x7f);
	assert_int_equal(window("Mon-Fri 22:00-01:00").days, 0x3e);
	/* a range over the week's end, any case, a whole day */
	w = window("fri-MON 00:00-24:00");
	assert_int_equal(w.days, (1 << FRI) | (1 << SAT) | (1 << SUN) | (1 << MON));
	assert_int_equal(w.end_min, 1440);
}

static void
test_parse_refused(void **state)
{
	static const char *const bad[] = {
		"", "02:00", "02:00-04:00x", "02:00-02:00", "24:00-02:00", "25:00-26:00",
		"02:60-03:00", "Sat Sun 02:00-04:00", "Funday 02:00-04:00", "Sat, 02:00-04:00",
		"Mon- 02:00-04:00", "x02:00-04:00", "Sat,Sun,Mon,Tue,Wed,Thu,Fri,Sat,Sun,Mon 02:00-04:00",
	};
	struct rebalance_window w;
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_false(rebalance_window_parse(bad[i], &w, err, sizeof(err)));
		assert_true(err[0] != '\0');
		assert_false(w.set);
	}
}

static void
test_inside_outside(void **state)
{
	struct rebalance_window w = window("Sat,Sun 02:00-04:00");
	int64_t sat = occ(&w, at(2026, 12, 12, SAT, 2, 0));

	(void)state;
	assert_true(sat > 0);
	assert_int_equal(occ(&w, at(2026, 12, 12, SAT, 3, 59)), sat);
	assert_int_equal(occ(&w, at(2026, 12, 12, SAT, 4, 0)), -1);	/* the end is out */
	assert_int_equal(occ(&w, at(2026, 12, 12, SAT, 1, 59)), -1);
	assert_int_equal(occ(&w, at(2026, 12, 14, MON, 3, 0)), -1);	/* not its day */
	/* each day and each week its own occurrence */
	assert_int_equal(occ(&w, at(2026, 12, 13, SUN, 2, 30)), sat + 1);
	assert_int_equal(occ(&w, at(2026, 12, 19, SAT, 2, 30)), sat + 7);
}

static void
test_past_midnight(void **state)
{
	struct rebalance_window w = window("Fri 23:00-01:00");
	int64_t fri = occ(&w, at(2026, 12, 11, FRI, 23, 0));

	(void)state;
	assert_true(fri > 0);
	assert_int_equal(occ(&w, at(2026, 12, 12, SAT, 0, 30)), fri);	/* the same one */
	assert_int_equal(occ(&w, at(2026, 12, 12, SAT, 1, 0)), -1);
	assert_int_equal(occ(&w, at(2026, 12, 12, SAT, 23, 30)), -1);	/* Saturday's is none */
	assert_int_equal(occ(&w, at(2026, 12, 11, FRI, 0, 30)), -1);	/* nor Thursday's */
	/* over a year's end: the occurrence is the day it began */
	w = window("22:00-02:00");
	assert_int_equal(occ(&w, at(2027, 1, 1, FRI, 1, 0)), occ(&w, at(2026, 12, 31, 4, 22, 0)));
	assert_int_equal(occ(&w, at(2027, 1, 1, FRI, 22, 0)), occ(&w, at(2026, 12, 31, 4, 22, 0)) + 1);
}

static void
test_day_numbers(void **state)
{
	struct rebalance_window w = window("00:00-24:00");

	(void)state;
	assert_int_equal(occ(&w, at(1970, 1, 1, 4, 12, 0)), 0);
	assert_int_equal(occ(&w, at(2000, 3, 1, 3, 12, 0)), 11017);
	assert_int_equal(occ(&w, at(2026, 12, 7, MON, 19, 20)), 20794);
	memset(&w, 0, sizeof(w));	/* unset: never */
	assert_int_equal(occ(&w, at(2026, 12, 7, MON, 19, 20)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_inside_outside),
		cmocka_unit_test(test_past_midnight),
		cmocka_unit_test(test_day_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
