/*
 * The pre-flight's checks over the SM's fabric model: the hosts are in it,
 * their ports are up, the routes between them walk over the programmed
 * forwarding tables, and the ports on those routes are healthy.  Faults
 * name a node or port (preflight_checks.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/guid.h"
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
	c->tally = json_object();
}

/*
 * A fabric-wide condition is named once.  When one check finds the same
 * code on more than PF_SAME_FAULTS ports (every link of a fabric cabled
 * below its best: 1,296 IBPortDegraded lines), those faults become one
 * with the count, the hosts it touches and a few examples (for the
 * degraded codes, the port list is `fabricctl ports --degraded`).  Such a
 * fault names no host, so it drains nobody: draining the whole cluster
 * does not mend a fabric.
 * Past the first PF_SAME_FAULTS + 1 of a code a fault is only counted
 * (c->tally), never built: building 1,296 objects to fold them into one
 * held the loop 3-6 ms of a pre-flight's 15.
 */
#define PF_SAME_FAULTS	8
#define PF_EXAMPLES	3

/* code -> {"n": faults, "hosts": {host: true}} */
static size_t
tally_add(struct check *c, const char *code, const char *host)
{
	json_t *t = json_object_get(c->tally, code), *n;

	if (t == NULL)
		json_object_set_new(c->tally, code, t = json_pack("{s:i, s:{}}", "n", 0, "hosts"));
	n = json_object_get(t, "n");
	json_integer_set(n, json_integer_value(n) + 1);
	if (host != NULL)
		json_object_set_new(json_object_get(t, "hosts"), host, json_true());
	return (size_t)json_integer_value(n);
}

/* The command that lists every port of a fabric-wide code, or "": a hint
 * no command can follow is not given (`ports --degraded` lists no host
 * that is down or was never cabled). */
static const char *
list_hint(const char *code)
{
	if (strcmp(code, "IBPortDegraded") == 0 || strcmp(code, "RouteLinkDegraded") == 0)
		return "; list: fabricctl ports --degraded";
	return "";
}

static json_t *
fabric_wide_fault(const struct check *c, const char *code, json_t *tally, json_t *faults)
{
	json_t *ex = json_array(), *first = NULL, *f;
	size_t n = (size_t)json_integer_value(json_object_get(tally, "n")), i;
	char msg[400];

	json_array_foreach(faults, i, f) {
		const char *port, *host;
		if (strcmp(json_string_value(json_object_get(f, "code")), code) != 0)
			continue;
		if (first == NULL)
			first = f;
		if (json_array_size(ex) == PF_EXAMPLES)
			break;
		port = json_string_value(json_object_get(f, "port"));
		host = json_string_value(json_object_get(f, "host"));
		json_array_append_new(ex, json_string(port ? port : host ? host : "?"));
	}
	snprintf(msg, sizeof(msg), "fabric-wide: %s on %zu ports of %zu hosts (e.g. %s)%s", code, n,
	    json_object_size(json_object_get(tally, "hosts")),
	    json_string_value(json_object_get(first, "message")), list_hint(code));
	return json_pack("{s:s, s:s, s:s, s:b, s:I, s:I, s:o}", "check", c->name, "code", code,
	    "message", msg, "fabric_wide", 1, "count", (json_int_t)n, "hosts",
	    (json_int_t)json_object_size(json_object_get(tally, "hosts")), "examples", ex);
}

/* Each code over PF_SAME_FAULTS becomes one fault, where its first was. */
static void
collapse_faults(struct check *c)
{
	json_t *out = json_array(), *f, *t;
	size_t i;

	json_array_foreach(c->faults, i, f) {
		const char *code = json_string_value(json_object_get(f, "code"));
		t = json_object_get(c->tally, code);
		if (t == NULL || json_integer_value(json_object_get(t, "n")) <= PF_SAME_FAULTS)
			json_array_append(out, f);
		else if (json_object_get(t, "named") == NULL) {
			json_array_append_new(out, fabric_wide_fault(c, code, t, c->faults));
			json_object_set_new(t, "named", json_true());
		}
	}
	json_decref(c->faults);
	c->faults = out;
}

void
pf_check_done(struct check *c)
{
	collapse_faults(c);
	json_decref(c->seen);
	json_decref(c->tally);
	c->seen = c->tally = NULL;
}

void
pf_check_discard(struct check *c)
{
	json_decref(c->faults);
	json_decref(c->seen);
	json_decref(c->tally);
	c->faults = c->seen = c->tally = NULL;
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
	char msg[256] = "", where[96] = "";
	va_list ap;
	json_t *f;

	if (p != NULL)
		view_port_name(p, where, sizeof(where));
	else {
		/* the message is the key of a fault that names no port */
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	c->status = CHECK_FAIL;
	if (fault_seen(c, host, code, p != NULL ? where : NULL, msg) ||
	    tally_add(c, code, host) > PF_SAME_FAULTS + 1)
		return false;
	if (p != NULL) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
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
 * cabled with, and the switch ports they hung off.  (The pre-flight
 * refuses a host never seen before it checks: HostNotFound is the
 * fallback of a caller that does not.) */
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
		    "%s:%u is gone from the fabric (was cabled to %s:%u, now %s)", host,
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
				    "%s:%u is %s (expected ACTIVE)", hv[i].host, p->num,
				    p->peer ? fabric_port_state_name(p->state) : "not connected");
			else if (p->degraded)
				pf_fault(c, hv[i].host, hv[i].ports[j].hca, p, "IBPortDegraded",
				    "%s:%u runs below the speed/width both ends support",
				    hv[i].host, p->num);
			else if (hv[i].first_active == NULL)
				hv[i].first_active = p;
		}
	if (checked == 0)	/* not a pass: nothing was there to check */
		pf_skipped(c, "no host port in the fabric to check (the hosts check says why)");
	else
		snprintf(c->detail, sizeof(c->detail), "%zu host ports checked", checked);
}

/* The fault just added names its subnet, when pf_fault added one. */
static void
name_subnet(struct check *c, bool added, const char *subnet)
{
	if (added)
		json_object_set_new(json_array_get(c->faults, json_array_size(c->faults) - 1),
		    "subnet", json_string(subnet));
}

static size_t
plane_host(struct check *c, const char *subnet, const char *host, const struct view_port *vp,
    size_t np)
{
	for (size_t j = 0; j < np; j++) {
		const struct fabric_port *p = vp[j].port;

		if (p->state == FABRIC_PORT_ACTIVE && p->peer != NULL)
			continue;
		name_subnet(c, pf_fault(c, host, vp[j].hca, p, "IBPortDown",
		    "%s: %s:%u is %s (expected ACTIVE)", subnet, host, p->num,
		    p->peer ? fabric_port_state_name(p->state) : "not connected"), subnet);
	}
	if (np == 0)	/* its only link down: the CA is out of this subnet's model */
		name_subnet(c, pf_fault(c, host, NULL, NULL, "IBPortDown", "%s: %s has no port "
		    "on this subnet (its cable there is down or unplugged)", subnet, host), subnet);
	return np;
}

void
pf_check_plane(struct check *c, const char *subnet, struct fabric *f, char *const *hosts,
    size_t n)
{
	struct view_port vp[VIEW_MAX_PORTS];
	struct view_hosts *vh;
	size_t checked = 0;

	if (f == NULL) {
		name_subnet(c, pf_fault(c, NULL, NULL, NULL, "SubnetNotUp", "%s: the subnet "
		    "manager of this subnet has not swept it yet", subnet), subnet);
		return;
	}
	vh = view_hosts_new(f);
	for (size_t i = 0; i < n; i++)
		checked += plane_host(c, subnet, hosts[i], vp,
		    view_hosts_ports(vh, hosts[i], vp, VIEW_MAX_PORTS));
	view_hosts_free(vh);
	snprintf(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
	    "%s%s: %zu host ports", c->detail[0] ? ", " : "", subnet, checked);
}

/* "2026-12-01T11:40:02Z" (ISO 8601, docs/cli.md): when a health check
 * last failed. */
static void
format_when(int64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A cleared failure of a state check (link_down, not_active, degraded)
 * says only that the port was down and is up again: its state now is the
 * ports check's business, and a link that goes on bouncing raises
 * "flapping".  A cleared error-counter failure (symbol errors, BER...)
 * still marks a suspect cable while it is inside the window. */
static bool
state_check(const char *check)
{
	static const char *const state_checks[] = { "link_down", "not_active", "degraded" };

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
	int64_t since = event_now_ms() - (int64_t)validation_config()->preflight_window_ms;
	enum health_port_status st = health_port_status(p->node->guid, p->num);
	struct health_failure e;
	bool failed = health_port_failure(p->node->guid, p->num, since, state_check, &e);
	char when[40] = "";

	if (!failed && st != HEALTH_PORT_DOWN && st != HEALTH_PORT_DEGRADED &&
	    st != HEALTH_PORT_WARNING)
		return;
	if (failed)
		format_when(e.last_seen_ms, when, sizeof(when));
	if (pf_fault(c, host, hca, p, "HealthEvent", "%s %s:%u: %s%s%s%s%s%s%s", role,
	    p->node->desc, p->num, health_port_status_name(st), failed ? ", " : "",
	    failed ? e.check : "", failed ? " failing at " : "", when,
	    failed && e.cleared ? " (cleared since): " : ": ", failed ? e.detail : "") && failed) {
		json_t *f = json_array_get(c->faults, json_array_size(c->faults) - 1);
		json_object_set_new(f, "health_check", json_string(e.check));
		json_object_set_new(f, "when", json_string(when));
		json_object_set_new(f, "when_ms", json_integer(e.last_seen_ms));
	}
}

/*
 * The routes' walk: what it has seen, so that each (out port, in port)
 * is a QoS target once and each port's health is asked once, however
 * many routes cross it (3,884 routes at 1,296 hosts: a linear search
 * per hop held the loop 24 ms).  Both maps are keyed by the port's
 * address, never 0 as a GUID is never 0.
 */
struct route_walk {
	struct check		*c, *health;
	struct route_ports	*rp;
	struct guid_map		 outs;		/* out port -> uint64_t[4]: the in ports seen */
	struct guid_map		 asked;		/* ports whose health was asked */
	struct host_view	*hv;
	size_t			 n;
	size_t			 next;		/* the cursor: pair_at() */
	size_t			 pairs;		/* routes walked */
};

static uint64_t
port_key(const struct fabric_port *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void
route_port_add(struct route_walk *w, const struct fabric_port *out, uint8_t in)
{
	struct route_ports *rp = w->rp;
	uint64_t *ins;

	if (rp == NULL)		/* not asked: another subnet's walk */
		return;
	if ((ins = guid_map_get(&w->outs, port_key(out))) == NULL)
		guid_map_put(&w->outs, port_key(out), ins = xcalloc(4, sizeof(*ins)));
	if (ins[in / 64] & (1ULL << (in % 64)))
		return;
	ins[in / 64] |= 1ULL << (in % 64);
	if (rp->n == rp->cap) {
		rp->cap = rp->cap ? 2 * rp->cap : 32;
		rp->t = xreallocarray(rp->t, rp->cap, sizeof(*rp->t));
	}
	rp->t[rp->n++] = (struct sm_qos_target){ out->node->guid, out->num, in };
}

static void
route_health(struct route_walk *w, const struct fabric_port *p)
{
	if (w->health == NULL || guid_map_get(&w->asked, port_key(p)) != NULL)
		return;
	guid_map_put(&w->asked, port_key(p), (void *)p);
	pf_health_port(w->health, NULL, NULL, p, "route link");
}

static void
route_walk_free(struct route_walk *w)
{
	for (size_t i = 0; i < w->outs.cap; i++)
		if (w->outs.keys[i])
			free(w->outs.vals[i]);
	guid_map_free(&w->outs);
	guid_map_free(&w->asked);
	free(w);
}

/* The switch ports on one route: every egress must be ACTIVE, cabled
 * and not degraded. */
static void
check_one_route(struct route_walk *w, const struct host_view *a, const struct host_view *b)
{
	struct routing_hop hops[MAX_HOPS];
	size_t nh = 0, i;
	int st = view_walk(a->first_active, b->first_active, hops, MAX_HOPS, &nh);

	if (st != ROUTING_WALK_OK) {
		const struct fabric_node *last = nh ? hops[nh - 1].node : a->first_active->node;
		const struct fabric_port *lp = nh && hops[nh - 1].out_port <= last->nports ?
		    &last->ports[hops[nh - 1].out_port] : NULL;
		pf_fault(w->c, a->host, NULL, lp, "Unroutable", "%s -> %s (LID %u): %s at %s",
		    a->host, b->host, b->first_active->lid,
		    routing_walk_status_str((enum routing_walk_status)st), last->desc);
		return;
	}
	route_port_add(w, a->first_active, 0);
	for (i = 0; i < nh; i++) {
		const struct fabric_node *n = hops[i].node;
		const struct fabric_port *p;
		if (n->type != FABRIC_SWITCH || hops[i].out_port == 0 || hops[i].out_port > n->nports)
			continue;
		p = &n->ports[hops[i].out_port];
		route_port_add(w, p, hops[i].in_port);
		if (p->state != FABRIC_PORT_ACTIVE || p->peer == NULL)
			pf_fault(w->c, NULL, NULL, p, "RouteLinkDown", "route %s -> %s leaves %s:%u, %s",
			    a->host, b->host, n->desc, p->num, fabric_port_state_name(p->state));
		else if (p->degraded)
			pf_fault(w->c, NULL, NULL, p, "RouteLinkDegraded", "route %s -> %s crosses degraded "
			    "%s:%u", a->host, b->host, n->desc, p->num);
		route_health(w, p);
		if (p->peer != NULL)
			route_health(w, p->peer);
	}
}

/* Walks the route from host i to host j when both have a port up. */
static size_t
walk_pair(struct route_walk *w, size_t i, size_t j)
{
	struct host_view *hv = w->hv;

	if (i == j || hv[i].first_active == NULL || hv[j].first_active == NULL)
		return 0;
	check_one_route(w, &hv[i], &hv[j]);
	return 1;
}

/*
 * The pair at the walk's cursor; false past the last.  Up to
 * PAIRS_EXHAUSTIVE_MAX hosts every ordered pair; above, a star (0, j),
 * then (i, 0) and a ring (i, i + 1) for each i: O(n), in the order the
 * full square would walk them (looping over the square found them in 1.7
 * million steps at 1,296 hosts).
 */
static bool
pair_at(const struct route_walk *w, size_t *i, size_t *j)
{
	size_t n = w->n, k = w->next, r;

	if (n <= PAIRS_EXHAUSTIVE_MAX) {
		*i = k / n;
		*j = k % n;
		return k < n * n;
	}
	if (k < n - 1) {
		*i = 0;
		*j = k + 1;
		return true;
	}
	r = k - (n - 1);
	*i = 1 + r / 2;
	*j = r % 2 == 0 ? 0 : *i + 1;
	return *i < n;
}

struct route_walk *
pf_routes_begin(struct check *c, struct check *health, struct host_view *hv, size_t n,
    struct route_ports *rp)
{
	struct route_walk *w = xcalloc(1, sizeof(*w));

	*w = (struct route_walk){ .c = c, .health = health, .rp = rp, .hv = hv, .n = n };
	return w;
}

/* Checks the pairs' clock every PAIRS_PER_CLOCK pairs (a route is a few
 * microseconds). */
#define PAIRS_PER_CLOCK	32

bool
pf_routes_step(struct route_walk *w, int64_t until_us)
{
	size_t i, j, k;

	if (w->n == 0)
		return true;
	for (;;) {
		for (k = 0; k < PAIRS_PER_CLOCK; k++, w->next++) {
			if (!pair_at(w, &i, &j))
				return true;
			if (j < w->n)
				w->pairs += walk_pair(w, i, j);
		}
		if (clock_mono_us() >= until_us)
			return false;
	}
}

void
pf_routes_end(struct route_walk *w)
{
	if (w == NULL)
		return;
	if (w->pairs == 0 && w->c->status == CHECK_PASS)
		pf_skipped(w->c, "no route between two hosts in the fabric to walk");
	else
		snprintf(w->c->detail, sizeof(w->c->detail), "%zu routes walked over the programmed "
		    "LFTs", w->pairs);
	route_walk_free(w);
}

void
pf_skipped(struct check *c, const char *why)
{
	c->status = CHECK_SKIPPED;
	snprintf(c->detail, sizeof(c->detail), "skipped: %s", why);
}

int
pf_tables_live(struct sm *sm, struct fabric *f, char *const *hosts, size_t n,
    sm_lft_done_fn done, void *arg)
{
	struct view_port ports[VIEW_MAX_PORTS];
	struct view_hosts *vh = view_hosts_new(f);
	size_t nlids = 0, cap = n * VIEW_MAX_PORTS + 1;
	uint16_t *lids = xcalloc(cap, sizeof(*lids));
	int rc;

	for (size_t i = 0; i < n; i++) {
		size_t np = view_hosts_ports(vh, hosts[i], ports, VIEW_MAX_PORTS);

		for (size_t k = 0; k < np; k++)
			if (ports[k].port->lid != 0)
				lids[nlids++] = ports[k].port->lid;
	}
	view_hosts_free(vh);
	rc = sm_lft_read_live(sm, lids, nlids, done, arg);
	free(lids);
	return rc;
}

void
pf_check_tables(struct check *c, const struct sm_lft_live *r)
{
	char guid[GUID_STR_LEN];

	if (r->blocks_read == 0 && r->blocks_failed > 0) {
		c->status = CHECK_INCONCLUSIVE;
		snprintf(c->detail, sizeof(c->detail), "no switch answered a LinearForwardingTable "
		    "Get: the routes were walked over the view's copy");
		return;
	}
	snprintf(c->detail, sizeof(c->detail), "%zu block%s of the hosts' LIDs read live from %zu "
	    "switches (%zu entr%s had changed since the view was read)", r->blocks_read,
	    r->blocks_read == 1 ? "" : "s", r->switches, r->entries_changed,
	    r->entries_changed == 1 ? "y" : "ies");
	if (r->blocks_failed > 0) {
		guid_format(r->unread_guid, guid, sizeof(guid));
		snprintf(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
		    "; %zu did not answer (the first of switch %s): its copy was walked",
		    r->blocks_failed, guid);
	}
}

static int
target_cmp(const void *a, const void *b)
{
	const struct sm_qos_target *x = a, *y = b;

	if (x->node_guid != y->node_guid)
		return x->node_guid < y->node_guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

int
pf_ports_live(struct sm *sm, const struct route_ports *rp, sm_live_done_fn done, void *arg)
{
	struct sm_qos_target *u;
	size_t i, n = 0;
	int rc;

	if (rp->n == 0)
		return -1;
	u = xcalloc(rp->n, sizeof(*u));
	memcpy(u, rp->t, rp->n * sizeof(*u));
	qsort(u, rp->n, sizeof(*u), target_cmp);
	for (i = 0; i < rp->n; i++)
		if (n == 0 || target_cmp(&u[n - 1], &u[i]) != 0)
			u[n++] = u[i];
	rc = sm_ports_read_live(sm, u, n, done, arg);
	free(u);
	return rc;
}

/* The model's port, and the cable's far end as the model knows it. */
static void
live_fault(struct check *c, const struct fabric *f, const struct sm_port_live *l)
{
	struct fabric_node *n = f ? fabric_node_by_guid(f, l->node_guid) : NULL;
	const struct fabric_port *p = n && l->port <= n->nports ? &n->ports[l->port] : NULL;
	char far[96] = "";

	if (p == NULL)
		return;
	if (p->peer != NULL)
		snprintf(far, sizeof(far), " (cable to %s:%u)", p->peer->node->desc,
		    p->peer->num);
	if (!l->answered && l->reads == 0)
		pf_fault(c, NULL, NULL, p, "RouteLinkUnreadable", "%s:%u%s has no LID to read it "
		    "at: a route crosses it", n->desc, p->num, far);
	else if (!l->answered)
		pf_fault(c, NULL, NULL, p, "RouteLinkUnreadable", "%s:%u%s did not answer %u "
		    "PortInfo Gets, each with its retries: a route crosses it", n->desc, p->num,
		    far, l->reads);
	else
		pf_fault(c, NULL, NULL, p, "RouteLinkDown", "%s:%u%s is %s (physical state %s), "
		    "read live; the routes the switches hold cross it", n->desc, p->num, far,
		    fabric_port_state_name(l->state), fabric_phys_state_name(l->phys_state));
}

void
pf_check_live(struct check *c, const struct fabric *f, const struct sm_port_live *res, size_t n)
{
	size_t i, up = 0;

	for (i = 0; i < n; i++) {
		if (res[i].answered && res[i].state == FABRIC_PORT_ACTIVE)
			up++;
		else
			live_fault(c, f, &res[i]);
	}
	if (c->status != CHECK_FAIL)
		snprintf(c->detail, sizeof(c->detail), "%zu route ports read live, every one Active", up);
}
