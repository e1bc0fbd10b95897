#!/bin/sh
# Slurm prolog: ask fabricd whether this job's hosts are fit before the job
# starts.  Install as Prolog= in slurm.conf with PrologFlags=Alloc (runs at
# allocation, as root, on every node of the job).
#
# Exit status contract of `fabricctl preflight` (also in its JSON as
# "exit_code"): 0 pass, 1 a fault names a node or port, 2 inconclusive or
# the request refused (a host of the job the fabric has never had a CA of
# is invalid_argument: the name is wrong, not the node).
# A prolog that exits non-zero drains the node and requeues the job, so:
#   - exit 1 only when *this* node is named in a fault (a bad peer is the
#     peer's prolog's business: draining every node of the job for one bad
#     cable would empty the cluster);
#   - exit 2 never drains: the harness or the request, not the node,
#     failed; it is logged (with the refusal's message) and the job goes
#     ahead;
#   - the drain reason is "fabricd: <code> <component>" so that a later
#     pass can resume only the nodes fabricd drained, never a human's drain.
#
# Set FABRICD_PREFLIGHT_NCCL=1 to also run the NCCL job (slower: minutes),
# FABRICD_PARTITION (or the older FABRICD_TENANT) to check the P_Key of the
# job's partition, FABRICCTL to the client path.
#
# Kubernetes: run the same command in an init container or a
# node-problem-detector custom plugin (exit 0 OK / 1 problem / other
# unknown) and set a node condition "FabricPreflight=False" with the fault
# code as reason; taint with a policy such as
# fabric.example.com/ib-unhealthy=<code>:NoSchedule.  Conditions say why,
# taints keep pods off; never taint on exit 2.

FABRICCTL=${FABRICCTL:-fabricctl}
me=$(hostname -s)
# fabricctl reads Slurm hostlists (gpu[001-064]) itself.
hosts=$SLURM_JOB_NODELIST
[ -n "$hosts" ] || hosts=$me

set -- preflight --json --hosts "$hosts"
part=${FABRICD_PARTITION:-$FABRICD_TENANT}
[ -n "$part" ] && set -- "$@" --partition "$part"
[ "$FABRICD_PREFLIGHT_NCCL" = 1 ] && set -- "$@" --nccl

out=$("$FABRICCTL" "$@" 2>/dev/null)
rc=$?
case $rc in
0)
	exit 0 ;;
1)
	# the first fault that names this node: "<code> <port>"
	mine=$(printf '%s\n' "$out" | tr -d '\n' | sed 's/},/}\n/g' |
	    grep "\"host\": *\"$me\"" | head -1)
	if [ -z "$mine" ]; then
		logger -t fabricd-prolog "job $SLURM_JOB_ID: fault elsewhere, not on $me"
		exit 0
	fi
	code=$(printf '%s' "$mine" | sed -n 's/.*"code": *"\([^"]*\)".*/\1/p')
	port=$(printf '%s' "$mine" | sed -n 's/.*"port": *"\([^"]*\)".*/\1/p')
	reason="fabricd: ${code:-Fault} ${port:-$me}"
	logger -t fabricd-prolog "job $SLURM_JOB_ID: $reason"
	scontrol update NodeName="$me" State=DRAIN Reason="$reason" 2>/dev/null
	exit 1 ;;
*)
	# a refusal is {"error": {"code": ..., "message": ...}}
	why=$(printf '%s\n' "$out" | grep -A2 '"error":' | sed -n 's/^ *"message": *"\(.*\)"$/\1/p')
	logger -t fabricd-prolog "job $SLURM_JOB_ID: preflight inconclusive or refused" \
	    "(exit $rc)${why:+: $why}, not draining"
	exit 0 ;;
esac
