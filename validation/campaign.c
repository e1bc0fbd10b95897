/*
 * Campaigns: a localisation strategy executed as several jobs.
 *
 *   pairwise  round-robin rounds (validation/localise.h); the pairs of a
 *             round run in parallel (at most max_parallel at once), the
 *             next round starts when the whole round is done, so that no
 *             host is in two jobs at once.  A host failing with two or
 *             more partners is named; a pair failing alone is reported as
 *             a suspect path, with the switch ports on its route.
 *   bisect    the bisection state machine; its probes run as they become
 *             ready (two halves in parallel).
 *
 * The campaign is itself a job record (kind "campaign"); its probes point
 * to it through parent_id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/events.h"
#include "daemon/fabricd.h"
#include "health/health.h"
#include "validation/fabric_view.h"
#include "validation/localise.h"
#include "validation/validation.h"

struct probe_map {
	int64_t		 job;
	int		 probe;		/* bisect probe id, or pair index */
	size_t		 a, b;		/* pairwise: host indices */
};

struct campaign {
	int64_t		 id;
	struct job_spec	 spec;
	bool		 pairwise;
	struct bisect	*bisect;
	size_t		 round, nrounds;
	struct host_pair *pairs;	/* the current round */
	size_t		 npairs, next_pair;
	struct probe_map *map;
	size_t		 nmap;
	size_t		 running;
	unsigned	*fail_count;	/* pairwise: failed pairs per host */
	json_t		*probes;	/* [{job, hosts, verdict, code, reason}] */
	json_t		*failed_pairs;	/* pairwise */
	bool		 any_inconclusive;
	bool		 cancelled;	/* start nothing more; finish when idle */
	campaign_done_fn done;
	void		*arg;
	struct campaign	*next;
};

static struct campaign *campaigns;	/* running, for cancel */

static void campaign_step(struct campaign *c);

static void
campaign_free(struct campaign *c)
{
	struct campaign **pp;

	for (pp = &campaigns; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	job_spec_free(&c->spec);
	bisect_free(c->bisect);
	free(c->pairs);
	free(c->map);
	free(c->fail_count);
	json_decref(c->probes);
	json_decref(c->failed_pairs);
	free(c);
}

static json_t *
hosts_json(char *const *h, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(h[i]));
	return a;
}

static struct probe_map *
map_find(struct campaign *c, int64_t job)
{
	size_t i;

	for (i = 0; i < c->nmap; i++)
		if (c->map[i].job == job)
			return &c->map[i];
	return NULL;
}

static void probe_done(struct job *j, void *arg);

static bool
start_probe(struct campaign *c, char *const *hosts, size_t n, int probe, size_t a, size_t b,
    uint64_t port)
{
	struct job_spec s = c->spec;
	char err[128];
	int64_t id;

	s.hosts = (char **)hosts;
	s.nhosts = n;
	s.parent = c->id;
	s.rdma_port = port;
	if ((id = job_start(&s, probe_done, c, err, sizeof(err))) <= 0) {
		log_warnx("validation: campaign %lld: %s", (long long)c->id, err);
		c->any_inconclusive = true;
		return false;
	}
	c->map = xreallocarray(c->map, c->nmap + 1, sizeof(*c->map));
	c->map[c->nmap++] = (struct probe_map){ id, probe, a, b };
	c->running++;
	return true;
}

/* ---- the end ---- */

static void
pairwise_verdict(struct campaign *c, struct verdict_result *r, json_t *summary)
{
	json_t *culprits = json_array();
	size_t i, named = 0;

	for (i = 0; i < c->spec.nhosts; i++)
		if (c->fail_count[i] >= 2) {
			json_array_append_new(culprits, json_string(c->spec.hosts[i]));
			if (named++ == 0)
				snprintf(r->host, sizeof(r->host), "%s", c->spec.hosts[i]);
		}
	json_object_set_new(summary, "culprits", culprits);
	json_object_set(summary, "failed_pairs", c->failed_pairs);
	if (json_array_size(c->failed_pairs) > 0) {
		r->verdict = VERDICT_FAIL;
		snprintf(r->code, sizeof(r->code), "%s", named ? "NodeFault" : "PathFault");
		snprintf(r->reason, sizeof(r->reason), "%zu failed pair(s); %zu host(s) failing with "
		    "two or more partners", json_array_size(c->failed_pairs), named);
	} else if (c->any_inconclusive) {
		r->verdict = VERDICT_INCONCLUSIVE;
		snprintf(r->code, sizeof(r->code), "HarnessError");
		snprintf(r->reason, sizeof(r->reason), "some pairs could not be run");
	} else {
		snprintf(r->code, sizeof(r->code), "OK");
		snprintf(r->reason, sizeof(r->reason), "%zu rounds, every pair passed", c->nrounds);
	}
}

static void
bisect_verdict(struct campaign *c, struct verdict_result *r, json_t *summary)
{
	const char *const *cul, *const *unres;
	size_t nc = bisect_culprits(c->bisect, &cul), nu = bisect_unresolved(c->bisect, &unres);

	json_object_set_new(summary, "culprits", hosts_json((char *const *)cul, nc));
	json_object_set_new(summary, "unresolved", hosts_json((char *const *)unres, nu));
	if (nc > 0) {
		r->verdict = VERDICT_FAIL;
		snprintf(r->code, sizeof(r->code), "NodeFault");
		snprintf(r->host, sizeof(r->host), "%s", cul[0]);
		snprintf(r->reason, sizeof(r->reason), "bisection named %zu host(s) in %zu jobs",
		    nc, bisect_probes(c->bisect));
	} else if (nu > 0) {
		bool inconclusive = strstr(unres[0], "inconclusive") != NULL;
		r->verdict = inconclusive ? VERDICT_INCONCLUSIVE : VERDICT_FAIL;
		snprintf(r->code, sizeof(r->code), "%s", inconclusive ? "HarnessError" : "ScaleFault");
		snprintf(r->reason, sizeof(r->reason), "%s", unres[0]);
	} else {
		snprintf(r->code, sizeof(r->code), "OK");
		snprintf(r->reason, sizeof(r->reason), "all hosts pass together");
	}
}

static void
campaign_finish(struct campaign *c)
{
	struct verdict_result r;
	json_t *summary = json_object();

	memset(&r, 0, sizeof(r));
	r.measured = -1;
	json_object_set_new(summary, "strategy", json_string(c->spec.strategy));
	json_object_set_new(summary, "jobs", json_integer((json_int_t)c->nmap));
	json_object_set(summary, "probes", c->probes);
	if (c->pairwise)
		pairwise_verdict(c, &r, summary);
	else
		bisect_verdict(c, &r, summary);
	jobstore_campaign_finished(c->id, &r, summary);
	event_post(r.verdict == VERDICT_FAIL ? EV_WARNING : EV_INFO, "validation",
	    r.host[0] ? r.host : NULL, "campaign %lld (%s) %s: %s", (long long)c->id,
	    c->spec.strategy, verdict_name(r.verdict), r.reason);
	if (c->done != NULL)
		c->done(c->id, &r, summary, c->arg);
	json_decref(summary);
	campaign_free(c);
}

/* ---- progress ---- */

static const char *
port_health(const struct fabric_port *p)
{
	if (fabricd == NULL || fabricd->module_running[MOD_HEALTH] <= 0 || !health_running())
		return "unknown";
	return health_port_status_name(health_port_status(p->node->guid, p->num));
}

static void
probe_done(struct job *j, void *arg)
{
	struct campaign *c = arg;
	const struct verdict_result *r = job_result(j);
	const struct job_spec *s = job_spec_of(j);
	struct probe_map *m = map_find(c, job_id(j));

	c->running--;
	json_array_append_new(c->probes, json_pack("{s:I, s:o, s:s, s:s, s:s}", "job",
	    (json_int_t)job_id(j), "hosts", hosts_json(s->hosts, s->nhosts), "verdict",
	    verdict_name(r->verdict), "code", r->code, "reason", r->reason));
	if (r->verdict == VERDICT_INCONCLUSIVE)
		c->any_inconclusive = true;
	if (m != NULL && c->pairwise && (r->verdict == VERDICT_FAIL || r->verdict == VERDICT_WARN)) {
		c->fail_count[m->a]++;
		c->fail_count[m->b]++;
		/* a failing pair implicates its path: the switch ports on it */
		json_array_append_new(c->failed_pairs, json_pack("{s:s, s:s, s:I, s:s, s:o}", "a",
		    c->spec.hosts[m->a], "b", c->spec.hosts[m->b], "job", (json_int_t)job_id(j),
		    "code", r->code, "route", view_route_json(view_fabric(), c->spec.hosts[m->a],
		    c->spec.hosts[m->b], port_health)));
	}
	if (m != NULL && !c->pairwise)
		bisect_done(c->bisect, m->probe, r->verdict);
	/* from the loop, not from inside the job's own completion */
	campaign_step(c);
}

static void
next_round(struct campaign *c)
{
	c->npairs = pairwise_round(c->spec.nhosts, c->round, c->pairs);
	c->next_pair = 0;
	c->round++;
}

static void
step_pairwise(struct campaign *c)
{
	const struct validation_config *cfg = validation_config();

	if (c->cancelled)
		c->next_pair = c->npairs, c->round = c->nrounds;
	for (;;) {
		while (c->next_pair < c->npairs && c->running < cfg->max_parallel) {
			struct host_pair *p = &c->pairs[c->next_pair];
			char *h[2] = { c->spec.hosts[p->a], c->spec.hosts[p->b] };
			uint64_t port = cfg->rdma_port + c->next_pair;
			c->next_pair++;
			start_probe(c, h, 2, (int)c->next_pair, p->a, p->b, port);
		}
		if (c->running > 0 || c->next_pair < c->npairs)
			return;
		if (c->round >= c->nrounds) {
			campaign_finish(c);
			return;
		}
		next_round(c);
	}
}

static void
step_bisect(struct campaign *c)
{
	const char *const *hosts;
	size_t n;
	int probe;

	while ((probe = bisect_next(c->bisect, &hosts, &n)) > 0)
		if (c->cancelled || !start_probe(c, (char *const *)hosts, n, probe, 0, 0, 0))
			bisect_done(c->bisect, probe, VERDICT_INCONCLUSIVE);
	if (c->running == 0 && bisect_finished(c->bisect))
		campaign_finish(c);
}

static void
campaign_step(struct campaign *c)
{
	if (c->pairwise)
		step_pairwise(c);
	else
		step_bisect(c);
}

int64_t
campaign_start(const struct job_spec *spec, campaign_done_fn done, void *arg, char *err,
    size_t errlen)
{
	struct campaign *c;
	int64_t id;

	if (spec->nhosts < 2) {
		snprintf(err, errlen, "a %s campaign needs at least two hosts", spec->strategy);
		return -1;
	}
	c = xcalloc(1, sizeof(*c));
	job_spec_copy(&c->spec, spec);
	c->pairwise = strcmp(spec->strategy, "pairwise") == 0;
	if ((c->id = jobstore_create(&c->spec, true)) <= 0) {
		snprintf(err, errlen, "cannot record the campaign");
		campaign_free(c);
		return -1;
	}
	c->done = done;
	c->arg = arg;
	c->next = campaigns;
	campaigns = c;
	c->probes = json_array();
	c->failed_pairs = json_array();
	if (c->pairwise) {
		c->nrounds = pairwise_round_count(spec->nhosts);
		c->pairs = xcalloc(spec->nhosts / 2 + 1, sizeof(*c->pairs));
		c->fail_count = xcalloc(spec->nhosts, sizeof(*c->fail_count));
		next_round(c);
	} else
		c->bisect = bisect_new((const char *const *)c->spec.hosts, c->spec.nhosts, NULL, 0);
	id = c->id;
	campaign_step(c);	/* may finish (and free c) at once */
	return id;
}

bool
campaign_cancel(int64_t id)
{
	struct campaign *c;

	for (c = campaigns; c != NULL; c = c->next)
		if (c->id == id) {
			c->cancelled = true;
			c->any_inconclusive = true;
			return true;
		}
	return false;
}
