/*
 * `route` and `topology` (common/commands.def, sm section): read-only
 * views of the published model.  The work is in fabric/route_query.c and
 * fabric/topology_export.c, which are pure and unit-tested; here only the
 * arguments and the reply.
 */
#include <stdlib.h>

#include "daemon/control.h"
#include "fabric/route_query.h"
#include "sm/sm_internal.h"
#include "fabric/topology_diff.h"
#include "fabric/topology_export.h"

void
ctl_sm_route(struct ctl_req *req, json_t *args)
{
	const char *src = ctl_arg_str(args, "src"), *dst = ctl_arg_str(args, "dst");
	enum proto_error code = PERR_INTERNAL;
	char err[256] = "route failed";
	struct fabric *f;
	json_t *res;

	if (src == NULL || dst == NULL) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "%s: expected a node name, GUID or LID",
		    src == NULL ? "src" : "dst");
		return;
	}
	if ((f = sm_ctl_fabric(req)) == NULL)
		return;
	if ((res = route_query(f, src, dst, &code, err, sizeof(err))) == NULL) {
		ctl_reply_error(req, code, "%s", err);
		return;
	}
	ctl_reply_ok(req, res);
}

void
ctl_sm_topology(struct ctl_req *req, json_t *args)
{
	const char *name = ctl_arg_str(args, "format");
	int fmt = topology_format_parse(name);
	struct topology_counts c;
	struct fabric *f;
	char *text;

	if (fmt < 0) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT,
		    "format: expected ibnetdiscover, dot, slurm or slurm-yaml, not \"%s\"", name);
		return;
	}
	if ((f = sm_ctl_fabric(req)) == NULL)
		return;
	if ((text = topology_text(f, fmt, sm_current()->own_guid, &c)) == NULL) {
		ctl_reply_error(req, PERR_INTERNAL, "cannot render the topology");
		return;
	}
	ctl_reply_ok(req, json_pack("{s:s, s:I, s:I, s:I, s:o}",
	    "format", topology_format_name(fmt), "nodes", (json_int_t)c.nodes,
	    "links", (json_int_t)c.links, "degraded_links", (json_int_t)c.degraded,
	    "text", route_text_json(text)));
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
