#!/bin/sh
# bench/job_partitions.sh BUILD [HOSTS] [--gate]: what a job partition
# costs the scheduler (issue 26).  On a simulated fat tree (1296 hosts:
# topogen -p 4; 16: -k 4 -h 4 -s 2), fabricd as the SM on its defaults
# with partitions on:
#   1. five times: a job partition on 512 hosts made (`partition job
#      create`, planned, written, read back, committed) and deleted, each
#      timed from fabricctl's start to its answer; medians and maxima;
#   2. 50 jobs of 8 hosts each asked for at once (50 fabricctl side by
#      side): all must succeed, with 50 distinct keys, the time until the
#      last answer.
# Every key is checked from outside with smpquery: the 512-host job's on
# every 64th of its hosts and the last, each of the 50 jobs' on one of its
# hosts, and none left after the deletes.
# --gate (tests/integration/partitions_jobs_scale.sh): exit 1 unless every
# job succeeded with its own key as smpquery reads it and, on a build
# without sanitizers, no span of the loop went over the suite's CPU bound
# (loop_gate).  The times are reported, never gated (issue 39).
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
hosts=${2:-1296}
gate=
[ "${3:-}" = --gate ] && gate=1
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/sm.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
case $hosts in
16) topo="-k 4 -h 4 -s 2"; big=8; small=1; njobs=6 ;;
1296) topo="-p 4"; big=512; small=8; njobs=50 ;;
*) echo "bench: HOSTS is 16 or 1296"; exit 2 ;;
esac
ROUNDS=5
KEEP_TMP=${KEEP_TMP:-}
sim_test_setup jq smpquery
# shellcheck disable=SC2086
sim_topology $topo || fail topogen
sim_start || fail ibsim

# host names in the order the tree has them, not the SM's host
names() { awk '$1 == "Hca" { gsub(/"/, "", $3); print $3 }' "$SIM_DIR/topo.net" | grep -v '^host1$'; }
names > "$T/hosts"
# holds HOST KEY: HOST's port holds KEY (0x1000: either membership)
holds() {
	_k=$(printf '0x%04x' $(( $2 | 0x8000 )))
	sim_diag -H "$1" -t 10 smpquery -D pkeys 0 | grep -q -e " $2\\b" -e " $_k\\b"
}
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

fd_config "sm:
  enabled: true
partitions:
  enabled: true"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 180 || fail "subnet not up"

loop_gate_start
turns0=$(loop_span_buckets)
# ---- 1. one big job, five times ----
bighosts=$(head -n "$big" "$T/hosts" | paste -sd, -)
# every 64th of its hosts and the last (each smpquery is a client of the simulator)
sample=$(head -n "$big" "$T/hosts" | awk -v n="$big" 'NR % 64 == 1 || NR == n' | paste -sd' ' -)
first=$(head -n 1 "$T/hosts")
: > "$T/create.ms"; : > "$T/delete.ms"
for r in $(seq 1 $ROUNDS); do
	t0=$(date +%s%N)
	out=$(ctl --json partition job create "big$r" --hosts "$bighosts" 2>&1) ||
	    fail "round $r: create: $out"
	ms_since "$t0" >> "$T/create.ms"
	key=$(echo "$out" | jq -r .pkey)
	for h in $sample; do
		holds "$h" "$key" || fail "round $r: $h does not hold $key"
	done
	t0=$(date +%s%N)
	out=$(ctl --json partition job delete "big$r" 2>&1) || fail "round $r: delete: $out"
	ms_since "$t0" >> "$T/delete.ms"
	holds "$first" "$key" && fail "round $r: $first still holds $key after the delete"
done
cmed=$(median < "$T/create.ms") dmed=$(median < "$T/delete.ms")
cmax=$(sort -n "$T/create.ms" | tail -1) dmax=$(sort -n "$T/delete.ms" | tail -1)

# ---- 2. many jobs at once ----
t0=$(date +%s%N)
pids=
for j in $(seq 1 $njobs); do
	hl=$(sed -n "$((big + (j - 1) * small + 1)),$((big + j * small))p" "$T/hosts" | paste -sd, -)
	( ctl --json partition job create "many$j" --hosts "$hl" > "$T/many.$j" 2>&1
	  echo $? > "$T/many.$j.rc" ) &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids	# these alone: the simulator runs in the background too
many_ms=$(ms_since "$t0")
ok=0
for j in $(seq 1 $njobs); do
	[ "$(cat "$T/many.$j.rc")" = 0 ] || fail "job many$j failed: $(cat "$T/many.$j")"
	key=$(jq -r .pkey "$T/many.$j")
	h=$(sed -n "$((big + (j - 1) * small + 1))p" "$T/hosts")
	holds "$h" "$key" || fail "job many$j: $h does not hold its key $key"
	echo "$key" >> "$T/keys"
	ok=$((ok + 1))
done
distinct=$(sort -u "$T/keys" | wc -l)
turns1=$(loop_span_buckets)
longest=$(ctl --json status | jq '.loop.max_beat_cpu_ms')
[ -n "$gate" ] && loop_gate "job partitions"
[ "$distinct" = "$njobs" ] || fail "$njobs jobs got $distinct distinct keys"
fd_stop
echo "job partitions on the $hosts-host tree (ms, fabricctl start to answer, verified)"
printf '%-40s %8s %8s\n' "" median max
printf '%-40s %8s %8s\n' "create, $big hosts ($ROUNDS rounds)" "$cmed" "$cmax"
printf '%-40s %8s %8s\n' "delete, $big hosts ($ROUNDS rounds)" "$dmed" "$dmax"
printf '%s jobs of %s hosts at once: %s succeeded, %s distinct keys, last answer after %s ms\n' \
    "$njobs" "$small" "$ok" "$distinct" "$many_ms"
printf 'event loop: CPU spans over 2/5/10/20/40/80 ms of CPU before the jobs %s, after %s; longest CPU span since start %s ms\n' \
    "$turns0" "$turns1" "$longest"
exit 0
