/*
 * Line and token helpers shared by the output parsers.  Tool output is
 * untrusted: lines may be cut, glued, carry NULs or CRLF, and numbers may
 * be in any printf form.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validation/parse.h"

int
parse_lines(const char *buf, size_t len, size_t maxline,
    int (*fn)(char *line, void *arg), void *arg)
{
	char *line;
	size_t start = 0;
	int rc = 0;

	if (buf == NULL)
		return 0;
	if ((line = malloc(maxline + 1)) == NULL)
		return -1;
	while (start < len && rc == 0) {
		const char *nl = memchr(buf + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - buf) : len;
		size_t n = end - start, i;

		if (n > maxline)
			n = maxline;
		for (i = 0; i < n; i++) {
			char c = buf[start + i];
			/* NUL would cut the C string; any control byte
			 * other than TAB is noise for these formats */
			line[i] = (c == '\0' || (c != '\t' && iscntrl((unsigned char)c))) ? ' ' : c;
		}
		while (n > 0 && isspace((unsigned char)line[n - 1]))
			n--;
		line[n] = '\0';
		rc = fn(line, arg);
		start = end + 1;
	}
	free(line);
	return rc;
}

size_t
parse_tokens(char *line, char **tok, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (*p != '\0' && n < max) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		tok[n++] = p;
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	return n;
}

bool
parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*out = v;
	return true;
}

bool
parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

bool
parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return false;
	/* strtod would accept "nan"/"inf" words and hex; the tools print
	 * only decimal fixed or exponent notation */
	if (!isdigit((unsigned char)*s) && *s != '-' && *s != '+' && *s != '.')
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v))
		return false;
	*out = v;
	return true;
}

void
parse_copy(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t n = srclen < dstlen - 1 ? srclen : dstlen - 1;

	memcpy(dst, src, n);
	dst[n] = '\0';
}
