#!/bin/sh
# make bench: bring simulated fat trees up with OpenSM (default settings)
# and with fabricd, each on a freshly started ibsim, and compare
#   up_s    wall time from starting the SM to subnet up (OpenSM: "SUBNET UP"
#           in its log; fabricd: `fabricctl status` says subnet up)
#   mads    packets the SM's own port transmitted, read with perfquery from
#           another host (PortXmitPkts, extended counters): the same
#           independent measure for both SMs; fabricd's own count in ()
#   rss_mb  peak resident memory of the SM process (VmHWM) at subnet up
# Usage: bench/run.sh BUILD_DIR [SIZE...]   SIZE: 324 1296 2592 (default all)
# Not part of make check: the largest fabric alone takes OpenSM ~10 s.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
shift
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/ibsim.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
sizes=${*:-324 1296 2592}
out=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-bench.XXXXXX")
trap 'sim_stop; [ -n "${FD:-}" ] && kill "$FD" 2>/dev/null; rm -rf "$out"' EXIT INT TERM

topo_args() {
	case $1 in
	324) echo "-k 18 -h 18 -s 18" ;;		# 2-level radix 36: 36 switches
	1296) echo "-p 4" ;;			# 3-level radix 36: 180 switches
	2592) echo "-p 8" ;;			# 3-level, 360 switches: ibsim -N/-S/-P raised
	*) echo "bench: unknown size $1" >&2; return 1 ;;
	esac
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
peak_rss_mb() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }

# PortXmitPkts of host1's port, asked from host2 (LID-routed, after subnet up).
sm_port_xmit() {
	lid=$(sim_diag -H host2 smpquery -D portinfo 0,1,1 1 2>/dev/null |
	    sed -n 's/^Lid:\.*\([0-9]*\)/\1/p' | head -1)
	[ -n "$lid" ] || { echo "?"; return; }
	sim_diag -H host2 perfquery -x "$lid" 1 | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)/\1/p'
}

bench_opensm() {
	t0=$(now)
	sim_opensm host1 120 || { echo "opensm - - -"; return; }
	t1=$(now)
	rss=$(peak_rss_mb "$OSM_PID")
	echo "opensm $(elapsed "$t0" "$t1") $(sm_port_xmit) $rss"
}

# The subnet state and MAD count out of `fabricctl --json status`.
fd_field() {
	tr -d ' \n\t' | sed -n "s/.*\"subnet\":{\"state\":\"\([a-z]*\)\".*/\1/p"
}
fd_mads() {
	tr -d ' \n\t' | sed -n 's/.*"mads":{"sent":\([0-9]*\).*/\1/p'
}

bench_fabricd() {
	d=$out/fd
	rm -rf "$d"
	mkdir -p "$d/state"
	printf 'socket: %s\nstate_dir: %s\nlog_level: notice\nsm:\n  enabled: true\n' \
	    "$d/fabricd.sock" "$d/state" > "$d/fabricd.yaml"
	t0=$(now)
	(cd "$SIM_DIR/run" && SIM_HOST=host1 LD_PRELOAD=$SIM_PRELOAD \
	    exec "$build/fabricd" -c "$d/fabricd.yaml" > "$d/fabricd.log" 2>&1) &
	FD=$!
	i=0
	while :; do
		st=$("$build/fabricctl" -s "$d/fabricd.sock" --json status 2>/dev/null)
		[ "$(printf '%s' "$st" | fd_field)" = up ] && break
		case $st in *'"not implemented"'*)
			echo "fabricd - - -"; echo "bench: fabricd's SM is not implemented in this build" >&2
			kill "$FD" 2>/dev/null; wait "$FD" 2>/dev/null; FD=; return ;;
		esac
		if ! kill -0 "$FD" 2>/dev/null || [ $i -ge 2400 ]; then
			echo "fabricd - - -"
			tail -3 "$d/fabricd.log" >&2
			kill "$FD" 2>/dev/null; wait "$FD" 2>/dev/null; FD=
			return
		fi
		i=$((i + 1))
		sleep 0.05
	done
	t1=$(now)
	rss=$(peak_rss_mb "$FD")
	echo "fabricd $(elapsed "$t0" "$t1") $(sm_port_xmit)($(printf '%s' "$st" | fd_mads)) $rss"
	kill "$FD" 2>/dev/null
	wait "$FD" 2>/dev/null
	FD=
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { sub(/\(.*/, "", a); sub(/\(.*/, "", b);
	if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else printf "-" }'; }

printf '%-22s %-8s %8s %16s %8s\n' fabric sm up_s mads rss_mb
for n in $sizes; do
	args=$(topo_args "$n") || continue
	SIM_DIR=$out/sim-$n
	# shellcheck disable=SC2086
	sim_topology $args || continue
	label="$n hosts/$(grep -c '^Switch' "$SIM_DIR/topo.net") sw"
	sim_start || continue
	set -- $(bench_opensm)
	o_t=$2 o_m=$3 o_r=$4
	sim_stop
	printf '%-22s %-8s %8s %16s %8s\n' "$label" opensm "$o_t" "$o_m" "$o_r"
	if [ -x "$build/fabricd" ]; then
		SIM_DIR=$out/sim-$n
		sim_start || continue
		set -- $(bench_fabricd)
		f_t=$2 f_m=$3 f_r=$4
		sim_stop
		printf '%-22s %-8s %8s %16s %8s\n' "" fabricd "$f_t" "$f_m" "$f_r"
		printf '%-22s %-8s %8s %16s %8s\n' "" ratio "$(ratio "$f_t" "$o_t")" \
		    "$(ratio "$f_m" "$o_m")" "$(ratio "$f_r" "$o_r")"
	fi
	rm -rf "${out:?}/sim-$n"
done
