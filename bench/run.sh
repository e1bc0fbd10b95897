#!/bin/sh
# make bench: bring simulated fat trees up with OpenSM (default settings)
# and with fabricd, each on a freshly started ibsim, alternating, ROUNDS
# times per size (BENCH_ROUNDS, default 3), and compare the medians of
#   up_s    time from starting the SM to the moment the SM itself records
#           the subnet as up: OpenSM's "SUBNET UP" log line, fabricd's
#           "subnet up" event (its time_ms, read from the state database
#           with the sqlite3 shell).  Both clocks are the wall clock, so
#           neither side pays for how often the bench looks.
#   seen_s  the same, as a client sees it: the first poll (every 50 ms) that
#           finds the log line or `fabricctl status` saying up.  fabricd
#           answers only after storing the sweep, so this includes that.
#   mads    packets the SM's own port transmitted, read with perfquery from
#           another host (PortXmitPkts, extended counters): the same
#           independent measure for both SMs; fabricd's own count in ()
#   rss_mb  peak resident memory of the SM process (VmHWM), settled after subnet up
# Each size is brought up by fabricd four ways, each on a fresh ibsim:
#   defaults  nothing but the SM switched on (QoS on, no policy: the product)
#   4class    the four-class QoS policy of docs/qos.md
#   qos-off   sm.qos.enabled: false, the floor the others are judged by
#   4class-opt  4class on switches with OptimizedSLtoVLMappingProgramming:
#             ibsim lacks it, so the optsl2vl double (tests/fixtures/mad/
#             optsl2vl.c, LD_PRELOAD before umad2sim) stands for the switch
#             firmware: it sets the SwitchInfo bit and writes fabricd's one
#             all-ports SL2VL Set as the per-pair Sets ibsim knows.  Its
#             mads column: what the switches received (perfquery, read
#             once the double has written every pair), fabricd's own in ()
# and the ratio rows compare each with OpenSM, and (when qos-off ran) the
# MADs with qos-off's: the fabric's count, fabricd's own in ().
# Usage: bench/run.sh BUILD_DIR [SIZE...]   SIZE: 324 1296 (default) 2592 5184 (default)
# BENCH_CONFIGS: which of defaults 4class 4class-opt qos-off (default all four).
# OpenSM options in OSM_ARGS (OSM_ARGS='-R ftree': against its fat-tree engine).
# Not part of make check: the largest fabric alone takes OpenSM ~5-10 s.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
shift
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/ibsim.sh"
. "$src/bench/lib.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
command -v sqlite3 > /dev/null || { echo "bench: the sqlite3 shell is needed"; exit 1; }
sizes=${*:-1296 5184}
configs=${BENCH_CONFIGS:-defaults 4class 4class-opt qos-off}
rounds=${BENCH_ROUNDS:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-bench.XXXXXX")
trap 'sim_stop; [ -n "${FD:-}" ] && kill "$FD" 2>/dev/null; rm -rf "$out"' EXIT INT TERM

topo_args() {
	case $1 in
	324) echo "-k 18 -h 18 -s 18" ;;		# 2-level radix 36: 36 switches
	1296) echo "-p 4" ;;			# 3-level radix 36: 180 switches
	2592) echo "-p 8" ;;			# 3-level, 360 switches: ibsim -N/-S/-P raised
	5184) echo "-p 16" ;;			# 3-level, 720 switches: not in the default sizes
	*) echo "bench: unknown size $1" >&2; return 1 ;;
	esac
}


# PortXmitPkts of host1's port, asked from host2 (LID-routed, after subnet up).
sm_port_xmit() {
	lid=$(sim_diag -H host2 smpquery -D portinfo 0,1,1 1 2>/dev/null |
	    sed -n 's/^Lid:\.*\([0-9]*\)/\1/p' | head -1)
	[ -n "$lid" ] || { echo "?"; return; }
	sim_diag -H host2 perfquery -x "$lid" 1 | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)/\1/p'
}

# OpenSM stamps each log line "Mon DD HH:MM:SS USEC" in local time.
osm_up_time() {
	line=$(grep -m1 'SUBNET UP' "$SIM_DIR/osm.log") || return
	set -- $line
	s=$(date -d "$1 $2 $3" +%s) || return
	echo "$s.$4"
}

# Prints: up_s seen_s mads rss_mb (a "-" for what could not be measured).
bench_opensm() {
	t0=$(now)
	sim_opensm host1 120 || { echo "- - - -"; return; }
	t1=$(now)
	xmit=$(sm_port_xmit)
	rss=$(settled_peak_rss_mb "$OSM_PID")
	echo "$(elapsed "$t0" "$(osm_up_time)") $(elapsed "$t0" "$t1") $xmit $rss"
	# This runs in a subshell: sim_stop out there cannot see OSM_PID.
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
}

# The subnet state and MAD count out of `fabricctl --json status`.
fd_field() {
	tr -d ' \n\t' | sed -n "s/.*\"subnet\":{\"state\":\"\([a-z]*\)\".*/\1/p"
}
fd_mads() {
	tr -d ' \n\t' | sed -n 's/.*"mads":{"sent":\([0-9]*\).*/\1/p'
}
fd_up_time() {
	sqlite3 -batch -noheader "$1/state/fabricd.db" "SELECT time_ms / 1000.0 FROM events
	    WHERE source = 'sm' AND message LIKE 'subnet up:%' ORDER BY id LIMIT 1"
}

# fd_extra CONFIG: what the configuration adds to the SM section.
fd_extra() {
	case $1 in
	defaults) ;;
	qos-off) printf '  qos:\n    enabled: false\n' ;;
	4class | 4class-opt) printf '  qos:\n    classes:\n%s\n%s\n%s\n%s\n' \
	    '      training:   { sl: 1, vl: 1, share: 50, priority: high }' \
	    '      storage:    { sl: 2, vl: 2, share: 30, services: [nvme-of, nfs-rdma] }' \
	    '      kv:         { sl: 3, vl: 3, share: 15 }' \
	    '      management: { sl: 0, vl: 0, share: 5 }' ;;
	esac
}

# optsl2vl_wait COUNT-FILE SENT: until the double has written every pair of
# the bring-up (its counts written after fabricd's SENT MADs, none
# pending), then its counts on stderr.
optsl2vl_wait() {
	i=0
	until [ -s "$1" ] && [ "$(sed -n 's/^pending //p' "$1")" = 0 ] &&
	    [ "$(sed -n 's/^fabricd_sent //p' "$1")" -ge "${2:-0}" ]; do
		[ $i -ge 2400 ] && { echo "bench: the optsl2vl double did not finish" >&2; return; }
		i=$((i + 1))
		sleep 0.05
	done
	echo "  optsl2vl: $(tr '\n' ' ' < "$1")" >&2
}

bench_fabricd() {
	d=$out/fd
	rm -rf "$d"
	mkdir -p "$d/state"
	printf 'socket: %s\nstate_dir: %s\nlog_level: notice\nsm:\n  enabled: true\n' \
	    "$d/fabricd.sock" "$d/state" > "$d/fabricd.yaml"
	fd_extra "$1" >> "$d/fabricd.yaml"
	pre=$SIM_PRELOAD
	[ "$1" = 4class-opt ] && pre="$build/tests/liboptsl2vl.so $SIM_PRELOAD"
	t0=$(now)
	(cd "$SIM_DIR/run" && SIM_HOST=host1 LD_PRELOAD=$pre OPTSL2VL_COUNT=$d/optsl2vl.count \
	    exec "$build/fabricd" -c "$d/fabricd.yaml" > "$d/fabricd.log" 2>&1) &
	FD=$!
	i=0
	while :; do
		st=$("$build/fabricctl" -s "$d/fabricd.sock" --json status 2>/dev/null)
		[ "$(printf '%s' "$st" | fd_field)" = up ] && break
		if ! kill -0 "$FD" 2>/dev/null || [ $i -ge 2400 ]; then
			echo "- - - -"
			tail -3 "$d/fabricd.log" >&2
			kill "$FD" 2>/dev/null; wait "$FD" 2>/dev/null; FD=
			return
		fi
		i=$((i + 1))
		sleep 0.05
	done
	t1=$(now)
	[ "$1" = 4class-opt ] && optsl2vl_wait "$d/optsl2vl.count" "$(printf '%s' "$st" | fd_mads)"
	xmit=$(sm_port_xmit)
	rss=$(settled_peak_rss_mb "$FD")
	echo "$(elapsed "$t0" "$(fd_up_time "$d")") $(elapsed "$t0" "$t1")" \
	    "$xmit($(printf '%s' "$st" | fd_mads)) $rss"
	kill "$FD" 2>/dev/null
	wait "$FD" 2>/dev/null
	FD=
}

# The fabricd MAD column as measured, with its own count, from the first round.
first_col() { awk -v c="$2" 'NR == 1 { print $c }' "$1"; }
# own: fabricd's own count, the "(N)" of a mads entry
own() { printf '%s' "$1" | sed -n 's/.*(\([0-9]*\)).*/\1/p'; }

echo "medians of $rounds rounds; up_s as each SM records it, seen_s as a 50 ms poll sees it"
printf '%-22s %-16s %8s %8s %16s %8s\n' fabric sm up_s seen_s mads rss_mb
for n in $sizes; do
	args=$(topo_args "$n") || continue
	SIM_DIR=$out/sim-$n
	# shellcheck disable=SC2086
	sim_topology $args > /dev/null || continue
	label="$n hosts/$(grep -c '^Switch' "$SIM_DIR/topo.net") sw"
	: > "$out/osm-$n"
	for c in $configs; do : > "$out/fd-$n-$c"; done
	r=0
	while [ $r -lt "$rounds" ]; do
		r=$((r + 1))
		sim_start || continue
		bench_opensm >> "$out/osm-$n"
		sim_stop
		[ -x "$build/fabricd" ] || continue
		for c in $configs; do
			SIM_DIR=$out/sim-$n
			sim_start || continue
			bench_fabricd "$c" >> "$out/fd-$n-$c"
			sim_stop
		done
		SIM_DIR=$out/sim-$n
	done
	o_t=$(median "$out/osm-$n" 1) o_s=$(median "$out/osm-$n" 2)
	o_m=$(median "$out/osm-$n" 3) o_r=$(median "$out/osm-$n" 4 %.1f)
	printf '%-22s %-16s %8s %8s %16s %8s\n' "$label" opensm "$o_t" "$o_s" "$o_m" "$o_r"
	for c in $configs; do
		f=$out/fd-$n-$c
		f_t=$(median "$f" 1) f_s=$(median "$f" 2)
		f_m=$(first_col "$f" 3) f_r=$(median "$f" 4 %.1f)
		printf '%-22s %-16s %8s %8s %16s %8s\n' "" "fabricd $c" "$f_t" "$f_s" "$f_m" "$f_r"
		printf '%-22s %-16s %8s %8s %16s %8s\n' "" "  / opensm" "$(ratio "$f_t" "$o_t")" \
		    "$(ratio "$f_s" "$o_s")" "$(ratio "$f_m" "$o_m")" "$(ratio "$f_r" "$o_r")"
		case " $configs " in *" qos-off "*) [ "$c" != qos-off ] || continue ;; *) continue ;; esac
		q_m=$(first_col "$out/fd-$n-qos-off" 3)
		printf '%-22s %-16s %8s %8s %16s %8s\n' "" "  / qos-off" "" "" \
		    "$(ratio "$f_m" "$q_m")($(ratio "$(own "$f_m")" "$(own "$q_m")"))" ""
	done
	if [ -n "${BENCH_VERBOSE:-}" ]; then
		sed 's/^/  opensm round: /' "$out/osm-$n"
		for c in $configs; do sed "s/^/  fabricd $c round: /" "$out/fd-$n-$c"; done
	fi
	rm -rf "${out:?}/sim-$n"
done
