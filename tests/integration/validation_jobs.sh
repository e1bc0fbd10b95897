#!/bin/sh
# Validation jobs through fabricd's runner with stand-in launchers
# (tests/fakes: mpirun/srun/nccl-tests/perftest doubles that replay a
# fixture, hang, crash, print garbage or fail when a planted host takes
# part).  Checked independently: the sqlite3 shell on the job records,
# the file system (logs, the hung grandchild's pid), the fake's own log
# of which hosts each job used.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need sqlite3
F=$FABRICD_SRC/tests/fixtures/nccl
FK=$FABRICD_SRC/tests/fakes
fd_config "validation:
  mpirun: $FK/mpirun
  srun: $T/nonexistent/srun
  nccl_tests_dir: $FK
  perftest_dir: $FK
  job_timeout: 60s
  kill_grace: 1s
  max_parallel: 4
  profiles:
    ring: { min_busbw: 300, warn_busbw: 340, rdma_min_gbps: 380 }"
# fabricd -n says what a job would miss: a launcher that is not there is a
# warning naming it (not a silent OK), one that is there is not
cat "$CONF" > "$T/nolauncher.yaml"
sed -i "s|^  mpirun: .*|  mpirun: $T/nonexistent/mpirun|" "$T/nolauncher.yaml"
"$FABRICD" -n -c "$T/nolauncher.yaml" > "$T/n.out" 2> "$T/n.err" || fail "fabricd -n: exit $?"
grep -q "^warning: validation: launcher mpirun: $T/nonexistent/mpirun is not executable" "$T/n.err" ||
    fail "fabricd -n with mpirun absent: $(cat "$T/n.out" "$T/n.err")"
sed -i "/^  mpirun: /d" "$T/nolauncher.yaml"
PATH=$T/nonexistent "$FABRICD" -n -c "$T/nolauncher.yaml" 2> "$T/n.err" >/dev/null
grep -q "launcher mpirun: not found on PATH" "$T/n.err" || fail "fabricd -n, no mpirun on PATH: $(cat "$T/n.err")"
"$FABRICD" -n -c "$CONF" 2> "$T/n.err" >/dev/null || fail "fabricd -n: good config"
grep -q "launcher" "$T/n.err" && fail "fabricd -n warns about a launcher that is there: $(cat "$T/n.err")"

C=$T/control
control() { printf '%s\n' "$@" > "$C"; : > "$C.log"; }
control mode=replay
fd_start FAKE_NCCL_CONTROL="$C"
q() { db "$1"; }
last() { q "SELECT max(id) FROM validation_jobs"; }
# alive: exists and is not a zombie (the container's init may not reap)
alive() { st=$(ps -o stat= -p "$1" 2>/dev/null) && case "$st" in Z*) false ;; *) true ;; esac; }

# 1. a passing 2-node run: rows recorded = data rows in the log x 2
control mode=replay "fixture=$F/v2.17_2node_ring_pass.txt" exit=0
ctl validate nccl --hosts gpu1,gpu2 --profile ring --follow >/dev/null || fail "pass run: exit $?"
id=$(last)
[ "$(q "SELECT state, exit_status, verdict FROM validation_jobs WHERE id=$id")" = "done|0|pass" ] ||
	fail "pass run recorded as $(q "SELECT state, exit_status, verdict, reason FROM validation_jobs WHERE id=$id")"
out=$(q "SELECT stdout_path FROM validation_jobs WHERE id=$id")
[ -f "$out" ] || fail "stdout log $out missing"
want=$(awk '$1 ~ /^[0-9]+$/ && NF == 13' "$out" | wc -l)
[ "$want" -gt 0 ] || fail "log has no rows"
[ "$(q "SELECT count(*) FROM validation_nccl_rows WHERE job_id=$id")" -eq $((want * 2)) ] || fail "rows not recorded"
grep -q " on *gpu2 device" "$out" || fail "log does not show the requested hosts"
q "SELECT command FROM validation_jobs WHERE id=$id" | grep -q '"-H","gpu1:8,gpu2:8"' || fail "mpirun host list not recorded"
q "SELECT environment FROM validation_jobs WHERE id=$id" | grep -q '"NCCL_ALGO":"Ring"' || fail "environment not recorded"
# job log returns the tail of the file on disk
ctl job log "$id" --bytes=200 --json | grep -q "$(tail -c 60 "$out" | tail -1 | cut -c1-20)" || fail "job log"

# 2. an IB failure, exit 3: fail, the host the WARN names
control mode=replay "fixture=$F/v2.17_2node_ibfail.txt" exit=3
ctl validate nccl --hosts gpu1,gpu2 --profile ring --follow >/dev/null
rc=$?
[ $rc -eq 1 ] || fail "--follow of a failing job: exit $rc, not 1"
id=$(last)
[ "$(q "SELECT exit_status, verdict, culprit_host, culprit_hca FROM validation_jobs WHERE id=$id")" = "3|fail|gpu2|mlx5_2" ] ||
	fail "ib failure recorded as $(q "SELECT exit_status, verdict, culprit_host, culprit_hca, reason FROM validation_jobs WHERE id=$id")"

# 3. a hang: the timeout kills the whole group, the grandchild that
#    ignores SIGTERM included; the job is inconclusive, never a node fault
control mode=hang "pidfile=$T/grandchild.pid"
t0=$(date +%s)
ctl --json validate nccl --hosts gpu1,gpu2 --follow --timeout 3 > "$T/follow.out"
rc=$?
t1=$(date +%s)
[ $rc -eq 2 ] || fail "--follow of an inconclusive job: exit $rc, not 2"
# --follow streamed progress while it ran (one item a second)
[ "$(grep -c '"state":"running"' "$T/follow.out")" -ge 2 ] || fail "no progress streamed: $(cat "$T/follow.out")"
id=$(last)
[ "$(q "SELECT timed_out, verdict FROM validation_jobs WHERE id=$id")" = "1|inconclusive" ] ||
	fail "hang recorded as $(q "SELECT timed_out, verdict, reason FROM validation_jobs WHERE id=$id")"
# the time is printed, not gated (test_kill_plan has the plan; a busy
# machine's clock decides the rest); it ended, killed, and that is checked
echo "hang with a 3 s timeout ended after $((t1 - t0)) s"
gc=$(cat "$T/grandchild.pid")
sleep 0.5
alive "$gc" && fail "grandchild $gc survived the group kill"

# 3b. --follow as a person reads it: each line new, after its elapsed time
ctl validate nccl --hosts gpu1,gpu2 --follow --timeout 2 > "$T/follow.txt"
n=$(grep -c '^\[[0-9.]* \(ms\|s\)\] job ' "$T/follow.txt")
[ "$n" -ge 1 ] || fail "--follow: no progress line with its elapsed time: $(cat "$T/follow.txt")"
[ "$(grep '^\[' "$T/follow.txt" | sed 's/^\[[^]]*\] //' | uniq -d | wc -l)" -eq 0 ] ||
    fail "--follow repeats a line: $(cat "$T/follow.txt")"

# 4. a crash after the test started: fail, with the signal recorded
control mode=crash "fixture=$F/v2.17_2node_ring_pass.txt"
ctl validate nccl --hosts gpu1,gpu2 --follow >/dev/null
id=$(last)
[ "$(q "SELECT term_signal, verdict FROM validation_jobs WHERE id=$id")" = "11|fail" ] ||
	fail "crash recorded as $(q "SELECT exit_status, term_signal, verdict, reason FROM validation_jobs WHERE id=$id")"

# 5. garbage: inconclusive, daemon alive
control mode=garbage
ctl validate nccl --hosts gpu1,gpu2 --follow --fail-on inconclusive >/dev/null
rc=$?
[ $rc -eq 1 ] || fail "--fail-on inconclusive: exit $rc, not 1"
id=$(last)
[ "$(q "SELECT exit_status, verdict FROM validation_jobs WHERE id=$id")" = "1|inconclusive" ] || fail "garbage"
ctl version >/dev/null || fail "daemon died on garbage"

# 6. a launcher that is not there: inconclusive (exit 127), not a fault;
#    the verdict carries the last line of the job's stderr (read here from
#    the file on disk), so the reason is not only in job log --stderr
ctl validate nccl --hosts gpu1,gpu2 --launcher srun --follow >/dev/null
id=$(last)
[ "$(q "SELECT exit_status, verdict, code FROM validation_jobs WHERE id=$id")" = "127|inconclusive|HarnessError" ] ||
	fail "missing launcher recorded as $(q "SELECT exit_status, verdict, code FROM validation_jobs WHERE id=$id")"
tail_line=$(grep . "$(q "SELECT stderr_path FROM validation_jobs WHERE id=$id")" | tail -1)
[ -n "$tail_line" ] || fail "the job wrote nothing to stderr"
ctl --json job show "$id" | jq -r .reason | grep -qF "stderr: $tail_line" ||
    fail "verdict without the stderr tail \"$tail_line\": $(ctl --json job show "$id" | jq -r .reason)"
# job show prints the command and the environment the record holds
ctl job show "$id" > "$T/show.txt" || true
first=$(q "SELECT json_extract(command, '\$[0]') FROM validation_jobs WHERE id=$id")
grep -q "^command: $first " "$T/show.txt" || fail "job show without the command $first: $(cat "$T/show.txt")"
grep -q "^  NCCL_ALGO=Ring$" "$T/show.txt" || fail "job show without the environment: $(cat "$T/show.txt")"

# 7. cancel: the group is killed, the record says cancelled
control mode=hang "pidfile=$T/grandchild2.pid"
ctl validate nccl --hosts gpu1,gpu2 --timeout=60 >/dev/null
id=$(last)
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/grandchild2.pid" ] && break; sleep 0.2; done
ctl job cancel "$id" >/dev/null || fail "cancel refused"
for _ in $(seq 1 40); do
	[ "$(q "SELECT state FROM validation_jobs WHERE id=$id")" = cancelled ] && break
	sleep 0.2
done
[ "$(q "SELECT state, verdict FROM validation_jobs WHERE id=$id")" = "cancelled|inconclusive" ] || fail "cancel not recorded"
sleep 0.3
alive "$(cat "$T/grandchild2.pid")" && fail "cancelled job's grandchild survived"

# 8. bisection names exactly the planted host within 1 + 2 log2(n) jobs
hosts=h1,h2,h3,h4,h5,h6,h7,h8,h9,h10,h11,h12,h13,h14,h15,h16
control mode=badhost bad=h11 "fixture=$F/v2.19_2node_slow.txt" \
	"fail_fixture=$F/v2.17_2node_ibfail.txt" fail_exit=3
sed -i "s|^fixture=.*|fixture=$F/v2.17_2node_ring_pass.txt|" "$C"
ctl validate nccl --hosts $hosts --strategy bisect --profile ring --follow >/dev/null
id=$(last)
id=$(q "SELECT id FROM validation_jobs WHERE kind='campaign' ORDER BY id DESC LIMIT 1")
[ "$(q "SELECT verdict, culprit_host FROM validation_jobs WHERE id=$id")" = "fail|h11" ] ||
	fail "bisection: $(q "SELECT verdict, culprit_host, reason FROM validation_jobs WHERE id=$id")"
jobs=$(wc -l < "$C.log")
[ "$jobs" -eq "$(q "SELECT count(*) FROM validation_jobs WHERE parent_id=$id")" ] || fail "probe count mismatch"
[ "$jobs" -le 9 ] || fail "bisection used $jobs jobs for 16 hosts (bound 9)"
# every probe that failed had h11 in it, every passing one did not
q "SELECT verdict || ' ' || hosts FROM validation_jobs WHERE parent_id=$id" | while read -r v h; do
	case "$v:$h" in
	fail:*'"h11"'*|pass:*) case "$v:$h" in pass:*'"h11"'*) exit 1 ;; esac ;;
	*) exit 1 ;;
	esac
done || fail "a probe's verdict disagrees with the planted host"

# 9. pairwise: n-1 rounds of disjoint pairs; the host failing with >= 2
#    partners is named
control mode=badhost bad=p3 "fixture=$F/v2.17_2node_ring_pass.txt" \
	"fail_fixture=$F/v2.17_2node_ibfail.txt" fail_exit=3
ctl validate nccl --hosts p1,p2,p3,p4 --strategy pairwise --profile ring --follow >/dev/null
id=$(q "SELECT id FROM validation_jobs WHERE kind='campaign' ORDER BY id DESC LIMIT 1")
[ "$(q "SELECT verdict, culprit_host FROM validation_jobs WHERE id=$id")" = "fail|p3" ] ||
	fail "pairwise: $(q "SELECT verdict, culprit_host, reason FROM validation_jobs WHERE id=$id")"
[ "$(sort -u "$C.log" | wc -l)" -eq 6 ] && [ "$(wc -l < "$C.log")" -eq 6 ] || fail "pairwise did not run each of the 6 pairs once"

# 10. perftest pair through the launcher
control mode=replay "perftest_fixture=$F/perftest_write_bw_pass.txt" perftest_exit=0
ctl validate rdma --hosts gpu1,gpu2 --profile ring --timeout 10 --follow >/dev/null   # the 2 s the server gets to listen, inside the grace-included timeout
id=$(last)
[ "$(q "SELECT kind, verdict FROM validation_jobs WHERE id=$id")" = "rdma|pass" ] ||
	fail "rdma: $(q "SELECT verdict, reason FROM validation_jobs WHERE id=$id")"
[ "$(q "SELECT bw_avg FROM validation_perftest_rows WHERE job_id=$id")" = "389.02" ] || fail "perftest row"

# 11. cancelling a campaign kills its running probes and starts no more
control mode=hang "pidfile=$T/grandchild3.pid"
ctl validate nccl --hosts c1,c2,c3,c4 --strategy bisect --timeout=60 >/dev/null || fail "campaign start"
id=$(q "SELECT id FROM validation_jobs WHERE kind='campaign' ORDER BY id DESC LIMIT 1")
for _ in $(seq 1 20); do [ -s "$T/grandchild3.pid" ] && break; sleep 0.2; done
ctl job cancel "$id" >/dev/null || fail "campaign cancel refused"
for _ in $(seq 1 40); do
	[ "$(q "SELECT state FROM validation_jobs WHERE id=$id")" = done ] && break
	sleep 0.2
done
[ "$(q "SELECT verdict FROM validation_jobs WHERE id=$id")" = inconclusive ] ||
	fail "cancelled campaign: $(q "SELECT state, verdict, reason FROM validation_jobs WHERE id=$id")"
[ "$(q "SELECT count(*) FROM validation_jobs WHERE parent_id=$id")" -eq 1 ] || fail "probes started after cancel"

# Metrics: fabricd_validation_jobs adds up to the rows the database holds
# (sqlite3), and its failed verdicts to the failed rows.
ctl metrics > "$T/metrics.txt" || fail "fabricctl metrics"
total=$(awk '/^fabricd_validation_jobs\{/ { s += $NF } END { print s + 0 }' "$T/metrics.txt")
[ "$total" = "$(q "SELECT count(*) FROM validation_jobs")" ] || fail "metrics count $total jobs"
failed=$(awk '/^fabricd_validation_jobs\{.*verdict="fail"/ { s += $NF } END { print s + 0 }' "$T/metrics.txt")
[ "$failed" = "$(q "SELECT count(*) FROM validation_jobs WHERE verdict='fail'")" ] ||
	fail "metrics count $failed failed jobs"

fd_stop

# status says what is missing: mpirun absent, launcher_found false
cp "$T/nolauncher.yaml" "$CONF"
fd_start PATH="$T/nonexistent"
ctl --json status | jq -e '.validation.launcher == "mpirun" and .validation.launcher_found == false and
    .validation.launcher_path == null and ([.validation.missing[] | select(startswith("launcher mpirun"))] | length) == 1' \
    >/dev/null || fail "status with mpirun absent: $(ctl --json status | jq -c .validation)"
grep -q "launcher mpirun: not found on PATH" "$T/fabricd.log" || fail "no warning at start"
fd_stop
pass
