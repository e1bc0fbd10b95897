/*
 * The topology export (fabric/topology_export.c) of a hand-built model
 * (tests/unit/fabric_route_fixture.h).  The ibnetdiscover lines expected here
 * are written from ibnetdiscover's own layout (infiniband-diags), not from
 * our output; the rest are invariants: every cabled port listed once, each
 * link once in dot, degraded links marked, quotes kept out of fields.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/topology_export.h"
#include "tests/unit/fabric_route_fixture.h"

static void
assert_line(const char *text, const char *line)
{
	char *want = malloc(strlen(line) + 3);
	const char *at;

	sprintf(want, "\n%s\n", line);
	at = strstr(text, want);
	if (at == NULL)
		fail_msg("missing line: [%s]\nin:\n%s", line, text);
	free(want);
}

static size_t
count_lines(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, prefix, len) == 0)
			n++;
	return n;
}

static size_t
count_str(const char *text, const char *s)
{
	size_t n = 0;

	for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
		n++;
	return n;
}

static void
test_ibnetdiscover_lines(void **state)
{
	struct rfix *x = *state;
	struct topology_counts c;
	char *t = topology_text(x->f, TOPOLOGY_IBNETDISCOVER, 0x101, &c);

	assert_non_null(t);
	assert_line(t, "# Initiated from node 0000000000000100 port 0000000000000101");
	assert_line(t, "switchguid=0x200(200)");
	assert_line(t, "Switch\t8 \"S-0000000000000200\"\t\t# \"sw1\" base port 0 lid 10 lmc 0");
	assert_line(t, "Switch\t8 \"S-0000000000000300\"\t\t# \"sw2\" enhanced port 0 lid 11 lmc 0");
	assert_line(t, "[1]\t\"H-0000000000000100\"[1](101) \t\t# \"h1\" lid 1 4xQDR");
	assert_line(t, "[7]\t\"S-0000000000000300\"[7]\t\t# \"sw2\" lid 11 4xQDR");
	assert_line(t, "[8]\t\"S-0000000000000200\"[8]\t\t# \"sw1\" lid 10 1xQDR");
	assert_line(t, "[3]\t\"H-0000000000000120\"[2](122) \t\t# \"h3\" lid 3 4xQDR");
	assert_line(t, "vendid=0x2c9\ndevid=0x1017\nsysimgguid=0x100\ncaguid=0x100");
	assert_line(t, "Ca\t2 \"H-0000000000000120\"\t\t# \"h3\"");
	assert_line(t, "[2](122) \t\"S-0000000000000300\"[3]\t\t# lid 3 lmc 0 \"sw2\" lid 11 4xQDR");
	/* only cabled ports: h3's port 1 is not listed */
	assert_null(strstr(t, "[1](121)"));
	/* switches before CAs, as ibnetdiscover lists them */
	assert_true(strstr(t, "\nSwitch") < strstr(t, "\nCa"));
	assert_int_equal(c.nodes, 5);
	assert_int_equal(c.links, 5);
	assert_int_equal(c.degraded, 1);
	assert_int_equal(count_lines(t, "Switch\t"), 2);
	assert_int_equal(count_lines(t, "Ca\t"), 3);
	/* every link seen from both ends */
	assert_int_equal(count_lines(t, "["), 2 * c.links);
	free(t);
}

static void
test_no_origin_line(void **state)
{
	char *t = topology_text(((struct rfix *)*state)->f, TOPOLOGY_IBNETDISCOVER, 0, NULL);

	assert_non_null(t);
	assert_null(strstr(t, "Initiated from"));
	free(t);
}

/* dot grouped by level: both switches are leaves (one rank), the hosts of
 * each collapsed into one box, the two sw1-sw2 cables one red edge. */
static void
test_dot(void **state)
{
	struct rfix *x = *state;
	struct topology_counts c;
	char *t = topology_text(x->f, TOPOLOGY_DOT, 0, &c);

	assert_non_null(t);
	assert_memory_equal(t, "graph fabric {\n", 15);
	assert_string_equal(t + strlen(t) - 2, "}\n");
	assert_int_equal(c.links, 5);
	assert_int_equal(c.degraded, 1);
	/* two host lines, the bundle, and the invisible one that orders the rank */
	assert_int_equal(count_str(t, " -- "), 4);
	assert_int_equal(count_str(t, "style=invis"), 1);
	assert_int_equal(count_str(t, "shape=box"), 2);
	assert_int_equal(count_str(t, "shape=folder"), 2);
	assert_int_equal(count_str(t, "rank=same"), 1);
	/* text only where dot lays it out with the nodes: no xlabel */
	assert_null(strstr(t, "xlabel"));
	assert_line(t, "\t\"0000000000000200\" -- \"0000000000000300\" [label=\"2 x 4xQDR, "
	    "1 degraded\", color=red, fontcolor=red, penwidth=2];");
	assert_line(t, "\t\"hosts-0000000000000300\" [label=\"h[2-3]\\n2 x 4xQDR\", shape=folder, fontsize=8];");
	free(t);
}

/* Slurm: every leaf with its hosts as a hostlist; a spine over leaves. */
static void
test_slurm(void **state)
{
	struct rfix *x = *state;
	struct fabric_node *sp = fabric_add_node(x->f, 0x400, FABRIC_SWITCH, 8);
	char *t;

	snprintf(sp->desc, sizeof(sp->desc), "spine 1");
	rfix_cable(&sp->ports[1], &x->sw1->ports[4], 2, 4);
	rfix_cable(&sp->ports[2], &x->sw2->ports[4], 2, 4);
	rfix_cable(&sp->ports[3], &x->sw2->ports[5], 2, 4);
	fabric_sort(x->f);
	t = topology_text(x->f, TOPOLOGY_SLURM, 0, NULL);
	assert_line(t, "SwitchName=sw1 Nodes=h1");
	assert_line(t, "SwitchName=sw2 Nodes=h[2-3]");
	assert_line(t, "SwitchName=spine_1 Switches=sw[1-2]");
	free(t);
	t = topology_text(x->f, TOPOLOGY_SLURM_YAML, 0, NULL);
	assert_line(t, "      - switch: \"spine_1\"\n        children: \"sw[1-2]\"");
	free(t);
	t = topology_text(x->f, TOPOLOGY_DOT, 0, NULL);
	assert_int_equal(count_str(t, "rank=same"), 2);
	/* the spine is the tail: dot ranks it above the leaves */
	assert_non_null(strstr(t, "\"0000000000000400\" -- \"0000000000000300\" [label=\"2 x 4xQDR\"]"));
	free(t);
}

/* A quote or backslash in a description would break both formats' fields. */
static void
test_hostile_description(void **state)
{
	struct rfix *x = *state;
	char *t;

	snprintf(x->h1->desc, sizeof(x->h1->desc), "a\"b\\c\nd");
	t = topology_text(x->f, TOPOLOGY_IBNETDISCOVER, 0, NULL);
	assert_line(t, "Ca\t1 \"H-0000000000000100\"\t\t# \"a'b/c d\"");
	free(t);
	t = topology_text(x->f, TOPOLOGY_DOT, 0, NULL);
	/* collapsed under its leaf by its hostname, the first word */
	assert_non_null(strstr(t, "label=\"a'b/c\\n1 x 4xQDR\""));
	free(t);
}

/* Four leaves under two spines, every leaf cabled once to each: one
 * complete bundle, drawn as one box ("8 x 4xQDR", 4 x 2 switches) and a
 * line to each of its six switches, not eight lines; each rank in the
 * order a person counts (sw-l2 before sw-l11), whatever the GUIDs say. */
static void
test_dot_groups(void **state)
{
	static const char *leaves[] = { "sw-l11", "sw-l2", "sw-l1", "sw-l3" };
	struct fabric *f = fabric_new();
	struct fabric_node *s11 = rfix_sw(f, 0x500, "sw-s11", 20);
	struct fabric_node *s2 = rfix_sw(f, 0x600, "sw-s2", 21);
	struct topology_counts c = { 0 };
	char want[256], *t;

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		struct fabric_node *l = rfix_sw(f, 0x200 + i, leaves[i], 10 + i);
		char name[8];
		snprintf(name, sizeof(name), "h%u", i);
		rfix_cable(&rfix_ca(f, 0x100 + 0x10 * i, 1, name)->ports[1], &l->ports[1], 2, 4);
		rfix_cable(&l->ports[7], &s11->ports[1 + i], 2, 4);
		rfix_cable(&l->ports[8], &s2->ports[1 + i], 2, 4);
	}
	fabric_sort(f);
	t = topology_text(f, TOPOLOGY_DOT, 0, &c);
	assert_non_null(t);
	assert_int_equal(c.links, 12);
	assert_line(t, "\t\"group-0\" [label=\"8 x 4xQDR\\n4 x 2 switches\", shape=box, "
	    "style=rounded, fontsize=8, height=0.3, margin=\"0.04,0.02\"];");
	/* 4 host lines, 2 + 4 through the box, 3 + 1 links of the invisible
	 * chains that order the ranks */
	assert_int_equal(count_str(t, " -- "), 14);
	assert_int_equal(count_str(t, "style=invis"), 2);
	assert_int_equal(count_str(t, "-- \"group-0\""), 2);
	assert_int_equal(count_str(t, "\"group-0\" --"), 4);
	/* sw-l1 (0x202), sw-l2 (0x201), sw-l3 (0x203), sw-l11 (0x200) */
	assert_line(t, "\t{ rank=same; \"0000000000000202\"; \"0000000000000201\"; "
	    "\"0000000000000203\"; \"0000000000000200\"; }");
	assert_line(t, "\t\"0000000000000202\" -- \"0000000000000201\" -- \"0000000000000203\" -- "
	    "\"0000000000000200\" [style=invis];");
	snprintf(want, sizeof(want), "\t{ rank=same; \"%016x\"; \"%016x\"; }", 0x600, 0x500);
	assert_line(t, want);
	free(t);
	fabric_free(f);
}

static void
test_format_names(void **state)
{
	(void)state;
	assert_int_equal(topology_format_parse(NULL), TOPOLOGY_IBNETDISCOVER);
	assert_int_equal(topology_format_parse("ibnetdiscover"), TOPOLOGY_IBNETDISCOVER);
	assert_int_equal(topology_format_parse("dot"), TOPOLOGY_DOT);
	assert_int_equal(topology_format_parse("slurm"), TOPOLOGY_SLURM);
	assert_int_equal(topology_format_parse("slurm-yaml"), TOPOLOGY_SLURM_YAML);
	assert_string_equal(topology_format_name(TOPOLOGY_SLURM_YAML), "slurm-yaml");
	assert_int_equal(topology_format_parse("xml"), -1);
	assert_string_equal(topology_format_name(TOPOLOGY_DOT), "dot");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ibnetdiscover_lines, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_no_origin_line, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_dot, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_slurm, rfix_setup, rfix_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_description, rfix_setup, rfix_teardown),
		cmocka_unit_test(test_dot_groups),
		cmocka_unit_test(test_format_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
