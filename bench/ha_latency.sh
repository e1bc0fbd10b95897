#!/bin/sh
# bench/ha_latency.sh BUILD [HOSTS]: what the replicated intent costs a
# partition change.  On a simulated fat tree (1296 hosts: topogen -p 4;
# 16: -k 4 -h 4 -s 2), fabricd as the SM with partitions on adds 64 hosts
# one by one to a partition (`fabricctl partition member add`, each one
# planned, written, read back and, with ha, committed to etcd first) and
# the time of each command is taken from fabricctl's start to its answer.
# Run twice in one go: on sqlite alone, then with ha on a 3-member etcd
# cluster on loopback.  Prints p50 and p99 of each and their ratio.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
hosts=${2:-1296}
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/sm.sh"
. "$src/tests/lib/etcd.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
case $hosts in
16) topo="-k 4 -h 4 -s 2" ;;
1296) topo="-p 4" ;;
*) echo "bench: HOSTS is 16 or 1296"; exit 2 ;;
esac
N=${BENCH_MEMBERS:-64}
KEEP_TMP=${KEEP_TMP:-}
sim_test_setup jq
etcd_cluster_start 3
# shellcheck disable=SC2086
sim_topology $topo || fail topogen
sim_start || fail ibsim

# host names in the order the tree has them, not the SM's host
names() { awk '$1 == "Hca" { gsub(/"/, "", $3); print $3 }' "$SIM_DIR/topo.net" | grep -v '^host1$'; }

# run LABEL YAML: one daemon, N adds timed, "LABEL p50 p99" on stdout
run() {
	fd_config "sm:
  enabled: true
partitions:
  enabled: true
$2"
	rm -rf "$STATE"
	fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
	sm_wait_up 120 || fail "$1: subnet not up"
	for _ in $(seq 1 300); do
		ctl partition create "bench-$1" --pkey 0x0b10 >/dev/null 2>&1 && break
		sleep 0.1
	done
	: > "$T/ms.$1"
	for h in $(names | head -n "$N"); do
		for _ in $(seq 1 50); do	# a sweep programming new ports: busy, try again
			t0=$(date +%s%N)
			out=$(ctl partition member add "bench-$1" "$h" 2>&1) && break
			case $out in *busy*) sleep 0.05 ;; *) fail "$1: member add $h: $out" ;; esac
		done
		echo $(( ($(date +%s%N) - t0) / 1000 )) >> "$T/ms.$1"
	done
	fd_stop
	sort -n "$T/ms.$1" | awk -v l="$1" '{ v[NR] = $1 } END {
	    p50 = v[int((NR + 1) * 0.50)]; p99 = v[int((NR - 1) * 0.99) + 1]
	    printf "%s %.1f %.1f\n", l, p50 / 1000, p99 / 1000 }'
}
sqlite_line=$(run sqlite "")
ha_line=$(run etcd "ha:
  etcd:
    endpoints: [ $ETCD_ENDPOINTS ]")
echo "partition member add, $N hosts one by one, $hosts-host fabric (ms, fabricctl start to answer)"
printf '%-22s %8s %8s\n' "" p50 p99
echo "$sqlite_line" | awk '{ printf "%-22s %8s %8s\n", "sqlite alone", $2, $3 }'
echo "$ha_line" | awk '{ printf "%-22s %8s %8s\n", "ha (3-member etcd)", $2, $3 }'
printf '%s\n%s\n' "$sqlite_line" "$ha_line" | awk 'NR == 1 { a = $2; b = $3 } NR == 2 {
    printf "%-22s %7.2fx %7.2fx\n", "  / sqlite", $2 / a, $3 / b }'
