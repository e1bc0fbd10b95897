/*
 * `qos show [NODE:PORT]`: the policy and what each port holds, as the
 * SM last read or wrote it (the Set's answer is the port's own), beside
 * what the policy gives it.  A port's `differs` lists its tables that are
 * not the policy's; with NODE:PORT a switch port shows its SL2VL table for
 * every in port.  Without a port it answers in pages (`next`, args.after:
 * the last port's 0xGUID:PORT, as `ports` pages).
 *
 * A table the mirror has not read is null, with why in the port's (or
 * row's) `not_read` (issue 42: unread VLArb blocks, all 0xFF, were shown
 * as eight VL15:255 entries).  Without a policy the SM never reads VL
 * arbitration nor most of a switch's pairs, so a NODE or NODE:PORT asked
 * for reads the tables it shows first, a few dozen Gets, as the SA does
 * for its records (sa_qos_lazy.c); the whole listing does not (thousands
 * of switch pairs) and says what it has not read.
 */
#include <stdlib.h>
#include <string.h>

#include <iba/ib_types.h>

#include "common/xmalloc.h"
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

/* Why a table of p is null (qos_table_read false); tried: a Get was sent
 * for it just before this answer. */
static const char *
why_unread(const struct sm *sm, const struct fabric_port *p, bool sl2vl, bool tried)
{
	struct qos_port_caps c;

	qos_port_caps_of(p, &c);
	if (sl2vl && !c.sl_map)
		return "the port maps no SL to a VL (CapabilityMask IsSLMappingSupported clear)";
	if (!sm->cfg.qos.enabled)
		return "QoS is off (sm.qos.enabled: false): the SM reads no table";
	if (sm->observer)
		return "an observer reads no QoS table";
	if (p->node->qos == NULL)
		return "the SM has not read this node yet";
	if (tried)
		return "no answer to the Get sent for it";
	if (sm->state != SM_STATE_MASTER)
		return "not master: only the master reads the tables";
	if (!sm->qos_tables->keep)
		return "no answer to the sweep's Get or Set (the next heavy sweep reads it)";
	if (!sl2vl)
		return "no policy: VL arbitration is left as it is, unread (qos show NODE:PORT reads it)";
	if (p->node->type == FABRIC_SWITCH)
		return "no policy: a switch's (in, out) pairs are read as the audit, a pre-flight or "
		    "the SA need them (qos show NODE:PORT reads them)";
	return "no answer to the sweep's Get (the next heavy sweep reads it)";
}

/* Table `key` of o: t when read, else null and why in not_read (which
 * the caller adds to o when it is not empty). */
static void
put_table(json_t *o, json_t *not_read, const char *key, json_t *t, const char *why)
{
	json_object_set_new(o, key, t != NULL ? t : json_null());
	if (t == NULL)
		json_object_set_new(not_read, key, json_string(why));
}

static void
add_not_read(json_t *o, json_t *not_read)
{
	if (json_object_size(not_read) > 0)
		json_object_set(o, "not_read", not_read);
	json_decref(not_read);
}

/* SL -> VL of the SL2VL table of (in, p); NULL when not read. */
static json_t *
sl2vl_json(const struct qos_held *h, const struct fabric_port *p, uint8_t in)
{
	const uint8_t *t;
	json_t *a;

	if (!qos_table_read(h, p, true, in, 0))
		return NULL;
	t = qos_held_sl2vl_c(h, in, p->num);
	a = json_array();
	for (uint8_t sl = 0; sl < QOS_NUM_SL; sl++)
		json_array_append_new(a, json_integer(qos_sl2vl_get(t, sl)));
	return a;
}

/* [[VL, weight], ...] of the entries the port has; NULL unless every
 * block holding one was read. */
static json_t *
vlarb_json(const struct qos_held *h, const struct fabric_port *p, const struct qos_port_caps *c,
    bool high)
{
	unsigned cap = high ? c->high_cap : c->low_cap;
	json_t *a;

	if (!qos_vlarb_read(h, p, high))
		return NULL;
	a = json_array();
	for (unsigned e = 0; e < cap && e < QOS_VLARB_ENTRIES; e++) {
		const uint8_t *b = qos_held_vlarb_c(h, p->num, (high ? 2 : 0) + e / 32);

		json_array_append_new(a, json_pack("[i, i]", b[2 * (e % 32)] & 0x0F,
		    b[2 * (e % 32) + 1]));
	}
	return a;
}

struct differs_ctx {
	json_t			*list;
	const struct fabric_port *p;
	const struct qos_held	*h;
};

/* A table the checker finds differing, named in `differs` if it was read:
 * the checker counts an unread one too (with a policy the SM writes it),
 * but whether the port's differs is not known; `unread` counts those. */
static void
add_differ(void *arg, const char *what, unsigned in, unsigned block)
{
	struct differs_ctx *d = arg;
	bool sl2vl = strcmp(what, "sl2vl") == 0;
	char buf[32];

	if (!qos_table_read(d->h, d->p, sl2vl, in, block))
		return;
	if (sl2vl)
		snprintf(buf, sizeof(buf), "sl2vl in %u", in);
	else
		snprintf(buf, sizeof(buf), "vlarb %s %u", block < 2 ? "low" : "high", block & 1);
	json_array_append_new(d->list, json_string(buf));
}

static json_t *
port_json(const struct sm *sm, const struct fabric_port *p, bool pairs, bool tried)
{
	const struct qos_held *h = p->node->qos;
	const ib_port_info_t *pi = (const ib_port_info_t *)p->pi;
	bool sw = p->node->type == FABRIC_SWITCH;
	struct qos_port_caps c;
	struct differs_ctx d = { .list = json_array(), .p = p, .h = h };
	json_t *o, *nr = json_object();

	qos_port_caps_of(p, &c);
	qos_port_diff(sm->qos_tables, p, h, add_differ, &d);
	o = json_pack("{s:s, s:s, s:i, s:s, s:s, s:i, s:o, s:i}", "node", p->node->desc,
	    "node_guid", "", "port", p->num, "vl_cap", vls_name(c.vl_cap),
	    "op_vls", vls_name(c.op_vls), "vl_high_limit", pi->vl_high_limit, "differs", d.list,
	    "unread", (int)qos_port_unread(sm->qos_tables, p, h, NULL, NULL));
	json_object_set_new(o, "node_guid", sm_guid_json(p->node->guid));
	put_table(o, nr, "sl2vl", sl2vl_json(h, p, 0), why_unread(sm, p, true, tried));
	put_table(o, nr, "vlarb_high", vlarb_json(h, p, &c, true), why_unread(sm, p, false, tried));
	put_table(o, nr, "vlarb_low", vlarb_json(h, p, &c, false), why_unread(sm, p, false, tried));
	if (sw && pairs) {
		json_t *in = json_array();

		for (uint8_t i = 0; i <= p->node->nports; i++) {
			json_t *row = json_pack("{s:i}", "in", i), *rnr = json_object();

			put_table(row, rnr, "sl2vl", sl2vl_json(h, p, i), why_unread(sm, p, true, tried));
			add_not_read(row, rnr);
			json_array_append_new(in, row);
		}
		json_object_set_new(o, "sl2vl_by_in", in);
	}
	add_not_read(o, nr);
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

/* Tables one `qos show` of a node reads first at most: a 64-port switch's
 * port (65 in ports and 4 VLArb blocks), or every port of it (65 x 5). */
#define QOS_SHOW_READS	512

struct show_read {
	struct ctl_req		*req;
	json_t			*args;
};

struct to_read {
	struct sm_qos_table	*t;
	size_t			 n;
	const struct fabric_port *p;
};

static void show(struct ctl_req *req, json_t *args, bool tried);

static void
after_read(void *arg)
{
	struct show_read *r = arg;

	show(r->req, r->args, true);
	json_decref(r->args);
	free(r);
}

static void
want_read(void *arg, const char *what, unsigned in, unsigned block)
{
	struct to_read *w = arg;
	bool sl2vl = strcmp(what, "sl2vl") == 0;

	if (w->n < QOS_SHOW_READS && !qos_table_read(w->p->node->qos, w->p, sl2vl, in, block))
		w->t[w->n++] = (struct sm_qos_table){ { w->p->node->guid, w->p->num, (uint8_t)in },
		    (uint8_t)block, sl2vl };
}

/* The tables `qos show` of node n (its port `port`, every port when -1)
 * would give as not read are read first: true when the answer comes once
 * they are back (show() again, tried), false when nothing is to be read
 * or the SM reads nothing now (not master, QoS off). */
static bool
read_first(struct ctl_req *req, json_t *args, struct sm *sm, const struct fabric_node *n, int port)
{
	struct to_read w = { .t = xcalloc(QOS_SHOW_READS, sizeof(*w.t)) };
	struct show_read *r;
	int rc = -1;

	for (int j = 0; n->qos != NULL && j <= n->nports; j++)
		if ((port < 0 || j == port) && qos_port_programmed(&n->ports[j])) {
			w.p = &n->ports[j];
			qos_port_shown(w.p, port >= 0, want_read, &w);
		}
	r = xcalloc(1, sizeof(*r));
	r->req = req;
	r->args = json_incref(args);
	if (w.n > 0)	/* done may come before this returns: r is then gone */
		rc = sm_qos_read(sm, w.t, w.n, after_read, r);
	free(w.t);
	if (rc != 0) {
		json_decref(r->args);
		free(r);
	}
	return rc == 0;
}

static void
show(struct ctl_req *req, json_t *args, bool tried)
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
	if (!tried && only != NULL && cursor == NULL && read_first(req, args, sm, only, port))
		return;
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
			json_array_append_new(ports, port_json(sm, &n->ports[j], port >= 0, tried));
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

void
ctl_qos_show(struct ctl_req *req, json_t *args)
{
	show(req, args, false);
}
