/* Human output for the roce_qos commands. */
#include <stdio.h>

#include "cli/fabricctl.h"

/* plan and apply: one line per difference, per interface. */
static void
diffs_result(json_t *res)
{
	json_t *ifs = json_object_get(res, "interfaces"), *it, *d;
	size_t i, j;

	printf("profile %s", cli_str(res, "profile", "-"));
	/* plan and --dry-run: say first what they matched */
	if (json_object_get(res, "writes_needed")) {
		printf(": matches %zu interface%s", json_array_size(ifs), json_array_size(ifs) == 1 ? "" : "s");
		json_array_foreach(ifs, i, it)
			printf("%s%s", i ? ", " : " ", cli_str(it, "interface", "-"));
		printf("; %lld write%s needed", json_integer_value(json_object_get(res, "writes_needed")),
		    json_integer_value(json_object_get(res, "writes_needed")) == 1 ? "" : "s");
	}
	putchar('\n');
	json_array_foreach(ifs, i, it) {
		json_t *w = json_object_get(it, "writes");
		json_t *diffs = json_object_get(it, "differences");

		if (w == NULL)
			w = json_object_get(it, "writes_needed");
		printf("%s: %zu difference%s, %lld write%s%s\n", cli_str(it, "interface", "-"),
		    json_array_size(diffs), json_array_size(diffs) == 1 ? "" : "s",
		    json_integer_value(w), json_integer_value(w) == 1 ? "" : "s",
		    json_object_get(res, "writes") ? "" : " needed");
		json_array_foreach(diffs, j, d)
			printf("  %-28s expected %-20s found %s\n", cli_str(d, "setting", "-"),
			    cli_str(d, "expected", "-"), cli_str(d, "found", "-"));
		if (json_object_get(it, "error"))
			printf("  error: %s\n", cli_str(it, "error", "-"));
	}
}

/* nccl-env: lines a shell can source. */
static void
nccl_result(json_t *res)
{
	static const char *const keys[] = { "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TC", NULL };
	json_t *w, *v;
	size_t i;
	char buf[256];

	for (int k = 0; keys[k]; k++)
		if ((v = json_object_get(res, keys[k])) != NULL)
			printf("export %s=%s\n", keys[k], cli_scalar_text(v, buf, sizeof(buf)));
	json_array_foreach(json_object_get(res, "warnings"), i, w)
		fprintf(stderr, "warning: %s\n", json_string_value(w));
}

static void
show_result(json_t *res)
{
	json_t *it;
	size_t i;

	json_array_foreach(json_object_get(res, "interfaces"), i, it) {
		printf("%s (%s port %lld)\n", cli_str(it, "interface", "-"), cli_str(it, "rdma_device", "-"),
		    json_integer_value(json_object_get(it, "port")));
		json_object_del(it, "interface");
		json_object_del(it, "rdma_device");
		json_object_del(it, "port");
		cli_print_generic(stdout, it, 1);
	}
}

const struct cli_formatter fmt_roce_qos[] = {
	{ "roce.plan", diffs_result, NULL },
	{ "roce.apply", diffs_result, NULL },
	{ "roce.nccl-env", nccl_result, NULL },
	{ "roce.show", show_result, NULL },
	{ NULL, NULL, NULL }
};
