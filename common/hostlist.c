/*
 * Slurm hostlist expressions: "gpu[001-064,070]", "rack[1-2]-n[1-4]",
 * "a1, a2,b[3-4]".  Slurm's own syntax, so that a prolog can pass
 * $SLURM_JOB_NODELIST as it comes; the zero padding of a range's low bound
 * is kept (gpu[001-003] is gpu001..gpu003), as scontrol show hostnames
 * does.  In common/ because both the daemon (--hosts of every request) and
 * fabricctl (preflight --fanout, which starts one launcher per host) expand
 * them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "common/hostlist.h"

struct hl_out {
	char	**v;
	size_t	  n, max;
	char	 *err;
	size_t	  errlen;
};

static int
hl_push(struct hl_out *o, const char *name)
{
	if (o->n >= o->max) {
		snprintf(o->err, o->errlen, "too many hosts (at most %zu)", o->max);
		return -1;
	}
	o->v[o->n++] = xstrdup(name);
	return 0;
}

static int hl_expand(struct hl_out *o, const char *expr);

/* One "lo-hi" or "n" of a bracket, each value prefixed and the rest of
 * the expression expanded after it. */
static int
hl_range(struct hl_out *o, const char *prefix, const char *range, size_t rlen, const char *rest)
{
	char buf[256], *end;
	unsigned long lo, hi;
	int width;

	if (rlen == 0 || !isdigit((unsigned char)range[0]))
		goto bad;
	errno = 0;
	lo = strtoul(range, &end, 10);
	width = (int)(end - range);
	hi = lo;
	if (end < range + rlen && *end == '-') {
		const char *h = end + 1;
		if (!isdigit((unsigned char)*h))
			goto bad;
		hi = strtoul(h, &end, 10);
	}
	if (end != range + rlen || hi < lo)
		goto bad;
	/* A range past the limit is well-formed: say its size and the limit,
	 * before a name is made. */
	if (errno == ERANGE || hi - lo >= o->max) {
		if (errno == ERANGE)
			snprintf(o->err, o->errlen, "range \"%.*s\" expands to more than %zu "
			    "hosts", (int)rlen, range, o->max);
		else
			snprintf(o->err, o->errlen, "range \"%.*s\" expands to %lu hosts; at most %zu",
			    (int)rlen, range, hi - lo + 1, o->max);
		return -1;
	}
	for (unsigned long v = lo; v <= hi; v++) {
		if ((size_t)snprintf(buf, sizeof(buf), "%s%0*lu%s", prefix, width, v, rest) >= sizeof(buf)) {
			snprintf(o->err, o->errlen, "host name too long in \"%s\"", prefix);
			return -1;
		}
		if (hl_expand(o, buf) != 0)
			return -1;
	}
	return 0;
bad:
	snprintf(o->err, o->errlen, "invalid range \"%.*s\" (expected N or LO-HI)", (int)rlen, range);
	return -1;
}

/* One word: expand its first bracket, then (recursively) the others. */
static int
hl_expand(struct hl_out *o, const char *expr)
{
	const char *lb = strchr(expr, '['), *rb, *r;
	char prefix[256];

	if (lb == NULL)
		return strchr(expr, ']') ? (snprintf(o->err, o->errlen, "unbalanced ']' in \"%s\"",
		    expr), -1) : hl_push(o, expr);
	rb = strchr(lb, ']');
	if (rb == NULL || (size_t)(lb - expr) >= sizeof(prefix)) {
		snprintf(o->err, o->errlen, "unbalanced '[' in \"%s\"", expr);
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(lb - expr), expr);
	for (r = lb + 1; r < rb;) {
		const char *c = memchr(r, ',', (size_t)(rb - r));
		size_t len = c ? (size_t)(c - r) : (size_t)(rb - r);
		if (hl_range(o, prefix, r, len, rb + 1) != 0)
			return -1;
		r += len + 1;
	}
	return 0;
}

int
hostlist_expand(const char *expr, char ***hosts, size_t *n, size_t max, char *err, size_t errlen)
{
	struct hl_out o = { xcalloc(max + 1, sizeof(char *)), 0, max, err, errlen };
	const char *p = expr;
	int depth = 0, rc = 0;

	/* Split at commas outside brackets; spaces around words are dropped. */
	while (rc == 0 && *p) {
		const char *q = p;
		char word[512];
		size_t len;

		for (depth = 0; *q && (depth > 0 || *q != ','); q++)
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
		while (p < q && isspace((unsigned char)*p))
			p++;
		len = (size_t)(q - p);
		while (len > 0 && isspace((unsigned char)p[len - 1]))
			len--;
		if (len >= sizeof(word)) {
			snprintf(err, errlen, "host expression too long");
			rc = -1;
		} else if (len > 0) {
			snprintf(word, sizeof(word), "%.*s", (int)len, p);
			rc = hl_expand(&o, word);
		}
		p = *q ? q + 1 : q;
	}
	if (rc != 0) {
		for (size_t i = 0; i < o.n; i++)
			free(o.v[i]);
		free(o.v);
		return -1;
	}
	*hosts = o.v;
	*n = o.n;
	return 0;
}
