/*
 * `route` and `topology` (common/commands.def, sm section): read-only
 * views of the published model.  The work is in fabric/route_query.c and
 * fabric/topology_export.c, which are pure and unit-tested; here only the
 * arguments and the reply (the default topology form in slices).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/xmalloc.h"

#include "daemon/control.h"
#include "daemon/events.h"
#include "fabric/route_query.h"
#include "sm/core/sm_internal.h"
#include "sm/face.h"
#include "fabric/topology_diff.h"
#include "fabric/topology_export.h"

/* A route over tables read live: the request and its two ends. */
struct live_route {
	struct ctl_req	*req;
	char		*src, *dst;
};

/* A name the fabric no longer has but once had (an unplugged host): say
 * so, and when it left, instead of "no node has this name". */
static void
gone_from_fabric(const struct fabric *f, const char *src, const char *dst, char *err,
    size_t len)
{
	const char *names[] = { src, dst }, *keys[] = { "src", "dst" }, *why;
	char when[32];
	struct tm tm;

	for (int i = 0; i < 2; i++) {
		int64_t t;
		time_t s;

		if (route_endpoint(f, names[i], &why) != NULL ||
		    (t = events_recall_node(names[i], "node gone")) == 0)
			continue;
		s = (time_t)(t / 1000);
		gmtime_r(&s, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		snprintf(err, len, "%s: %s is not in the fabric now: it left at %s (event \"node "
		    "gone\"; fabricctl events --since 1d lists what else changed)", keys[i],
		    names[i], when);
		return;
	}
}

static void
route_reply(struct ctl_req *req, const struct fabric *f, const char *src, const char *dst,
    const char *tables, int64_t age_ms)
{
	enum proto_error code = PERR_INTERNAL;
	char err[256] = "route failed";
	json_t *res;

	if ((res = route_query(f, src, dst, &code, err, sizeof(err))) == NULL) {
		if (code == PERR_NOT_FOUND)
			gone_from_fabric(f, src, dst, err, sizeof(err));
		ctl_reply_error(req, code, "%s", err);
		return;
	}
	/* which tables were walked: read live just now, or a copy this old */
	json_object_set_new(res, "tables", json_string(tables));
	json_object_set_new(res, "tables_age_ms", json_integer(age_ms > 0 ? age_ms : 0));
	ctl_reply_ok(req, res);
}

static void
after_live(const struct sm_lft_live *r, void *arg)
{
	struct live_route *lr = arg;
	struct sm *sm = sm_of_req(lr->req);

	if (sm == NULL || sm->fabric == NULL)
		ctl_reply_error(lr->req, PERR_UNAVAILABLE, "the fabric view went away");
	else if (r->blocks_read == 0)
		ctl_reply_error(lr->req, PERR_UNAVAILABLE, "no switch answered a "
		    "LinearForwardingTable Get (%zu asked)", r->blocks_failed);
	else
		route_reply(lr->req, sm->fabric, lr->src, lr->dst, r->blocks_failed ? "live, partly" :
		    "live", 0);
	free(lr->src);
	free(lr->dst);
	free(lr);
}

/*
 * An observer's copy of the tables is as old as its last read of the SA:
 * its `route` reads DST's block of every switch's table first (a Get per
 * switch), so that it names the way the switches send now; --live does
 * the same on the master, whose model is the tables it wrote.
 */
void
ctl_sm_route(struct ctl_req *req, json_t *args)
{
	const char *src = ctl_arg_str(args, "src"), *dst = ctl_arg_str(args, "dst"), *why;
	struct sm *sm = sm_of_req(req);
	const struct fabric_port *to;
	struct live_route *lr;
	struct fabric *f;
	uint16_t lid;

	if (src == NULL || dst == NULL) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s: expected a node name, GUID or LID",
		    src == NULL ? "src" : "dst");
		return;
	}
	if ((f = sm_ctl_fabric(req)) == NULL)
		return;
	if (sm->observer == NULL && !ctl_arg_bool(args, "live")) {
		route_reply(req, f, src, dst, "programmed", 0);
		return;
	}
	if ((to = route_endpoint(f, dst, &why)) == NULL) {
		route_reply(req, f, src, dst, "programmed", 0);	/* says why */
		return;
	}
	lr = xcalloc(1, sizeof(*lr));
	lr->req = req;
	lr->src = xstrdup(src);
	lr->dst = xstrdup(dst);
	lid = to->lid;
	if (sm_lft_read_live(sm, &lid, 1, after_live, lr) != 0) {
		free(lr->src);
		free(lr->dst);
		free(lr);
		route_reply(req, f, src, dst, "copy", sm->observer ?
		    event_now_ms() - sm_observer_view_ms(sm) : 0);
	}
}

/*
 * The ibnetdiscover form (the default) is rendered a slice at a time on
 * turns of its own, each slice sent as a `text_part` stream item that
 * fabricctl joins into the result's `text` (schemas/protocol.md): at
 * 1,296 hosts it is 684 KB, and rendering it and encoding it as one JSON
 * string held the loop 20-30 ms (the encoding more than the render).  A model replaced by a sweep meanwhile
 * (the old one is freed) ends the export with `unavailable`: the parts
 * sent cannot be taken back.  A client that leaves ends it too (the
 * request is answered into the void, which frees it).
 */
#define TOPO_SLICE_US	1000
/* jansson encodes a long string at about 25 ns a byte: 48 KB a part keeps
 * a part's encoding near 1 ms (200 KB parts took 5 ms and more). */
#define TOPO_PART_BYTES	(48 * 1024)

struct topo_job {
	struct ctl_req		*req;
	struct event		*ev;
	const struct fabric	*f;
	uint64_t		 published;	/* sm->published when f was taken */
	struct topology_cursor	 cur;
	struct topology_counts	 c;
};

static void
topo_reply(struct ctl_req *req, enum topology_format fmt, const struct topology_counts *c,
    const char *text)
{
	ctl_reply_ok(req, json_pack("{s:s, s:I, s:I, s:I, s:o}",
	    "format", topology_format_name(fmt), "nodes", (json_int_t)c->nodes,
	    "links", (json_int_t)c->links, "degraded_links", (json_int_t)c->degraded,
	    "text", route_text_json(text)));
}

/* One slice rendered and sent: 1 done, 0 more to come, -1 answered. */
static int
topo_part(struct topo_job *j)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int rc;

	if (out == NULL) {
		ctl_reply_error(j->req, PERR_INTERNAL, "out of memory");
		return -1;
	}
	rc = topology_ibnd_write_some(j->f, sm_of_req(j->req)->own_guid, out, &j->cur, &j->c,
	    clock_mono_us() + TOPO_SLICE_US, TOPO_PART_BYTES);
	if (fclose(out) != 0 || rc < 0) {
		free(buf);
		ctl_reply_error(j->req, PERR_INTERNAL, "cannot render the topology");
		return -1;
	}
	if (len > 0)
		ctl_reply_stream(j->req, json_pack("{s:o}", "text_part", route_text_json(buf)));
	free(buf);
	return rc;
}

static void
topo_slice(evutil_socket_t fd, short what, void *arg)
{
	struct topo_job *j = arg;
	struct timeval zero = { 0, 0 };
	struct sm *sm;
	int rc;

	(void)fd;
	(void)what;
	if (ctl_req_gone(j->req)) {
		ctl_reply_error(j->req, PERR_INTERNAL, "the client left");
		goto done;
	}
	/* the daemon's SM, read again: NULL once it stopped */
	sm = sm_of_req(j->req);
	if (sm == NULL || sm->fabric != j->f || sm->published != j->published) {
		ctl_reply_error(j->req, PERR_UNAVAILABLE,
		    "the fabric model changed while it was exported: run it again");
		goto done;
	}
	if ((rc = topo_part(j)) == 0) {
		evtimer_add(j->ev, &zero);
		return;
	}
	if (rc > 0)
		topo_reply(j->req, TOPOLOGY_IBNETDISCOVER, &j->c, "");
done:
	event_free(j->ev);
	free(j);
}

void
ctl_sm_topology(struct ctl_req *req, json_t *args)
{
	const char *name = ctl_arg_str(args, "format");
	int fmt = topology_format_parse(name);
	struct topology_counts c;
	struct topo_job *j;
	struct fabric *f;
	struct sm *sm;
	char *text;

	if (fmt < 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT,
		    "format: expected ibnetdiscover, dot, slurm or slurm-yaml, not \"%s\"", name);
		return;
	}
	if ((f = sm_ctl_fabric(req)) == NULL)
		return;
	sm = sm_of_req(req);
	if (fmt == TOPOLOGY_IBNETDISCOVER && sm->fd && sm->fd->base) {
		j = xcalloc(1, sizeof(*j));
		j->req = req;
		j->f = f;
		j->published = sm->published;
		if ((j->ev = evtimer_new(sm->fd->base, topo_slice, j)) == NULL) {
			ctl_reply_error(req, PERR_INTERNAL, "out of memory");
			free(j);
			return;
		}
		topo_slice(-1, 0, j);
		return;
	}
	/* dot (bundled: a few hundred edges) and Slurm's files are small */
	if ((text = topology_text(f, fmt, sm->own_guid, &c)) == NULL) {
		ctl_reply_error(req, PERR_INTERNAL, "cannot render the topology");
		return;
	}
	topo_reply(req, fmt, &c, text);
	free(text);
}

void
ctl_sm_topology_diff(struct ctl_req *req, json_t *args)
{
	const struct ctl_file *file = ctl_arg_file(req, "file");
	struct topology_plan plan, live;
	struct fabric *f;
	char err[512];
	json_t *res;

	(void)args;
	if (file == NULL) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "file: the cabling plan is missing");
		return;
	}
	if (topology_plan_parse(file->name, file->data, &plan, err, sizeof(err)) != 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s", err);
		return;
	}
	if ((f = sm_ctl_fabric(req)) == NULL) {
		topology_plan_free(&plan);
		return;
	}
	topology_plan_of_fabric(f, &live);
	res = topology_diff(&plan, &live);
	json_object_set_new(res, "plan", route_text_json(file->name));
	topology_plan_free(&plan);
	topology_plan_free(&live);
	ctl_reply_ok(req, res);
}
