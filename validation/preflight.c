/*
 * Pre-flight: is this set of hosts fit to run a training job, and if not,
 * which node or port is at fault?  Each check is a function over the
 * public state of another module; a check whose module is not available
 * says "skipped" rather than guessing.  Verdict and exit code:
 *   0 pass (skipped checks listed), 1 a fault names a node/port,
 *   2 inconclusive (no fabric state, or the NCCL job could not run);
 * a request refused (a host the fabric never had: unknown_hosts) is an
 * invalid_argument error, which fabricctl exits 2 on too.
 * The NCCL environment itself is computed in nccl_env.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "common/clock.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "health/health.h"
#include "partitions/partitions.h"
#include "roce_qos/roce_qos.h"
#include "sm/sm.h"
#include "validation/fabric_view.h"
#include "validation/preflight_checks.h"
#include "validation/preflight_planes.h"
#include "validation/validation.h"

static const char *const check_status_names[] = { "pass", "fail", "skipped", "inconclusive" };

/* ---- the run ---- */

struct preflight {
	struct ctl_req	*req;
	json_t		*checks;
	json_t		*faults;
	json_t		*hosts;
	bool		 any_fail, any_inconclusive, no_fabric;
	bool		 slurm;		/* --format slurm: the drain lines too */
	/* what runs after the QoS tables are read again */
	struct route_ports route_ports;
	int		 sl;		/* the job's SL */
	char		**host_list;
	size_t		 nhosts;
	char		*tenant, *launcher;
	bool		 nccl;
	uint64_t	 timeout_ms;
	/* the routes' walk, a slice a turn (fabric_turn): the model walked
	 * (its address and serial), the hosts' ports in it, the two checks
	 * it fills, and the list of walking runs (preflights_stop) */
	struct event	*turn;
	const struct fabric *fabric;
	uint64_t	 serial;
	unsigned	 restarts;
	struct host_view *hv;
	struct check	 routes, health;
	bool		 health_on;
	struct route_walk *walk;
	/* then the other subnets' (preflight_planes.c) */
	struct plane_walk *planes;
	struct check	 planes_check;
	struct preflight *next_walking;
};

static struct preflight *walking;

static void
add_check(struct preflight *pf, struct check *c)
{
	size_t i;
	json_t *f;

	pf_check_done(c);
	json_array_foreach(c->faults, i, f)
		json_array_append(pf->faults, f);
	if (c->status == CHECK_FAIL)
		pf->any_fail = true;
	if (c->status == CHECK_INCONCLUSIVE)
		pf->any_inconclusive = true;
	json_array_append_new(pf->checks, json_pack("{s:s, s:s, s:s, s:o}", "name", c->name,
	    "status", check_status_names[c->status], "detail", c->detail, "faults", c->faults));
}

/*
 * Slurm drain lines: one per host that a fault names, with the first
 * fault's code and port as reason (what examples/slurm-prolog.sh writes).
 * Faults naming no host (a switch port on a route) drain nobody, and an
 * inconclusive pre-flight none at all: only a named fault takes a node.
 */
static json_t *
drain_lines(json_t *faults)
{
	json_t *out = json_array(), *seen = json_object(), *f;
	size_t i;

	json_array_foreach(faults, i, f) {
		const char *host = json_string_value(json_object_get(f, "host"));
		const char *port = json_string_value(json_object_get(f, "port"));
		if (host == NULL || json_object_get(seen, host))
			continue;
		json_object_set_new(seen, host, json_true());
		json_array_append_new(out, json_sprintf("scontrol update nodename=%s state=drain "
		    "reason=\"fabricd: %s %s\"", host,
		    json_string_value(json_object_get(f, "code")), port ? port : host));
	}
	json_decref(seen);
	return out;
}

/* Pre-flights answered, by verdict (pass, fail, inconclusive): for
 * fabricd_validation_preflights_total, which a scheduler's alert watches. */
static uint64_t preflight_verdicts[3];
static uint64_t walk_restarts;

uint64_t
preflight_walk_restarts(void)
{
	return walk_restarts;
}

uint64_t
preflight_count(int verdict)
{
	return verdict >= 0 && verdict < 3 ? preflight_verdicts[verdict] : 0;
}

/*
 * The faults that name no host (a switch port on a route, a fabric-wide
 * condition, an unknown tenant): one reason line each, a comment to a
 * shell, so that a failing pre-flight always says why even when it
 * drains nobody.
 */
static json_t *
reason_lines(json_t *faults)
{
	json_t *out = json_array(), *f;
	size_t i;

	json_array_foreach(faults, i, f) {
		const char *port = json_string_value(json_object_get(f, "port"));
		if (json_object_get(f, "host") != NULL)
			continue;
		json_array_append_new(out, json_sprintf("# fabricd: %s %s: %s (no node to drain)",
		    json_string_value(json_object_get(f, "code")), port ? port : "fabric",
		    json_string_value(json_object_get(f, "message"))));
	}
	return out;
}

static void
preflight_free(struct preflight *pf)
{
	free(pf->route_ports.t);
	for (size_t i = 0; i < pf->nhosts; i++)
		free(pf->host_list[i]);
	free(pf->host_list);
	free(pf->tenant);
	free(pf->launcher);
	free(pf);
}

/* A run that ends without the answer of its checks. */
static void
preflight_abandon(struct preflight *pf)
{
	json_decref(pf->checks);
	json_decref(pf->faults);
	json_decref(pf->hosts);
	preflight_free(pf);
}

static void
preflight_answer(struct preflight *pf)
{
	int code = pf->any_fail ? 1 : pf->any_inconclusive ? 2 : 0;
	json_t *res = json_pack("{s:s, s:i, s:O, s:o, s:o}", "verdict",
	    code == 0 ? "pass" : code == 1 ? "fail" : "inconclusive", "exit_code", code,
	    "hosts", pf->hosts, "checks", pf->checks, "faults", pf->faults);

	if (pf->slurm) {
		json_object_set_new(res, "format", json_string("slurm"));
		json_object_set_new(res, "drain", code == 1 ? drain_lines(pf->faults) : json_array());
		json_object_set_new(res, "reasons", code == 1 ? reason_lines(pf->faults) :
		    json_array());
	}
	json_decref(pf->hosts);
	preflight_verdicts[code]++;
	ctl_reply_ok(pf->req, res);
	preflight_free(pf);
}

static void
nccl_done(struct job *j, void *arg)
{
	struct preflight *pf = arg;
	const struct verdict_result *r = job_result(j);
	struct check c;

	pf_check_init(&c, "nccl");
	snprintf(c.detail, sizeof(c.detail), "job %lld: %s: %s", (long long)job_id(j), r->code,
	    r->reason);
	if (r->verdict == VERDICT_FAIL) {
		json_t *f = json_pack("{s:s, s:s, s:s, s:I}", "check", "nccl", "code", r->code,
		    "message", r->reason, "job", (json_int_t)job_id(j));
		if (r->host[0])
			json_object_set_new(f, "host", json_string(r->host));
		if (r->hca[0])
			json_object_set_new(f, "hca", json_string(r->hca));
		json_array_append_new(c.faults, f);
		c.status = CHECK_FAIL;
	} else if (r->verdict == VERDICT_INCONCLUSIVE)
		c.status = CHECK_INCONCLUSIVE;
	add_check(pf, &c);
	preflight_answer(pf);
}

static void
check_health_ports(struct check *c, struct host_view *hv, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < hv[i].nports; j++)
			pf_health_port(c, hv[i].host, hv[i].ports[j].hca, hv[i].ports[j].port, "host");
}

/* The tenant's P_Key at one index on every host port: NCCL_IB_PKEY is
 * one index for all ranks. */
static void
check_pkey(struct check *c, struct host_view *hv, size_t n, const char *tenant)
{
	uint16_t pkey = 0;
	int want, idx;
	size_t i, j, ports = 0;

	if ((want = partitions_index_of(tenant, &pkey)) < 0 && pkey == 0) {
		pf_fault(c, NULL, NULL, NULL, "TenantUnknown", "no partition \"%s\" is configured", tenant);
		return;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < hv[i].nports; j++) {
			const struct fabric_port *p = hv[i].ports[j].port;
			ports++;
			idx = partitions_pkey_index(p->guid, pkey, NULL);
			if (idx < 0)
				pf_fault(c, hv[i].host, hv[i].ports[j].hca, p, "PKeyMissing",
				    "%s:%u does not hold P_Key 0x%04x (%s)", hv[i].host, p->num,
				    pkey, tenant);
			else if (want >= 0 && idx != want)
				pf_fault(c, hv[i].host, hv[i].ports[j].hca, p, "PKeyIndexMismatch",
				    "%s:%u holds P_Key 0x%04x at index %d, not %d", hv[i].host,
				    p->num, pkey, idx, want);
			else if (want < 0)
				want = idx;
		}
	/* over a plane group: the same index on each host's other planes */
	for (i = 0; want >= 0 && i < n; i++) {
		char why[160];

		if (partitions_planes_refusal(hv[i].host, pkey, want, why, sizeof(why)) != NULL)
			pf_fault(c, hv[i].host, NULL, NULL, "PKeyPlaneMismatch", "%s", why);
	}
	if (c->status != CHECK_FAIL)
		snprintf(c->detail, sizeof(c->detail), "P_Key 0x%04x at index %d on %zu ports", pkey,
		    want, ports);
}

/*
 * A host the fabric has never had a CA of (a typo, another cluster's node,
 * a range wider than the cluster) is the request's error, in every format:
 * invalid_argument, exit 2.  As a fault it was exit 1, what a scheduler
 * drains on, and `scontrol update nodename=nosuch` helps nobody; its hint
 * (fabricctl ports) could not help either, the host has no ports.  A host
 * that was seen and is gone stays a fault (pf_host_lost: IBPortDown).
 */
#define UNKNOWN_LIST_MAX	400	/* the names' hostlist, cut after this */

static bool
unknown_hosts(struct ctl_req *req, struct fabric *f, const struct host_view *hv, size_t n)
{
	struct view_lost lost[VIEW_MAX_PORTS];
	const char **names = xcalloc(n, sizeof(*names));
	size_t i, nu = 0;
	char *list;

	for (i = 0; i < n; i++)
		if (hv[i].nports == 0 && view_recall(f, hv[i].host, lost, VIEW_MAX_PORTS) == 0)
			names[nu++] = hv[i].host;
	if (nu == 0) {
		free(names);
		return false;
	}
	list = hostlist_compress(names, nu);
	ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--hosts: %zu host%s not in the fabric: %.*s%s "
	    "(no CA of that name since fabricd started; fabricctl nodes lists the fabric's nodes)",
	    nu, nu == 1 ? "" : "s", UNKNOWN_LIST_MAX, list,
	    strlen(list) > UNKNOWN_LIST_MAX ? "..." : "");
	free(list);
	free(names);
	return true;
}

static void
no_fabric_checks(struct preflight *pf)
{
	static const char *const names[] = { "hosts", "ports", "routes", "health", "pkey" };
	struct check c;
	char why[8];
	int64_t due = sm_observer_next_read_in_ms(view_sm());
	bool observer = sm_observer_refusal(view_sm(), why, sizeof(why)) != NULL;

	for (size_t i = 0; i < 5; i++) {
		pf_check_init(&c, names[i]);
		c.status = CHECK_INCONCLUSIVE;
		if (observer && due > 0)	/* not a bare "unavailable": when it will know */
			snprintf(c.detail, sizeof(c.detail), "skipped: observer mode, the first read "
			    "of the fabric from the master SM's SA is pending, due in %lld s",
			    (long long)(due + 999) / 1000);
		else if (observer)
			snprintf(c.detail, sizeof(c.detail), "skipped: observer mode, the first read "
			    "of the fabric from the master SM's SA is under way");
		else
			snprintf(c.detail, sizeof(c.detail), "skipped: SM not running (no fabric state)");
		add_check(pf, &c);
	}
	pf->no_fabric = true;
}

/*
 * The checks over the fabric model that take one step (the hosts, their
 * ports and their health), then the routes' walk begins; false when the
 * request was refused (and answered).
 */
static bool
fabric_begin(struct preflight *pf, struct fabric *f)
{
	struct view_hosts *vh;
	struct check c;
	size_t i, n = pf->nhosts;

	view_remember(f);
	pf->fabric = f;
	pf->serial = fabric_serial(f);
	pf->hv = xcalloc(n, sizeof(*pf->hv));
	vh = view_hosts_new(f);
	for (i = 0; i < n; i++) {
		pf->hv[i].host = pf->host_list[i];
		pf->hv[i].nports = view_hosts_ports(vh, pf->host_list[i], pf->hv[i].ports,
		    VIEW_MAX_PORTS);
	}
	view_hosts_free(vh);
	if (unknown_hosts(pf->req, f, pf->hv, n)) {
		free(pf->hv);
		pf->hv = NULL;
		return false;
	}
	pf_check_init(&c, "hosts");
	pf_check_hosts(&c, f, pf->hv, n);
	add_check(pf, &c);
	pf_check_init(&c, "ports");
	pf_check_ports(&c, pf->hv, n);
	add_check(pf, &c);
	pf_check_init(&pf->health, "health");
	pf->health_on = validation_module_up(MOD_HEALTH) && health_running();
	if (pf->health_on) {
		check_health_ports(&pf->health, pf->hv, n);
		snprintf(pf->health.detail, sizeof(pf->health.detail),
		    "host ports and the links on their routes");
	}
	pf_check_init(&pf->routes, "routes");
	pf->walk = pf_routes_begin(&pf->routes, pf->health_on ? &pf->health : NULL, pf->hv, n,
	    &pf->route_ports);
	return true;
}

/* After the walk's last slice: the checks in the order they always had. */
static void
fabric_end(struct preflight *pf)
{
	struct check c;

	pf_routes_end(pf->walk);
	pf->walk = NULL;
	add_check(pf, &pf->routes);
	if (!pf->health_on)
		pf_skipped(&pf->health, "health module not running");
	add_check(pf, &pf->health);
	pf_check_init(&c, "pkey");
	if (pf->tenant == NULL)
		pf_skipped(&c, "no --partition given");
	else if (!validation_module_up(MOD_PARTITIONS))
		pf_skipped(&c, "partitions module not running");
	else
		check_pkey(&c, pf->hv, pf->nhosts, pf->tenant);
	add_check(pf, &c);
	free(pf->hv);
	pf->hv = NULL;
}

/* A walk left half done: what it found so far is dropped. */
static void
fabric_drop(struct preflight *pf)
{
	if (pf->planes != NULL) {	/* the first subnet's checks are added */
		pf_planes_end(pf->planes);
		pf->planes = NULL;
		pf_check_discard(&pf->planes_check);
	}
	if (pf->walk == NULL)
		return;
	pf_routes_end(pf->walk);
	pf->walk = NULL;
	pf_check_discard(&pf->routes);
	pf_check_discard(&pf->health);
	free(pf->hv);
	pf->hv = NULL;
}

static void
walking_remove(struct preflight *pf)
{
	struct preflight **pp;

	for (pp = &walking; *pp != NULL; pp = &(*pp)->next_walking)
		if (*pp == pf) {
			*pp = pf->next_walking;
			break;
		}
	if (pf->turn != NULL)
		event_free(pf->turn);
	pf->turn = NULL;
}

static void after_fabric_checks(struct preflight *pf);
static void fabric_turn(evutil_socket_t fd, short what, void *arg);

/* The walk's slice a turn: its share of a loop step's 10 ms. */
#define WALK_SLICE_US		1000
/* A model replaced this often during one pre-flight (a sweep a slice)
 * leaves it inconclusive rather than walking for ever. */
#define WALK_RESTARTS_MAX	3

static void
walk_next_turn(struct preflight *pf)
{
	struct timeval now = { 0, 0 };

	if (pf->turn == NULL) {
		pf->turn = evtimer_new(ctl_req_daemon(pf->req)->base, fabric_turn, pf);
		pf->next_walking = walking;
		walking = pf;
	}
	evtimer_add(pf->turn, &now);
}

static void
walk_restart(struct preflight *pf)
{
	struct fabric *f = view_fabric();

	walk_restarts++;
	fabric_drop(pf);
	json_array_clear(pf->checks);
	json_array_clear(pf->faults);
	pf->any_fail = pf->any_inconclusive = false;
	pf->route_ports.n = 0;
	if (f == NULL) {
		walking_remove(pf);
		no_fabric_checks(pf);
		after_fabric_checks(pf);
	} else if (++pf->restarts > WALK_RESTARTS_MAX) {
		walking_remove(pf);
		ctl_reply_error(pf->req, PERR_UNAVAILABLE, "the fabric model was replaced %d times "
		    "during the pre-flight's route walk: try again", WALK_RESTARTS_MAX + 1);
		preflight_abandon(pf);
	} else if (!fabric_begin(pf, f)) {
		walking_remove(pf);
		preflight_abandon(pf);
	} else
		walk_next_turn(pf);
}

/* A live read of another subnet is in (preflight_planes.c). */
static void
planes_resume(void *arg)
{
	walk_next_turn(arg);
}

static void
fabric_turn(evutil_socket_t fd, short what, void *arg)
{
	struct preflight *pf = arg;
	struct fabric *f = view_fabric();

	(void)fd;
	(void)what;
	if (pf->walk != NULL) {
		if (f != pf->fabric || f == NULL || fabric_serial(f) != pf->serial) {
			walk_restart(pf);	/* a heavy sweep freed the model walked */
			return;
		}
		if (!pf_routes_step(pf->walk, clock_mono_us() + WALK_SLICE_US)) {
			walk_next_turn(pf);
			return;
		}
		fabric_end(pf);
		pf->planes = pf_planes_begin(&pf->planes_check, view_sm(), pf->host_list,
		    pf->nhosts, planes_resume, pf);
	}
	if (pf->planes != NULL) {
		if (!pf_planes_step(pf->planes, clock_mono_us() + WALK_SLICE_US)) {
			if (!pf_planes_waiting(pf->planes))
				walk_next_turn(pf);
			return;
		}
		pf_planes_end(pf->planes);
		pf->planes = NULL;
		add_check(pf, &pf->planes_check);
	}
	walking_remove(pf);
	after_fabric_checks(pf);
}

static void
roce_check(struct preflight *pf)
{
	struct check c;
	char why[256];
	int rc;

	pf_check_init(&c, "roce");
	if (!validation_module_up(MOD_ROCE_QOS) || !roce_qos_active()) {
		pf_skipped(&c, "no RoCE profile on this host (roce_qos not active)");
		add_check(pf, &c);
		return;
	}
	/* roce_qos reads this host's NICs: the check covers the daemon's host */
	rc = roce_qos_verify(NULL, why, sizeof(why));
	if (rc == 1)
		pf_fault(&c, NULL, NULL, NULL, "RoceQosDrift", "%s", why);
	else if (rc < 0) {
		c.status = CHECK_INCONCLUSIVE;
		snprintf(c.detail, sizeof(c.detail), "%s", why);
	} else
		snprintf(c.detail, sizeof(c.detail), "this host's RoCE QoS matches the profile");
	add_check(pf, &c);
}

/* The job's SL on every port of every route: it must map to a VL the port
 * operates with a non-zero arbitration weight, in the tables as the ports
 * hold them now (just read again). */
static void
qos_check(struct preflight *pf)
{
	struct fabric *f = view_fabric();
	struct check c;
	size_t i, ok = 0, unknown = 0;

	pf_check_init(&c, "qos");
	for (i = 0; f && i < pf->route_ports.n; i++) {
		const struct sm_qos_target *t = &pf->route_ports.t[i];
		struct fabric_node *n = fabric_node_by_guid(f, t->node_guid);
		char why[128] = "";
		int rc;

		if (n == NULL || t->port > n->nports)
			continue;
		rc = sm_qos_sl_usable(view_sm(), &n->ports[t->port], t->in, (uint8_t)pf->sl, why,
		    sizeof(why));
		if (rc == 0)
			pf_fault(&c, NULL, NULL, &n->ports[t->port], "QosSlUnusable",
			    "%s:%u (from port %u): %s", n->desc, t->port, t->in, why);
		ok += rc == 1;
		unknown += rc < 0;
	}
	if (c.status != CHECK_FAIL && unknown == pf->route_ports.n)
		pf_skipped(&c, "QoS tables unknown (QoS off, or no route)");
	else if (c.status != CHECK_FAIL)
		snprintf(c.detail, sizeof(c.detail), "SL %d on a VL with weight on %zu route ports",
		    pf->sl, ok);
	add_check(pf, &c);
}

static void
nccl_check(struct preflight *pf)
{
	const struct validation_config *cfg = validation_config();
	const struct validation_profile *p = validation_profile(cfg->default_profile);
	struct check c;
	struct job_spec s;
	char err[160];
	json_t *computed, *env, *v;
	const char *k;
	size_t ne = 0;

	memset(&s, 0, sizeof(s));
	s.kind = JOB_NCCL;
	s.test = "all_reduce_perf";
	s.launcher = pf->launcher ? pf->launcher : cfg->default_launcher;
	s.sizes = cfg->default_sizes;
	s.strategy = "single";
	s.tenant = pf->tenant;
	s.profile = cfg->default_profile;
	s.hosts = pf->host_list;
	s.nhosts = pf->nhosts;
	s.timeout_ms = pf->timeout_ms ? pf->timeout_ms : cfg->job_timeout_ms;
	s.threshold.min_ok = p ? p->min_busbw : 0;
	s.threshold.min_warn = p ? p->warn_busbw : 0;
	computed = nccl_env_compute(pf->host_list, pf->nhosts, pf->tenant, NULL);
	env = json_object_get(computed, "env");
	s.env = xcalloc(json_object_size(env) + 3, sizeof(char *));
	json_object_foreach(env, k, v)
		xasprintf(&s.env[ne++], "%s=%s", k, json_string_value(v));
	xasprintf(&s.env[ne++], "NCCL_DEBUG=WARN");
	/* a link test: Ring makes busbw measure the wire (job_env too) */
	if (pf->nhosts > 1)
		xasprintf(&s.env[ne++], "NCCL_ALGO=Ring");
	json_decref(computed);
	if (job_start(&s, nccl_done, pf, err, sizeof(err)) > 0) {
		launch_free(s.env);
		return;		/* answered when the job ends */
	}
	launch_free(s.env);
	pf_check_init(&c, "nccl");
	c.status = CHECK_INCONCLUSIVE;
	snprintf(c.detail, sizeof(c.detail), "%s", err);
	add_check(pf, &c);
	preflight_answer(pf);
}

/* Once the route ports' QoS tables are read again. */
static void
after_qos_read(void *arg)
{
	struct preflight *pf = arg;

	qos_check(pf);
	roce_check(pf);
	if (pf->nccl)
		nccl_check(pf);
	else
		preflight_answer(pf);
}

static void
reread_qos(struct preflight *pf)
{
	if (sm_qos_reread(view_sm(), pf->route_ports.t, pf->route_ports.n, after_qos_read, pf) != 0)
		after_qos_read(pf);	/* nothing to read: the check says why */
}

static void
after_live_read(const struct sm_port_live *res, size_t n, void *arg)
{
	struct preflight *pf = arg;
	struct check c;

	pf_check_init(&c, "links_live");
	pf_check_live(&c, view_fabric(), res, n);
	add_check(pf, &c);
	reread_qos(pf);
}

/*
 * An observer's view is a refresh old and the master's SA a sweep old: the
 * ports its job's routes leave by are read live (sm_ports_read_live), each
 * once.  False when there is nothing to read that way (a master: its
 * model follows the fabric's traps).
 */
static bool
read_route_ports_live(struct preflight *pf)
{
	return pf_ports_live(view_sm(), &pf->route_ports, after_live_read, pf) == 0;
}

/* The model's checks are done: the live reads and the QoS tables next. */
static void
after_fabric_checks(struct preflight *pf)
{
	if (!read_route_ports_live(pf))
		reread_qos(pf);
}

static void
fabric_checks(struct preflight *pf)
{
	struct fabric *f = view_fabric();

	if (f == NULL) {
		no_fabric_checks(pf);
		after_fabric_checks(pf);
	} else if (!fabric_begin(pf, f))
		preflight_abandon(pf);
	else
		walk_next_turn(pf);
}

/* An observer's walk goes over the tables the switches hold now. */
static void
after_tables_live(const struct sm_lft_live *res, void *arg)
{
	struct preflight *pf = arg;
	struct check c;

	pf_check_init(&c, "tables_live");
	pf_check_tables(&c, res);
	add_check(pf, &c);
	fabric_checks(pf);
}

void
preflight_run(struct ctl_req *req, char *const *hosts, size_t n, const char *tenant, bool nccl,
    const char *launcher, uint64_t timeout_ms, bool slurm, int sl)
{
	struct preflight *pf = xcalloc(1, sizeof(*pf));
	struct fabric *f;
	char why[8];
	size_t i;

	pf->req = req;
	pf->slurm = slurm;
	pf->checks = json_array();
	pf->faults = json_array();
	pf->hosts = json_array();
	pf->host_list = xcalloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		json_array_append_new(pf->hosts, json_string(hosts[i]));
		pf->host_list[i] = xstrdup(hosts[i]);
	}
	pf->nhosts = n;
	pf->tenant = tenant ? xstrdup(tenant) : NULL;
	pf->launcher = launcher ? xstrdup(launcher) : NULL;
	pf->nccl = nccl;
	pf->timeout_ms = timeout_ms;
	/* the SL an NCCL job gets (nccl-env's NCCL_IB_SL): the training class's */
	if ((pf->sl = sl) < 0 && (pf->sl = sm_qos_class_sl(view_sm(), "training")) < 0)
		pf->sl = 0;
	f = view_fabric();
	if (f == NULL || sm_observer_refusal(view_sm(), why, sizeof(why)) == NULL ||
	    pf_tables_live(view_sm(), f, pf->host_list, n, after_tables_live, pf) != 0)
		fabric_checks(pf);
}

/* The runs still walking when the module stops are answered now. */
void
preflights_stop(void)
{
	struct preflight *pf;

	while ((pf = walking) != NULL) {
		walking_remove(pf);
		fabric_drop(pf);
		ctl_reply_error(pf->req, PERR_UNAVAILABLE, "fabricd is stopping");
		preflight_abandon(pf);
	}
}

void
ctl_nccl_env(struct ctl_req *req, json_t *args)
{
	size_t n;
	char **hosts = validation_hosts_arg(req, args, &n);

	if (hosts == NULL)
		return;
	ctl_reply_ok(req, nccl_env_compute(hosts, n, validation_partition_arg(args),
	    ctl_arg_str(args, "ifname")));
	launch_free(hosts);
}

void
ctl_preflight(struct ctl_req *req, json_t *args)
{
	bool nccl = ctl_arg_bool(args, "nccl");
	const char *launcher = ctl_arg_str(args, "launcher"), *format = ctl_arg_str(args, "format");
	bool slurm = format && strcmp(format, "slurm") == 0;
	long long timeout = 0, sl = -1;
	size_t n;
	char **hosts;

	if (ctl_arg_bool(args, "local") || ctl_arg_str(args, "fanout")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--local and --fanout are run by fabricctl "
		    "on the hosts, not by the daemon");
		return;
	}
	if (nccl && !ctl_req_admin(req)) {
		ctl_reply_error(req, PERR_PERMISSION, "preflight --nccl starts a job: admin only");
		return;
	}
	if (nccl && (!fabricd->module_running[MOD_VALIDATION] || !validation_config()->enabled)) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the validation module is disabled");
		return;
	}
	if (launcher && strcmp(launcher, "mpirun") && strcmp(launcher, "srun") && strcmp(launcher, "local")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--launcher: expected mpirun, srun or local");
		return;
	}
	/* The same bounds as validate's: a timeout silently dropped would let
	 * a scheduler's pre-flight run for the configured job timeout. */
	if (ctl_arg_int(args, "timeout", &timeout) && (timeout < 1 || timeout > 86400)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--timeout: 1 to 86400 seconds");
		return;
	}
	if (format && strcmp(format, "slurm") && strcmp(format, "text")) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--format: expected text or slurm");
		return;
	}
	if ((hosts = validation_hosts_arg(req, args, &n)) == NULL)
		return;
	if (ctl_arg_int(args, "sl", &sl) && (sl < 0 || sl > 15)) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--sl: 0 to 15");
		launch_free(hosts);
		return;
	}
	preflight_run(req, hosts, n, validation_partition_arg(args), nccl, launcher,
	    timeout > 0 ? (uint64_t)timeout * 1000 : 0, slurm, (int)sl);
	launch_free(hosts);
}
