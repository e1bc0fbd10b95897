/*
 * The inverse of hostlist_expand: names into one Slurm hostlist
 * expression ("host[1-4,7],login1"), so that the files written for Slurm
 * (topology.conf, topology.yaml) stay one readable line per switch at any
 * size.  Names sharing a prefix and a digit width of their numeric suffix
 * form one bracket (unpadded numbers all count as one width); a run of
 * consecutive numbers becomes lo-hi.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"

struct hl_name {
	const char	*name;
	size_t		 plen;		/* prefix length: name up to its trailing digits */
	size_t		 width;		/* digits of the suffix, 0 when none */
	unsigned long	 num;
};

static void
split_name(const char *name, struct hl_name *h)
{
	size_t len = strlen(name), p = len;

	while (p > 0 && isdigit((unsigned char)name[p - 1]))
		p--;
	h->name = name;
	h->plen = p;
	h->width = len - p > 9 ? 0 : len - p;	/* longer: kept whole, no overflow */
	if (h->width == 0)
		h->plen = len;
	else if (name[p] != '0' || h->width == 1)
		h->width = 1;	/* unpadded: n1 and n10 share a bracket */
	h->num = h->width ? strtoul(name + p, NULL, 10) : 0;
}

static int
cmp_name(const void *a, const void *b)
{
	const struct hl_name *x = a, *y = b;
	size_t n = x->plen < y->plen ? x->plen : y->plen;
	int c = strncmp(x->name, y->name, n);

	if (c != 0)
		return c;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	if (x->width != y->width)
		return x->width < y->width ? -1 : 1;
	return x->num < y->num ? -1 : x->num > y->num;
}

static bool
same_group(const struct hl_name *a, const struct hl_name *b)
{
	return a->width && a->plen == b->plen && a->width == b->width &&
	    strncmp(a->name, b->name, a->plen) == 0;
}

/* One group [i, j): "prefix[lo-hi,n]" or the name alone. */
static void
write_group(FILE *out, const struct hl_name *v, size_t i, size_t j)
{
	if (j - i == 1) {
		fputs(v[i].name, out);
		return;
	}
	fprintf(out, "%.*s[", (int)v[i].plen, v[i].name);
	for (size_t k = i; k < j;) {
		size_t e = k;
		while (e + 1 < j && v[e + 1].num <= v[e].num + 1)
			e++;
		fprintf(out, "%s%0*lu", k > i ? "," : "", (int)v[k].width, v[k].num);
		if (e > k)
			fprintf(out, "-%0*lu", (int)v[e].width, v[e].num);
		k = e + 1;
	}
	fputc(']', out);
}

char *
hostlist_compress(const char *const *names, size_t n)
{
	struct hl_name *v = xcalloc(n ? n : 1, sizeof(*v));
	char *buf = NULL;
	size_t len = 0, m = 0;
	FILE *out = open_memstream(&buf, &len);

	if (out == NULL) {
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		split_name(names[i], &v[i]);
	qsort(v, n, sizeof(*v), cmp_name);
	/* drop duplicates: a host cabled twice to one leaf is one name */
	for (size_t i = 0; i < n; i++)
		if (m == 0 || strcmp(v[m - 1].name, v[i].name) != 0)
			v[m++] = v[i];
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;
		while (j < m && same_group(&v[i], &v[j]))
			j++;
		if (i > 0)
			fputc(',', out);
		write_group(out, v, i, j);
		i = j;
	}
	free(v);
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
