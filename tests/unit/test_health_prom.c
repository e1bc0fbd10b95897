/*
 * Prometheus text exposition: the writer (health/prom.c) checked by a strict
 * parser of format 0.0.4 written here, independently of the writer.
 *
 * Run with a file argument ("-" for stdin) the program only checks that
 * file and exits 0 or 1: the integration tests use it on the output of
 * `fabricctl metrics` (promtool is not packaged in Debian 12 on its own).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/prom.h"

#define MAXFAM 512
#define MAXSERIES 65536

struct parser {
	char	*families[MAXFAM];	/* in order of appearance */
	char	 types[MAXFAM][16];
	int	 has_help[MAXFAM], has_type[MAXFAM], has_samples[MAXFAM];
	int	 nfam, current;
	char	**series;		/* name{sorted labels}, for duplicates */
	size_t	 nseries;
	int	 line;
	char	 err[256];
};

static int __attribute__((format(printf, 2, 3)))
perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, sizeof(p->err), "line %d: ", p->line);
	va_start(ap, fmt);
	vsnprintf(p->err + n, sizeof(p->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int
name_len(const char *s, int colon)
{
	int n = 0;
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_' || (colon && s[0] == ':')))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || (colon && s[n] == ':'))
		n++;
	return n;
}

static int
family_index(struct parser *p, const char *name, size_t len)
{
	for (int i = 0; i < p->nfam; i++)
		if (strlen(p->families[i]) == len && !strncmp(p->families[i], name, len))
			return i;
	return -1;
}

static int
family_add(struct parser *p, const char *name, size_t len)
{
	int i = family_index(p, name, len);
	if (i >= 0)
		return i;
	if (p->nfam == MAXFAM)
		return -1;
	p->families[p->nfam] = strndup(name, len);
	return p->nfam++;
}

/* A family may not come back once another one has started. */
static int
family_enter(struct parser *p, int fam)
{
	if (p->current != fam && p->has_samples[fam])
		return perr(p, "samples of %s are not contiguous", p->families[fam]);
	p->current = fam;
	return 0;
}

static int
parse_comment(struct parser *p, const char *s)
{
	const char *kw = s + 2;
	int help = !strncmp(kw, "HELP ", 5), type = !strncmp(kw, "TYPE ", 5);
	int n, fam;

	if (s[1] != ' ' || (!help && !type))
		return 0;			/* a plain comment */
	kw += 5;
	if ((n = name_len(kw, 1)) == 0)
		return perr(p, "bad metric name after %s", help ? "HELP" : "TYPE");
	if (kw[n] != ' ' && kw[n] != '\0')
		return perr(p, "bad metric name after %s", help ? "HELP" : "TYPE");
	if ((fam = family_add(p, kw, (size_t)n)) < 0)
		return perr(p, "too many families");
	if (family_enter(p, fam))
		return -1;
	if (help) {
		if (p->has_help[fam]++)
			return perr(p, "second HELP for %s", p->families[fam]);
		for (const char *c = kw + n; *c; c++)
			if (*c == '\\' && c[1] != '\\' && c[1] != 'n')
				return perr(p, "bad escape in HELP");
			else if (*c == '\\')
				c++;
		return 0;
	}
	if (p->has_type[fam]++)
		return perr(p, "second TYPE for %s", p->families[fam]);
	if (p->has_samples[fam])
		return perr(p, "TYPE after samples of %s", p->families[fam]);
	kw += n + 1;
	if (strcmp(kw, "counter") && strcmp(kw, "gauge") && strcmp(kw, "untyped") &&
	    strcmp(kw, "histogram") && strcmp(kw, "summary"))
		return perr(p, "unknown type '%s'", kw);
	snprintf(p->types[fam], sizeof(p->types[fam]), "%s", kw);
	if (!strcmp(kw, "counter") && (n < 6 || strcmp(p->families[fam] + n - 6, "_total")))
		return perr(p, "counter %s does not end in _total", p->families[fam]);
	return 0;
}

/* Label set {a="x",b="y"} -> canonical text into out; returns chars used. */
static int
parse_labels(struct parser *p, const char *s, char *out, size_t outlen)
{
	const char *c = s + 1;
	char names[32][64];
	int nl = 0;
	size_t o = 0;

	out[0] = '\0';
	while (*c != '}') {
		int n = name_len(c, 0);
		if (n == 0 || n >= 64)
			return perr(p, "bad label name");
		if (c[0] == '_' && c[1] == '_')
			return perr(p, "reserved label name");
		for (int i = 0; i < nl; i++)
			if ((int)strlen(names[i]) == n && !strncmp(names[i], c, (size_t)n))
				return perr(p, "duplicate label %.*s", n, c);
		if (nl == 32)
			return perr(p, "too many labels");
		snprintf(names[nl++], 64, "%.*s", n, c);
		o += (size_t)snprintf(out + o, o < outlen ? outlen - o : 0, "%.*s=", n, c);
		c += n;
		if (c[0] != '=' || c[1] != '"')
			return perr(p, "expected =\" after label name");
		for (c += 2; *c != '"'; c++) {
			if (o + 1 < outlen)
				out[o++] = *c, out[o] = '\0';
			if (*c == '\0' || *c == '\n')
				return perr(p, "unterminated label value");
			if (*c == '\\') {
				if (c[1] != '\\' && c[1] != '"' && c[1] != 'n')
					return perr(p, "bad escape in label value");
				c++;
			}
		}
		c++;
		if (*c == ',')
			c++;
		else if (*c != '}')
			return perr(p, "expected , or } in labels");
		if (o < outlen)
			out[o++] = ';', out[o] = '\0';
	}
	return (int)(c + 1 - s);
}

static int
parse_value(struct parser *p, const char *s, double *v)
{
	char *end;

	if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "-Inf")) {
		*v = s[0] == 'N' ? 0.0 / 0.0 : (s[0] == '+' ? 1e308 * 10 : -1e308 * 10);
		return 0;
	}
	if (!isdigit((unsigned char)s[0]) && s[0] != '-' && s[0] != '+' && s[0] != '.')
		return perr(p, "bad sample value '%s'", s);
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return perr(p, "bad sample value '%s'", s);
	if (*end == ' ') {			/* optional timestamp: an integer */
		char *tend;
		strtoll(end + 1, &tend, 10);
		if (tend == end + 1 || *tend)
			return perr(p, "bad timestamp");
	} else if (*end)
		return perr(p, "trailing text after value");
	return 0;
}

static int
parse_sample(struct parser *p, const char *s)
{
	char key[1024];
	int n = name_len(s, 1), fam, used = 0;
	double v = 0;

	if (n == 0)
		return perr(p, "bad metric name");
	fam = family_index(p, s, (size_t)n);
	if (fam < 0 || !p->has_type[fam])
		return perr(p, "sample %.*s without a TYPE line", n, s);
	if (family_enter(p, fam))
		return -1;
	snprintf(key, sizeof(key), "%.*s|", n, s);
	if (s[n] == '{') {
		used = parse_labels(p, s + n, key + strlen(key), sizeof(key) - strlen(key));
		if (used < 0)
			return -1;
	}
	if (s[n + used] != ' ')
		return perr(p, "expected one space before the value");
	if (parse_value(p, s + n + used + 1, &v))
		return -1;
	if (!strcmp(p->types[fam], "counter") && !(v >= 0))
		return perr(p, "counter %s is negative or NaN", p->families[fam]);
	for (size_t i = 0; i < p->nseries; i++)
		if (!strcmp(p->series[i], key))
			return perr(p, "duplicate series %s", key);
	if (p->nseries < MAXSERIES)
		p->series[p->nseries++] = strdup(key);
	p->has_samples[fam] = 1;
	return 0;
}

static void
parser_free(struct parser *p)
{
	for (int i = 0; i < p->nfam; i++)
		free(p->families[i]);
	for (size_t i = 0; i < p->nseries; i++)
		free(p->series[i]);
	free(p->series);
}

/* 0 when text is valid exposition format; else -1 with p->err. */
static int
prom_check(struct parser *p, const char *text)
{
	const char *line = text;

	memset(p, 0, sizeof(*p));
	p->current = -1;
	p->series = calloc(MAXSERIES, sizeof(char *));
	if (*text && text[strlen(text) - 1] != '\n')
		return perr(p, "no newline at the end");
	while (*line) {
		const char *nl = strchr(line, '\n');
		char *l = strndup(line, (size_t)(nl - line));
		int r = 0;

		p->line++;
		if (strchr(l, '\r'))
			r = perr(p, "carriage return");
		else if (l[0] == '#')
			r = parse_comment(p, l);
		else if (l[0] == ' ' || l[0] == '\t')
			r = perr(p, "leading whitespace");
		else if (l[0] != '\0')
			r = parse_sample(p, l);
		free(l);
		if (r)
			return -1;
		line = nl + 1;
	}
	return 0;
}

static int
check_text(const char *text)
{
	struct parser p;
	int r = prom_check(&p, text);
	if (r)
		print_message("prom_check: %s\n", p.err);
	parser_free(&p);
	return r;
}

static void
writer_output_parses(void **state)
{
	struct prom pr;
	struct prom_label l[3] = {
		{ "node_guid", "0x0002c90300000001" },
		{ "node", "leaf \"1\"\\rack\n7" },
		{ "port", "3" },
	};
	int r;

	prom_init(&pr);
	prom_family(&pr, "fabricd_port_symbol_errors_total", "counter", "Symbol errors\nper port");
	prom_sample_u64(&pr, "fabricd_port_symbol_errors_total", l, 3, UINT64_MAX);
	l[2].value = "4";
	prom_sample_u64(&pr, "fabricd_port_symbol_errors_total", l, 3, 0);
	prom_family(&pr, "fabricd_sm_sweep_duration_seconds", "gauge", "Last sweep");
	prom_sample_double(&pr, "fabricd_sm_sweep_duration_seconds", NULL, 0, 0.125);
	prom_family(&pr, "fabricd_health_poll_lag_seconds", "gauge", "lag");
	prom_sample_double(&pr, "fabricd_health_poll_lag_seconds", NULL, 0, 0.0 / 0.0);
	for (int i = 0; i < 2000; i++) {	/* growth past the first buffer */
		char v[16];
		snprintf(v, sizeof(v), "%d", i);
		l[2].value = v;
		if (i == 0)
			prom_family(&pr, "fabricd_link_state", "gauge", "PortState");
		prom_sample_u64(&pr, "fabricd_link_state", l, 3, 4);
	}
	r = check_text(pr.buf);
	if (r)
		prom_free(&pr);
	assert_int_equal(r, 0);
	assert_non_null(strstr(pr.buf, "node=\"leaf \\\"1\\\"\\\\rack\\n7\""));
	assert_non_null(strstr(pr.buf, " 18446744073709551615\n"));
	assert_non_null(strstr(pr.buf, "# HELP fabricd_port_symbol_errors_total Symbol errors\\nper port\n"));
	prom_free(&pr);
}

static void
parser_rejects_broken_text(void **state)
{
	static const char *const bad[] = {
		"x_total 1\n",						/* no TYPE */
		"# TYPE x gauge\nx 1",					/* no final newline */
		"# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n",		/* duplicate */
		"# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a=\"2\"} 1\n", /* not contiguous */
		"# TYPE x gauge\nx{a=\"1\",a=\"2\"} 1\n",		/* duplicate label */
		"# TYPE x gauge\nx{a=\"\\t\"} 1\n",			/* bad escape */
		"# TYPE x gauge\nx{a=\"1} 1\n",				/* unterminated */
		"# TYPE x gauge\nx one\n",				/* not a number */
		"# TYPE x gauge\nx  1\n",				/* two spaces */
		"# TYPE x_total counter\nx_total -1\n",			/* negative counter */
		"# TYPE x counter\nx 1\n",				/* counter without _total */
		"# TYPE x gauge\n# TYPE x gauge\nx 1\n",		/* second TYPE */
		"# TYPE x gauge\nx 1\n# TYPE x gauge\n",		/* TYPE after samples */
		"# TYPE x nonsense\nx 1\n",				/* type */
		"# TYPE 1x gauge\n",					/* name */
		"# TYPE x gauge\nx{__a=\"1\"} 1\n",			/* reserved label */
		"# TYPE x gauge\nx 1 12.5\n",				/* timestamp */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct parser p;
		int r = prom_check(&p, bad[i]);
		parser_free(&p);
		if (r == 0)
			fail_msg("accepted bad input %zu: %s", i, bad[i]);
	}
	assert_int_equal(check_text("# a comment\n\n# TYPE x gauge\nx{a=\"\"} +Inf 1700000000000\n"), 0);
}

static int
check_file(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	struct parser p;
	int r;

	if (f == NULL) {
		perror(path);
		return 2;
	}
	do {
		if (len + 65536 + 1 > cap)
			text = realloc(text, cap = (cap + 65536) * 2);
		n = fread(text + len, 1, 65536, f);
		len += n;
	} while (n > 0);
	text[len] = '\0';
	r = prom_check(&p, text);
	if (r)
		fprintf(stderr, "%s: %s\n", path, p.err);
	else
		printf("%s: %d families, %zu series\n", path, p.nfam, p.nseries);
	parser_free(&p);
	free(text);
	return r ? 1 : 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writer_output_parses),
		cmocka_unit_test(parser_rejects_broken_text),
	};
	if (argc > 1)
		return check_file(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
