/*
 * The pre-flight on the subnets after the first (sm.subnets: the planes
 * of a multi-plane port, or rails): a job needs each host's port on every
 * one of them, and the routes between its hosts there, as on the first.
 * Each subnet's ports are checked against its SM's model (pf_check_plane)
 * and its routes walked over the tables that SM programmed, a slice a
 * turn as the first subnet's are (pf_routes_step): a walk over 1,296
 * hosts would hold the loop longer than a step may.  Every fault lands in
 * the one "planes" check, naming its subnet.
 *
 * On an observer each subnet's view is as old as its last read of that
 * subnet's SA, as the first's is: its tables for the hosts' LIDs are read
 * live before the walk and the ports its routes leave by after it
 * (pf_tables_live, pf_ports_live), as on the first subnet.  While a read
 * is out the walk waits (pf_planes_waiting) and resume() is called when
 * it is in; a walk ended with a read out is freed by the read's answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "validation/preflight_planes.h"

/* A subnet's model replaced this often during its walk (a sweep a slice)
 * leaves the check inconclusive rather than walking for ever. */
#define PLANE_RESTARTS_MAX	3

struct plane_walk {
	struct check		*c;		/* the planes check */
	void			(*resume)(void *);
	void			*arg;
	bool			 waiting;	/* a live read is out */
	bool			 ended;		/* pf_planes_end came while it was */
	bool			 observer;	/* this subnet's SM observes: read live */
	struct route_ports	 rp;		/* the ports this subnet's routes leave by */
	char			 live[120];	/* what the live reads found, for the detail */
	char *const		*hosts;
	size_t			 n;
	struct sm		*sm;		/* the subnet walked now; NULL: done */
	const struct fabric	*f;		/* its model, and the serial walked */
	uint64_t		 serial;
	unsigned		 restarts;
	struct host_view	*hv;
	struct check		 routes;	/* this subnet's walk, moved into c */
	struct route_walk	*walk;
	size_t			 walked;	/* subnets whose routes were walked */
};

/* Each host's first ACTIVE port on this subnet: where its routes start. */
static void
host_views(struct plane_walk *w, struct fabric *f)
{
	struct view_hosts *vh = view_hosts_new(f);

	w->hv = xcalloc(w->n ? w->n : 1, sizeof(*w->hv));
	for (size_t i = 0; i < w->n; i++) {
		struct host_view *h = &w->hv[i];

		h->host = w->hosts[i];
		h->nports = view_hosts_ports(vh, w->hosts[i], h->ports, VIEW_MAX_PORTS);
		for (size_t j = 0; j < h->nports && h->first_active == NULL; j++)
			if (h->ports[j].port->state == FABRIC_PORT_ACTIVE && h->ports[j].port->peer)
				h->first_active = h->ports[j].port;
	}
	view_hosts_free(vh);
}

static void
walk_drop(struct plane_walk *w)
{
	if (w->walk != NULL) {
		pf_routes_end(w->walk);
		pf_check_discard(&w->routes);
	}
	w->walk = NULL;
	free(w->hv);
	w->hv = NULL;
}

/* The subnet's routes' walk begun over its model now. */
static void
walk_begin(struct plane_walk *w, struct fabric *f)
{
	w->f = f;
	w->serial = fabric_serial(f);
	w->rp.n = 0;
	host_views(w, f);
	pf_check_init(&w->routes, "routes");
	w->walk = pf_routes_begin(&w->routes, NULL, w->hv, w->n, &w->rp);
}

/* A live read's answer: false when the walk was ended meanwhile (then it
 * is freed here, and nothing else may be touched). */
static bool
read_in(struct plane_walk *w)
{
	w->waiting = false;
	if (w->ended) {
		free(w->rp.t);
		free(w);
		return false;
	}
	return true;
}

static void
after_tables(const struct sm_lft_live *res, void *arg)
{
	struct plane_walk *w = arg;
	struct fabric *f;

	if (!read_in(w))
		return;
	snprintf(w->live, sizeof(w->live), "%zu of %zu LFT blocks read live", res->blocks_read,
	    res->blocks_read + res->blocks_failed);
	if ((f = sm_fabric(w->sm)) != NULL)
		walk_begin(w, f);
	w->resume(w->arg);
}

/* The subnet's ports now (not again when a walk starts over), and its
 * routes' walk begun (none while its SM has not swept: pf_check_plane
 * says so), on an observer once its tables are read live. */
static void
plane_start(struct plane_walk *w, bool ports)
{
	struct fabric *f = sm_fabric(w->sm);
	char why[8];

	if (ports) {
		w->live[0] = '\0';
		pf_check_plane(w->c, sm_subnet_name(w->sm), f, w->hosts, w->n);
		w->observer = sm_observer_refusal(w->sm, why, sizeof(why)) != NULL;
	}
	if (f == NULL)
		return;
	if (ports && w->observer) {
		w->waiting = true;
		if (pf_tables_live(w->sm, f, w->hosts, w->n, after_tables, w) == 0)
			return;
		w->waiting = false;
	}
	walk_begin(w, f);
}

/* A check's faults into the planes check, each naming the subnet. */
static void
faults_move(struct plane_walk *w, struct check *from)
{
	const char *subnet = sm_subnet_name(w->sm);
	size_t i;
	json_t *f;

	pf_check_done(from);
	json_array_foreach(from->faults, i, f) {
		char *msg;

		xasprintf(&msg, "%s: %s", subnet, json_string_value(json_object_get(f, "message")));
		json_object_set_new(f, "message", json_string(msg));
		json_object_set_new(f, "subnet", json_string(subnet));
		json_object_set_new(f, "check", json_string(w->c->name));
		json_array_append(w->c->faults, f);
		free(msg);
	}
	if (from->status == CHECK_FAIL)
		w->c->status = CHECK_FAIL;
	json_decref(from->faults);
}

/* The walk's faults into the planes check, and its detail. */
static void
plane_finish(struct plane_walk *w)
{
	size_t len;

	pf_routes_end(w->walk);
	w->walk = NULL;
	faults_move(w, &w->routes);
	len = strlen(w->c->detail);
	snprintf(w->c->detail + len, sizeof(w->c->detail) - len, " (%s%s%s)", w->routes.detail,
	    w->live[0] ? "; " : "", w->live);
	w->walked++;
	free(w->hv);
	w->hv = NULL;
}

static void
after_ports(const struct sm_port_live *res, size_t n, void *arg)
{
	struct plane_walk *w = arg;
	struct check c;
	size_t len;

	if (!read_in(w))
		return;
	pf_check_init(&c, w->c->name);
	pf_check_live(&c, sm_fabric(w->sm), res, n);
	faults_move(w, &c);
	len = strlen(w->c->detail);
	snprintf(w->c->detail + len, sizeof(w->c->detail) - len, " (%s)", c.detail[0] ? c.detail :
	    "route ports read live");
	w->resume(w->arg);
}

/* On an observer, the ports the walk's routes leave by, read live. */
static bool
ports_read(struct plane_walk *w)
{
	if (!w->observer)
		return false;
	w->waiting = true;
	if (pf_ports_live(w->sm, &w->rp, after_ports, w) == 0)
		return true;
	w->waiting = false;
	return false;
}

struct plane_walk *
pf_planes_begin(struct check *c, struct sm *first, char *const *hosts, size_t n,
    void (*resume)(void *), void *arg)
{
	struct plane_walk *w;

	if (sm_next_subnet(first) == NULL)
		return NULL;
	w = xcalloc(1, sizeof(*w));
	*w = (struct plane_walk){ .c = c, .hosts = hosts, .n = n, .sm = sm_next_subnet(first),
	    .resume = resume, .arg = arg };
	pf_check_init(c, "planes");
	plane_start(w, true);
	return w;
}

bool
pf_planes_waiting(const struct plane_walk *w)
{
	return w->waiting;
}

bool
pf_planes_step(struct plane_walk *w, int64_t until_us)
{
	while (w->sm != NULL && !w->waiting) {
		struct fabric *f = sm_fabric(w->sm);

		if (w->walk != NULL && (f != w->f || f == NULL || fabric_serial(f) != w->serial)) {
			/* a heavy sweep of this subnet freed the model walked */
			walk_drop(w);
			if (++w->restarts > PLANE_RESTARTS_MAX) {
				w->c->status = CHECK_INCONCLUSIVE;
				snprintf(w->c->detail, sizeof(w->c->detail), "%s: the model was "
				    "replaced %d times during the routes' walk: try again",
				    sm_subnet_name(w->sm), PLANE_RESTARTS_MAX + 1);
				w->sm = NULL;
				return true;
			}
			plane_start(w, false);
			continue;
		}
		if (w->walk != NULL) {
			if (!pf_routes_step(w->walk, until_us))
				return false;
			plane_finish(w);
			if (ports_read(w))
				return false;	/* resumed with the answer */
		}
		if ((w->sm = sm_next_subnet(w->sm)) != NULL) {
			w->restarts = 0;
			plane_start(w, true);
			return false;	/* the next subnet on a turn of its own */
		}
	}
	return w->sm == NULL;
}

void
pf_planes_end(struct plane_walk *w)
{
	if (w == NULL)
		return;
	walk_drop(w);
	if (w->waiting) {
		w->ended = true;	/* the read's answer frees it */
		return;
	}
	free(w->rp.t);
	free(w);
}
