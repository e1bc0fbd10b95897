#!/bin/sh
# bench/ha_takeover.sh BUILD: how long a subnet has no master when its
# master dies, on every SM's defaults, side by side in one run on the
# 64-host 3-level tree (radix 8, 4 pods):
#   opensm      OpenSM master (priority 15) on host1, OpenSM standby
#               (priority 5) on host2, both on their defaults
#               (sminfo_polling_timeout 10 s, polling_retry_number 4)
#   fabricd     fabricd A and B, no ha: standby_poll is the sweep interval
#               (10 s), 3 misses
#   fabricd-ha  fabricd A and B with ha on a 3-member etcd cluster
#               (loopback), lease TTL 3 s: the standby takes over when
#               A's lease ends
# Each round: the master brought up, the standby STANDBY (sminfo at its
# LID), the master killed (SIGKILL) and, for fabricd-ha, also stopped
# (SIGSTOP: a stalled master); the time is from the signal to the first
# poll (every 100 ms, sminfo from host4) that finds the standby MASTER.
# BENCH_ROUNDS rounds (3) each; prints each time, the medians and the
# ratios to OpenSM's.  Not part of make check: OpenSM alone takes ~40 s
# a round.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/sm.sh"
. "$src/tests/lib/etcd.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
ROUNDS=${BENCH_ROUNDS:-3}
KEEP_TMP=${KEEP_TMP:-}
sim_test_setup opensm jq sminfo
etcd_cluster_start 3
sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)

# took SETUP T0 LID WANT: "SETUP MS" into $T/times, MS from T0 (date
# +%s%N) until sminfo at LID says WANT (120 s at most)
took() {
	_end=$(( $(date +%s) + 120 ))
	while [ "$(sm_sminfo_at "$3")" != "$4" ]; do
		[ "$(date +%s)" -ge "$_end" ] && fail "$1: no takeover within 120 s"
		sleep 0.1
	done
	echo "$1 $(( ($(date +%s%N) - $2) / 1000000 ))" | tee -a "$T/times"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

opensm_round() {
	OSM_ARGS="-p 15" sim_opensm host1 || fail "OpenSM A"
	osm_a=$OSM_PID
	sim_opensm_another host2 osmb -p 5 || fail "OpenSM B"
	osm_b=$OSM2_PID
	b_lid=$(sm_lid_of host2)
	sm_wait_sminfo 60 "$B_GUID 5 STANDBY" "$b_lid" || fail "OpenSM B not standby"
	t0=$(date +%s%N)
	kill -9 "$osm_a"; wait "$osm_a" 2>/dev/null; OSM_PID=
	took opensm "$t0" "$b_lid" "$B_GUID 5 MASTER"
	kill "$osm_b"; wait "$osm_b" 2>/dev/null
}

# fabricd_round SETUP YAML SIGNAL
fabricd_round() {
	_setup=$1
	shift
	fd_config "sm:
  enabled: true
  priority: 15${1:+
$1}"
	fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
	sm_wait_up 60 || fail "fabricd A: subnet not up"
	B_SWEEP='' ha_start_b host2 5 "$1"
	b_lid=$(sm_lid_of host2)
	sm_wait_sminfo 60 "$B_GUID 5 STANDBY" "$b_lid" || fail "fabricd B not standby"
	sleep 2		# A holds the lease (ha), B follows
	t0=$(date +%s%N)
	kill -"$2" "$FD_PID"
	took "$_setup" "$t0" "$b_lid" "$B_GUID 5 MASTER"
	kill -9 "$FD_PID" 2>/dev/null; kill -CONT "$FD_PID" 2>/dev/null
	wait "$FD_PID" 2>/dev/null; FD_PID=
	kill "$B_PID"; wait "$B_PID" 2>/dev/null; fd_second
	rm -rf "$T/b" "$T/state"; mkdir -p "$T/state"
	etcdq del --prefix /fabricd/ >/dev/null
}

for r in $(seq 1 "$ROUNDS"); do
	echo "== round $r"
	opensm_round
	fabricd_round fabricd '' 9
	fabricd_round fabricd-ha "$(ha_yaml)" 9
	fabricd_round fabricd-ha-stop "$(ha_yaml)" STOP
done
osm=$(awk '$1 == "opensm" { print $2 }' "$T/times" | median)
printf '%-16s %10s %8s\n' setup "median ms" "/opensm"
for s in opensm fabricd fabricd-ha fabricd-ha-stop; do
	m=$(awk -v s="$s" '$1 == s { print $2 }' "$T/times" | median)
	printf '%-16s %10s %8s\n' "$s" "$m" "$(awk -v m="$m" -v o="$osm" 'BEGIN { printf "%.2fx", m / o }')"
done
pass
