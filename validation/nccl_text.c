/*
 * nccl-tests stdout, every format generation (see the format history in
 * the project's NCCL reference):
 *   <= 2.12   rows of 12 tokens: no root, 4th per-side column is the max
 *             error; device lines without "Group"
 *   2.13-     rows of 13 tokens (root, #wrong), +2 with -S, +8 with -I
 *   2.17.4+   "# nccl-tests version" line; 2.17.6+ trailing blanks
 * Lines are classified by content, never by column offset, and anything
 * may appear glued to anything (several processes share one stdout).
 */
#include <stdlib.h>
#include <string.h>

#include "validation/parse.h"

#define LINE_MAX_BYTES	4096
#define MAX_TOKENS	40

static void *
grow(void *arr, size_t n, size_t size, size_t cap)
{
	/* grow by doubling; arrays start at 16 elements */
	if (n >= cap)
		return NULL;
	if (n == 0 || (n & (n - 1)) == 0) {
		size_t want = n < 16 ? 16 : n * 2;
		return realloc(arr, want * size);
	}
	return arr;
}

static bool
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void
keep_unknown(struct nccl_parsed *p, const char *line)
{
	if (p->unknown_lines < PARSE_UNKNOWN_KEEP)
		p->unknown[p->unknown_lines] = strdup(line);
	p->unknown_lines++;
}

/* ---- rows ---- */

static bool
parse_nwrong(const char *s, long long *out)
{
	double d;

	if (strcmp(s, "N/A") == 0) {
		*out = NCCL_NWRONG_NA;
		return true;
	}
	if (!parse_double(s, &d) || d < 0 || d > 9.2e18)
		return false;
	*out = (long long)d;
	return true;
}

static bool
parse_side(char **t, bool legacy, struct nccl_side *s)
{
	if (!parse_double(t[0], &s->time_us) || !parse_double(t[1], &s->algbw) ||
	    !parse_double(t[2], &s->busbw))
		return false;
	if (legacy) {
		s->nwrong = NCCL_NWRONG_NA;
		return parse_double(t[3], &s->max_error);
	}
	return parse_nwrong(t[3], &s->nwrong);
}

/* A data row: tokens start with two integers and two words.  The number
 * of tokens tells the format; anything else is a row cut short. */
static int
try_row(struct nccl_parsed *p, char **t, size_t n)
{
	struct nccl_row r;
	size_t side_len, base;
	bool legacy;

	memset(&r, 0, sizeof(r));
	switch (n) {
	case 12: legacy = true; base = 4; side_len = 4; break;
	case 13: case 15: legacy = false; base = 5; side_len = 4; break;
	case 21: case 23: legacy = false; base = 5; side_len = 8; break;
	default: return -1;
	}
	if (!parse_u64(t[0], &r.size) || !parse_u64(t[1], &r.count))
		return -1;
	parse_copy(r.type, sizeof(r.type), t[2], strlen(t[2]));
	parse_copy(r.redop, sizeof(r.redop), t[3], strlen(t[3]));
	r.root = NCCL_ROOT_NONE;
	if (!legacy && !parse_int(t[4], &r.root))
		return -1;
	if (!parse_side(t + base, legacy, &r.oop) ||
	    !parse_side(t + base + side_len, legacy, &r.ip))
		return -1;
	if (legacy)
		p->legacy_format = true;
	if (p->nrows >= NCCL_MAX_ROWS)
		return 0;
	void *nr = grow(p->rows, p->nrows, sizeof(*p->rows), NCCL_MAX_ROWS);
	if (nr == NULL)
		return 0;
	p->rows = nr;
	p->rows[p->nrows++] = r;
	return 0;
}

/* ---- "# ..." lines ---- */

static void
parse_device(struct nccl_parsed *p, char *line)
{
	char *t[MAX_TOKENS];
	size_t n = parse_tokens(line, t, MAX_TOKENS), i = 0;
	struct nccl_device d;

	memset(&d, 0, sizeof(d));
	/* "#" "Rank" N ["Group" G] "Pid" P "on" HOST "device" D "[pci]" */
	if (n < 9 || strcmp(t[0], "#") != 0 || strcmp(t[1], "Rank") != 0 ||
	    !parse_int(t[2], &d.rank))
		return;
	i = 3;
	if (strcmp(t[i], "Group") == 0)
		i += 2;
	if (i + 7 > n || strcmp(t[i], "Pid") != 0 || !parse_int(t[i + 1], &d.pid) ||
	    strcmp(t[i + 2], "on") != 0 || strcmp(t[i + 4], "device") != 0 ||
	    !parse_int(t[i + 5], &d.device))
		return;
	parse_copy(d.host, sizeof(d.host), t[i + 3], strlen(t[i + 3]));
	if (t[i + 6][0] == '[') {
		size_t l = strcspn(t[i + 6] + 1, "]");
		parse_copy(d.pci, sizeof(d.pci), t[i + 6] + 1, l);
	}
	if (p->ndevices >= NCCL_MAX_DEVICES)
		return;
	void *nd = grow(p->devices, p->ndevices, sizeof(*p->devices), NCCL_MAX_DEVICES);
	if (nd == NULL)
		return;
	p->devices = nd;
	p->devices[p->ndevices++] = d;
}

static void
copy_word_after(char *dst, size_t len, const char *line, const char *prefix)
{
	const char *s = strstr(line, prefix);

	if (s == NULL)
		return;
	s += strlen(prefix);
	while (*s == ' ')
		s++;
	parse_copy(dst, len, s, strcspn(s, " \t"));
}

static void
parse_footer(struct nccl_parsed *p, const char *line)
{
	const char *colon = strchr(line, ':');
	char buf[128], *t[4];
	size_t n;

	if (colon == NULL)
		return;
	parse_copy(buf, sizeof(buf), colon + 1, strlen(colon + 1));
	n = parse_tokens(buf, t, 4);
	if (starts(line, "# Out of bounds values")) {
		double d;
		p->oob_seen = true;
		if (n >= 1 && parse_double(t[0], &d) && d >= 0 && d < 9.2e18)
			p->oob_count = (long long)d;
	} else {
		p->avg_seen = true;
		if (n >= 1)
			(void)parse_double(t[0], &p->avg_busbw);
		p->avg_gate = n >= 2 ? strcmp(t[1], "OK") == 0 : -1;
	}
}

static void
parse_comment(struct nccl_parsed *p, char *line)
{
	if (starts(line, "#  Rank") || starts(line, "#   Rank") || starts(line, "# Rank"))
		parse_device(p, line);
	else if (starts(line, "# nccl-tests version"))
		copy_word_after(p->tests_version, sizeof(p->tests_version), line, "version");
	else if (starts(line, "# Collective test starting:"))
		copy_word_after(p->test_name, sizeof(p->test_name), line, "starting:");
	else if (starts(line, "# Collective test concluded"))
		p->concluded = true;
	else if (starts(line, "# Out of bounds values") || starts(line, "# Avg bus bandwidth"))
		parse_footer(p, line);
	else if (starts(line, "# Reducing maxBytes"))
		p->memory_limited = true;
	/* everything else after '#' is a banner or header: known by shape */
}

/* ---- failures ---- */

static void
add_failure(struct nccl_parsed *p, const struct nccl_failure *f)
{
	if (p->nfailures >= NCCL_MAX_FAILURES)
		return;
	void *nf = grow(p->failures, p->nfailures, sizeof(*p->failures), NCCL_MAX_FAILURES);
	if (nf == NULL)
		return;
	p->failures = nf;
	p->failures[p->nfailures++] = *f;
}

/* "host: Test NCCL failure ..." -- the host is the word before ": Test". */
static bool
try_test_failure(struct nccl_parsed *p, const char *line)
{
	static const struct { const char *pat; enum nccl_failure_kind kind; } pats[] = {
		{ ": Test NCCL failure ", NCCL_FAIL_NCCL },
		{ ": Test CUDA failure ", NCCL_FAIL_CUDA },
		{ ": Test timeout ", NCCL_FAIL_TIMEOUT },
	};
	struct nccl_failure f;
	const char *s = NULL, *h;
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if ((s = strstr(line, pats[i].pat)) != NULL)
			break;
	if (s == NULL)
		return false;
	memset(&f, 0, sizeof(f));
	f.kind = pats[i].kind;
	f.status = -1;
	for (h = s; h > line && h[-1] != ' '; h--)
		;
	parse_copy(f.host, sizeof(f.host), h, (size_t)(s - h));
	parse_copy(f.message, sizeof(f.message), s + 2, strlen(s + 2));
	add_failure(p, &f);
	return true;
}

/* "host:pid:tid": the host of an NCCL WARN prefix, found by shape among
 * the words before "NCCL WARN" (a glued data row may precede it). */
static void
warn_host(const char *line, const char *warn, char *host, size_t len)
{
	char buf[LINE_MAX_BYTES], *t[MAX_TOKENS];
	size_t n, i;

	parse_copy(buf, sizeof(buf), line, (size_t)(warn - line));
	n = parse_tokens(buf, t, MAX_TOKENS);
	for (i = n; i-- > 0;) {
		char *c1 = strchr(t[i], ':'), *c2;
		uint64_t v;

		if (c1 == NULL || c1 == t[i] || (c2 = strchr(c1 + 1, ':')) == NULL)
			continue;
		*c2 = '\0';
		if (!parse_u64(c1 + 1, &v) || !parse_u64(c2 + 1, &v))
			continue;
		parse_copy(host, len, t[i], (size_t)(c1 - t[i]));
		return;
	}
}

/* Completion error, three generations:
 *   "... with error %d, opcode ..."            (2.18)
 *   "... with status=12 opcode=0 ... hca mlx5_5"      (2.21-2.28.3)
 *   "... with status=IBV_WC_RETRY_EXC_ERR(12) ... hca mlx5_5" (2.28.7+) */
static void
parse_completion(const char *msg, struct nccl_failure *f)
{
	const char *s;

	f->kind = NCCL_FAIL_IB;
	if ((s = strstr(msg, "from peer ")) != NULL) {
		s += strlen("from peer ");
		parse_copy(f->peer, sizeof(f->peer), s, strcspn(s, "< \t"));
	}
	if ((s = strstr(msg, "status=")) != NULL) {
		s += strlen("status=");
		if (*s < '0' || *s > '9')
			s = strchr(s, '(') ? strchr(s, '(') + 1 : s;
		f->status = atoi(s);
	} else if ((s = strstr(msg, "with error ")) != NULL)
		f->status = atoi(s + strlen("with error "));
	if ((s = strstr(msg, " hca ")) != NULL) {
		s += strlen(" hca ");
		parse_copy(f->hca, sizeof(f->hca), s, strcspn(s, " \t,"));
	}
}

static bool
try_warn(struct nccl_parsed *p, const char *line)
{
	const char *w = strstr(line, "NCCL WARN");
	struct nccl_failure f;
	const char *msg;

	if (w == NULL)
		return false;
	memset(&f, 0, sizeof(f));
	f.kind = NCCL_FAIL_WARN;
	f.status = -1;
	warn_host(line, w, f.host, sizeof(f.host));
	msg = w + strlen("NCCL WARN");
	while (*msg == ' ')
		msg++;
	parse_copy(f.message, sizeof(f.message), msg, strlen(msg));
	if (strstr(msg, "Got completion from peer") != NULL)
		parse_completion(msg, &f);
	add_failure(p, &f);
	return true;
}

/* Open MPI's abort banner: "Process name: [[jobid,1],rank]", "Exit code: N". */
static bool
try_mpi(struct nccl_parsed *p, const char *line)
{
	const char *s;

	if ((s = strstr(line, "Process name: [[")) != NULL) {
		const char *r = strstr(s, "],");
		if (r != NULL)
			p->mpi_failed_rank = atoi(r + 2);
		return true;
	}
	if ((s = strstr(line, "Exit code:")) != NULL) {
		p->mpi_exit_code = atoi(s + strlen("Exit code:"));
		return true;
	}
	return false;
}

/* Lines whose shape is known and carries nothing to keep. */
static bool
is_known_noise(const char *line)
{
	static const char *const pats[] = {
		" .. ", "mpirun ", "Primary job", "a non-zero exit code", "the job to be",
		"The first process", "-----", "Option -", "invalid type", "invalid op",
		"Invalid number of GPUs", "defaulting to",
	};
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if (strstr(line, pats[i]) != NULL)
			return true;
	return false;
}

static int
text_line(char *line, void *arg)
{
	struct nccl_parsed *p = arg;
	char copy[LINE_MAX_BYTES + 1], *t[MAX_TOKENS];
	size_t n;

	p->lines++;
	if (line[0] == '\0')
		return 0;
	/* failures and WARNs first: they may be glued to anything */
	if (try_warn(p, line) || try_test_failure(p, line))
		return 0;
	if (line[0] == '#') {
		parse_comment(p, line);
		return 0;
	}
	if (starts(line, "NCCL version ")) {
		copy_word_after(p->nccl_version, sizeof(p->nccl_version), line, "version");
		return 0;
	}
	if (strstr(line, "USAGE:") != NULL || strstr(line, "Usage:") != NULL) {
		p->usage_seen = true;
		return 0;
	}
	if (try_mpi(p, line) || is_known_noise(line))
		return 0;
	strcpy(copy, line);
	n = parse_tokens(copy, t, MAX_TOKENS);
	if (n > 0 && t[0][0] >= '0' && t[0][0] <= '9') {
		uint64_t v;
		if (try_row(p, t, n) == 0)
			return 0;
		if (parse_u64(t[0], &v)) {
			p->partial_rows++;
			return 0;
		}
	}
	keep_unknown(p, line);
	return 0;
}

static void
nccl_parsed_init(struct nccl_parsed *p)
{
	memset(p, 0, sizeof(*p));
	p->avg_gate = -1;
	p->mpi_failed_rank = -1;
	p->mpi_exit_code = -1;
}

int
nccl_parse_text(const char *buf, size_t len, struct nccl_parsed *out)
{
	nccl_parsed_init(out);
	return parse_lines(buf, len, LINE_MAX_BYTES, text_line, out) < 0 ? -1 : 0;
}

void
nccl_parsed_free(struct nccl_parsed *p)
{
	size_t i;

	free(p->rows);
	free(p->devices);
	free(p->failures);
	for (i = 0; i < PARSE_UNKNOWN_KEEP && i < p->unknown_lines; i++)
		free(p->unknown[i]);
	memset(p, 0, sizeof(*p));
}

const char *
nccl_rank_host(const struct nccl_parsed *p, int rank)
{
	size_t i;

	for (i = 0; i < p->ndevices; i++)
		if (p->devices[i].rank == rank)
			return p->devices[i].host;
	return NULL;
}

bool
nccl_footer_seen(const struct nccl_parsed *p)
{
	return p->avg_seen || p->concluded;
}

void
nccl_parsed_reset(struct nccl_parsed *p)
{
	nccl_parsed_init(p);
}
