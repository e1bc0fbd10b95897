/*
 * The pre-flight on the subnets after the first (sm.subnets: the planes
 * of a multi-plane port, or rails): a job needs each host's port on every
 * one of them, and the routes between its hosts there, as on the first.
 * Each subnet's ports are checked against its SM's model (pf_check_plane)
 * and its routes walked over the tables that SM programmed, a slice a
 * turn as the first subnet's are (pf_routes_step): a walk over 1,296
 * hosts would hold the loop longer than a step may.  Every fault lands in
 * the one "planes" check, naming its subnet.
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

/* The subnet's ports now (not again when a walk starts over), and its
 * routes' walk begun (none while its SM has not swept: pf_check_plane
 * says so). */
static void
plane_start(struct plane_walk *w, bool ports)
{
	struct fabric *f = sm_fabric(w->sm);

	if (ports)
		pf_check_plane(w->c, sm_subnet_name(w->sm), f, w->hosts, w->n);
	if (f == NULL)
		return;
	w->f = f;
	w->serial = fabric_serial(f);
	host_views(w, f);
	pf_check_init(&w->routes, "routes");
	w->walk = pf_routes_begin(&w->routes, NULL, w->hv, w->n, NULL);
}

/* The walk's faults into the planes check, each naming the subnet. */
static void
plane_finish(struct plane_walk *w)
{
	const char *subnet = sm_subnet_name(w->sm);
	size_t i, len;
	json_t *f;

	pf_routes_end(w->walk);
	w->walk = NULL;
	pf_check_done(&w->routes);
	json_array_foreach(w->routes.faults, i, f) {
		char *msg;

		xasprintf(&msg, "%s: %s", subnet, json_string_value(json_object_get(f, "message")));
		json_object_set_new(f, "message", json_string(msg));
		json_object_set_new(f, "subnet", json_string(subnet));
		json_object_set_new(f, "check", json_string(w->c->name));
		json_array_append(w->c->faults, f);
		free(msg);
	}
	if (w->routes.status == CHECK_FAIL)
		w->c->status = CHECK_FAIL;
	len = strlen(w->c->detail);
	snprintf(w->c->detail + len, sizeof(w->c->detail) - len, " (%s)", w->routes.detail);
	json_decref(w->routes.faults);
	w->walked++;
	free(w->hv);
	w->hv = NULL;
}

struct plane_walk *
pf_planes_begin(struct check *c, struct sm *first, char *const *hosts, size_t n)
{
	struct plane_walk *w;

	if (sm_next_subnet(first) == NULL)
		return NULL;
	w = xcalloc(1, sizeof(*w));
	*w = (struct plane_walk){ .c = c, .hosts = hosts, .n = n, .sm = sm_next_subnet(first) };
	pf_check_init(c, "planes");
	plane_start(w, true);
	return w;
}

bool
pf_planes_step(struct plane_walk *w, int64_t until_us)
{
	while (w->sm != NULL) {
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
		}
		if ((w->sm = sm_next_subnet(w->sm)) != NULL) {
			w->restarts = 0;
			plane_start(w, true);
			return false;	/* the next subnet on a turn of its own */
		}
	}
	return true;
}

void
pf_planes_end(struct plane_walk *w)
{
	if (w == NULL)
		return;
	walk_drop(w);
	free(w);
}
