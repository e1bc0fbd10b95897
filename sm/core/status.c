/*
 * What the SM says about itself: the status block, a sweep's record, and
 * the answers to `sweep` commands waiting for the end of a sweep.  Used by
 * module.c (status), ctl.c and sweep.c, and calls none of them.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/control.h"
#include "sm/sa/sa.h"
#include "sm/core/sm_internal.h"

json_t *
sm_guid_json(uint64_t g)
{
	char buf[24];

	guid_format(g, buf, sizeof(buf));
	return json_string(buf);
}

/* What a sweep's routing kept and moved (routing_repair.c counts it). */
static json_t *
route_json(const struct sweep_record *r)
{
	const struct routing_repair_stats *s = &r->route;
	json_t *o = json_pack("{s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "repaired", s->repaired, "afresh", s->afresh,
	    "entries_kept", (json_int_t)s->kept, "entries_put_back", (json_int_t)s->reverted,
	    "entries_rerouted", (json_int_t)s->rerouted, "new_lids", (json_int_t)s->new_lids,
	    "pairs_moved", (json_int_t)s->pairs_moved, "blocks_moved", (json_int_t)s->blocks_moved,
	    "hottest_link_routes", (json_int_t)s->hottest, "bound_routes", (json_int_t)s->bound);

	if (r->rebalance == ROUTING_REBALANCE_DRY)
		json_object_set_new(o, "dry_run", json_pack("{s:I, s:I, s:I}",
		    "pairs", (json_int_t)s->dry_pairs, "blocks", (json_int_t)s->dry_blocks,
		    "hottest_link_routes", (json_int_t)s->dry_hottest));
	return o;
}

json_t *
sm_sweep_json(const struct sweep_record *r)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:b}",
	    "kind", r->kind == SWEEP_HEAVY ? "heavy" : "light",
	    "cause", r->periodic ? "periodic" : "event",
	    "start_ms", (json_int_t)r->start_ms, "duration_ms", (json_int_t)r->duration_ms,
	    "mads", (json_int_t)r->mads, "retries", (json_int_t)r->retries,
	    "timeouts", (json_int_t)r->timeouts, "changes", r->changes,
	    "lft_blocks", r->lft_blocks, "port_sets", r->port_sets, "qos_sets", r->qos_sets,
	    "mft_blocks", r->mft_blocks, "client_reregister_sets", r->rereg_sets,
	    "unreachable", r->unreachable, "unreachable_what", r->unreachable_text, "ok", r->ok);

	if (o && r->routed)
		json_object_set_new(o, "routing", route_json(r));
	return o;
}

json_t *
sm_status_json(struct sm *sm)
{
	const struct mad_counters *c = mad_engine_counters(sm->me);
	size_t i, sw = 0, ca = 0, ports = 0, active = 0, degraded = 0;
	struct fabric_node *n;
	unsigned j;
	const char *subnet;
	json_t *o;

	if (sm->fabric) {
		FABRIC_FOREACH_NODE(sm->fabric, i, n) {
			if (n->type == FABRIC_SWITCH)
				sw++;
			else
				ca++;
			for (j = 1; j <= n->nports; j++) {
				const struct fabric_port *p = &n->ports[j];
				if (n->type != FABRIC_SWITCH && p->guid == 0)
					continue;
				ports++;
				if (p->peer && p->state == FABRIC_PORT_ACTIVE)
					active++;
				if (p->peer && p->degraded)
					degraded++;
			}
		}
	}
	subnet = sm->subnet_up ? "up" : sm->state == SM_STATE_STANDBY ? "another master's" :
	    sm->sweeps ? "down" : "discovering";
	o = json_pack("{s:s, s:I, s:o, s:i, s:{s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:b, s:s},"
	    " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i}}",
	    "state", sm_state_name(sm->state), "priority", (json_int_t)sm->cfg.priority,
	    "port_guid", sm_guid_json(sm->own_guid), "lid", sm->own_lid,
	    "subnet", "state", subnet, "switches", (int)sw, "cas", (int)ca, "ports", (int)ports,
	    "active_links", (int)(active / 2), "degraded_ports", (int)degraded,
	    "sweeps", (json_int_t)sm->sweeps, "last_sweep_ms", (json_int_t)sm->last.duration_ms,
	    "last_sweep_ok", sm->last.ok,
	    "routing", routing_engine_name(sm->cfg.routing),
	    "mads", "sent", (json_int_t)c->sent, "received", (json_int_t)c->received,
	    "timeouts", (json_int_t)c->timeouts, "retries", (json_int_t)c->retries,
	    "errors", (json_int_t)c->errors, "unsolicited", (json_int_t)c->unsolicited,
	    "outstanding", (int)mad_engine_outstanding(sm->me), "queued", (int)mad_engine_queued(sm->me));
	if (o) {
		json_t *sub = json_object_get(o, "subnet");

		/* the engine that ran (auto picks one) and why */
		json_object_set_new(sub, "routing_engine", json_string(sm->rt ?
		    routing_engine_name(sm->rt->engine) : "none"));
		json_object_set_new(sub, "routing_reason",
		    json_string(sm->rt ? sm->rt->reason : ""));
		/* the balance of the tables the SM gave, against the least any
		 * routing could do on the fabric as it is (routing_repair.c);
		 * after repairs it drifts, and `routing rebalance` restores it */
		if (sm->rt && sm->rt->repair.bound) {
			json_object_set_new(sub, "routing_hottest_routes",
			    json_integer((json_int_t)sm->rt->repair.hottest));
			json_object_set_new(sub, "routing_bound_routes",
			    json_integer((json_int_t)sm->rt->repair.bound));
		}
	}
	if (o) {
		const struct sa_counters *sa = &sm->sa->counters;
		json_object_set_new(o, "sa", json_pack("{s:I, s:I, s:I, s:I, s:I}",
		    "requests", (json_int_t)sa->requests, "records", (json_int_t)sa->records,
		    "errors", (json_int_t)sa->errors, "malformed", (json_int_t)sa->malformed,
		    "truncated", (json_int_t)sa->truncated));
	}
	if (o)				/* who may write the fabric, and why not */
		json_object_set_new(o, "fence", sm_fence_json(sm));
	if (o && sm->mirror)		/* ha: the records every SM node keeps alike */
		json_object_set_new(o, "replica", json_pack("{s:I, s:s}", "revision",
		    (json_int_t)ha_mirror_revision(sm->mirror), "qos_policy",
		    sm_replica_qos_verdict(sm)));
	if (o && sm_sweep_step_name(sm)) {	/* a sweep under way: how far */
		size_t nsw = 0, nca = 0;

		if (sm->next)
			FABRIC_FOREACH_NODE(sm->next, i, n) {
				nsw += n->type == FABRIC_SWITCH;
				nca += n->type != FABRIC_SWITCH;
			}
		json_object_set_new(o, "sweep_running", json_pack("{s:s, s:s, s:I, s:I}",
		    "kind", sm->cur.kind == SWEEP_HEAVY ? "heavy" : "light",
		    "step", sm_sweep_step_name(sm), "switches_found", (json_int_t)nsw,
		    "cas_found", (json_int_t)nca));
	}
	if (o && sm->writer)	/* model rows not yet handed to the store */
		json_object_set_new(o, "stored_model", model_writer_status(sm->writer));
	if (o && sm->polling)	/* the SM we follow (standby) or wait for */
		json_object_set_new(o, "master", json_pack("{s:o, s:i, s:s, s:i, s:i}",
		    "guid", sm_guid_json(sm->polled.info.guid), "priority", sm->polled.info.priority,
		    "state", sm_state_name(sm->polled.info.state), "lid", sm->polled.info.lid,
		    "missed_polls", sm->poll_misses));
	return o;
}
