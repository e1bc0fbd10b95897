/* Human output for the daemon's own commands: status and events. */
#include <stdio.h>

#include "cli/fabricctl.h"

static void
print_event(json_t *ev)
{
	char when[32];

	printf("%s  %-8s %-10s %-24s %s\n",
	    cli_time_text(json_integer_value(json_object_get(ev, "time_ms")), when, sizeof(when)),
	    json_string_value(json_object_get(ev, "severity")),
	    json_string_value(json_object_get(ev, "source")),
	    json_is_string(json_object_get(ev, "object")) ?
	    json_string_value(json_object_get(ev, "object")) : "-",
	    json_string_value(json_object_get(ev, "message")));
	fflush(stdout);
}

static void
events_result(json_t *res)
{
	json_t *evs = json_object_get(res, "events"), *ev;
	size_t i;

	json_array_foreach(evs, i, ev)
		print_event(ev);
	if (json_array_size(evs) == 0 && !json_object_get(res, "end"))
		printf("no events\n");
}

static long long
num(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static void
control_line(json_t *c)
{
	if (c == NULL)
		return;
	printf("control: %lld connections (%lld admin, %lld read, %lld without access) of %lld, "
	    "%lld per user; idle timeout %llds\n", num(c, "connections"), num(c, "admin"),
	    num(c, "read"), num(c, "no_access"), num(c, "max_connections"),
	    num(c, "max_connections_per_user"), num(c, "idle_timeout_ms") / 1000);
	printf("control: %lld refused, %lld closed idle, %lld dropped for not reading\n",
	    num(c, "refused_total"), num(c, "idle_closed_total"), num(c, "slow_dropped_total"));
}

static void
status_result(json_t *res)
{
	json_t *mods = json_object_get(res, "modules"), *m;
	char buf[64];
	size_t i;
	long long up = json_integer_value(json_object_get(res, "uptime_s"));

	printf("fabricd %s, protocol %lld, pid %lld, up %lldd %02lld:%02lld:%02lld\n",
	    json_string_value(json_object_get(res, "version")),
	    (long long)json_integer_value(json_object_get(res, "protocol")),
	    (long long)json_integer_value(json_object_get(res, "pid")),
	    up / 86400, up / 3600 % 24, up / 60 % 60, up % 60);
	printf("config %s, state %s\n", json_string_value(json_object_get(res, "config")),
	    json_string_value(json_object_get(res, "state_dir")));
	control_line(json_object_get(res, "control"));
	putchar('\n');
	cli_print_table(stdout, mods, (const char *const[]){ "name", "state", NULL });
	json_array_foreach(mods, i, m) {
		json_t *detail = json_object_get(res, json_string_value(json_object_get(m, "name")));
		/* a launcher that is not there is not shown as if it were */
		if (json_is_false(json_object_get(detail, "launcher_found"))) {
			char txt[96];
			snprintf(txt, sizeof(txt), "%s (not found)", cli_str(detail, "launcher", "?"));
			json_object_set_new(detail, "launcher", json_string(txt));
		}
		if (json_object_size(detail) > 1) {
			printf("\n%s:\n", cli_scalar_text(json_object_get(m, "name"), buf, sizeof(buf)));
			cli_print_generic(stdout, detail, 2);
		}
	}
}

const struct cli_formatter fmt_core[] = {
	{ "status", status_result, NULL },
	{ "events", events_result, print_event },
	{ NULL, NULL, NULL }
};
