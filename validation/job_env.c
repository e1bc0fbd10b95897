/*
 * `partition job env`: what a task of a scheduler job needs on the host
 * it runs on, for the job's Prolog to hand to its TaskProlog (issue 26).
 * The NCCL environment of nccl-env (nccl_env.c) for that one host and the
 * job's partition, cut to the variables that differ per job: the index
 * of the job's key on the host's ports and the QoS class's SL and traffic
 * class.  It lives here rather than in partitions/ because the QoS and
 * RoCE parts of that environment are read above partitions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/control.h"
#include "partitions/partitions.h"
#include "validation/validation.h"

static const char *const job_vars[] = {
	"NCCL_IB_PKEY", "UCX_IB_PKEY", "NCCL_IB_SL", "UCX_IB_SL", "NCCL_IB_TC",
	"UCX_IB_TRAFFIC_CLASS",
};

void
ctl_partition_job_env(struct ctl_req *req, json_t *args)
{
	const char *job = ctl_arg_str(args, "job"), *host = ctl_arg_str(args, "host");
	json_t *all, *env, *faults, *out;
	char name[64], *hosts[1];
	uint16_t pkey = 0;

	if (host == NULL || host[0] == '\0') {
		ctl_reply_error(req, PERR_INVALID_ARGUMENT, "--host is required: the host the task "
		    "runs on (SLURMD_NODENAME)");
		return;
	}
	snprintf(name, sizeof(name), "job-%.40s", job ? job : "");
	(void)partitions_index_of(name, &pkey);
	if (pkey == 0) {
		ctl_reply_error(req, PERR_NOT_FOUND, "job %s has no partition (partition job "
		    "create makes it, in the job's PrologSlurmctld)", job ? job : "");
		return;
	}
	hosts[0] = (char *)host;
	all = nccl_env_compute(hosts, 1, name, NULL);
	faults = json_object_get(all, "faults");
	if (json_array_size(faults) > 0) {
		char *text = json_dumps(faults, JSON_COMPACT);

		ctl_reply_error(req, PERR_CHECK_FAILED, "job %s on %s: %s", job, host, text);
		free(text);
		json_decref(all);
		return;
	}
	env = json_object();
	for (size_t i = 0; i < sizeof(job_vars) / sizeof(job_vars[0]); i++) {
		json_t *v = json_object_get(json_object_get(all, "env"), job_vars[i]);

		if (v != NULL)
			json_object_set(env, job_vars[i], v);
	}
	out = json_pack("{s:s, s:s, s:s, s:o, s:O}", "job", job, "host", host, "partition", name,
	    "env", env, "notes", json_object_get(all, "notes"));
	json_decref(all);
	ctl_reply_ok(req, out);
}
