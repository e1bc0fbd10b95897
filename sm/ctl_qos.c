/*
 * `qos show [NODE:PORT]`: the policy and what each port holds, as the
 * SM last read or wrote it (the Set's answer is the port's own), beside
 * what the policy gives it.  A port's `differs` lists its tables that are
 * not the policy's; with NODE:PORT a switch port shows its SL2VL table for
 * every in port.  Without a port it answers in pages (`next`, args.after:
 * the last port's 0xGUID:PORT, as `ports` pages).
 */
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>

#include "daemon/control.h"
#include "fabric/port_page.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

static const char *const op_vls_names[] = { "none", "VL0", "VL0-1", "VL0-3", "VL0-7", "VL0-14" };

static const char *
vls_name(uint8_t code)
{
	return code < sizeof(op_vls_names) / sizeof(op_vls_names[0]) ? op_vls_names[code] : "?";
}

static json_t *
class_json(const struct qos_class *c)
{
	json_t *pkeys = json_array(), *sids = json_array();
	char buf[48];

	for (size_t i = 0; i < c->npkeys; i++) {
		snprintf(buf, sizeof(buf), "0x%04x", c->pkeys[i]);
		json_array_append_new(pkeys, json_string(buf));
	}
	for (size_t i = 0; i < c->nsids; i++) {
		snprintf(buf, sizeof(buf), "0x%016llx-0x%016llx", (unsigned long long)c->sids[i].lo,
		    (unsigned long long)c->sids[i].hi);
		json_array_append_new(sids, json_string(buf));
	}
	return json_pack("{s:s, s:i, s:i, s:i, s:s, s:o, s:o}", "name", c->name, "sl", c->sl,
	    "vl", c->vl, "share", c->share, "priority", c->high ? "high" : "low",
	    "pkeys", pkeys, "services", sids);
}

static json_t *
policy_json(const struct qos_policy *p)
{
	json_t *classes = json_array();

	for (size_t i = 0; i < p->nclasses; i++)
		json_array_append_new(classes, class_json(&p->classes[i]));
	return json_pack("{s:b, s:I, s:b, s:o}", "enabled", p->enabled,
	    "high_limit", (json_int_t)p->high_limit, "defaults", p->nclasses == 0,
	    "classes", classes);
}

/* SL -> VL of a held table, null when unknown. */
static json_t *
sl2vl_json(const uint8_t *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < QOS_SL2VL_BYTES; i++)
		if (t[i] != 0xFF)
			goto known;
	json_decref(a);
	return json_null();
known:
	for (uint8_t sl = 0; sl < QOS_NUM_SL; sl++)
		json_array_append_new(a, json_integer(qos_sl2vl_get(t, sl)));
	return a;
}

/* [[VL, weight], ...] of the entries the port has. */
static json_t *
vlarb_json(const struct qos_held *h, const struct fabric_port *p, const struct qos_port_caps *c,
    bool high)
{
	unsigned cap = high ? c->high_cap : c->low_cap;
	json_t *a = json_array();

	for (unsigned e = 0; e < cap && e < QOS_VLARB_ENTRIES; e++) {
		const uint8_t *b = qos_held_vlarb_c(h, p->num, (high ? 2 : 0) + e / 32);

		json_array_append_new(a, json_pack("[i, i]", b[2 * (e % 32)] & 0x0F,
		    b[2 * (e % 32) + 1]));
	}
	return a;
}

static void
add_differ(void *arg, const char *what, unsigned in, unsigned block)
{
	char buf[32];

	if (strcmp(what, "sl2vl") == 0)
		snprintf(buf, sizeof(buf), "sl2vl in %u", in);
	else
		snprintf(buf, sizeof(buf), "vlarb %s %u", block < 2 ? "low" : "high", block & 1);
	json_array_append_new(arg, json_string(buf));
}

static json_t *
port_json(const struct sm *sm, const struct fabric_port *p, bool pairs)
{
	const struct qos_held *h = p->node->qos;
	const ib_port_info_t *pi = (const ib_port_info_t *)p->pi;
	bool sw = p->node->type == FABRIC_SWITCH;
	struct qos_port_caps c;
	json_t *o, *differs = json_array();

	qos_port_caps_of(p, &c);
	qos_port_diff(sm->qos_tables, p, h, add_differ, differs);
	o = json_pack("{s:s, s:s, s:i, s:s, s:s, s:i, s:o}", "node", p->node->desc,
	    "node_guid", "", "port", p->num, "vl_cap", vls_name(c.vl_cap),
	    "op_vls", vls_name(c.op_vls), "vl_high_limit", pi->vl_high_limit, "differs", differs);
	json_object_set_new(o, "node_guid", sm_guid_json(p->node->guid));
	if (h == NULL)
		return o;
	json_object_set_new(o, "sl2vl", sl2vl_json(qos_held_sl2vl_c(h, 0, p->num)));
	json_object_set_new(o, "vlarb_high", vlarb_json(h, p, &c, true));
	json_object_set_new(o, "vlarb_low", vlarb_json(h, p, &c, false));
	if (sw && pairs) {
		json_t *in = json_array();

		for (uint8_t i = 0; i <= p->node->nports; i++)
			json_array_append_new(in, json_pack("{s:i, s:o}", "in", i,
			    "sl2vl", sl2vl_json(qos_held_sl2vl_c(h, i, p->num))));
		json_object_set_new(o, "sl2vl_by_in", in);
	}
	return o;
}

/* "NODE:PORT" or NODE alone (fabric_port_spec); false when answered:
 * not_found for a node the fabric lacks, invalid_argument for what
 * cannot name a port, as every command taking NODE:PORT answers. */
static bool
find_port(struct ctl_req *req, struct fabric *f, const char *spec, struct fabric_node **n,
    int *port)
{
	char why[256];
	enum fabric_spec r = fabric_port_spec(f, spec, n, port, why, sizeof(why));

	if (r == FABRIC_SPEC_OK || (r == FABRIC_SPEC_NO_PORT && *n != NULL))
		return true;
	if (r == FABRIC_SPEC_NO_NODE || r == FABRIC_SPEC_NO_PORT)
		ctl_reply_error(req, PERR_NOT_FOUND, "no port \"%s\" (NODE:PORT, NODE a name, "
		    "GUID or LID)", spec);
	else
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s", why);
	return false;
}

/* Ports of one `qos show` page: a port's tables cost about 30 us of JSON
 * (242 ms for the 8,000 ports of the 1,296-host tree in one reply), so
 * 64 a page keep a page near 2 ms of the loop; fabricctl follows `next`. */
#define QOS_PAGE_PORTS	64

/* The port's key is above the cursor (nodes are in GUID order). */
static bool
after_cursor(const struct fabric_node *n, int port, const struct port_key *after)
{
	return after == NULL || n->guid > after->node_guid ||
	    (n->guid == after->node_guid && port > after->port);
}

void
ctl_qos_show(struct ctl_req *req, json_t *args)
{
	const char *spec = ctl_arg_str(args, "port"), *cursor = ctl_arg_str(args, "after");
	struct sm *sm = sm_of_req(req);
	struct fabric *f = sm_ctl_fabric(req);
	struct fabric_node *only = NULL, *n;
	struct port_key after, last = { 0, 0 };
	json_t *ports, *res;
	int port = -1;
	size_t i, count = 0;
	bool more = false;

	if (f == NULL)
		return;
	if (spec && !find_port(req, f, spec, &only, &port))
		return;
	if (cursor && port_cursor_parse(cursor, &after) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "after: expected the \"next\" of an "
		    "earlier page (0xGUID:PORT), not \"%.40s\"", cursor);
		return;
	}
	ports = json_array();
	FABRIC_FOREACH_NODE(f, i, n) {
		if ((only && n != only) || !after_cursor(n, n->nports, cursor ? &after : NULL))
			continue;
		for (int j = 0; j <= n->nports && !more; j++) {
			if ((port >= 0 && j != port) || !qos_port_programmed(&n->ports[j]) ||
			    !after_cursor(n, j, cursor ? &after : NULL))
				continue;
			if (count == QOS_PAGE_PORTS) {
				more = true;
				break;
			}
			json_array_append_new(ports, port_json(sm, &n->ports[j], port >= 0));
			last = (struct port_key){ n->guid, (uint8_t)j };
			count++;
		}
		if (more)
			break;
	}
	res = json_pack("{s:o, s:o}", "policy", policy_json(&sm->cfg.qos), "ports", ports);
	if (more) {
		char next[PORT_CURSOR_LEN];

		port_cursor_format(&last, next, sizeof(next));
		json_object_set_new(res, "next", json_string(next));
	}
	ctl_reply_ok(req, res);
}
