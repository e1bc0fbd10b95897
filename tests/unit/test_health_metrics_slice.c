/*
 * health's metrics written in slices (health/metrics.c, struct prom_cursor):
 * a build cut after every entry writes the text one unbounded call writes,
 * and a port the table frees between two slices is left out of the rest,
 * nothing else changes (the ports' keys are a snapshot, never pointers).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/prom.h"
#include "health/hstate.h"

#define NPORTS 300

static struct health h;

static void
ports_add(uint64_t skip_guid)
{
	for (unsigned i = 0; i < NPORTS; i++) {
		uint64_t guid = 0x0002c90300001000ull + i / 3;
		struct hport *p;

		if (guid == skip_guid && i % 3 == 0)
			continue;
		p = hport_get(guid, (uint8_t)(1 + i % 3), "node");
		p->present = true;
		p->state = 4;
		p->c[0].have_last = true;
		p->c[0].total = i;
	}
}

static int
setup(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	h.alarms = alarm_table_new(1, NULL, NULL);
	health = &h;
	ports_add(0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	hports_free(&h);
	alarm_table_free(h.alarms);
	health = NULL;
	return 0;
}

/* The whole text; until_ns 1: every call stops after one entry.  calls
 * counts them; between(n) runs before the nth. */
static char *
build(uint64_t until_ns, size_t *calls, void (*between)(size_t n))
{
	struct prom_cursor c = { .until_ns = until_ns };
	struct prom pr;

	prom_init(&pr);
	for (*calls = 1; !health_metrics(NULL, &pr, &c); (*calls)++)
		if (between)
			between(*calls + 1);
	free(c.keys);
	return pr.buf;
}

static void
slices_write_the_one_step_text(void **state)
{
	size_t n1, n2;
	char *whole = build(0, &n1, NULL), *sliced = build(1, &n2, NULL);

	(void)state;
	assert_int_equal(n1, 1);
	assert_true(n2 > NPORTS);
	assert_string_equal(whole, sliced);
	assert_non_null(strstr(whole, "fabricd_link_state{node_guid=\"0x0002c90300001000\",node=\"node\",port=\"1\""));
	free(whole);
	free(sliced);
}

/* After the third slice the table is freed and made again without
 * 0x...1005 port 1 (the others at new addresses). */
static void
remake_without_one(size_t n)
{
	if (n != 3)
		return;
	hports_free(&h);
	ports_add(0x0002c90300001005ull);
}

static void
a_port_freed_between_slices_is_left_out(void **state)
{
	size_t n;
	char *whole = build(0, &n, NULL), *sliced = build(1, &n, remake_without_one);
	char *expect = calloc(1, strlen(whole) + 1), *line, *save = NULL;
	const char *gone = "node_guid=\"0x0002c90300001005\",node=\"node\",port=\"1\"";
	size_t left = 0;

	(void)state;
	/* the first two slices wrote stage 0 and one entry of the first
	 * family (not 0x...1005:1, in this hash order): every line of it goes */
	for (line = strtok_r(whole, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, gone)) {
			left++;
			continue;
		}
		strcat(strcat(expect, line), "\n");
	}
	assert_true(left >= 2);
	assert_null(strstr(sliced, gone));
	assert_string_equal(expect, sliced);
	free(whole);
	free(sliced);
	free(expect);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(slices_write_the_one_step_text, setup, teardown),
		cmocka_unit_test_setup_teardown(a_port_freed_between_slices_is_left_out, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
