/* Human output for the partition commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"

/* A change's answer: the per-port diff of a --dry-run, or what happened. */
static void
change_result(json_t *r)
{
	json_t *port, *block, *ch, *m;
	size_t i, j, k;

	if (!json_is_true(json_object_get(r, "dry_run"))) {
		if (json_object_get(r, "message"))
			printf("%s\n", cli_str(r, "message", ""));
		else
			printf("%s: %lld port(s) written with %lld PartitionTable Set(s), read back\n",
			    cli_str(r, "result", ""), json_integer_value(json_object_get(r, "ports_written")),
			    json_integer_value(json_object_get(r, "sets")));
		return;
	}
	if (json_object_get(r, "note")) {
		printf("dry run: %s\n", cli_str(r, "note", ""));
		return;
	}
	m = json_object_get(r, "matched");
	printf("dry run: matches %lld host%s%s%s and %lld switch port%s; %lld block(s) would be written\n",
	    json_integer_value(json_object_get(m, "hosts")),
	    json_integer_value(json_object_get(m, "hosts")) == 1 ? "" : "s",
	    *cli_str(m, "host_names", "") ? " " : "", cli_str(m, "host_names", ""),
	    json_integer_value(json_object_get(m, "switch_ports")),
	    json_integer_value(json_object_get(m, "switch_ports")) == 1 ? "" : "s",
	    json_integer_value(json_object_get(r, "blocks")));
	json_array_foreach(json_object_get(r, "ports"), i, port) {
		printf("%s%s (%s)\n", cli_str(port, "port", ""),
		    json_is_true(json_object_get(port, "switch_port")) ? " [switch]" : "",
		    cli_str(port, "guid", ""));
		json_array_foreach(json_object_get(port, "blocks"), j, block)
			json_array_foreach(json_object_get(block, "changes"), k, ch)
				printf("  index %3lld: %s -> %s\n",
				    json_integer_value(json_object_get(ch, "index")),
				    cli_str(ch, "from", ""), cli_str(ch, "to", ""));
	}
}

static void
show_result(json_t *r)
{
	static const char *const member_cols[] = { "member", "membership", NULL };
	static const char *const port_cols[] = { "port", "guid", "index", "membership",
	    "switch_port", NULL };

	json_t *idx = json_object_get(r, "index");

	printf("partition %s (tenant %s): P_Key %s", cli_str(r, "name", ""), cli_str(r, "tenant", ""),
	    cli_str(r, "pkey", ""));
	if (json_is_integer(idx))
		printf(" at index %lld\n", json_integer_value(idx));
	else
		printf(", on no port yet\n");
	printf("\nmembers:\n");
	if (json_is_true(json_object_get(r, "default")))
		printf("every port: the SM's full, the others %s (partitions.default_membership)\n",
		    cli_str(r, "others", "limited"));
	else
		cli_print_table(stdout, json_object_get(r, "members"), member_cols);
	printf("\nports holding the key:\n");
	cli_print_table(stdout, json_object_get(r, "ports"), port_cols);
}

/* A message's lines, the first in the MESSAGE column and the rest under
 * it: a rejection of a file lists one error a line. */
static void
print_message(const char *msg, int col)
{
	const char *nl;

	while ((nl = strchr(msg, '\n')) != NULL) {
		printf("%.*s\n%*s", (int)(nl - msg), msg, col, "");
		msg = nl + 1;
	}
	printf("%s\n", msg);
}

/* An argument as the operator gave it: a file by its name, not as the
 * descriptor it travelled as ({"fd": 0, "name": "..."}). */
static void
print_arg(const char *k, json_t *v)
{
	json_t *name = json_object_get(v, "name");
	char *text;

	if (json_is_string(v) || (json_is_object(v) && json_is_string(name))) {
		printf(" %s=%s", k, json_string_value(json_is_string(v) ? v : name));
		return;
	}
	text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	printf(" %s=%s", k, text ? text : "?");
	free(text);
}

/* One line a change: when, who (a uid, or fabricd itself), what, how it
 * ended and why; the request's arguments below it, key=value. */
static void
history_result(json_t *rows)
{
	json_t *row, *v;
	const char *k;
	size_t i;
	char t[32], who[24];

	if (json_array_size(rows) == 0) {
		printf("no partition changes\n");
		return;
	}
	printf("%-25s  %-10s %-14s %-9s %s\n", "TIME", "BY", "ACTION", "RESULT", "MESSAGE");
	json_array_foreach(rows, i, row) {
		json_t *uid = json_object_get(row, "uid"), *detail = json_object_get(row, "detail");

		if (json_is_integer(uid))
			snprintf(who, sizeof(who), "uid %lld", (long long)json_integer_value(uid));
		else
			snprintf(who, sizeof(who), "fabricd");
		printf("%-25s  %-10s %-14s %-9s ",
		    cli_time_text(json_integer_value(json_object_get(row, "time_ms")), t, sizeof(t)),
		    who, cli_str(row, "action", ""), cli_str(row, "result", ""));
		print_message(cli_str(row, "message", ""), 63);
		if (json_is_object(detail) && json_object_size(detail) > 0) {
			printf("%27s", "");
			json_object_foreach(detail, k, v)
				print_arg(k, v);
			putchar('\n');
		} else if (json_is_string(detail) && *json_string_value(detail)) {
			printf("%27s %s\n", "", json_string_value(detail));
		}
	}
}

/* `partition list`: PORTS are the members' ports holding the key, SWITCH
 * PORTS the switch ports that enforce it (show lists both). */
static void
list_result(json_t *rows)
{
	json_t *row, *idx;
	size_t i;

	if (json_array_size(rows) == 0) {
		printf("no partitions\n");
		return;
	}
	printf("%-16s %-12s %-7s %-6s %8s %6s %13s\n", "NAME", "TENANT", "P_KEY", "INDEX",
	    "MEMBERS", "PORTS", "SWITCH PORTS");
	json_array_foreach(rows, i, row) {
		char index[12], members[24];

		idx = json_object_get(row, "index");
		if (json_is_integer(idx))
			snprintf(index, sizeof(index), "%lld", (long long)json_integer_value(idx));
		else
			snprintf(index, sizeof(index), "-");
		/* the default partition's members are every port */
		if (json_is_true(json_object_get(row, "default")))
			snprintf(members, sizeof(members), "all");
		else
			snprintf(members, sizeof(members), "%lld",
			    (long long)json_integer_value(json_object_get(row, "members")));
		printf("%-16s %-12s %-7s %-6s %8s %6lld %13lld\n", cli_str(row, "name", ""),
		    cli_str(row, "tenant", ""), cli_str(row, "pkey", ""), index, members,
		    (long long)json_integer_value(json_object_get(row, "ports")),
		    (long long)json_integer_value(json_object_get(row, "switch_ports")));
	}
	if (json_array_size(rows) > 0 && json_is_true(json_object_get(json_array_get(rows, 0),
	    "default")))
		printf("(default: the SM's port full, the others %s: partitions.default_membership)\n",
		    cli_str(json_array_get(rows, 0), "others", "limited"));
}

static void
nccl_result(json_t *r)
{
	printf("%s\n", cli_str(r, "env", ""));
}

static void
export_result(json_t *r)
{
	fputs(cli_str(r, "yaml", ""), stdout);
}

/* A job partition made, found made, or deleted. */
static void
job_change_result(json_t *r)
{
	const char *result = cli_str(r, "result", "");
	json_t *idx = json_object_get(r, "index");

	if (strcmp(result, "absent") == 0) {
		printf("job %s: %s\n", cli_str(r, "job", ""), cli_str(r, "message", ""));
		return;
	}
	printf("job %s: partition %s, P_Key %s", cli_str(r, "job", ""), cli_str(r, "partition", "-"),
	    cli_str(r, "pkey", "-"));
	if (json_is_integer(idx))
		printf(" at index %lld", (long long)json_integer_value(idx));
	if (strcmp(result, "exists") == 0)
		printf(": made before, on the same hosts\n");
	else if (json_object_get(r, "ports_written"))
		printf(": %lld port(s) written with %lld PartitionTable Set(s), read back\n",
		    (long long)json_integer_value(json_object_get(r, "ports_written")),
		    (long long)json_integer_value(json_object_get(r, "sets")));
	else
		printf(": %s\n", cli_str(r, "message", result));
}

static void
job_list_result(json_t *r)
{
	json_t *rows = json_object_get(r, "jobs"), *rc = json_object_get(r, "reconcile"), *row;
	char age[32], when[40];
	size_t i;

	if (json_array_size(rows) == 0)
		printf("no job partitions\n");
	else
		printf("%-10s %-14s %-7s %-5s %-10s %-10s %-8s %s\n", "JOB", "PARTITION", "P_KEY",
		    "INDEX", "USER", "ACCOUNT", "AGE", "HOSTS");
	json_array_foreach(rows, i, row) {
		json_t *idx = json_object_get(row, "index");
		char index[12] = "-";

		if (json_is_integer(idx))
			snprintf(index, sizeof(index), "%lld", (long long)json_integer_value(idx));
		printf("%-10s %-14s %-7s %-5s %-10s %-10s %-8s %s\n", cli_str(row, "job", ""),
		    cli_str(row, "partition", ""), cli_str(row, "pkey", ""), index,
		    *cli_str(row, "user", "") ? cli_str(row, "user", "") : "-",
		    *cli_str(row, "account", "") ? cli_str(row, "account", "") : "-",
		    cli_duration_text(json_integer_value(json_object_get(row, "age_s")) * 1000, age,
		    sizeof(age)), cli_str(row, "hosts", ""));
	}
	printf("reconcile: %s", cli_str(rc, "state", "off"));
	if (json_integer_value(json_object_get(rc, "interval_ms")) > 0)
		printf(", every %s", cli_duration_text(json_integer_value(json_object_get(rc,
		    "interval_ms")), age, sizeof(age)));
	if (json_is_integer(json_object_get(rc, "last_ok_ms")))
		printf(", last answer %s", cli_time_text(json_integer_value(json_object_get(rc,
		    "last_ok_ms")), when, sizeof(when)));
	if (json_object_get(rc, "error"))
		printf(", last error: %s", cli_str(rc, "error", ""));
	putchar('\n');
}

static void
job_env_result(json_t *r)
{
	const char *k;
	json_t *v;

	json_object_foreach(json_object_get(r, "env"), k, v)
		printf("export %s=%s\n", k, json_string_value(v) ? json_string_value(v) : "");
}

const struct cli_formatter fmt_partitions[] = {
	{ "partition.job.create", job_change_result, NULL },
	{ "partition.job.delete", job_change_result, NULL },
	{ "partition.job.list", job_list_result, NULL },
	{ "partition.job.env", job_env_result, NULL },
	{ "partition.list", list_result, NULL },
	{ "partition.show", show_result, NULL },
	{ "partition.create", change_result, NULL },
	{ "partition.delete", change_result, NULL },
	{ "partition.member.add", change_result, NULL },
	{ "partition.member.remove", change_result, NULL },
	{ "partition.import", change_result, NULL },
	{ "partition.history", history_result, NULL },
	{ "partition.nccl-env", nccl_result, NULL },
	{ "partition.export", export_result, NULL },
	{ NULL, NULL, NULL }
};
