#!/bin/sh
# make bench: several subnets in one fabricd beside one OpenSM a subnet
# (issue 43, docs/sm.md "Several subnets").  BENCH_SUBNETS (default 4)
# simulators of the same SIZE-host tree (default 1296: topogen -p 4), each
# a subnet; brought up in the same run by
#   opensm   one OpenSM process per subnet (opensm -g, umad2sim), all
#            started at once, as an operator runs them today;
#   fabricd  one fabricd with sm.subnets naming a port on each simulator,
#            through the multisim double (tests/fixtures/mad/multisim.c:
#            umad2sim gives a process one device on one simulator).
# Columns, each over all the subnets:
#   up_s    from the start to the last subnet up, as each SM records it
#           (OpenSM's "SUBNET UP" log line; fabricd's "subnet up" event of
#           each sm/NAME source, from its database)
#   seen_s  the same as a 50 ms poll sees it
#   mads    packets the SM ports transmitted, summed (perfquery from host2
#           of each simulator); fabricd's own count in ()
#   rss_mb  peak resident memory, summed over the OpenSM processes; the
#           one fabricd's
# Fresh simulators for each side, BENCH_ROUNDS rounds (default 1).  The
# two sides use different libibumad doubles (umad2sim and multisim), so
# the times compare the SMs and the doubles together; the MADs and memory
# are the SMs' own.
# Usage: bench/subnets.sh BUILD_DIR [SIZE]
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
size=${2:-1296}
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/ibsim.sh"
. "$src/bench/lib.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
command -v sqlite3 > /dev/null && command -v jq > /dev/null ||
    { echo "bench: the sqlite3 shell and jq are needed"; exit 1; }
ms=$build/tests/libmultisim.so
[ -r "$ms" ] || { echo "bench: no $ms (make builds it)"; exit 1; }
nsub=${BENCH_SUBNETS:-4}
rounds=${BENCH_ROUNDS:-1}
out=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-subnets.XXXXXX")
PIDS=
SMS=
FD=
trap 'stop_all; rm -rf "$out"' EXIT INT TERM

case $size in
324) topo="-k 18 -h 18 -s 18" ;;
1296) topo="-p 4" ;;
*) echo "bench: size 324 or 1296"; exit 2 ;;
esac
# shellcheck disable=SC2086
"$build/tools/topogen" -o "$out/topo.net" $topo > /dev/null || exit 1


# start_sims: nsub fresh simulators; SOCK_k and DIR_k for each
start_sims() {
	k=0
	while [ $k -lt "$nsub" ]; do
		k=$((k + 1))
		SIM_DIR=$out/sim$k SIM_PID='' SIM_HOLDER='' SIM_OWN_DIR=''
		rm -rf "$SIM_DIR"
		mkdir -p "$SIM_DIR" && cp "$out/topo.net" "$SIM_DIR/topo.net" || return 1
		sim_start || return 1
		eval "SOCK_$k=\$IBSIM_SOCKNAME DIR_$k=\$SIM_DIR"
		PIDS="$PIDS $SIM_PID $SIM_HOLDER"
	done
}
# stop_all: the SMs first, while their simulators still answer (an SM
# whose simulator is gone retries it for ever), then the simulators
reap() {
	for p in "$@"; do kill "$p" 2>/dev/null; done
	for p in "$@"; do
		_i=0
		while kill -0 "$p" 2>/dev/null && [ $_i -lt 100 ]; do
			_i=$((_i + 1))
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
stop_all() {
	reap $FD $SMS
	FD= SMS=
	reap $PIDS
	PIDS=
}
# on k CMD...: CMD with simulator k as SIM_DIR and IBSIM_SOCKNAME
on() {
	eval "SIM_DIR=\$DIR_$1 IBSIM_SOCKNAME=\$SOCK_$1"
	export IBSIM_SOCKNAME
	shift
	"$@"
}
# xmit_sum: PortXmitPkts of every host1 port, summed (from host2)
xmit_one() {
	lid=$(sim_diag -H host2 smpquery -D portinfo 0,1,1 1 2>/dev/null |
	    sed -n 's/^Lid:\.*\([0-9]*\)/\1/p' | head -1)
	[ -n "$lid" ] || { echo 0; return; }
	sim_diag -H host2 perfquery -x "$lid" 1 | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)/\1/p'
}
xmit_sum() {
	_sum=0 k=0
	while [ $k -lt "$nsub" ]; do
		k=$((k + 1))
		_x=$(on $k xmit_one)
		_sum=$((_sum + ${_x:-0}))
	done
	echo $_sum
}
osm_up_time() {
	line=$(grep -m1 'SUBNET UP' "$1/osm.log") || return
	set -- $line
	s=$(date -d "$1 $2 $3" +%s) || return
	echo "$s.$4"
}
max() { awk 'BEGIN { m = "" } $1 != "" && (m == "" || $1 > m) { m = $1 } END { print m }'; }

bench_opensm() {
	start_sims || { echo "- - - -"; return; }
	t0=$(now)
	osm=
	k=0
	while [ $k -lt "$nsub" ]; do
		k=$((k + 1))
		on $k sim_opensm host1 0 || { echo "- - - -"; return; }
		osm="$osm $OSM_PID"
		SMS="$SMS $OSM_PID"
		OSM_PID=
	done
	if ! poll_until - osm_all_up; then
		echo "bench: not every OpenSM brought its subnet up in 300 s" >&2
		echo "- - - -"
		stop_all
		return
	fi
	t1=$(now)
	echo "  $nsub OpenSM: all up $(elapsed "$t0" "$t1") s after the start" >&2
	up=$(k=0; while [ $k -lt "$nsub" ]; do k=$((k + 1)); eval "osm_up_time \$DIR_$k"; done | max)
	mads=$(xmit_sum)
	rss=$(for p in $osm; do settled_peak_rss_mb "$p"; done | awk '{ s += $1 } END { printf "%.1f", s }')
	echo "$(elapsed "$t0" "$up") $(elapsed "$t0" "$t1") $mads $rss"
	stop_all
}

# poll_until PID CMD...: CMD every 50 ms until it succeeds; false after
# 300 s, or once PID ("-": none) is gone
poll_until() {
	_pid=$1 _n=0
	shift
	until "$@"; do
		[ $_n -lt 6000 ] || return 1
		[ "$_pid" = - ] || kill -0 "$_pid" 2>/dev/null || return 1
		_n=$((_n + 1))
		sleep 0.05
	done
}
osm_all_up() { [ "$(cat "$out"/sim*/osm.log 2>/dev/null | grep -c 'SUBNET UP')" -ge "$nsub" ]; }
# fd_all_up DIR: every subnet of the fabricd in DIR up
fd_all_up() {
	[ "$("$build/fabricctl" -s "$1/fabricd.sock" --json status 2>/dev/null |
	    jq '[.sm.subnets[]? | select(.subnet_state == "up")] | length')" = "$nsub" ]
}
bench_fabricd() {
	start_sims || { echo "- - - -"; return; }
	d=$out/fd
	rm -rf "$d"
	mkdir -p "$d/state"
	devs= conf=
	k=0
	while [ $k -lt "$nsub" ]; do
		eval "s=\$SOCK_$((k + 1))"
		devs="$devs${devs:+,}ibp$k=$s:host1"
		conf="$conf    - name: plane$((k + 1))\n      port: ibp$k:1\n"
		k=$((k + 1))
	done
	printf "socket: %s\nstate_dir: %s\nlog_level: notice\nsm:\n  enabled: true\n  subnets:\n$conf" \
	    "$d/fabricd.sock" "$d/state" > "$d/fabricd.yaml"
	t0=$(now)
	(cd "$d" && LD_PRELOAD=$ms MULTISIM_DEVICES=$devs \
	    exec "$build/fabricd" -c "$d/fabricd.yaml" > "$d/fabricd.log" 2>&1) &
	FD=$!
	if ! poll_until "$FD" fd_all_up "$d"; then
		echo "- - - -"
		tail -3 "$d/fabricd.log" >&2
		stop_all
		return
	fi
	t1=$(now)
	echo "  fabricd: all $nsub subnets up $(elapsed "$t0" "$t1") s after the start" >&2
	up=$(sqlite3 -batch -noheader "$d/state/fabricd.db" "SELECT max(t) FROM (SELECT
	    min(time_ms) / 1000.0 AS t FROM events WHERE source LIKE 'sm/%' AND message LIKE
	    'subnet up:%' GROUP BY source)")
	own=$("$build/fabricctl" -s "$d/fabricd.sock" --json status |
	    jq '[.sm.subnets[].mads_sent] | add')
	mads=$(xmit_sum)
	echo "$(elapsed "$t0" "$up") $(elapsed "$t0" "$t1") $mads($own) $(settled_peak_rss_mb "$FD")"
	stop_all
}


: > "$out/osm"
: > "$out/fd"
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	bench_opensm >> "$out/osm"
	bench_fabricd >> "$out/fd.rows"
done
label="$nsub x $size hosts"
echo "several subnets, medians of $rounds round(s); up_s to the last subnet up"
printf '%-22s %-16s %8s %8s %18s %8s\n' subnets sm up_s seen_s mads rss_mb
printf '%-22s %-16s %8s %8s %18s %8s\n' "$label" "$nsub opensm" "$(median "$out/osm" 1)" \
    "$(median "$out/osm" 2)" "$(median "$out/osm" 3)" "$(median "$out/osm" 4 %.1f)"
printf '%-22s %-16s %8s %8s %18s %8s\n' "" "1 fabricd" "$(median "$out/fd.rows" 1)" \
    "$(median "$out/fd.rows" 2)" "$(awk 'NR == 1 { print $3 }' "$out/fd.rows")" \
    "$(median "$out/fd.rows" 4 %.1f)"
printf '%-22s %-16s %8s %8s %18s %8s\n' "" "  / opensm" \
    "$(ratio "$(median "$out/fd.rows" 1)" "$(median "$out/osm" 1)")" \
    "$(ratio "$(median "$out/fd.rows" 2)" "$(median "$out/osm" 2)")" \
    "$(ratio "$(median "$out/fd.rows" 3)" "$(median "$out/osm" 3)")" \
    "$(ratio "$(median "$out/fd.rows" 4)" "$(median "$out/osm" 4)")"
