/*
 * Port isolation (health.isolate): a link over the critical BER or the
 * flap limit is taken out of the routing, what UFM's PDR plugin does and no
 * open SM does.  The decision is health's; the mechanism is the routing
 * engines' excluded-port set (fabric/routing.h) and a heavy sweep, so the
 * SM routes around the link and programs only the LFT blocks that change.
 *
 * Guards, in order: the cap (default max(10, 0.5 % of links); past it only
 * an alert), and never the last path between two CAs (a port whose removal
 * would leave any CA unreachable from the others, a CA's own single link
 * included, is never isolated).  dry_run records and announces what would
 * be isolated, and changes no route.  A port comes back when the alarms
 * that isolated it have cleared (their quiet time included) or by
 * `fabricctl health unisolate PORT`; after an unisolate it is not isolated
 * again until those alarms have cleared once.  Every step is an event and
 * a row of health_isolations.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "daemon/store.h"
#include "fabric/routing.h"
#include "health/alarm_store.h"
#include "health/hstate.h"
#include "sm/sm.h"

/* An operator unisolated the port while one of its alarms stood. */
static bool
released(const struct hport *p)
{
	const struct alarm *b = alarm_find(health->alarms, p->object, HCHK_BER);
	const struct alarm *f = alarm_find(health->alarms, p->object, HCHK_FLAPPING);

	return (b && b->released) || (f && f->released);
}

/* The alarm that makes a port a candidate, or NULL. */
static const struct alarm *
isolating_alarm(const struct hport *p)
{
	const struct alarm *a = alarm_find(health->alarms, p->object, HCHK_BER);

	if (a && a->severity >= EV_CRITICAL)
		return a;
	return alarm_find(health->alarms, p->object, HCHK_FLAPPING);
}

static size_t
fabric_links(const struct fabric *f)
{
	struct fabric_node *n;
	size_t i, ends = 0;

	FABRIC_FOREACH_NODE(f, i, n)
		for (unsigned p = 1; p <= n->nports; p++)
			ends += n->ports[p].peer != NULL;
	return ends / 2;
}

size_t
health_isolate_cap(void)
{
	const struct fabric *f = sm_fabric(health->sm);
	size_t auto_cap = f ? fabric_links(f) / 200 : 0;

	if (health->cfg.isolate_max)
		return (size_t)health->cfg.isolate_max;
	return auto_cap > 10 ? auto_cap : 10;
}

static bool
cut(const struct fabric_port *pt, const struct hport *extra)
{
	const struct fabric_port *q = pt->peer;
	struct hport *hp = hport_find(pt->node->guid, pt->num), *hq;

	hq = q ? hport_find(q->node->guid, q->num) : NULL;
	if ((hp && hp->isolated) || (hq && hq->isolated))
		return true;
	return extra && ((extra->node_guid == pt->node->guid && extra->port == pt->num) ||
	    (q && extra->node_guid == q->node->guid && extra->port == q->num));
}

static ssize_t
node_index(const struct fabric *f, uint64_t guid)
{
	size_t lo = 0, hi = fabric_node_count(f);

	/* The model is kept in node-GUID order (fabric_sort). */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t g = fabric_node_at(f, mid)->guid;
		if (g == guid)
			return (ssize_t)mid;
		if (g < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* How many CAs the first cabled CA reaches with the isolated ports, and
 * extra, cut. */
static size_t
cas_reached(const struct fabric *f, const struct hport *extra)
{
	size_t n = fabric_node_count(f), head = 0, tail = 0, i, reached = 0;
	size_t *queue = xcalloc(n ? n : 1, sizeof(*queue));
	bool *seen = xcalloc(n ? n : 1, sizeof(*seen));
	struct fabric_node *nd;

	FABRIC_FOREACH_NODE(f, i, nd)
		if (nd->type != FABRIC_SWITCH && nd->nports && nd->ports[1].peer && tail == 0) {
			seen[i] = true;
			queue[tail++] = i;
		}
	while (head < tail) {
		nd = fabric_node_at(f, queue[head++]);
		reached += nd->type != FABRIC_SWITCH;
		for (unsigned p = 1; p <= nd->nports; p++) {
			const struct fabric_port *pt = &nd->ports[p];
			ssize_t j;
			if (pt->peer == NULL || cut(pt, extra) ||
			    (j = node_index(f, pt->peer->node->guid)) < 0 || seen[j])
				continue;
			seen[j] = true;
			queue[tail++] = (size_t)j;
		}
	}
	free(queue);
	free(seen);
	return reached;
}

/* Cutting p leaves some CA without a path to the others it reaches now
 * (a CA already cut off by a dead cable does not block every isolation). */
static bool
last_path(const struct fabric *f, const struct hport *p)
{
	return cas_reached(f, p) < cas_reached(f, NULL);
}

static void
record(struct hport *p, const char *check, const char *why, bool dry, int64_t now)
{
	struct store *st = health->fd->store;
	sqlite3_stmt *s = store_prepare(st, "INSERT INTO health_isolations (node_guid, port, "
	    "object, check_name, reason, dry_run, isolated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");

	if (s == NULL)
		return;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)p->node_guid);
	sqlite3_bind_int(s, 2, p->port);
	sqlite3_bind_text(s, 3, p->object, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 4, check, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 5, why, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 6, dry);
	sqlite3_bind_int64(s, 7, now);
	store_step_done(st, s);
}

static void
record_restore(struct hport *p, const char *by, int64_t now)
{
	struct store *st = health->fd->store;
	sqlite3_stmt *s = store_prepare(st, "UPDATE health_isolations SET restored_ms = ?1, "
	    "restored_by = ?2 WHERE node_guid = ?3 AND port = ?4 AND restored_ms IS NULL");

	if (s == NULL)
		return;
	sqlite3_bind_int64(s, 1, now);
	sqlite3_bind_text(s, 2, by, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)p->node_guid);
	sqlite3_bind_int(s, 4, p->port);
	store_step_done(st, s);
}

/* Hand the isolated ports to the routing engines and reroute. */
static void
apply(void)
{
	uint64_t *g = xcalloc(health->nports ? health->nports : 1, sizeof(*g));
	uint8_t *pn = xcalloc(health->nports ? health->nports : 1, sizeof(*pn));
	struct hport *p;
	size_t i, n = 0;

	HPORT_FOREACH(health, i, p)
		if (p->isolated && !p->iso_dry) {
			g[n] = p->node_guid;
			pn[n++] = p->port;
		}
	routing_exclude_set(g, pn, n);
	free(g);
	free(pn);
	sm_reroute(health->sm);
}

/* Refused once per failure: say why, not every round. */
static void
refuse(struct hport *p, const char *check, const char *why)
{
	if (p->iso_refused)
		return;
	p->iso_refused = true;
	event_post(EV_WARNING, "health", p->object, "not isolated (%s failing): %s", check, why);
}

static void
try_isolate(struct hport *p, const struct alarm *a, int64_t now)
{
	const struct fabric *f = sm_fabric(health->sm);
	const char *check = hchk_name(a->check);
	char why[96];

	if (f == NULL)
		return;
	if (health->nisolated >= health_isolate_cap()) {
		snprintf(why, sizeof(why), "the cap of %zu isolated ports is reached", health_isolate_cap());
		refuse(p, check, why);
		return;
	}
	if (last_path(f, p)) {
		refuse(p, check, "it is the last path between two CAs");
		return;
	}
	p->isolated = true;
	p->iso_dry = health->cfg.isolate_dry_run;
	p->isolated_ms = now;
	health->nisolated++;
	record(p, check, a->detail, p->iso_dry, now);
	if (p->iso_dry) {
		event_post(EV_WARNING, "health", p->object, "would isolate (dry run): %s: %s", check, a->detail);
		return;
	}
	event_post(EV_ERROR, "health", p->object, "isolated: %s: %s; routed around", check, a->detail);
	apply();
}

static void
restore(struct hport *p, const char *by, int64_t now)
{
	bool dry = p->iso_dry;

	p->isolated = p->iso_dry = false;
	health->nisolated--;
	record_restore(p, by, now);
	event_post(EV_INFO, "health", p->object, "%s: %s", dry ? "no longer a dry-run isolation" :
	    "restored to the routing", by);
	if (!dry)
		apply();
}

void
health_isolate_review(int64_t now)
{
	const struct alarm *a;
	struct hport *p;
	size_t i;

	if (health == NULL)
		return;
	/* Every port is looked at, but only by its flags: two alarm lookups
	 * for each of a storm's 7,776 ports held the loop for 10 ms. */
	HPORT_FOREACH(health, i, p) {
		if (!p->isolated && !p->iso_refused)
			continue;
		if (isolating_alarm(p) != NULL)
			continue;
		p->iso_refused = false;
		if (p->isolated)
			restore(p, "its alarms cleared after the quiet time", now);
	}
	if (!health->cfg.isolate_enabled)
		return;
	/* The candidates are the ports with a BER or flapping alarm. */
	for (i = 0; i < alarm_count(health->alarms); i++) {
		a = alarm_at(health->alarms, i);
		if (a->check != HCHK_BER && a->check != HCHK_FLAPPING)
			continue;
		p = hport_find(a->node_guid, a->port);
		if (p == NULL || p->isolated || (a = isolating_alarm(p)) == NULL || released(p))
			continue;
		try_isolate(p, a, now);
	}
}

int
health_unisolate(struct hport *p, const char *who)
{
	char by[128];

	if (!p->isolated)
		return -1;
	snprintf(by, sizeof(by), "unisolated by %s", who);	/* ctl_req_who() */
	/* The mark is on the alarms: it goes when they clear, and with them
	 * into the database and, with ha, to the next master. */
	for (unsigned c = 0; c < 2; c++) {
		const struct alarm *a = alarm_release(health->alarms, p->object,
		    c ? HCHK_FLAPPING : HCHK_BER);

		if (a)
			health_alarm_stored(health, a, true);
	}
	restore(p, by, event_now_ms());
	return 0;
}
