/* Table-driven command-line parsing (see parser.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parser.h"
#include "common/spec.h"

/*
 * A comma-separated list, split only at commas outside brackets, so that a
 * Slurm hostlist (gpu[001-064,070]) stays one item for the daemon to
 * expand; spaces around items are dropped ("a1, a2").
 */
static json_t *
list_value(const char *val)
{
	json_t *a = json_array();
	const char *p = val;

	while (*p) {
		const char *q = p;
		size_t len;
		int depth = 0;

		for (; *q && (depth > 0 || *q != ','); q++)
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
		while (p < q && isspace((unsigned char)*p))
			p++;
		len = (size_t)(q - p);
		while (len > 0 && isspace((unsigned char)p[len - 1]))
			len--;
		if (len > 0)
			json_array_append_new(a, json_stringn(p, len));
		p = *q ? q + 1 : q;
	}
	return a;
}

static json_t *
typed_value(const struct spec_arg *a, const char *val)
{
	if (a->type == SPEC_INT) {
		char *end;
		long long v;
		errno = 0;
		v = strtoll(val, &end, 0);
		char why[160];
		if (errno || *val == '\0' || *end != '\0') {
			fprintf(stderr, "fabricctl: %s expects a number, not \"%s\"\n", a->word, val);
			return NULL;
		}
		if (spec_check_range(a, v, why, sizeof(why)) != 0) {
			fprintf(stderr, "fabricctl: %s: %s\n", a->word, why);
			return NULL;
		}
		return json_integer(v);
	}
	if (a->type == SPEC_LIST)
		return list_value(val);
	/* SPEC_FILE stays a path here: fabricctl opens it (open_files) */
	return json_string(val);
}

static const struct spec_arg *
find_option(const struct spec *sp, const char *name, size_t nlen)
{
	for (size_t s = 0; s < sp->n; s++) {
		const struct spec_arg *a = &sp->arg[s];
		if (a->option && strlen(a->word) == nlen + 2 && strncmp(a->word + 2, name, nlen) == 0)
			return a;
	}
	return NULL;
}

/* Apply one "--name[=value]" against the spec's options. */
static int
parse_option(const struct cli_command *c, const struct spec *sp, int argc, char **argv,
    int *i, json_t *args)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct spec_arg *a = find_option(sp, arg, nlen);
	json_t *v;

	if (a == NULL) {
		fprintf(stderr, "fabricctl: unknown option --%.*s for \"%s\"\n", (int)nlen, arg,
		    c->words);
		return -1;
	}
	if (a->type == SPEC_FLAG) {
		if (eq) {
			fprintf(stderr, "fabricctl: %s takes no value\n", a->word);
			return -1;
		}
		json_object_set_new(args, a->key, json_true());
		return 0;
	}
	if (eq == NULL && *i + 1 >= argc) {
		fprintf(stderr, "fabricctl: %s needs a value\n", a->word);
		return -1;
	}
	if ((v = typed_value(a, eq ? eq + 1 : argv[++*i])) == NULL)
		return -1;
	json_object_set_new(args, a->key, v);
	return 0;
}

/*
 * --tenant once named the partition a job uses in validate, nccl-env and
 * preflight, while partition create --tenant takes a tenant.  Where a
 * command has --partition, --tenant is its alias for one release.
 */
static void
tenant_alias(const struct cli_command *c, json_t *args)
{
	json_t *t = json_object_get(args, "tenant");

	if (t == NULL || strstr(c->spec, "--partition=") == NULL)
		return;
	fprintf(stderr, "fabricctl: warning: --tenant is deprecated for \"%s\", use --partition\n",
	    c->words);
	if (json_object_get(args, "partition") == NULL)
		json_object_set(args, "partition", t);
	json_object_del(args, "tenant");
}

static int
parse_args(const struct cli_command *c, int argc, char **argv, json_t *args)
{
	struct spec sp;
	size_t pos = 0;

	if (spec_parse(c->spec, &sp) != 0) {
		fprintf(stderr, "fabricctl: bad argument spec for \"%s\"\n", c->words);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		const struct spec_arg *a;

		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_usage_one(stdout, c);
			exit(0);
		}
		if (strncmp(argv[i], "--", 2) == 0 && argv[i][2]) {
			if (parse_option(c, &sp, argc, argv, &i, args) != 0)
				return -1;
			continue;
		}
		/* next positional slot in the spec */
		while (pos < sp.n && sp.arg[pos].option)
			pos++;
		if (pos >= sp.n) {
			fprintf(stderr, "fabricctl: unexpected argument \"%s\"\n", argv[i]);
			return -1;
		}
		a = &sp.arg[pos];
		if (a->type == SPEC_REST) {
			json_t *rest = json_object_get(args, a->key);
			if (rest == NULL)
				json_object_set_new(args, a->key, rest = json_array());
			json_array_append_new(rest, json_string(argv[i]));
		} else {
			json_object_set_new(args, a->key, json_string(argv[i]));
			pos++;
		}
	}
	tenant_alias(c, args);
	for (size_t s = 0; s < sp.n; s++) {
		if (sp.arg[s].required && json_object_get(args, sp.arg[s].key) == NULL) {
			fprintf(stderr, "fabricctl: missing %s\n", sp.arg[s].word);
			return -1;
		}
	}
	return 0;
}

const struct cli_command *
cli_parse(int argc, char **argv, json_t **args)
{
	int used;
	const struct cli_command *c = cli_resolve(argc, argv, &used);

	if (c == NULL)
		return NULL;
	*args = json_object();
	if (parse_args(c, argc - used, argv + used, *args) != 0) {
		cli_usage_one(stderr, c);
		json_decref(*args);
		*args = NULL;
		return NULL;
	}
	return c;
}
