#!/bin/sh
# `validate --timeout T` stops the job at T, kill_grace included: a job
# that hangs, with a grandchild that ignores SIGTERM (tests/fakes/mpirun
# mode=hang), and kill_grace 5s (before: 2 s + 5 s).  The outcome is read
# from the job table (sqlite3): timed out, inconclusive; the grandchild is
# gone (ps): the group got SIGKILL, not only SIGTERM; the job ran at least
# the SIGTERM point of its plan (1 s: a busy machine can only make it
# later).  When the plan puts SIGTERM and SIGKILL (at T, the grace inside
# it) is test_validation_launch's test_kill_plan, without a clock; the
# time taken is printed, not gated (a busy machine's clock decides it).
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need sqlite3
FK=$FABRICD_SRC/tests/fakes
C=$T/fake.ctl
fd_config "validation:
  mpirun: $FK/mpirun
  nccl_tests_dir: $FK
  job_timeout: 60s
  kill_grace: 5s"
printf '%s\n' mode=hang "pidfile=$T/grandchild.pid" > "$C"
fd_start FAKE_NCCL_CONTROL="$C"

t0=$(date +%s%N)
ctl --json validate nccl --hosts gpu1,gpu2 --follow --timeout 2 > "$T/out" 2>&1; rc=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
echo "validate --timeout 2 with kill_grace 5s ended in $ms ms"
[ $rc -eq 2 ] || fail "a timed-out job: exit $rc, expected 2: $(tail -3 "$T/out")"
[ "$(db "SELECT timed_out, verdict FROM validation_jobs ORDER BY id DESC LIMIT 1")" = "1|inconclusive" ] ||
	fail "job recorded as $(db "SELECT timed_out, verdict, reason FROM validation_jobs")"
[ "$ms" -ge 1000 ] || fail "validate --timeout 2 ended after $ms ms: the job was not run"
gc=$(cat "$T/grandchild.pid")
[ -n "$gc" ] || fail "no grandchild pid"
st=$(ps -o stat= -p "$gc" 2>/dev/null) && case "$st" in Z*) ;; *) fail "grandchild $gc survived" ;; esac
fd_stop
pass
