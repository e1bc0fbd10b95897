/*
 * What changed between two heavy sweeps, as events: nodes that appeared or
 * went, links that came up or went down (each named by both ends), ports
 * that went down.  The first sweep reports one summary instead of a
 * thousand "appeared" lines, and a flood is cut to a summary too.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/events.h"
#include "sm/core/model.h"

#define DIFF_EVENTS_MAX 64

struct diff {
	unsigned	 n;		/* changes found */
	const char	*source;	/* the events' (sm_source) */
};

static void
post(struct diff *d, enum event_severity sev, const char *obj, const char *fmt, const char *a,
    const char *b)
{
	if (d->n++ < DIFF_EVENTS_MAX)
		event_post(sev, d->source, obj, fmt, a, b);
}

static void
port_name(const struct fabric_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", p->node->desc[0] ? p->node->desc : "?", p->num);
}

static void
node_name(const struct fabric_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s (" GUID_FMT ")", n->desc, n->guid);
}

/* Links of `from` absent from `to` (same GUIDs and port numbers). */
static void
links_missing(struct diff *d, const struct fabric *from, const struct fabric *to, bool up)
{
	struct fabric_node *n, *m;
	size_t i;
	unsigned j;
	char a[96], b[96];

	FABRIC_FOREACH_NODE(from, i, n) {
		for (j = 1; j <= n->nports; j++) {
			const struct fabric_port *p = &n->ports[j], *q = p->peer, *tq;

			if (q == NULL || (q->node->guid < n->guid) ||
			    (q->node == n && q->num < j))
				continue;	/* each link once */
			m = fabric_node_by_guid(to, n->guid);
			tq = m && j <= m->nports ? m->ports[j].peer : NULL;
			if (tq && tq->node->guid == q->node->guid && tq->num == q->num)
				continue;
			port_name(p, a, sizeof(a));
			port_name(q, b, sizeof(b));
			/* the object is one end: the message names only the other */
			post(d, up ? EV_INFO : EV_WARNING, a,
			    up ? "link to %s up%s" : "link to %s down%s", b, "");
		}
	}
}

static void
nodes_missing(struct diff *d, const struct fabric *from, const struct fabric *to, bool up)
{
	struct fabric_node *n;
	size_t i;
	char a[128];

	FABRIC_FOREACH_NODE(from, i, n) {
		if (fabric_node_by_guid(to, n->guid))
			continue;
		node_name(n, a, sizeof(a));
		post(d, up ? EV_INFO : EV_WARNING, a,
		    up ? "node appeared%s%s" : "node gone%s%s", "", "");
	}
}

unsigned
sm_diff_events(const struct fabric *old, const struct fabric *cur, const char *source)
{
	struct diff d = { 0, source };
	char text[160];

	if (old == NULL) {
		size_t i, sw = 0, ca = 0;
		struct fabric_node *n;

		FABRIC_FOREACH_NODE(cur, i, n)
			if (n->type == FABRIC_SWITCH)
				sw++;
			else
				ca++;
		snprintf(text, sizeof(text), "%zu switches, %zu CAs", sw, ca);
		event_post(EV_INFO, source, NULL, "fabric discovered: %s", text);
		return 1;
	}
	nodes_missing(&d, old, cur, false);
	nodes_missing(&d, cur, old, true);
	links_missing(&d, old, cur, false);
	links_missing(&d, cur, old, true);
	if (d.n > DIFF_EVENTS_MAX) {
		snprintf(text, sizeof(text), "%u", d.n - DIFF_EVENTS_MAX);
		event_post(EV_WARNING, source, NULL, "%s more fabric changes not listed", text);
	}
	return d.n;
}
