/* Human output for the health commands. */
#include <stdio.h>

#include "cli/fabricctl.h"

static void
health_result(json_t *res)
{
	json_t *last = json_object_get(res, "last_round");
	json_t *events = json_object_get(res, "events"), *ports = json_object_get(res, "worst_ports");

	printf("health: %s, %lld ports, %lld RoCE ports, %lld rounds every %.1f s; "
	    "last round %lld MADs over %lld ports in %.2f s\n",
	    json_string_value(json_object_get(res, "state")),
	    (long long)json_integer_value(json_object_get(res, "ports")),
	    (long long)json_integer_value(json_object_get(res, "roce_ports")),
	    (long long)json_integer_value(json_object_get(res, "rounds")),
	    json_integer_value(json_object_get(res, "interval_ms")) / 1000.0,
	    (long long)json_integer_value(json_object_get(last, "mads")),
	    (long long)json_integer_value(json_object_get(last, "ports")),
	    json_number_value(json_object_get(last, "seconds")));
	if (json_array_size(ports)) {
		printf("\nworst ports:\n");
		cli_print_table(stdout, ports, (const char *const[]){ "port", "status",
		    "errors_per_min", "events", "node_guid", NULL });
	}
	printf("\n");
	if (json_array_size(events) == 0) {
		printf("no active health events\n");
		return;
	}
	printf("active events:\n");
	cli_print_table(stdout, events, (const char *const[]){ "severity", "object", "check",
	    "detail", NULL });
}

static void
health_port_result(json_t *res)
{
	json_t *counters = json_object_get(res, "counters"), *c, *hist, *row;
	const char *name;
	char when[32];
	size_t i;

	printf("%s  guid %s  lid %lld  state %lld  status %s\n",
	    json_string_value(json_object_get(res, "object")),
	    json_string_value(json_object_get(res, "node_guid")),
	    (long long)json_integer_value(json_object_get(res, "lid")),
	    (long long)json_integer_value(json_object_get(res, "state")),
	    json_string_value(json_object_get(res, "status")));
	printf("\n%-30s %20s %20s %12s\n", "counter", "reading", "total", "per second");
	json_object_foreach(counters, name, c)
		printf("%-30s %20lld %20lld %12.2f\n", name,
		    (long long)json_integer_value(json_object_get(c, "reading")),
		    (long long)json_integer_value(json_object_get(c, "total")),
		    json_number_value(json_object_get(c, "rate_per_s")));
	if (json_array_size(json_object_get(res, "events"))) {
		printf("\nactive events:\n");
		cli_print_table(stdout, json_object_get(res, "events"),
		    (const char *const[]){ "severity", "check", "detail", NULL });
	}
	hist = json_object_get(res, "history");
	if (json_array_size(hist) == 0)
		return;
	printf("\n%-19s %8s %12s %12s %12s %16s %16s\n", "end", "span_s", "symbol_err",
	    "rcv_err", "xmit_disc", "xmit_words", "rcv_words");
	json_array_foreach(hist, i, row)
		printf("%-19s %8lld %12lld %12lld %12lld %16lld %16lld\n",
		    cli_time_text(json_integer_value(json_object_get(row, "t_ms")), when, sizeof(when)),
		    (long long)json_integer_value(json_object_get(row, "span_ms")) / 1000,
		    (long long)json_integer_value(json_object_get(row, "symbol_errors")),
		    (long long)json_integer_value(json_object_get(row, "rcv_errors")),
		    (long long)json_integer_value(json_object_get(row, "xmit_discards")),
		    (long long)json_integer_value(json_object_get(row, "xmit_data_words")),
		    (long long)json_integer_value(json_object_get(row, "rcv_data_words")));
}

/* The exposition text as is, so that `fabricctl metrics` can be scraped. */
static void
metrics_stream(json_t *item)
{
	fputs(json_string_value(json_object_get(item, "text")) ?: "", stdout);
}

static void
metrics_result(json_t *res)
{
	(void)res;
	fflush(stdout);
}

const struct cli_formatter fmt_health[] = {
	{ "health", health_result, NULL },
	{ "health.port", health_port_result, NULL },
	{ "metrics", metrics_result, metrics_stream },
	{ NULL, NULL, NULL }
};
