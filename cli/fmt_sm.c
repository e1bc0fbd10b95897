/*
 * Human output for the sm commands (the rest use the generic printer).
 *   route     one line per hop, as ibtracert prints a path
 *   topology  the text itself, so that it can be redirected to a file
 *   routing   the engine, a table of levels, the hottest links
 *   qos.show  the policy in a line a class, then a few lines a port: its
 *             VLs, its SL-to-VL table and arbitration tables written out
 *             (runs of one entry counted), a switch port's tables by in port
 *             grouped where they agree; a table the SM has not read says
 *             so, and why
 *   mcast     a table of groups (MTU, rate and Q_Key decoded); of one
 *             group its members and its tree, switch by switch
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Which tables the walk went over: read live, or a copy this old. */
static void
tables_line(json_t *res)
{
	const char *t = cli_str(res, "tables", NULL);

	if (t == NULL || strcmp(t, "programmed") == 0)
		return;
	if (strcmp(t, "copy") == 0)
		printf("(over the view's copy of the tables, read %lld s ago)\n",
		    num(res, "tables_age_ms") / 1000);
	else
		printf("(over the tables read %s from the switches)\n", t);
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
		tables_line(res);
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
	tables_line(res);
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
	if (json_object_get(res, "balance")) {
		json_t *b = json_object_get(res, "balance");
		long long h = num(b, "hottest_routes"), bd = num(b, "bound_routes");

		printf("balance: hottest link %lld routes, at least %lld on any routing (%.2fx)%s\n",
		    h, bd, bd ? (double)h / (double)bd : 0.0,
		    bd && h * 10 > bd * 11 ? "; `routing rebalance` would restore it" : "");
	}
	if (json_object_get(res, "rebalance_window"))
		printf("rebalance window %s: one rebalance in each, while the hottest link is "
		    "above the bound\n", cli_str(res, "rebalance_window", ""));
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

static void
mcast_group_line(json_t *g)
{
	printf("%-40s %-6s %-6s %-10s %5lld %-9s %2lld %7zu\n", cli_str(g, "mgid", "?"),
	    cli_str(g, "mlid_hex", "?"), cli_str(g, "pkey", "?"), cli_str(g, "qkey_hex", "?"),
	    num(g, "mtu_bytes"), cli_str(g, "rate_text", "?"), num(g, "sl"),
	    json_array_size(json_object_get(g, "members")));
}

static void
mcast_header(void)
{
	printf("%-40s %-6s %-6s %-10s %5s %-9s %2s %7s\n", "MGID", "MLID", "P_KEY", "Q_KEY",
	    "MTU", "RATE", "SL", "MEMBERS");
}

static void
mcast_result(json_t *res)
{
	json_t *groups = json_object_get(res, "groups"), *g, *m, *t, *p;
	size_t i, j;

	if (groups == NULL) {		/* one group: its members and tree */
		mcast_header();
		mcast_group_line(res);
		printf("\n%-24s %5s %6s %-18s %s\n", "MEMBER", "PORT", "LID", "PORT GUID", "JOIN");
		json_array_foreach(json_object_get(res, "members"), i, m)
			printf("%-24s %5lld %6lld %-18s %s%s\n", cli_str(m, "node", "?"),
			    num(m, "port"), num(m, "lid"), cli_str(m, "port_guid", "?"),
			    cli_str(m, "join_text", "?"),
			    json_is_true(json_object_get(m, "proxy")) ? " (proxy)" : "");
		printf("\ntree:\n");
		json_array_foreach(json_object_get(res, "tree"), i, t) {
			printf("  %s lid %lld ports", cli_str(t, "switch", "?"), num(t, "lid"));
			json_array_foreach(json_object_get(t, "ports"), j, p)
				printf("%s%lld", j ? "," : " ", (long long)json_integer_value(p));
			putchar('\n');
		}
		return;
	}
	if (json_array_size(groups) == 0)
		printf("no multicast groups\n");
	else
		mcast_header();
	json_array_foreach(groups, i, g)
		mcast_group_line(g);
	printf("%lld created, %lld deleted, %lld MFT blocks written, %lld verify mismatches\n",
	    num(res, "created"), num(res, "deleted"), num(res, "mft_blocks_written"),
	    num(res, "mft_verify_mismatches"));
}

/* "not read: WHY" for table key of o, which is not an array (a daemon
 * before issue 42 gave no reason). */
static void
not_read_text(json_t *o, const char *key, char *buf, size_t len)
{
	const char *why = json_string_value(json_object_get(json_object_get(o, "not_read"), key));

	snprintf(buf, len, "not read%s%s", why ? ": " : "", why ? why : "");
}

/* "0 1 2 ... 7" for 16 VLs, or "not read: WHY" */
static void
sl2vl_text(json_t *o, char *buf, size_t len)
{
	json_t *t = json_object_get(o, "sl2vl"), *v;
	size_t i, n = 0;

	if (!json_is_array(t)) {
		not_read_text(o, "sl2vl", buf, len);
		return;
	}
	buf[0] = '\0';
	json_array_foreach(t, i, v)
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? " " : "",
			    (long long)json_integer_value(v));
}

/* VLArb entries [vl, weight] of table key of port p as "VL0:32 VL1:16",
 * a run of one entry as "VL0:0 x7", an empty table "none", one not read
 * "not read: WHY". */
static void
vlarb_line(const char *name, json_t *p, const char *key)
{
	json_t *t = json_object_get(p, key);
	size_t i = 0, n = json_array_size(t);
	char text[256];

	printf("  %-12s", name);
	if (!json_is_array(t)) {
		not_read_text(p, key, text, sizeof(text));
		printf(" %s\n", text);
		return;
	}
	if (n == 0)
		printf(" none");
	while (i < n) {
		json_t *e = json_array_get(t, i);
		size_t run = 1;

		while (i + run < n && json_equal(json_array_get(t, i + run), e))
			run++;
		printf(" VL%lld:%lld", (long long)json_integer_value(json_array_get(e, 0)),
		    (long long)json_integer_value(json_array_get(e, 1)));
		if (run > 1)
			printf(" x%zu", run);
		i += run;
	}
	putchar('\n');
}

/* A switch port's SL2VL tables by in port: in ports whose tables agree
 * on one line ("in 0-3,7: 0 1 2 ..."). */
static void
sl2vl_by_in(json_t *rows)
{
	size_t n = json_array_size(rows);
	bool *done = calloc(n + 1, sizeof(*done));

	if (done == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array_get(rows, i), *t = json_object_get(row, "sl2vl");
		char text[256];
		long long prev = -2, start = -2;

		if (done[i])
			continue;
		printf("  %-12s in", i == 0 ? "SL2VL by in" : "");
		for (size_t j = i; j < n; j++) {
			json_t *r = json_array_get(rows, j);
			long long in = (long long)json_integer_value(json_object_get(r, "in"));

			if (done[j] || !json_equal(json_object_get(r, "sl2vl"), t))
				continue;
			done[j] = true;
			if (in == prev + 1) {		/* the run goes on */
				prev = in;
				continue;
			}
			if (start >= 0 && prev > start)
				printf("-%lld", prev);
			printf("%s %lld", start >= 0 ? "," : "", in);
			start = prev = in;
		}
		if (start >= 0 && prev > start)
			printf("-%lld", prev);
		sl2vl_text(row, text, sizeof(text));
		printf(": %s\n", text);
	}
	free(done);
}

static void
qos_show_result(json_t *res)
{
	json_t *pol = json_object_get(res, "policy"), *c, *p, *d;
	size_t i, j;
	char text[256];

	printf("policy: %s, %s, VL high limit %lld\n",
	    json_is_true(json_object_get(pol, "enabled")) ? "enabled" : "disabled",
	    json_is_true(json_object_get(pol, "defaults")) ? "the defaults (no classes)" : "classes",
	    num(pol, "high_limit"));
	json_array_foreach(json_object_get(pol, "classes"), i, c)
		printf("  %-16s SL %lld -> VL %lld, share %lld%%, %s priority\n", cli_str(c, "name", "?"),
		    num(c, "sl"), num(c, "vl"), num(c, "share"), cli_str(c, "priority", "?"));
	json_array_foreach(json_object_get(res, "ports"), i, p) {
		printf("\n%s:%lld (%s)  VLs %s of %s, high limit %lld, differs from the policy:",
		    cli_str(p, "node", "?"), num(p, "port"), cli_str(p, "node_guid", "?"),
		    cli_str(p, "op_vls", "?"), cli_str(p, "vl_cap", "?"), num(p, "vl_high_limit"));
		if (json_array_size(json_object_get(p, "differs")) == 0)
			printf(" no");
		json_array_foreach(json_object_get(p, "differs"), j, d)
			printf("%s %s", j ? "," : "", json_string_value(d) ? json_string_value(d) : "?");
		if (num(p, "unread") > 0)	/* neither the policy's nor known to differ */
			printf(" (%lld of its tables not read)", num(p, "unread"));
		putchar('\n');
		if (json_object_get(p, "sl2vl_by_in")) {
			sl2vl_by_in(json_object_get(p, "sl2vl_by_in"));
		} else {
			sl2vl_text(p, text, sizeof(text));
			printf("  %-12s %s\n", "SL2VL", text);
		}
		vlarb_line("VLArb high", p, "vlarb_high");
		vlarb_line("VLArb low", p, "vlarb_low");
	}
}

const struct cli_formatter fmt_sm[] = {
	{ "qos.show", qos_show_result, NULL },
	{ "mcast", mcast_result, NULL },
	{ "routing", routing_result, NULL },
	{ "route", route_result, NULL },
	{ "topology", topology_result, NULL },
	{ "topology.diff", topology_diff_result, NULL },
	{ NULL, NULL, NULL }
};
