/*
 * Human output for the sm commands (the rest use the generic printer).
 *   route     one line per hop, as ibtracert prints a path
 *   topology  the text itself, so that it can be redirected to a file
 *   routing   the engine, a table of levels, the hottest links
 */
#include <stdio.h>

#include "cli/fabricctl.h"

static long long
num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static void
endpoint_line(const char *word, json_t *e)
{
	printf("%s %s \"%s\" {%s} port %lld lid %lld\n", word, cli_str(e, "type", "?"),
	    cli_str(e, "name", "?"), cli_str(e, "port_guid", "?"), num(e, "port"), num(e, "lid"));
}

/* "[out] -> switch "name" lid N [in]": the port a hop leaves by, then the
 * node reached and the port it enters by, as ibtracert lays it out. */
static void
route_result(json_t *res)
{
	json_t *hops = json_object_get(res, "hops"), *h, *prev = NULL;
	size_t i;

	endpoint_line("From", json_object_get(res, "src"));
	json_array_foreach(hops, i, h) {
		if (prev)
			printf("[%lld] -> %s \"%s\" lid %lld [%lld]\n", num(prev, "out_port"),
			    cli_str(h, "type", "?"), cli_str(h, "node", "?"), num(h, "lid"), num(h, "in_port"));
		prev = h;
	}
	if (num(res, "exit_code") == 0) {
		endpoint_line("To", json_object_get(res, "dst"));
		return;
	}
	if (prev == NULL) {
		printf("route failed: %s\n", cli_str(res, "message", "?"));
		return;
	}
	printf("route stops at %s \"%s\" lid %lld: %s", cli_str(prev, "type", "?"),
	    cli_str(prev, "node", "?"), num(prev, "lid"), cli_str(res, "message", "?"));
	if (json_is_integer(json_object_get(prev, "out_port")))
		printf(" (port %lld)", num(prev, "out_port"));
	printf(" towards lid %lld\n", num(json_object_get(res, "dst"), "lid"));
}

static void
topology_result(json_t *res)
{
	fputs(cli_str(res, "text", "?"), stdout);
}

static void
cable_line(const char *what, json_t *c)
{
	printf("%-8s %s <-> %s\n", what, cli_str(c, "a", "?"), cli_str(c, "b", "?"));
}

/* Each difference on one line, both ends named; then the counts. */
static void
topology_diff_result(json_t *res)
{
	json_t *c, *s;
	size_t i;

	json_array_foreach(json_object_get(res, "missing"), i, c)
		cable_line("missing", c);
	json_array_foreach(json_object_get(res, "extra"), i, c)
		cable_line("extra", c);
	json_array_foreach(json_object_get(res, "swapped"), i, s) {
		json_t *p = json_object_get(s, "plan"), *l = json_object_get(s, "live");
		printf("swapped  planned %s <-> %s and %s <-> %s\n", cli_str(json_array_get(p, 0), "a", "?"),
		    cli_str(json_array_get(p, 0), "b", "?"), cli_str(json_array_get(p, 1), "a", "?"),
		    cli_str(json_array_get(p, 1), "b", "?"));
		printf("         found   %s <-> %s and %s <-> %s\n", cli_str(json_array_get(l, 0), "a", "?"),
		    cli_str(json_array_get(l, 0), "b", "?"), cli_str(json_array_get(l, 1), "a", "?"),
		    cli_str(json_array_get(l, 1), "b", "?"));
	}
	printf("%s plan (%s): %lld cables planned, %lld found, %lld as planned; "
	    "%zu missing, %zu extra, %zu swapped pairs\n", cli_str(res, "plan", "?"),
	    cli_str(res, "format", "?"), num(res, "plan_cables"), num(res, "live_cables"),
	    num(res, "matching"), json_array_size(json_object_get(res, "missing")),
	    json_array_size(json_object_get(res, "extra")),
	    json_array_size(json_object_get(res, "swapped")));
}

/* Levels as "L0->L1": from the leaves (0) up, and back down. */
static void
routing_result(json_t *res)
{
	json_t *rows = json_object_get(res, "levels"), *r;
	size_t i;

	printf("engine %s (configured %s): %s\n", cli_str(res, "engine", "?"),
	    cli_str(res, "configured", "?"), cli_str(res, "reason", ""));
	printf("CA pairs routed %lld, failed %lld\n", num(res, "pairs"), num(res, "failed"));
	printf("%-10s %8s %10s %12s %10s\n", "links", "count", "min", "mean", "max");
	json_array_foreach(rows, i, r) {
		char lv[24];
		snprintf(lv, sizeof(lv), "L%lld->L%lld", num(r, "level"), num(r, "peer_level"));
		printf("%-10s %8lld %10lld %12.1f %10lld\n", lv, num(r, "links"), num(r, "min"),
		    json_real_value(json_object_get(r, "mean")), num(r, "max"));
	}
	rows = json_object_get(res, "hottest");
	if (json_array_size(rows))
		printf("hottest:\n");
	json_array_foreach(rows, i, r)
		printf("  %s:%lld -> %s:%lld  %lld routes\n", cli_str(r, "node", "?"),
		    num(r, "port"), cli_str(r, "peer", "?"), num(r, "peer_port"), num(r, "routes"));
}

const struct cli_formatter fmt_sm[] = {
	{ "routing", routing_result, NULL },
	{ "route", route_result, NULL },
	{ "topology", topology_result, NULL },
	{ "topology.diff", topology_diff_result, NULL },
	{ NULL, NULL, NULL }
};
