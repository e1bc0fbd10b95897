/*
 * `mcast` and `sa` (common/commands.def, sm section): the SA's multicast
 * groups with their members (and, for one group, its forwarding tree as
 * computed from the published model), and the SA's counters.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/control.h"
#include "sm/sa/sa.h"
#include "sm/mcast/mcast.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"

static json_t *
hex16(uint16_t v)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "0x%04x", v);
	return json_string(buf);
}

/* JoinState bits (IBA 15.2.5.17): full, non, send-only. */
static const char *
join_text(unsigned js, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", js & 1 ? "full " : "", js & 2 ? "non " : "",
	    js & 4 ? "sendonly " : "");
	if (buf[0])
		buf[strlen(buf) - 1] = '\0';
	return buf;
}

static json_t *
member_json(const struct fabric *f, const struct mc_member *m)
{
	const struct fabric_port *p = f ? fabric_port_by_guid(f, m->port_guid) : NULL;
	char js[32];
	json_t *o = json_pack("{s:o, s:i, s:s, s:b}", "port_guid", sm_guid_json(m->port_guid),
	    "join_state", m->join_state, "join_text", join_text(m->join_state, js, sizeof(js)),
	    "proxy", m->proxy);

	if (p) {
		json_object_set_new(o, "node", json_string(p->node->desc));
		json_object_set_new(o, "port", json_integer(p->num));
		json_object_set_new(o, "lid", json_integer(p->node->type == FABRIC_SWITCH ?
		    p->node->lid : p->lid));
	}
	return o;
}

/* The IBA's codes as a person reads them (MCMemberRecord MTU and Rate,
 * ib_types.h's IB_MTU_LEN_* and IB_PATH_RECORD_RATE_*): beside the raw
 * codes, which saquery prints. */
static int
mtu_bytes(unsigned code)
{
	return code >= IB_MTU_LEN_256 && code <= IB_MTU_LEN_4096 ? 256 << (code - IB_MTU_LEN_256) : 0;
}

static const char *
rate_text(unsigned code)
{
	static const struct { unsigned code; const char *text; } rates[] = {
		{ IB_PATH_RECORD_RATE_2_5_GBS, "2.5 Gb/s" }, { IB_PATH_RECORD_RATE_5_GBS, "5 Gb/s" },
		{ IB_PATH_RECORD_RATE_10_GBS, "10 Gb/s" }, { IB_PATH_RECORD_RATE_14_GBS, "14 Gb/s" },
		{ IB_PATH_RECORD_RATE_20_GBS, "20 Gb/s" }, { IB_PATH_RECORD_RATE_25_GBS, "25 Gb/s" },
		{ IB_PATH_RECORD_RATE_28_GBS, "28 Gb/s" }, { IB_PATH_RECORD_RATE_30_GBS, "30 Gb/s" },
		{ IB_PATH_RECORD_RATE_40_GBS, "40 Gb/s" }, { IB_PATH_RECORD_RATE_50_GBS, "50 Gb/s" },
		{ IB_PATH_RECORD_RATE_56_GBS, "56 Gb/s" }, { IB_PATH_RECORD_RATE_60_GBS, "60 Gb/s" },
		{ IB_PATH_RECORD_RATE_80_GBS, "80 Gb/s" }, { IB_PATH_RECORD_RATE_100_GBS, "100 Gb/s" },
		{ IB_PATH_RECORD_RATE_112_GBS, "112 Gb/s" }, { IB_PATH_RECORD_RATE_120_GBS, "120 Gb/s" },
		{ IB_PATH_RECORD_RATE_168_GBS, "168 Gb/s" }, { IB_PATH_RECORD_RATE_200_GBS, "200 Gb/s" },
		{ IB_PATH_RECORD_RATE_300_GBS, "300 Gb/s" }, { IB_PATH_RECORD_RATE_400_GBS, "400 Gb/s" },
		{ IB_PATH_RECORD_RATE_600_GBS, "600 Gb/s" },
	};

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].code == code)
			return rates[i].text;
	return "?";
}

static json_t *
group_json(const struct fabric *f, const struct mc_group *g)
{
	char mgid[48], qkey[16];
	json_t *members = json_array();

	for (size_t i = 0; i < g->nmembers; i++)
		json_array_append_new(members, member_json(f, &g->members[i]));
	snprintf(qkey, sizeof(qkey), "0x%08x", (unsigned)g->p.qkey);
	return json_pack("{s:s, s:i, s:o, s:o, s:I, s:s, s:i, s:i, s:i, s:s, s:i, s:i, s:b, s:o}",
	    "mgid", mc_mgid_format(g->mgid, mgid, sizeof(mgid)), "mlid", g->mlid,
	    "mlid_hex", hex16(g->mlid), "pkey", hex16(g->p.pkey), "qkey", (json_int_t)g->p.qkey,
	    "qkey_hex", qkey, "mtu", g->p.mtu, "mtu_bytes", mtu_bytes(g->p.mtu),
	    "rate", g->p.rate, "rate_text", rate_text(g->p.rate), "sl", g->p.sl, "scope", g->p.scope,
	    "sm_owned", g->sm_owned, "members", members);
}

/* The switches of g's tree and the ports their MFT entry holds. */
static json_t *
tree_json(const struct fabric *f, const struct mc_group *g)
{
	json_t *rows = json_array();
	struct fabric_node *n;
	struct mc_tree t;
	size_t i;

	mc_tree_compute(f, g, &t);
	FABRIC_FOREACH_NODE(f, i, n) {
		json_t *ports;

		if (n->type != FABRIC_SWITCH || !t.in_tree[i])
			continue;
		ports = json_array();
		for (unsigned j = 0; j <= n->nports; j++)
			if (mc_tree_has(&t, i, j))
				json_array_append_new(ports, json_integer(j));
		json_array_append_new(rows, json_pack("{s:s, s:o, s:i, s:o}", "switch", n->desc,
		    "guid", sm_guid_json(n->guid), "lid", n->lid, "ports", ports));
	}
	mc_tree_free(&t);
	return rows;
}

/* GROUP: an MGID in any IPv6 form (saquery's full one, ours, or the
 * compressed ff12:401b:ffff::ffff:ffff a person writes), or an MLID. */
static const struct mc_group *
find_group(const struct sm *sm, const char *want)
{
	uint8_t mgid[16];
	char *end;
	unsigned long mlid = strtoul(want, &end, 0);

	if (*want && *end == '\0')
		return mc_find_mlid(sm->mc, (uint16_t)mlid);
	if (inet_pton(AF_INET6, want, mgid) != 1)
		return NULL;
	for (size_t i = 0; i < sm->mc->ngroups; i++)
		if (memcmp(sm->mc->groups[i]->mgid, mgid, sizeof(mgid)) == 0)
			return sm->mc->groups[i];
	return NULL;
}

void
ctl_sm_mcast(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_of_req(req);
	const char *want = ctl_arg_str(args, "group");
	const struct mc_group *g;
	json_t *groups, *res;

	if (sm == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is not running");
		return;
	}
	if (want != NULL) {
		if ((g = find_group(sm, want)) == NULL) {
			ctl_reply_error(req, PERR_NOT_FOUND, "no multicast group %s", want);
			return;
		}
		res = group_json(sm->fabric, g);
		json_object_set_new(res, "tree", sm->fabric ? tree_json(sm->fabric, g) : json_array());
		ctl_reply_ok(req, res);
		return;
	}
	groups = json_array();
	for (size_t i = 0; i < sm->mc->ngroups; i++)
		json_array_append_new(groups, group_json(sm->fabric, sm->mc->groups[i]));
	ctl_reply_ok(req, json_pack("{s:o, s:I, s:I, s:I, s:I}", "groups", groups,
	    "created", (json_int_t)sm->mc->created, "deleted", (json_int_t)sm->mc->deleted,
	    "mft_blocks_written", (json_int_t)sm->mft_blocks_written,
	    "mft_verify_mismatches", (json_int_t)sm->mft_verify_mismatches));
}

void
ctl_sm_sa(struct ctl_req *req, json_t *args)
{
	struct sm *sm = sm_of_req(req);
	const struct sa_counters *c;
	json_t *attrs, *subs;

	if (sm == NULL) {
		ctl_reply_error(req, PERR_UNAVAILABLE, "the subnet manager is not running");
		return;
	}
	c = &sm->sa->counters;
	attrs = json_array();
	for (unsigned i = 0; i < SA_NATTR; i++)
		json_array_append_new(attrs, json_pack("{s:s, s:o, s:I, s:I}",
		    "attribute", sa_attr_name(i), "id", hex16(sa_attr_id(i)),
		    "requests", (json_int_t)c->attr[i].requests,
		    "errors", (json_int_t)c->attr[i].errors));
	subs = json_array();
	for (size_t i = 0; i < sm->sa->subs.n; i++)
		json_array_append_new(subs, json_pack("{s:i, s:o, s:i, s:i}", "lid", sm->sa->subs.v[i].lid,
		    "port_guid", sm_guid_json(sm->sa->subs.v[i].port_guid), "trap", sm->sa->subs.v[i].trap,
		    "qpn", (int)sm->sa->subs.v[i].qpn));
	ctl_reply_ok(req, json_pack("{s:I, s:I, s:I, s:I, s:I, s:b, s:o, s:o, s:I}",
	    "requests", (json_int_t)c->requests, "records", (json_int_t)c->records,
	    "errors", (json_int_t)c->errors, "malformed", (json_int_t)c->malformed,
	    "truncated", (json_int_t)c->truncated, "kernel_rmpp", mad_engine_kernel_rmpp(sm->me),
	    "attributes", attrs, "subscriptions", subs, "reports_sent",
	    (json_int_t)sm->sa->reports_sent));
}
