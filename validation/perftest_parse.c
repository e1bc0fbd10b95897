/*
 * perftest (linux-rdma/perftest) client output: a header block of
 * "key : value" pairs (two per line, TAB separated), address lines, then
 * a result table whose header names the unit, one row per size.  Errors
 * go to stderr; callers feed stdout and stderr together.
 */
#include <stdlib.h>
#include <string.h>

#include "validation/parse.h"

#define LINE_MAX_BYTES	2048

static const struct {
	const char		*text;
	enum perftest_error	 err;
} error_patterns[] = {
	{ "Couldn't connect to", PERFTEST_ERR_SOCKET },
	{ "Unable to init the socket connection", PERFTEST_ERR_SOCKET },
	{ "Unable to Connect the HCA's through the link", PERFTEST_ERR_LINK },
	{ "Incompatibility issue with GID types", PERFTEST_ERR_GID },
	{ "Couldn't", PERFTEST_ERR_OTHER },
	{ "Failed to", PERFTEST_ERR_OTHER },
	{ "failed to", PERFTEST_ERR_OTHER },
	{ "Unable to", PERFTEST_ERR_OTHER },
	{ "No IB devices found", PERFTEST_ERR_OTHER },
};

static void
header_pair(struct perftest_parsed *p, const char *line)
{
	static const struct { const char *key; size_t off, len; } keys[] = {
		{ "Device", offsetof(struct perftest_parsed, device), PARSE_NAME_LEN },
		{ "Link type", offsetof(struct perftest_parsed, link_type), PARSE_NAME_LEN },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = strstr(line, keys[i].key), *colon, *v;
		if (k == NULL || (colon = strchr(k, ':')) == NULL)
			continue;
		/* the key must be followed only by blanks up to its colon */
		for (v = k + strlen(keys[i].key); v < colon && (*v == ' ' || *v == '\t'); v++)
			;
		if (v != colon)
			continue;
		v = colon + 1;
		while (*v == ' ')
			v++;
		parse_copy((char *)p + keys[i].off, keys[i].len, v, strcspn(v, " \t"));
	}
}

static void
table_header(struct perftest_parsed *p, const char *line)
{
	const char *u;

	p->header_seen = true;
	p->latency = strstr(line, "t_min") != NULL || strstr(line, "t_typical") != NULL;
	if (!p->latency && (u = strstr(line, "BW average[")) != NULL) {
		u += strlen("BW average[");
		parse_copy(p->unit, sizeof(p->unit), u, strcspn(u, "]"));
	}
}

static bool
table_row(struct perftest_parsed *p, char *line)
{
	char *t[16];
	size_t n = parse_tokens(line, t, 16);
	struct perftest_row r;

	memset(&r, 0, sizeof(r));
	if (n < 4 || !parse_u64(t[0], &r.bytes) || !parse_u64(t[1], &r.iterations))
		return false;
	if (p->latency) {
		double *f[] = { &r.t_min, &r.t_max, &r.t_typical, &r.t_avg, &r.t_stdev,
		    &r.t_p99, &r.t_p999 };
		size_t i;
		for (i = 0; i < 7 && i + 2 < n; i++)
			if (!parse_double(t[i + 2], f[i]))
				return false;
		if (i < 4)
			return false;
	} else {
		if (!parse_double(t[2], &r.bw_peak) || !parse_double(t[3], &r.bw_avg))
			return false;
		if (n >= 5 && !parse_double(t[4], &r.msg_rate))
			return false;
	}
	if (p->nrows >= PERFTEST_MAX_ROWS)
		return true;
	void *nr = realloc(p->rows, (p->nrows + 1) * sizeof(*p->rows));
	if (nr == NULL)
		return true;
	p->rows = nr;
	p->rows[p->nrows++] = r;
	return true;
}

static void
check_error(struct perftest_parsed *p, const char *line)
{
	size_t i;

	for (i = 0; i < sizeof(error_patterns) / sizeof(error_patterns[0]); i++) {
		if (strstr(line, error_patterns[i].text) == NULL)
			continue;
		/* the first error is the cause; later ones are its echoes */
		if (p->error == PERFTEST_OK) {
			p->error = error_patterns[i].err;
			const char *s = line;
			while (*s == ' ')
				s++;
			parse_copy(p->error_text, sizeof(p->error_text), s, strlen(s));
		}
		return;
	}
	p->unknown_lines++;
}

static int
perftest_line(char *line, void *arg)
{
	struct perftest_parsed *p = arg;
	const char *s = line;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || strncmp(s, "---", 3) == 0)
		return 0;
	if (strncmp(s, "#bytes", 6) == 0) {
		table_header(p, s);
		return 0;
	}
	if (p->header_seen && *s >= '0' && *s <= '9' && table_row(p, line))
		return 0;
	if (strstr(s, " Test") != NULL && strchr(s, ':') == NULL && p->test[0] == '\0') {
		parse_copy(p->test, sizeof(p->test), s, strlen(s));
		return 0;
	}
	if (strchr(s, ':') != NULL && (strstr(s, " : ") != NULL || strstr(s, "\t: ") != NULL)) {
		header_pair(p, s);
		return 0;
	}
	if (strncmp(s, "local address", 13) == 0 || strncmp(s, "remote address", 14) == 0 ||
	    strncmp(s, "GID:", 4) == 0 || strstr(s, "WARNING") != NULL ||
	    strstr(s, "dynamic polling") != NULL)
		return 0;
	check_error(p, s);
	return 0;
}

int
perftest_parse(const char *buf, size_t len, struct perftest_parsed *out)
{
	memset(out, 0, sizeof(*out));
	return parse_lines(buf, len, LINE_MAX_BYTES, perftest_line, out) < 0 ? -1 : 0;
}

void
perftest_parsed_free(struct perftest_parsed *p)
{
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

double
perftest_gbits(const struct perftest_parsed *p, double v)
{
	if (strcmp(p->unit, "MiB/sec") == 0)
		return v * 1048576.0 * 8 / 1e9;
	if (strcmp(p->unit, "MB/sec") == 0)
		return v * 1e6 * 8 / 1e9;
	return v;	/* Gb/sec, or no header: taken as printed */
}
