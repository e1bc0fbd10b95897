/* The fabric against a cabling plan (see fabric/topology_diff.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fabric/topology_diff.h"
#include "fabric/topology_formats.h"

static int
end_cmp(const struct topology_end *x, const struct topology_end *y)
{
	int c = strcmp(x->node, y->node);

	return c ? c : x->port < y->port ? -1 : x->port > y->port;
}

static int
cable_cmp(const void *p, const void *q)
{
	const struct topology_cable *x = p, *y = q;
	int c = end_cmp(&x->a, &y->a);

	return c ? c : end_cmp(&x->b, &y->b);
}

static void
plan_add(struct topology_plan *plan, const char *an, unsigned ap, const char *bn, unsigned bp)
{
	struct topology_cable c;

	snprintf(c.a.node, sizeof(c.a.node), "%s", an);
	snprintf(c.b.node, sizeof(c.b.node), "%s", bn);
	c.a.port = ap;
	c.b.port = bp;
	if (end_cmp(&c.a, &c.b) > 0) {
		struct topology_end t = c.a;
		c.a = c.b;
		c.b = t;
	}
	if (plan->n == plan->cap) {
		plan->cap = plan->cap ? plan->cap * 2 : 64;
		plan->cable = xreallocarray(plan->cable, plan->cap, sizeof(*plan->cable));
	}
	plan->cable[plan->n++] = c;
}

/* Sorted, each cable once (an ibnetdiscover file lists both ends). */
static void
plan_finish(struct topology_plan *plan)
{
	size_t m = 0;

	qsort(plan->cable, plan->n, sizeof(*plan->cable), cable_cmp);
	for (size_t i = 0; i < plan->n; i++)
		if (m == 0 || cable_cmp(&plan->cable[m - 1], &plan->cable[i]) != 0)
			plan->cable[m++] = plan->cable[i];
	plan->n = m;
}

void
topology_plan_free(struct topology_plan *plan)
{
	free(plan->cable);
	memset(plan, 0, sizeof(*plan));
}

void
topology_plan_of_fabric(const struct fabric *f, struct topology_plan *plan)
{
	struct fabric_node *n;
	size_t i;

	memset(plan, 0, sizeof(*plan));
	plan->format = "fabric";
	FABRIC_FOREACH_NODE(f, i, n) {
		for (unsigned j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j];
			char a[TOPOLOGY_NAME_LEN], b[TOPOLOGY_NAME_LEN];
			if (!topology_link_first_end(p))
				continue;
			plan_add(plan, topology_node_name(n, a, sizeof(a)), j,
			    topology_node_name(p->peer->node, b, sizeof(b)), p->peer->num);
		}
	}
	plan_finish(plan);
}

/* ---- the plan's text ---- */

struct line {
	const char	*s;
	size_t		 len, no;
};

static bool
next_line(const char **p, struct line *l)
{
	if (**p == '\0')
		return false;
	l->s = *p;
	l->len = strcspn(*p, "\n");
	l->no++;
	*p += l->len + (l->s[l->len] == '\n');
	if (l->len > 0 && l->s[l->len - 1] == '\r')
		l->len--;
	return true;
}

static bool
is_node_line(const struct line *l)
{
	static const char *const kinds[] = { "Switch", "Ca", "Hca", "Rt" };

	for (size_t k = 0; k < 4; k++) {
		size_t n = strlen(kinds[k]);
		if (l->len > n && strncmp(l->s, kinds[k], n) == 0 && isspace((unsigned char)l->s[n]))
			return true;
	}
	return false;
}

/* The text between the quotes after from, into buf; NULL when none. */
static const char *
quoted(const char *from, const char *end, char *buf, size_t len)
{
	const char *q = memchr(from, '"', (size_t)(end - from)), *e;

	if (q == NULL || (e = memchr(q + 1, '"', (size_t)(end - q - 1))) == NULL)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(e - q - 1), q + 1);
	return e + 1;
}

/* The name a node line gives: its description (after '#'), or its id. */
struct plan_node {
	char	id[TOPOLOGY_NAME_LEN], name[TOPOLOGY_NAME_LEN];
};

static void
node_of_line(const struct line *l, struct plan_node *pn)
{
	const char *end = l->s + l->len, *hash, *rest;
	bool ca = l->s[0] == 'C' || l->s[0] == 'H';

	pn->id[0] = pn->name[0] = '\0';
	if ((rest = quoted(l->s, end, pn->id, sizeof(pn->id))) == NULL)
		return;
	hash = memchr(rest, '#', (size_t)(end - rest));
	if (hash == NULL || quoted(hash, end, pn->name, sizeof(pn->name)) == NULL || !pn->name[0])
		snprintf(pn->name, sizeof(pn->name), "%s", pn->id);
	if (ca)	/* a host goes by its hostname, as topology_node_name() */
		pn->name[strcspn(pn->name, " \t")] = '\0';
}

static const char *
name_of_id(const struct plan_node *v, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].id, id) == 0)
			return v[i].name;
	return id;
}

/* "[p](guid)  "peer"[q]..." */
static bool
parse_port_line(const struct line *l, unsigned *port, char *peer, size_t plen, unsigned *pport)
{
	const char *end = l->s + l->len, *after;
	char *e;

	*port = (unsigned)strtoul(l->s + 1, &e, 10);
	if (e == l->s + 1 || *e != ']' || (after = quoted(e, end, peer, plen)) == NULL ||
	    after >= end || *after != '[')
		return false;
	*pport = (unsigned)strtoul(after + 1, &e, 10);
	return e != after + 1 && *e == ']';
}

static int
parse_ibnetdiscover(const char *name, const char *text, struct topology_plan *plan, char *err,
    size_t errlen)
{
	struct plan_node *nodes = NULL, cur = { "", "" };
	size_t nn = 0, cap = 0;
	struct line l = { 0 };
	const char *p = text;

	while (next_line(&p, &l)) {	/* first the names of every node */
		if (!is_node_line(&l))
			continue;
		if (nn == cap)
			nodes = xreallocarray(nodes, cap = cap ? cap * 2 : 64, sizeof(*nodes));
		node_of_line(&l, &nodes[nn++]);
	}
	memset(&l, 0, sizeof(l));
	p = text;
	while (next_line(&p, &l)) {
		char peer[TOPOLOGY_NAME_LEN];
		unsigned port, pport;

		if (is_node_line(&l)) {
			node_of_line(&l, &cur);
			continue;
		}
		if (l.len == 0 || l.s[0] != '[' || cur.name[0] == '\0')
			continue;
		if (!parse_port_line(&l, &port, peer, sizeof(peer), &pport)) {
			snprintf(err, errlen, "%s:%zu:1: expected [PORT] \"PEER\"[PORT]", name, l.no);
			free(nodes);
			return -1;
		}
		plan_add(plan, cur.name, port, name_of_id(nodes, nn, peer), pport);
	}
	free(nodes);
	return 0;
}

/* One CSV field, blanks trimmed; the column it starts at. */
static const char *
csv_field(const char **p, const char *end, char *buf, size_t len, size_t *col, const char *line)
{
	const char *s = *p, *e = memchr(s, ',', (size_t)(end - s));
	size_t n;

	e = e ? e : end;
	while (s < e && isspace((unsigned char)*s))
		s++;
	n = (size_t)(e - s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	*col = (size_t)(s - line) + 1;
	snprintf(buf, len, "%.*s", (int)n, s);
	*p = e < end ? e + 1 : end;
	return buf;
}

static bool
port_number(const char *s, unsigned *out)
{
	char *e;
	unsigned long v = strtoul(s, &e, 10);

	*out = (unsigned)v;
	return *s && *e == '\0' && v >= 1 && v <= 254;
}

static int
parse_csv(const char *name, const char *text, struct topology_plan *plan, char *err,
    size_t errlen)
{
	struct line l = { 0 };
	const char *p = text;
	bool first = true;

	while (next_line(&p, &l)) {
		char f[4][TOPOLOGY_NAME_LEN];
		const char *q = l.s, *end = l.s + l.len;
		unsigned pa, pb;
		size_t col[4], k;

		while (q < end && isspace((unsigned char)*q))
			q++;
		if (q == end || *q == '#')
			continue;
		for (k = 0; k < 4 && q < end; k++)
			csv_field(&q, end, f[k], sizeof(f[k]), &col[k], l.s);
		if (k < 4 || q < end) {
			snprintf(err, errlen, "%s:%zu:1: expected node,port,node,port", name, l.no);
			return -1;
		}
		if (!port_number(f[1], &pa) || !port_number(f[3], &pb)) {
			if (first)	/* a header line */
				continue;
			snprintf(err, errlen, "%s:%zu:%zu: port must be a number 1-254, not \"%s\"",
			    name, l.no, port_number(f[1], &pa) ? col[3] : col[1],
			    port_number(f[1], &pa) ? f[3] : f[1]);
			return -1;
		}
		first = false;
		plan_add(plan, f[0], pa, f[2], pb);
	}
	return 0;
}

int
topology_plan_parse(const char *name, const char *text, struct topology_plan *plan, char *err,
    size_t errlen)
{
	struct line l = { 0 };
	const char *p = text;
	bool ibnd = false;
	int rc;

	memset(plan, 0, sizeof(*plan));
	while (!ibnd && next_line(&p, &l))
		ibnd = is_node_line(&l);
	plan->format = ibnd ? "ibnetdiscover" : "csv";
	rc = ibnd ? parse_ibnetdiscover(name, text, plan, err, errlen) :
	    parse_csv(name, text, plan, err, errlen);
	if (rc == 0 && plan->n == 0) {
		snprintf(err, errlen, "%s:1:1: no cable in the plan", name);
		rc = -1;
	}
	if (rc != 0) {
		topology_plan_free(plan);
		return -1;
	}
	plan_finish(plan);
	return 0;
}

/* ---- the comparison ---- */

static json_t *
cable_json(const struct topology_cable *c)
{
	char a[TOPOLOGY_NAME_LEN + 8], b[TOPOLOGY_NAME_LEN + 8];

	snprintf(a, sizeof(a), "%s:%u", c->a.node, c->a.port);
	snprintf(b, sizeof(b), "%s:%u", c->b.node, c->b.port);
	return json_pack("{s:s, s:s}", "a", a, "b", b);
}

static bool
contains(const struct topology_plan *p, const struct topology_cable *c)
{
	return bsearch(c, p->cable, p->n, sizeof(*c), cable_cmp) != NULL;
}

/* The cables of from that to lacks, as pointers. */
static size_t
only_in(const struct topology_plan *from, const struct topology_plan *to,
    const struct topology_cable **out)
{
	size_t n = 0;

	for (size_t i = 0; i < from->n; i++)
		if (!contains(to, &from->cable[i]))
			out[n++] = &from->cable[i];
	return n;
}

/* The index of the cable among v[0..n) between ends x and y; n if none. */
static size_t
find_cable(const struct topology_cable **v, size_t n, const bool *used,
    const struct topology_end *x, const struct topology_end *y)
{
	for (size_t i = 0; i < n; i++) {
		if (used[i])
			continue;
		if ((end_cmp(&v[i]->a, x) == 0 && end_cmp(&v[i]->b, y) == 0) ||
		    (end_cmp(&v[i]->a, y) == 0 && end_cmp(&v[i]->b, x) == 0))
			return i;
	}
	return n;
}

/*
 * Two missing cables a-b and c-d with the cables a-d and c-b (or a-c and
 * b-d) found instead: their far ends were exchanged, one swap to undo.
 */
static void
pair_swaps(const struct topology_cable **miss, size_t nm, bool *mused,
    const struct topology_cable **extra, size_t ne, bool *eused, json_t *swaps)
{
	for (size_t i = 0; i < nm; i++) {
		for (size_t j = i + 1; j < nm && !mused[i]; j++) {
			const struct topology_cable *x = miss[i], *y = miss[j];
			const struct topology_end *pairs[2][4] = {
				{ &x->a, &y->b, &y->a, &x->b }, { &x->a, &y->a, &x->b, &y->b },
			};
			if (mused[j])
				continue;
			for (int k = 0; k < 2 && !mused[i]; k++) {
				size_t e1 = find_cable(extra, ne, eused, pairs[k][0], pairs[k][1]), e2;
				if (e1 == ne)
					continue;
				eused[e1] = true;
				e2 = find_cable(extra, ne, eused, pairs[k][2], pairs[k][3]);
				if (e2 == ne) {
					eused[e1] = false;
					continue;
				}
				eused[e2] = mused[i] = mused[j] = true;
				json_array_append_new(swaps, json_pack("{s:[o,o], s:[o,o]}",
				    "plan", cable_json(x), cable_json(y),
				    "live", cable_json(extra[e1]), cable_json(extra[e2])));
			}
		}
	}
}

json_t *
topology_diff(const struct topology_plan *plan, const struct topology_plan *live)
{
	const struct topology_cable **miss = xcalloc(plan->n + 1, sizeof(*miss));
	const struct topology_cable **extra = xcalloc(live->n + 1, sizeof(*extra));
	size_t nm = only_in(plan, live, miss), ne = only_in(live, plan, extra);
	bool *mused = xcalloc(nm + 1, sizeof(bool)), *eused = xcalloc(ne + 1, sizeof(bool));
	json_t *swaps = json_array(), *missing = json_array(), *extras = json_array();

	pair_swaps(miss, nm, mused, extra, ne, eused, swaps);
	for (size_t i = 0; i < nm; i++)
		if (!mused[i])
			json_array_append_new(missing, cable_json(miss[i]));
	for (size_t i = 0; i < ne; i++)
		if (!eused[i])
			json_array_append_new(extras, cable_json(extra[i]));
	free(miss);
	free(extra);
	free(mused);
	free(eused);
	return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:i}", "format", plan->format,
	    "plan_cables", (json_int_t)plan->n, "live_cables", (json_int_t)live->n,
	    "matching", (json_int_t)(plan->n - nm), "missing", missing, "extra", extras,
	    "swapped", swaps, "exit_code", nm + ne > 0 ? 1 : 0);
}
