/*
 * `port disable NODE:PORT` and `port enable NODE:PORT` (ADMIN): what
 * `ibportstate LID PORT disable|enable` does, made to last.  Disable adds
 * the port to the durable set (port_admin.h; sqlite first, so a crash
 * after the Set still remembers it) and writes PortPhysicalState Disabled;
 * enable removes it and writes Polling, from which the link trains.
 * While a port is in the set the SM's activation leaves its link alone
 * (activate.c) and the audit disables it again if it comes back
 * (audit_portinfo.c).  The reply waits for the Set's answer and says
 * whether there was one: a Set that got none may or may not have landed.
 * With ha the set is committed to etcd (sm/core/replica.c) before the Set
 * goes out; a put that does not land undoes the change here, and nothing
 * is sent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "daemon/control.h"
#include "daemon/events.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

/* One Set in flight and the request waiting for it. */
struct port_op {
	struct ctl_req	*req;
	uint64_t	 guid;
	uint8_t		 port;
	uint8_t		 phys;		/* PORT_PHYS_DISABLED or _POLLING */
	bool		 was_in_set;	/* disabled before this command */
	char		 label[FABRIC_NODE_DESC_LEN + 24];
};

bool
sm_port_is_disabled(const struct sm *sm, uint64_t node_guid, uint8_t port)
{
	return sm && sm->disabled.n > 0 && pds_get(&sm->disabled, node_guid, port) != NULL;
}

static json_t *
op_json(const struct port_op *op, const char *action, bool answered)
{
	return json_pack("{s:s, s:o, s:i, s:s, s:b, s:b}", "node", op->label, "guid",
	    sm_guid_json(op->guid), "port", op->port, "action", action, "answered", answered,
	    "was_disabled", op->was_in_set);
}

/* An event's object: NODE:PORT, named once (docs/cli.md). */
static const char *
op_object(const struct port_op *op, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", op->label, op->port);
	return buf;
}

static void
on_set(const struct mad_result *res, void *owner, void *arg)
{
	struct sm *sm = owner;
	struct port_op *op = arg;
	bool disable = op->phys == PORT_PHYS_DISABLED;
	const char *action = disable ? "disabled" : "enabled";
	char obj[FABRIC_NODE_DESC_LEN + 32];

	if (mad_reply_ok(res)) {
		const ib_port_info_t *pi = (const ib_port_info_t *)((const ib_smp_t *)res->mad)->data;
		uint8_t now = ib_port_info_get_port_phys_state(pi);
		json_t *o = op_json(op, action, true);

		json_object_set_new(o, "phys_state", json_string(fabric_phys_state_name(now)));
		event_post(EV_INFO, sm_source(sm), op_object(op, obj, sizeof(obj)), "%s by an operator "
		    "(PortPhysicalState now %s)", action, fabric_phys_state_name(now));
		/* The model still holds the link a disable took down (ibsim
		 * sends no trap for it): a heavy sweep drops it and routes
		 * around it.  After an enable the link trains on its own and
		 * the next sweep brings it up; ask for that one now. */
		sm_sweep_request(sm, disable);
		ctl_reply_ok(op->req, o);
	} else if (res->status == -EPERM) {
		/* the write gate held it back (fence.c): nothing reached the port */
		ctl_reply_error(op->req, PERR_UNAVAILABLE, "%s:%u: not sent: this SM may no "
		    "longer write the fabric (it lost mastership or its writer lease); %s",
		    op->label, op->port, disable ? "it stays in the disabled set" :
		    "it is out of the disabled set: run port enable again on the master");
	} else {
		event_post(EV_WARNING, sm_source(sm), op_object(op, obj, sizeof(obj)), "the PortInfo Set "
		    "that %s it got %s", disable ? "disables" : "enables",
		    res->status ? "no answer" : "a rejection");
		/* Unanswered, it may still have landed (a CA's own port takes
		 * down the link its answer comes back over): a heavy sweep
		 * finds out what is there. */
		if (res->status && disable)
			sm_sweep_request(sm, true);
		if (res->status)
			ctl_reply_error(op->req, PERR_FABRIC, "%s:%u: the PortInfo Set got no "
			    "answer: the port may or may not be %s; %s", op->label, op->port, action,
			    disable ? "it stays in the disabled set, and the audit disables it "
			    "when it reads it" : "it is out of the disabled set: run port enable "
			    "again, or check it with smpquery");
		else
			ctl_reply_error(op->req, PERR_FABRIC, "%s:%u rejected the PortInfo Set "
			    "(MAD status 0x%04x)%s", op->label, op->port, res->mad_status,
			    disable ? "; it stays in the disabled set" : "");
	}
	free(op);
}

/* The Set for port p, through the admin batch. */
static void
send_phys(struct sm *sm, struct ctl_req *req, struct fabric_port *p, uint8_t phys,
    bool was_in_set)
{
	struct mad_addr a = { .directed = true };
	uint8_t pi[64] MAD_ALIGNED;
	struct port_op *op;

	if (!fabric_port_path(p, a.path, &a.hops)) {
		ctl_reply_error(req, PERR_FABRIC, "no directed route to %s:%u", p->node->desc,
		    p->num);
		return;
	}
	port_phys_set_build(p->pi, phys, pi);
	if (p->node->type != FABRIC_SWITCH && !sm_port_key_fields(sm, p, pi)) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s:%u holds an M_Key fabricd is "
		    "waiting to recover (its lease): try again later", p->node->desc, p->num);
		return;
	}
	op = xcalloc(1, sizeof(*op));
	op->req = req;
	op->guid = p->node->guid;
	op->port = p->num;
	op->phys = phys;
	op->was_in_set = was_in_set;
	sm_node_label(p->node, op->label, sizeof(op->label));
	mad_batch_smp(&sm->admin, &a, IB_MAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO, p->num, pi, on_set, op);
}

/* ---- with ha: the set in etcd first ---- */

struct port_commit {
	struct ctl_req		*req;
	struct sm		*sm;
	struct port_disabled	 e;		/* the entry added or removed */
	uint8_t			 phys;
	bool			 was_in_set;
};

static void
undo(struct sm *sm, const struct port_commit *c)
{
	if (c->phys == PORT_PHYS_DISABLED && !c->was_in_set) {
		pds_remove(&sm->disabled, c->e.node_guid, c->e.port);
		(void)pds_store_remove(sm->fd->store, sm->subnet, c->e.node_guid, c->e.port);
	} else if (c->phys == PORT_PHYS_POLLING && c->was_in_set) {
		pds_add(&sm->disabled, c->e.node_guid, c->e.port, c->e.desc, c->e.set_ms);
		(void)pds_store_add(sm->fd->store, sm->subnet, &c->e);
	}
	ha_mirror_changed(sm->mirror);
}

static void
on_committed(bool ok, const char *err, void *arg)
{
	struct port_commit *c = arg;
	struct sm *sm = c->sm;
	struct fabric_node *n = ok && sm->fabric ? fabric_node_by_guid(sm->fabric, c->e.node_guid) :
	    NULL;

	if (!ok) {
		undo(sm, c);
		ctl_reply_error(c->req, PERR_UNAVAILABLE, "not written: etcd did not take the "
		    "change (%s); nothing was sent to the port", err);
	} else if (n == NULL || c->e.port > n->nports)
		ctl_reply_error(c->req, PERR_FABRIC, "%s:%u left the fabric while etcd took "
		    "the change: no PortInfo Set was sent (the set holds it)", c->e.desc, c->e.port);
	else
		send_phys(sm, c->req, &n->ports[c->e.port], c->phys, c->was_in_set);
	free(c);
}

/* The Set once etcd holds the set (the change already made here). */
static void
commit_then_send(struct sm *sm, struct ctl_req *req, const struct port_disabled *e,
    uint8_t phys, bool was_in_set)
{
	struct port_commit *c = xcalloc(1, sizeof(*c));

	*c = (struct port_commit){ req, sm, *e, phys, was_in_set };
	if (ha_mirror_commit(sm->mirror, on_committed, c) != 0)
		on_committed(false, "it could not be sent", c);
}

/* Why a change of the set cannot be made now (answered), else false. */
static bool
refused(struct ctl_req *req, const struct sm *sm)
{
	char buf[200];

	if (ha_mirror_refusal(sm->mirror, buf, sizeof(buf)) == NULL)
		return false;
	ctl_reply_error(req, PERR_UNAVAILABLE, "not written: %s; nothing was sent to the port",
	    buf);
	return true;
}

/* The SM, master, with a model; else answered. */
static struct sm *
master(struct ctl_req *req)
{
	struct sm *sm = sm_of_req(req);
	char why[160];

	if (sm_ctl_fabric(req) == NULL)
		return NULL;
	if (sm_observer_refusal(sm, why, sizeof(why))) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "%s: the master writes the fabric's ports",
		    why);
		return NULL;
	}
	if (sm->state != SM_STATE_MASTER) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "this SM is not the master: the master "
		    "writes the fabric's ports");
		return NULL;
	}
	return sm;
}

/* NODE:PORT to a port of the model; NULL when answered.  *absent is set
 * (and NULL returned, unanswered) when the node is not in the model. */
static struct fabric_port *
resolve(struct ctl_req *req, struct sm *sm, const char *spec, bool *absent)
{
	struct fabric_node *n;
	char why[256];
	int port;

	*absent = false;
	switch (fabric_port_spec(sm->fabric, spec, &n, &port, why, sizeof(why))) {
	case FABRIC_SPEC_OK:
		break;
	case FABRIC_SPEC_NO_NODE:
		*absent = true;
		return NULL;
	case FABRIC_SPEC_NO_PORT:
	case FABRIC_SPEC_BAD:
	case FABRIC_SPEC_RANGE:
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s", why);
		return NULL;
	}
	if (port == 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "port 0 of %s is %s: give a port "
		    "1-%u", n->desc, n->type == FABRIC_SWITCH ? "the switch's management port" :
		    "not a port", n->nports);
		return NULL;
	}
	return &n->ports[port];
}

void
ctl_port_disable(struct ctl_req *req, json_t *args)
{
	const char *spec = ctl_arg_str(args, "port");
	struct sm *sm = master(req);
	struct fabric_port *p;
	struct port_disabled e;
	bool absent, was;

	if (sm == NULL)
		return;
	if ((p = resolve(req, sm, spec, &absent)) == NULL) {
		if (absent)
			ctl_reply_error(req, PERR_NOT_FOUND, "no node \"%s\" in the fabric "
			    "(NODE:PORT, NODE a name, GUID or LID)", spec);
		return;
	}
	if (p->node->type != FABRIC_SWITCH && p->guid == sm->own_guid) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s:%u is fabricd's own port: "
		    "disabling it cuts the SM off the fabric", p->node->desc, p->num);
		return;
	}
	if (refused(req, sm))
		return;
	memset(&e, 0, sizeof(e));
	e.node_guid = p->node->guid;
	e.port = p->num;
	snprintf(e.desc, sizeof(e.desc), "%s", p->node->desc);
	e.set_ms = event_now_ms();
	/* Stored before the Set: a restart in between still keeps it down. */
	if (pds_store_add(sm->fd->store, sm->subnet, &e) != 0) {
		ctl_reply_error(req, PERR_INTERNAL, "the disabled port could not be stored "
		    "(database error, logged); nothing sent");
		return;
	}
	was = !pds_add(&sm->disabled, e.node_guid, e.port, e.desc, e.set_ms);
	ha_mirror_changed(sm->mirror);	/* the next master keeps it down */
	if (sm->mirror)
		commit_then_send(sm, req, &e, PORT_PHYS_DISABLED, was);
	else
		send_phys(sm, req, p, PORT_PHYS_DISABLED, was);
}

/* etcd took (or refused) taking an unreachable node's port out of the set. */
static void
on_unreachable_committed(bool ok, const char *err, void *arg)
{
	struct port_commit *c = arg;

	if (!ok) {
		undo(c->sm, c);
		ctl_reply_error(c->req, PERR_UNAVAILABLE, "not written: etcd did not take the "
		    "change (%s); %s:%u stays in the disabled set", err, c->e.desc, c->e.port);
	} else
		ctl_reply_error(c->req, PERR_FABRIC, "%s:%u is out of the disabled set, but "
		    "the node is not reachable: no PortInfo Set was sent (enable it from the other "
		    "end of its link, or where it is)", c->e.desc, c->e.port);
	free(c);
}

/*
 * A node its disabled link cut off the fabric: the set still knows it,
 * though nothing can reach it to enable it.  Taking it out of the set is
 * a change like any other: refused without quorum, and with ha committed
 * to etcd before it is answered (else the next master disables it again).
 */
static void
enable_unreachable(struct ctl_req *req, struct sm *sm, const struct port_disabled *e)
{
	struct port_disabled ent = *e;
	struct port_commit *c;

	if (refused(req, sm))
		return;
	if (pds_store_remove(sm->fd->store, sm->subnet, ent.node_guid, ent.port) != 0) {
		ctl_reply_error(req, PERR_INTERNAL, "the disabled port could not be removed "
		    "(database error, logged)");
		return;
	}
	pds_remove(&sm->disabled, ent.node_guid, ent.port);
	ha_mirror_changed(sm->mirror);
	c = xcalloc(1, sizeof(*c));
	*c = (struct port_commit){ req, sm, ent, PORT_PHYS_POLLING, true };
	if (sm->mirror == NULL)
		on_unreachable_committed(true, NULL, c);
	else if (ha_mirror_commit(sm->mirror, on_unreachable_committed, c) != 0)
		on_unreachable_committed(false, "it could not be sent", c);
}

/* A port neither in the set nor Disabled as last read: a Set of Polling
 * could only retrain a working link, so nothing is sent, and the reply
 * says so (action "none"). */
static void
enable_nothing(struct ctl_req *req, const struct fabric_port *p)
{
	char label[FABRIC_NODE_DESC_LEN + 24];
	json_t *o;

	sm_node_label(p->node, label, sizeof(label));
	o = json_pack("{s:s, s:o, s:i, s:s, s:b, s:b, s:s}", "node", label, "guid",
	    sm_guid_json(p->node->guid), "port", p->num, "action", "none", "answered", false,
	    "was_disabled", false, "phys_state", fabric_phys_state_name(p->phys_state));
	json_object_set_new(o, "message", json_sprintf("%s:%u is not disabled "
	    "(PortPhysicalState %s): nothing sent", label, p->num,
	    fabric_phys_state_name(p->phys_state)));
	ctl_reply_ok(req, o);
}

void
ctl_port_enable(struct ctl_req *req, json_t *args)
{
	const char *spec = ctl_arg_str(args, "port");
	struct sm *sm = master(req);
	const struct port_disabled *old;
	struct port_disabled ent;
	struct fabric_port *p;
	bool absent, was;

	if (sm == NULL)
		return;
	if ((p = resolve(req, sm, spec, &absent)) == NULL) {
		const struct port_disabled *e;
		char *s, *colon;

		if (!absent)
			return;
		/* A node its disabled link cut off the fabric: the set still
		 * knows it, though nothing can reach it to enable it. */
		s = xstrdup(spec);
		colon = strrchr(s, ':');
		e = NULL;
		if (colon && colon[1]) {
			*colon = '\0';
			e = pds_find(&sm->disabled, s, (uint8_t)strtoul(colon + 1, NULL, 10));
		}
		free(s);
		if (e == NULL) {
			ctl_reply_error(req, PERR_NOT_FOUND, "no node \"%s\" in the fabric "
			    "(NODE:PORT, NODE a name, GUID or LID) nor among the disabled ports", spec);
			return;
		}
		enable_unreachable(req, sm, e);
		return;
	}
	old = pds_get(&sm->disabled, p->node->guid, p->num);
	if (old == NULL && p->phys_state != PORT_PHYS_DISABLED) {
		enable_nothing(req, p);
		return;
	}
	if (refused(req, sm))
		return;
	if (old != NULL)
		ent = *old;
	else
		ent = (struct port_disabled){ .node_guid = p->node->guid, .port = p->num };
	if (pds_store_remove(sm->fd->store, sm->subnet, p->node->guid, p->num) != 0) {
		ctl_reply_error(req, PERR_INTERNAL, "the disabled port could not be removed "
		    "(database error, logged); nothing sent");
		return;
	}
	was = pds_remove(&sm->disabled, p->node->guid, p->num);
	ha_mirror_changed(sm->mirror);
	if (sm->mirror)
		commit_then_send(sm, req, &ent, PORT_PHYS_POLLING, was);
	else
		send_phys(sm, req, p, PORT_PHYS_POLLING, was);
}
