/*
 * The pre-flight's checks over the SM's fabric model: the hosts are in it,
 * their ports are up, the routes between them walk over the programmed
 * forwarding tables, and the ports on those routes are healthy.  Faults
 * name a node or port (preflight_checks.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xmalloc.h"
#include "daemon/events.h"
#include "health/health.h"
#include "validation/preflight_checks.h"
#include "validation/validation.h"

void
pf_check_init(struct check *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->faults = json_array();
	c->seen = json_object();
}

void
pf_check_done(struct check *c)
{
	json_decref(c->seen);
	c->seen = NULL;
}

/*
 * One fault per (code, host, port): every route over a bad switch port
 * meets it again, and the first says all a drain or a person needs.  A
 * fault that names no port is one per message.  The keys seen are
 * hashed (c->seen): a scan of the faults so far for each new one held
 * the loop 160 ms in a pre-flight over 1,296 degraded hosts.
 */
static bool
fault_seen(struct check *c, const char *host, const char *code, const char *port,
    const char *msg)
{
	char key[512];
	int n;

	/* NULL and "" kept apart; names from the fabric need not be UTF-8 */
	n = snprintf(key, sizeof(key), "%s\x1f%c%s\x1f%c%s", code, host ? 'h' : '-',
	    host ? host : "", port ? 'p' : 'm', port ? port : msg);
	if (n < 0)
		return false;
	if ((size_t)n >= sizeof(key))
		n = sizeof(key) - 1;
	if (json_object_getn(c->seen, key, (size_t)n) != NULL)
		return true;
	json_object_setn_nocheck(c->seen, key, (size_t)n, json_true());
	return false;
}

bool
pf_fault(struct check *c, const char *host, const char *hca, const struct fabric_port *p,
    const char *code, const char *fmt, ...)
{
	char msg[256], where[96] = "";
	va_list ap;
	json_t *f;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p != NULL)
		view_port_name(p, where, sizeof(where));
	c->status = CHECK_FAIL;
	if (fault_seen(c, host, code, p != NULL ? where : NULL, msg))
		return false;
	f = json_pack("{s:s, s:s, s:s}", "check", c->name, "code", code, "message", msg);
	if (host != NULL)
		json_object_set_new(f, "host", json_string(host));
	if (hca != NULL && *hca != '\0')
		json_object_set_new(f, "hca", json_string(hca));
	if (p != NULL) {
		json_object_set_new(f, "port", json_string(where));
		json_object_set_new(f, "port_num", json_integer(p->num));
		json_object_set_new(f, "node", json_string(p->node->desc));
	}
	json_array_append_new(c->faults, f);
	return true;
}

/* ---- checks over the SM's fabric model ---- */

/* A host that dropped out of the fabric: name the ports it was last
 * cabled with, and the switch ports they hung off. */
void
pf_host_lost(struct check *c, struct fabric *f, const char *host)
{
	struct view_lost lost[VIEW_MAX_PORTS];
	size_t k, nl = view_recall(f, host, lost, VIEW_MAX_PORTS);

	if (nl == 0) {
		pf_fault(c, host, NULL, NULL, "HostNotFound", "%s: no CA with this name on the fabric",
		    host);
		return;
	}
	bool added = false;

	for (k = 0; k < nl; k++)
		added = pf_fault(c, host, lost[k].hca, lost[k].peer, "IBPortDown",
		    "%s port %u is gone from the fabric (was cabled to %s port %u, now %s)", host,
		    lost[k].port, lost[k].peer_desc, lost[k].peer_port,
		    lost[k].peer ? fabric_port_state_name(lost[k].peer->state) : "unreachable");
	/* the host's own port, for callers that look for it by number */
	if (added)
		json_object_set_new(json_array_get(c->faults, json_array_size(c->faults) - 1),
		    "host_port", json_integer(lost[nl - 1].port));
}

void
pf_check_hosts(struct check *c, struct fabric *f, struct host_view *hv, size_t n)
{
	size_t i, missing = 0;

	for (i = 0; i < n; i++)
		if (hv[i].nports == 0) {
			pf_host_lost(c, f, hv[i].host);
			missing++;
		}
	snprintf(c->detail, sizeof(c->detail), "%zu of %zu hosts found", n - missing, n);
}

void
pf_check_ports(struct check *c, struct host_view *hv, size_t n)
{
	size_t i, j, checked = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < hv[i].nports; j++) {
			const struct fabric_port *p = hv[i].ports[j].port;
			checked++;
			if (p->state != FABRIC_PORT_ACTIVE || p->peer == NULL)
				pf_fault(c, hv[i].host, hv[i].ports[j].hca, p, "IBPortDown",
				    "%s port %u is %s (expected ACTIVE)", hv[i].host, p->num,
				    p->peer ? fabric_port_state_name(p->state) : "not connected");
			else if (p->degraded)
				pf_fault(c, hv[i].host, hv[i].ports[j].hca, p, "IBPortDegraded",
				    "%s port %u runs below the speed/width both ends support",
				    hv[i].host, p->num);
			else if (hv[i].first_active == NULL)
				hv[i].first_active = p;
		}
	snprintf(c->detail, sizeof(c->detail), "%zu host ports checked", checked);
}

/* "2026-12-01 11:40:02 UTC": when a health check last failed. */
static void
format_when(int64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* A cleared failure of a state check (link_down, not_active, degraded)
 * says only that the port was down and is up again: its state now is the
 * ports check's business, and a link that goes on bouncing raises
 * "flapping".  A cleared error-counter failure (symbol errors, BER...)
 * still marks a suspect cable while it is inside the window. */
static bool
cleared_state_event(json_t *e)
{
	static const char *const state_checks[] = { "link_down", "not_active", "degraded" };
	const char *check = json_string_value(json_object_get(e, "check"));

	if (check == NULL || json_object_get(e, "cleared_ms") == NULL)
		return false;
	for (size_t i = 0; i < sizeof(state_checks) / sizeof(state_checks[0]); i++)
		if (strcmp(check, state_checks[i]) == 0)
			return true;
	return false;
}

/* The newest failure of a port within the pre-flight window, or a bad
 * status: a fault naming node, port, check and when.  A failure that
 * health has cleared since still counts while it is inside the window,
 * unless it was a state check's (above). */
void
pf_health_port(struct check *c, const char *host, const char *hca, const struct fabric_port *p,
    const char *role)
{
	int64_t now = event_now_ms();
	enum health_port_status st = health_port_status(p->node->guid, p->num);
	json_t *ev = health_port_failures_since(p->node->guid, p->num,
	    now - (int64_t)validation_config()->preflight_window_ms);
	json_t *e = NULL;
	const char *detail, *check;
	int64_t last;
	char when[40] = "";
	size_t k;

	json_array_foreach(ev, k, e)
		if (!cleared_state_event(e))
			break;
	if (k == json_array_size(ev))
		e = NULL;
	detail = json_string_value(json_object_get(e, "detail"));
	check = json_string_value(json_object_get(e, "check"));
	last = (int64_t)json_integer_value(json_object_get(e, "last_seen_ms"));
	if (e != NULL)
		format_when(last, when, sizeof(when));
	if (e != NULL || st == HEALTH_PORT_DOWN || st == HEALTH_PORT_DEGRADED ||
	    st == HEALTH_PORT_WARNING) {
		bool added = pf_fault(c, host, hca, p, "HealthEvent", "%s %s port %u: %s%s%s%s%s%s%s",
		    role, p->node->desc, p->num, health_port_status_name(st), check ? ", " : "",
		    check ? check : "", e ? " failing at " : "", when,
		    json_object_get(e, "cleared_ms") ? " (cleared since): " : ": ",
		    detail ? detail : "");
		if (added && e != NULL) {
			json_t *f = json_array_get(c->faults, json_array_size(c->faults) - 1);
			json_object_set_new(f, "health_check", json_string(check));
			json_object_set_new(f, "when", json_string(when));
			json_object_set_new(f, "when_ms", json_integer(last));
		}
	}
	json_decref(ev);
}

static void
route_port_add(struct route_ports *rp, const struct fabric_node *n, uint8_t out, uint8_t in)
{
	for (size_t i = 0; i < rp->n; i++)
		if (rp->t[i].node_guid == n->guid && rp->t[i].port == out && rp->t[i].in == in)
			return;
	if (rp->n == rp->cap) {
		rp->cap = rp->cap ? 2 * rp->cap : 32;
		rp->t = xreallocarray(rp->t, rp->cap, sizeof(*rp->t));
	}
	rp->t[rp->n++] = (struct sm_qos_target){ n->guid, out, in };
}

/* The switch ports on one route: every egress must be ACTIVE, cabled
 * and not degraded. */
static void
check_one_route(struct check *c, struct check *health, const struct host_view *a,
    const struct host_view *b, struct route_ports *rp)
{
	struct routing_hop hops[MAX_HOPS];
	size_t nh = 0, i;
	int st = view_walk(a->first_active, b->first_active, hops, MAX_HOPS, &nh);

	if (st != ROUTING_WALK_OK) {
		const struct fabric_node *last = nh ? hops[nh - 1].node : a->first_active->node;
		const struct fabric_port *lp = nh && hops[nh - 1].out_port <= last->nports ?
		    &last->ports[hops[nh - 1].out_port] : NULL;
		pf_fault(c, a->host, NULL, lp, "Unroutable", "%s -> %s (LID %u): %s at %s", a->host,
		    b->host, b->first_active->lid, routing_walk_status_str((enum routing_walk_status)st),
		    last->desc);
		return;
	}
	route_port_add(rp, a->first_active->node, a->first_active->num, 0);
	for (i = 0; i < nh; i++) {
		const struct fabric_node *n = hops[i].node;
		const struct fabric_port *p;
		if (n->type != FABRIC_SWITCH || hops[i].out_port == 0 || hops[i].out_port > n->nports)
			continue;
		route_port_add(rp, n, hops[i].out_port, hops[i].in_port);
		p = &n->ports[hops[i].out_port];
		if (p->state != FABRIC_PORT_ACTIVE || p->peer == NULL)
			pf_fault(c, NULL, NULL, p, "RouteLinkDown", "route %s -> %s leaves %s port %u, %s",
			    a->host, b->host, n->desc, p->num, fabric_port_state_name(p->state));
		else if (p->degraded)
			pf_fault(c, NULL, NULL, p, "RouteLinkDegraded", "route %s -> %s crosses degraded "
			    "%s port %u", a->host, b->host, n->desc, p->num);
		if (health != NULL) {
			pf_health_port(health, NULL, NULL, p, "route link");
			if (p->peer != NULL)
				pf_health_port(health, NULL, NULL, p->peer, "route link");
		}
	}
}

/* Walks the route from host i to host j when both have a port up. */
static size_t
walk_pair(struct check *c, struct check *health, struct host_view *hv, size_t i, size_t j,
    struct route_ports *rp)
{
	if (i == j || hv[i].first_active == NULL || hv[j].first_active == NULL)
		return 0;
	check_one_route(c, health, &hv[i], &hv[j], rp);
	return 1;
}

void
pf_check_routes(struct check *c, struct check *health, struct host_view *hv, size_t n,
    struct route_ports *rp)
{
	size_t i, j, pairs = 0;

	if (n <= PAIRS_EXHAUSTIVE_MAX) {
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				pairs += walk_pair(c, health, hv, i, j, rp);
	} else {
		/* many hosts: a ring (i, i + 1) and a star (0, j), (i, 0)
		 * keep it O(n), in the order the full square would walk
		 * them (looping over the square found them in 1.7 million
		 * steps at 1,296 hosts) */
		for (j = 1; j < n; j++)
			pairs += walk_pair(c, health, hv, 0, j, rp);
		for (i = 1; i < n; i++) {
			pairs += walk_pair(c, health, hv, i, 0, rp);
			if (i + 1 < n)
				pairs += walk_pair(c, health, hv, i, i + 1, rp);
		}
	}
	snprintf(c->detail, sizeof(c->detail), "%zu routes walked over the programmed LFTs", pairs);
}

void
pf_skipped(struct check *c, const char *why)
{
	c->status = CHECK_SKIPPED;
	snprintf(c->detail, sizeof(c->detail), "skipped: %s", why);
}
