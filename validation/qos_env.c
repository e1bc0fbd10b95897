/*
 * `qos env --class NAME`: what a job or a storage host needs to land in a
 * QoS class (docs/qos.md).  On InfiniBand the class's SL: a storage host's
 * rdma_cm asks the SA for a PathRecord with the service's ServiceID and
 * gets the SL the SA chooses (sm_qos_path_sl, the same choice); NCCL and
 * UCX are told it.  On RoCE the class's traffic class byte, which `nvme
 * connect --tos` and UCX_IB_TRAFFIC_CLASS take.
 */
#include <stdio.h>

#include "daemon/control.h"
#include "roce_qos/roce_qos.h"
#include "sm/sm.h"
#include "validation/fabric_view.h"
#include "validation/validation.h"

static json_t *
ib_part(const char *name)
{
	uint64_t sid = 0;
	int sl = sm_qos_class_info(view_sm(), name, &sid);
	char buf[32];
	json_t *o;

	if (sl < 0)
		return json_null();
	o = json_pack("{s:i}", "sl", sl);
	if (sid) {
		snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)sid);
		json_object_set_new(o, "service_id", json_string(buf));
		/* what the SA gives rdma_cm for that service (no partition asked) */
		json_object_set_new(o, "rdma_cm_sl",
		    json_integer(sm_qos_path_sl(view_sm(), true, sid, 0)));
	}
	snprintf(buf, sizeof(buf), "%d", sl);
	json_object_set_new(o, "env", json_pack("{s:s, s:s}", "NCCL_IB_SL", buf, "UCX_IB_SL", buf));
	return o;
}

static json_t *
roce_part(const char *name)
{
	int prio = 0, tc = roce_qos_class_tclass(name, &prio);
	char buf[16], arg[24];

	if (tc < 0)
		return json_null();
	snprintf(buf, sizeof(buf), "%d", tc);
	snprintf(arg, sizeof(arg), "--tos %d", tc);
	return json_pack("{s:i, s:i, s:i, s:s, s:{s:s, s:s}}", "tclass", tc, "dscp", tc >> 2,
	    "priority", prio, "nvme_connect", arg, "env", "NCCL_IB_TC", buf,
	    "UCX_IB_TRAFFIC_CLASS", buf);
}

void
ctl_qos_env(struct ctl_req *req, json_t *args)
{
	const char *name = ctl_arg_str(args, "class");
	json_t *ib, *roce;

	if (name == NULL) {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--class: give a class name (training, "
		    "storage...)");
		return;
	}
	ib = ib_part(name);
	roce = roce_part(name);
	if (json_is_null(ib) && json_is_null(roce)) {
		json_decref(ib);
		json_decref(roce);
		ctl_reply_error(req, PERR_NOT_FOUND, "no QoS class %s in the sm qos policy or the "
		    "RoCE profile", name);
		return;
	}
	ctl_reply_ok(req, json_pack("{s:s, s:o, s:o}", "class", name, "infiniband", ib,
	    "roce", roce));
}
