/*
 * Human output for the sm commands (the rest use the generic printer).
 *   route     one line per hop, as ibtracert prints a path
 *   topology  the text itself, so that it can be redirected to a file
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

const struct cli_formatter fmt_sm[] = {
	{ "route", route_result, NULL },
	{ "topology", topology_result, NULL },
	{ NULL, NULL, NULL }
};
