/*
 * `routing` (common/commands.def, sm section): the engine that routed and
 * why, then how busy the links are, from the tables the switches hold
 * (fabric/routing_loads.c): per level the links and their min/mean/max
 * routes, and the hottest link directions by name.
 */
#include <stdio.h>
#include <stdlib.h>

#include "daemon/control.h"
#include "fabric/routing_loads.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

#define TOP_DEFAULT	10
#define LEVELS		64	/* levels shown (a fat tree has 2-4) */

static const char *
node_name(const struct fabric_node *n, char *buf, size_t len)
{
	if (n->desc[0])
		return n->desc;
	snprintf(buf, len, "%#llx", (unsigned long long)n->guid);
	return buf;
}

static int
cmp_hot(const void *a, const void *b)
{
	const struct routing_link_load *x = a, *y = b;

	return x->routes < y->routes ? 1 : x->routes > y->routes ? -1 : 0;
}

struct level_sum {
	uint64_t	n, sum, min, max;
};

/* One row per (level, peer level) pair, in level order: leaves up first.
 * One pass over the links (a pass per pair of levels was 21 million steps
 * at 1,296 hosts, most of the reply's time on the loop). */
static json_t *
level_rows(const struct routing_loads *l)
{
	json_t *rows = json_array();
	unsigned top = 0;
	struct level_sum *sums;

	for (size_t i = 0; i < l->nlinks; i++) {
		const struct routing_link_load *k = &l->links[i];
		if (k->level < LEVELS && k->peer_level < LEVELS) {
			top = k->level > top ? k->level : top;
			top = k->peer_level > top ? k->peer_level : top;
		}
	}
	if ((sums = calloc((size_t)(top + 1) * (top + 1), sizeof(*sums))) == NULL)
		return rows;
	for (size_t i = 0; i < l->nlinks; i++) {
		const struct routing_link_load *k = &l->links[i];
		struct level_sum *t;

		if (k->level >= LEVELS || k->peer_level >= LEVELS)
			continue;	/* not reached from a leaf: no level */
		t = &sums[k->level * (top + 1) + k->peer_level];
		t->min = t->n == 0 || k->routes < t->min ? k->routes : t->min;
		t->max = k->routes > t->max ? k->routes : t->max;
		t->sum += k->routes;
		t->n++;
	}
	for (unsigned from = 0; from <= top; from++)
		for (unsigned to = 0; to <= top; to++) {
			const struct level_sum *t = &sums[from * (top + 1) + to];

			if (t->n)
				json_array_append_new(rows, json_pack("{s:i, s:i, s:I, s:I, s:f, s:I}",
				    "level", from, "peer_level", to, "links", (json_int_t)t->n,
				    "min", (json_int_t)t->min, "mean", (double)t->sum / (double)t->n,
				    "max", (json_int_t)t->max));
		}
	free(sums);
	return rows;
}

static json_t *
hot_rows(struct routing_loads *l, size_t top)
{
	char a[24], b[24];
	json_t *rows = json_array();

	qsort(l->links, l->nlinks, sizeof(*l->links), cmp_hot);
	for (size_t i = 0; i < l->nlinks && i < top; i++) {
		const struct routing_link_load *k = &l->links[i];
		json_array_append_new(rows, json_pack("{s:s, s:i, s:s, s:i, s:I}",
		    "node", node_name(k->sw, a, sizeof(a)), "port", k->port,
		    "peer", node_name(k->peer, b, sizeof(b)), "peer_port", k->peer_port,
		    "routes", (json_int_t)k->routes));
	}
	return rows;
}

void
ctl_sm_routing(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_of_req(req);
	struct routing_loads l;
	long long top = TOP_DEFAULT;
	struct fabric *f;
	json_t *res;

	if (json_object_get(args, "top") && (!ctl_arg_int(args, "top", &top) || top < 0)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "top: expected a number of links");
		return;
	}
	if ((f = sm_ctl_fabric(req)) == NULL)
		return;
	if (routing_loads_compute(f, &l) < 0) {
		ctl_reply_error(req, PERR_INTERNAL, "out of memory");
		return;
	}
	/* an observer routes nothing: the loads are of the master's tables */
	res = json_pack("{s:s, s:s, s:s, s:I, s:I, s:o}",
	    "configured", sm->observer ? "observer" : routing_engine_name(sm->cfg.routing),
	    "engine", sm->rt ? routing_engine_name(sm->rt->engine) : sm->observer ? "master" : "none",
	    "reason", sm->rt ? sm->rt->reason : sm->observer ?
	    "observer mode: the master SM's forwarding tables, read from its SA" : "",
	    "pairs", (json_int_t)l.pairs, "failed", (json_int_t)l.failed,
	    "levels", level_rows(&l));
	json_object_set_new(res, "hottest", hot_rows(&l, (size_t)top));
	/* the SM's own count of its tables against the least the fabric as it
	 * is allows: repairs let it drift, `routing rebalance` restores it */
	if (sm->rt && sm->rt->repair.bound)
		json_object_set_new(res, "balance", json_pack("{s:I, s:I}",
		    "hottest_routes", (json_int_t)sm->rt->repair.hottest,
		    "bound_routes", (json_int_t)sm->rt->repair.bound));
	/* and when the SM restores it by itself (sm/core/rebalance_sched.c) */
	if (sm->cfg.rebalance_window.set)
		json_object_set_new(res, "rebalance_window",
		    json_string(sm->cfg.rebalance_window.text));
	routing_loads_free(&l);
	ctl_reply_ok(req, res);
}
