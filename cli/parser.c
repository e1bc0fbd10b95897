/* Table-driven command-line parsing (see parser.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parser.h"

const struct cli_command cli_commands[] = {
#define CMD(ident, wire, access, words, spec, help) \
	{ wire, words, spec, help, sizeof(#access) == sizeof("ADMIN") },
#include "common/commands.def"
#undef CMD
};
const size_t cli_ncommands = sizeof(cli_commands) / sizeof(cli_commands[0]);

#define MAX_WORDS 8

static int
split(const char *s, char out[][48], int max)
{
	int n = 0;

	while (*s && n < max) {
		size_t len;
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		len = strcspn(s, " ");
		snprintf(out[n++], 48, "%.*s", (int)(len < 47 ? len : 47), s);
		s += len;
	}
	return n;
}

/* How many leading argv words this command's words match: exact or as a
 * prefix; -1 if they do not all match. */
static int
match_words(const struct cli_command *c, int argc, char **argv, int *exact)
{
	char w[MAX_WORDS][48];
	int n = split(c->words, w, MAX_WORDS);

	*exact = 1;
	if (argc < n)
		return -1;
	for (int i = 0; i < n; i++) {
		if (argv[i][0] == '\0' || strncmp(w[i], argv[i], strlen(argv[i])) != 0)
			return -1;
		if (strcmp(w[i], argv[i]) != 0)
			*exact = 0;
	}
	return n;
}

void
cli_usage_one(FILE *out, const struct cli_command *c)
{
	fprintf(out, "usage: fabricctl [--json] %s%s%s\n", c->words, *c->spec ? " " : "", c->spec);
	fprintf(out, "       %s%s\n", c->help, c->admin ? " (admin)" : "");
}

void
cli_usage_all(FILE *out)
{
	fprintf(out, "usage: fabricctl [-s socket] [--json] command [arguments]\n\ncommands:\n");
	for (size_t i = 0; i < cli_ncommands; i++)
		fprintf(out, "  %-28s %s%s\n", cli_commands[i].words, cli_commands[i].help,
		    cli_commands[i].admin ? " (admin)" : "");
}

static void
key_of(const char *name, char *key, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		key[i] = name[i] == '-' ? '_' : (char)tolower((unsigned char)name[i]);
	key[i] = '\0';
}


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
typed_value(const char *type, const char *val, const char *opt)
{
	if (strcmp(type, "INT") == 0) {
		char *end;
		long long v;
		errno = 0;
		v = strtoll(val, &end, 0);
		if (errno || *val == '\0' || *end != '\0') {
			fprintf(stderr, "fabricctl: --%s expects a number, not \"%s\"\n", opt, val);
			return NULL;
		}
		return json_integer(v);
	}
	if (strcmp(type, "LIST") == 0)
		return list_value(val);
	return json_string(val);
}

/* Apply one "--name[=value]" against the spec's options. */
static int
parse_option(const struct cli_command *c, char specw[][48], int nspec, int argc, char **argv,
    int *i, json_t *args)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
	char key[48];

	for (int s = 0; s < nspec; s++) {
		const char *sp = specw[s];
		const char *seq = strchr(sp, '=');
		size_t slen = seq ? (size_t)(seq - sp - 2) : strlen(sp) - 2;
		json_t *v;

		if (strncmp(sp, "--", 2) != 0 || slen != nlen || strncmp(sp + 2, arg, nlen) != 0)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)nlen, arg);
		key_of(key, key, sizeof(key));
		if (seq == NULL) {
			if (eq) {
				fprintf(stderr, "fabricctl: --%s takes no value\n", key);
				return -1;
			}
			json_object_set_new(args, key, json_true());
			return 0;
		}
		if (eq == NULL && *i + 1 >= argc) {
			fprintf(stderr, "fabricctl: --%.*s needs a value\n", (int)nlen, arg);
			return -1;
		}
		v = typed_value(seq + 1, eq ? eq + 1 : argv[++*i], key);
		if (v == NULL)
			return -1;
		json_object_set_new(args, key, v);
		return 0;
	}
	fprintf(stderr, "fabricctl: unknown option --%.*s for \"%s\"\n", (int)nlen, arg, c->words);
	return -1;
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
	char specw[16][48], key[48];
	int nspec = split(c->spec, specw, 16), pos = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_usage_one(stdout, c);
			exit(0);
		}
		if (strncmp(argv[i], "--", 2) == 0 && argv[i][2]) {
			if (parse_option(c, specw, nspec, argc, argv, &i, args) != 0)
				return -1;
			continue;
		}
		/* next positional slot in the spec */
		while (pos < nspec && strncmp(specw[pos], "--", 2) == 0)
			pos++;
		if (pos >= nspec) {
			fprintf(stderr, "fabricctl: unexpected argument \"%s\"\n", argv[i]);
			return -1;
		}
		const char *name = specw[pos] + (specw[pos][0] == '[');
		size_t len = strcspn(name, "].");
		snprintf(key, sizeof(key), "%.*s", (int)len, name);
		key_of(key, key, sizeof(key));
		if (strstr(specw[pos], "...")) {
			json_t *rest = json_object_get(args, key);
			if (rest == NULL)
				json_object_set_new(args, key, rest = json_array());
			json_array_append_new(rest, json_string(argv[i]));
		} else {
			json_object_set_new(args, key, json_string(argv[i]));
			pos++;
		}
	}
	tenant_alias(c, args);
	for (int s = 0; s < nspec; s++) {
		if (specw[s][0] == '-' || specw[s][0] == '[')
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(specw[s], "."), specw[s]);
		key_of(key, key, sizeof(key));
		if (json_object_get(args, key) == NULL) {
			fprintf(stderr, "fabricctl: missing %s\n", specw[s]);
			return -1;
		}
	}
	return 0;
}

const struct cli_command *
cli_parse(int argc, char **argv, json_t **args)
{
	const struct cli_command *best = NULL, *cands[64];
	int best_n = -1, nc = 0, best_exact = 0;

	for (size_t i = 0; i < cli_ncommands; i++) {
		int exact, n = match_words(&cli_commands[i], argc, argv, &exact);
		if (n < 0 || n < best_n)
			continue;
		if (n > best_n) {
			best_n = n, nc = 0, best_exact = 0, best = NULL;
		}
		if (exact && !best_exact) {
			best_exact = 1, nc = 0;
		} else if (!exact && best_exact) {
			continue;
		}
		if (nc < 64)
			cands[nc++] = &cli_commands[i];
		best = &cli_commands[i];
	}
	if (best == NULL) {
		fprintf(stderr, "fabricctl: unknown command \"%s\"; try \"fabricctl help\"\n",
		    argc ? argv[0] : "");
		return NULL;
	}
	if (nc > 1) {
		fprintf(stderr, "fabricctl: ambiguous command \"%s\"; it could be:\n", argv[0]);
		for (int i = 0; i < nc; i++)
			fprintf(stderr, "  %s\n", cands[i]->words);
		return NULL;
	}
	*args = json_object();
	if (parse_args(best, argc - best_n, argv + best_n, *args) != 0) {
		cli_usage_one(stderr, best);
		json_decref(*args);
		*args = NULL;
		return NULL;
	}
	return best;
}
