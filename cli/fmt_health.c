/* Human output for the health commands. */
#include <stdio.h>

#include "cli/fabricctl.h"

static void
isolation_text(json_t *iso)
{
	json_t *p;
	size_t i;

	if (iso == NULL || !json_is_true(json_object_get(iso, "enabled")))
		return;
	printf("\nisolation%s: %zu of at most %lld ports routed around\n",
	    json_is_true(json_object_get(iso, "dry_run")) ? " (dry run)" : "",
	    json_array_size(json_object_get(iso, "isolated")),
	    (long long)json_integer_value(json_object_get(iso, "cap")));
	json_array_foreach(json_object_get(iso, "isolated"), i, p)
		printf("  %s%s\n", cli_str(p, "port", "-"),
		    json_is_true(json_object_get(p, "dry_run")) ? " (would be)" : "");
}

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
		json_t *p;
		size_t i;

		/* the rate is the last round's: a burst that raised an event
		 * reads 0 here a round later, while the event (below) says
		 * the rate it was raised at */
		printf("\nworst ports:\n%-24s %-9s %22s %6s  %s\n", "PORT", "STATUS",
		    "ERRORS/MIN LAST ROUND", "EVENTS", "NODE GUID");
		json_array_foreach(ports, i, p)
			printf("%-24s %-9s %22.1f %6lld  %s\n", cli_str(p, "port", ""),
			    cli_str(p, "status", ""),
			    json_number_value(json_object_get(p, "errors_per_min")),
			    (long long)json_integer_value(json_object_get(p, "events")),
			    cli_str(p, "node_guid", ""));
	}
	isolation_text(json_object_get(res, "isolation"));
	printf("\n");
	if (json_array_size(events) == 0) {
		printf("no active health events\n");
		return;
	}
	printf("active events:\n");
	cli_print_table(stdout, events, (const char *const[]){ "severity", "object", "check",
	    "detail", NULL });
	if (json_integer_value(json_object_get(res, "events_total")) > (json_int_t)json_array_size(events))
		printf("(the %zu worst of %lld; fabricctl ports --degraded lists the degraded ports)\n",
		    json_array_size(events),
		    (long long)json_integer_value(json_object_get(res, "events_total")));
}

/* The BER window: what it covers and what it was computed from. */
static void
port_ber_text(json_t *b)
{
	if (b == NULL)
		return;
	printf("\nBER %.3e over a %.0f s window (%.0f s covered): %lld symbol errors in %.4g "
	    "bits at %.4g Gb/s; warning above %.0e, critical above %.0e\n",
	    json_number_value(json_object_get(b, "ber")),
	    json_integer_value(json_object_get(b, "window_ms")) / 1000.0,
	    json_integer_value(json_object_get(b, "covered_ms")) / 1000.0,
	    (long long)json_integer_value(json_object_get(b, "symbol_errors")),
	    json_number_value(json_object_get(b, "bits")),
	    json_number_value(json_object_get(b, "line_gbps")),
	    json_number_value(json_object_get(b, "warning")),
	    json_number_value(json_object_get(b, "critical")));
}

/* Active events, each with the time it clears if nothing fails again. */
static void
port_events_text(json_t *events, json_int_t quiet_ms)
{
	json_t *e;
	char when[32];
	size_t i;

	if (json_array_size(events) == 0)
		return;
	printf("\nactive events (each clears after a quiet time of %lld s with no failure):\n",
	    (long long)quiet_ms / 1000);
	json_array_foreach(events, i, e)
		printf("  %-8s %-20s clears at %s  %s\n",
		    json_string_value(json_object_get(e, "severity")),
		    json_string_value(json_object_get(e, "check")),
		    cli_time_text(json_integer_value(json_object_get(e, "clears_at_ms")), when,
		    sizeof(when)), json_string_value(json_object_get(e, "detail")));
}

static void
health_port_result(json_t *res)
{
	json_t *counters = json_object_get(res, "counters"), *c, *hist, *row;
	const char *name;
	char when[32];
	size_t i;

	printf("%s  guid %s  lid %lld  state %s  status %s\n",
	    json_string_value(json_object_get(res, "object")),
	    json_string_value(json_object_get(res, "node_guid")),
	    (long long)json_integer_value(json_object_get(res, "lid")),
	    cli_str(res, "state_name", "?"), json_string_value(json_object_get(res, "status")));
	printf("\n%-30s %20s %20s %12s\n", "counter", "reading", "total", "per second");
	json_object_foreach(counters, name, c)
		printf("%-30s %20lld %20lld %12.2f\n", name,
		    (long long)json_integer_value(json_object_get(c, "reading")),
		    (long long)json_integer_value(json_object_get(c, "total")),
		    json_number_value(json_object_get(c, "rate_per_s")));
	port_ber_text(json_object_get(res, "ber"));
	port_events_text(json_object_get(res, "events"),
	    json_integer_value(json_object_get(res, "quiet_time_ms")));
	hist = json_object_get(res, "history");
	if (json_array_size(hist) == 0)
		return;
	printf("\n%-25s %8s %12s %12s %12s %16s %16s\n", "end", "span_s", "symbol_err",
	    "rcv_err", "xmit_disc", "xmit_words", "rcv_words");
	json_array_foreach(hist, i, row)
		printf("%-25s %8lld %12lld %12lld %12lld %16lld %16lld\n",
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
