/* Prometheus text exposition: see prom.h. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/xmalloc.h"
#include "common/prom.h"

void
prom_init(struct prom *p)
{
	p->cap = 4096;
	p->buf = xmalloc(p->cap);
	p->buf[0] = '\0';
	p->len = 0;
}

void
prom_free(struct prom *p)
{
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

static void
prom_reserve(struct prom *p, size_t more)
{
	while (p->len + more + 1 > p->cap) {
		p->cap *= 2;
		p->buf = xreallocarray(p->buf, p->cap, 1);
	}
}

static void __attribute__((format(printf, 2, 3)))
prom_printf(struct prom *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* Try the room there is; on truncation grow and write again. */
	va_start(ap, fmt);
	n = vsnprintf(p->buf + p->len, p->cap - p->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= p->cap - p->len) {
		prom_reserve(p, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(p->buf + p->len, p->cap - p->len, fmt, ap);
		va_end(ap);
	}
	p->len += (size_t)n;
}

static void
prom_putc(struct prom *p, char c)
{
	prom_reserve(p, 1);
	p->buf[p->len++] = c;
	p->buf[p->len] = '\0';
}

/* HELP escapes backslash and newline; label values also the double quote. */
static void
prom_escaped(struct prom *p, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			prom_printf(p, "\\\\");
		else if (*s == '\n')
			prom_printf(p, "\\n");
		else if (quote && *s == '"')
			prom_printf(p, "\\\"");
		else
			prom_putc(p, *s);
	}
}

void
prom_family(struct prom *p, const char *name, const char *type, const char *help)
{
	prom_printf(p, "# HELP %s ", name);
	prom_escaped(p, help, 0);
	prom_printf(p, "\n# TYPE %s %s\n", name, type);
}

static void
prom_series(struct prom *p, const char *name, const struct prom_label *labels, size_t n)
{
	prom_printf(p, "%s", name);
	if (n == 0)
		return;
	prom_putc(p, '{');
	for (size_t i = 0; i < n; i++) {
		prom_printf(p, "%s%s=\"", i ? "," : "", labels[i].name);
		prom_escaped(p, labels[i].value ? labels[i].value : "", 1);
		prom_putc(p, '"');
	}
	prom_putc(p, '}');
}

void
prom_sample_u64(struct prom *p, const char *name, const struct prom_label *labels,
    size_t nlabels, uint64_t value)
{
	prom_series(p, name, labels, nlabels);
	prom_printf(p, " %" PRIu64 "\n", value);
}

void
prom_sample_double(struct prom *p, const char *name, const struct prom_label *labels,
    size_t nlabels, double value)
{
	prom_series(p, name, labels, nlabels);
	if (isnan(value))
		prom_printf(p, " NaN\n");
	else if (isinf(value))
		prom_printf(p, " %s\n", value > 0 ? "+Inf" : "-Inf");
	else
		prom_printf(p, " %.17g\n", value);
}

bool
prom_cursor_spent(const struct prom_cursor *c)
{
	return c->until_ns != 0 && clock_mono_ns() >= c->until_ns;
}
