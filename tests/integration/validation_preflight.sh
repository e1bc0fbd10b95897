#!/bin/sh
# Pre-flight without fabric state: with the SM off nothing can be
# verified, so the answer is "inconclusive" (exit 2), never a fault; and
# --nccl with no launcher on the machine is inconclusive too.  The exit
# status is fabricctl's own (what a Slurm prolog sees); the job behind
# --nccl is checked in the database with the sqlite3 shell.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need sqlite3
fd_config "validation:
  mpirun: $T/not-installed/mpirun
  nccl_tests_dir: $T/not-installed
  job_timeout: 5s"
fd_start

ctl preflight --hosts host1,host2 >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "preflight without fabric state: exit $rc, expected 2: $(cat "$T/out")"
ctl --json preflight --hosts host1,host2 | grep -q '"exit_code": 2' || fail "exit_code missing from the result"

ctl preflight --hosts host1,host2 --nccl >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "preflight --nccl without a launcher: exit $rc, expected 2"
[ "$(db "SELECT exit_status, verdict, code FROM validation_jobs ORDER BY id DESC LIMIT 1")" = \
    "127|inconclusive|HarnessError" ] || fail "the NCCL job was not recorded as a harness failure"
# the environment the job got came from the fabric view, Ring for link tests
db "SELECT environment FROM validation_jobs ORDER BY id DESC LIMIT 1" | grep -q '"NCCL_ALGO":"Ring"' ||
	fail "job environment"

# bad input is refused, not run
ctl preflight --hosts 'a;rm' --nccl >/dev/null 2>&1 && fail "a host name with ';' was accepted"
# out of the ranges commands.def declares: refused by fabricctl (a usage
# error, exit 2) and, sent straight to the socket, by the daemon
probe() { "$FABRICD_BUILD/tools/ctl_probe" "$SOCK" send "{\"v\":1,\"id\":1,\"cmd\":\"$1\",\"args\":$2}"; }
for t in 0 86400000; do
	ctl preflight --hosts host1,host2 --nccl --timeout $t >/dev/null 2>&1
	[ $? -eq 2 ] || fail "preflight --timeout $t was not refused as a usage error"
	probe preflight "{\"hosts\":[\"host1\",\"host2\"],\"nccl\":true,\"timeout\":$t}" |
	    grep -q '"code":"invalid_argument"' || fail "preflight timeout $t sent raw was not refused"
done
ctl jobs --limit 0 >/dev/null 2>&1
[ $? -eq 2 ] || fail "jobs --limit 0 was not refused"
probe jobs '{"limit":0}' | grep -q '"code":"invalid_argument"' || fail "jobs limit 0 sent raw was not refused"
[ "$(db "SELECT count(*) FROM validation_jobs")" -eq 1 ] || fail "a refused request started a job"

# nccl-env prints what a job script can source
# nccl-env gives a training job no NCCL_ALGO: NCCL chooses Tree, NVLS or
# CollNet where they beat Ring (issue 42, point 10; 5f2420a exported Ring)
ctl nccl-env --hosts host1,host2 > "$T/nccl-env.txt" || fail "nccl-env: $(cat "$T/nccl-env.txt")"
grep -q '^# NCCL_IB_HCA, NCCL_IB_PKEY: SM not available' "$T/nccl-env.txt" ||
    fail "nccl-env without an SM does not say so: $(cat "$T/nccl-env.txt")"
grep -q 'NCCL_ALGO' "$T/nccl-env.txt" && fail "nccl-env pins NCCL_ALGO for training jobs: $(cat "$T/nccl-env.txt")"
fd_stop
pass
