#!/bin/sh
# make bench: how SMs reconverge after a failure, side by side on the same
# simulated fat tree, each on a freshly started ibsim and its defaults:
# OpenSM minhop (its default), OpenSM ftree, fabricd.  For a leaf uplink,
# an aggregation-to-core link and a whole core switch (every port
# unlinked), then the ReLink of each:
#   blocks   LFT blocks that differ between the dump_fts before and after
#            (tests/lib/ftsdiff.awk): what the SM had to write at least
#   moved    CA pairs whose path changed / had to (their path crossed the
#            failure), every pair walked (tests/lib/routemove.awk)
#   hot      the hottest link after (routes crossing it) / lftwalk's bound
#   mads     packets the SM's port sent meanwhile (perfquery PortXmitPkts)
#   settle_s from the Unlink to the first dump showing the final tables:
#            an upper bound (a dump takes seconds at this size), the same
#            for every SM
#   back     after the ReLink: the tables equal the ones before (yes/no)
# Usage: bench/reconverge.sh BUILD_DIR [SIZE...]   SIZE: 1296 5184 (default both)
# RECONVERGE_SMS: which of opensm-minhop opensm-ftree fabricd (default all).
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
shift
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/ibsim.sh"
. "$src/tests/lib/lftwalk.sh"
sim_available || { echo "reconverge: ibsim/umad2sim not installed"; exit 1; }
sizes=${*:-1296 5184}
sms=${RECONVERGE_SMS:-opensm-minhop opensm-ftree fabricd}
out=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-reconverge.XXXXXX")
SIM_DIR=$out/sim
FD=
trap 'sim_stop; [ -n "$FD" ] && kill "$FD" 2>/dev/null; rm -rf "$out"' EXIT INT TERM
ROUTEMOVE=$src/tests/lib/routemove.awk
FTSDIFF=$src/tests/lib/ftsdiff.awk

topo_args() {
	case $1 in
	1296) echo "-p 4" ;;
	5184) echo "-p 16" ;;
	*) echo "reconverge: unknown size $1" >&2; return 1 ;;
	esac
}
field() { echo "$2" | sed -n "s/.*\\b$1 \\([^ ]*\\).*/\\1/p"; }
snap() { lft_dump && cp "$SIM_DIR/disc.txt" "$out/$1.disc" && cp "$SIM_DIR/fts.txt" "$out/$1.fts"; }
xmit() {
	lid=$(sim_diag -H host2 smpquery -D portinfo 0,1,1 1 2>/dev/null |
	    sed -n 's/^Lid:\.*\([0-9]*\)/\1/p' | head -1)
	sim_diag -H host2 perfquery -x "$lid" 1 2>/dev/null | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)/\1/p'
}
# settle FROM NAME: until the tables differ from FROM and hold for one dump
settle() {
	prev=
	start=$(date +%s.%N)
	end=$(( $(date +%s) + 300 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		lft_dump || continue
		if ! cmp -s "$SIM_DIR/fts.txt" "$out/$1.fts"; then
			if [ -n "$prev" ] && cmp -s "$SIM_DIR/fts.txt" "$out/prev.fts"; then
				snap "$2"
				return 0
			fi
			[ -z "$prev" ] && first=$(date +%s.%N)
			cp "$SIM_DIR/fts.txt" "$out/prev.fts"
			prev=1
		fi
		sleep 0.5
	done
	return 1
}

start_sm() {	# SM SIZE
	sim_topology $(topo_args "$2") || return 1
	sim_start || return 1
	case $1 in
	opensm-minhop) OSM_ARGS= sim_opensm host1 300 ;;
	opensm-ftree) OSM_ARGS='-R ftree' sim_opensm host1 300 ;;
	fabricd)
		rm -rf "$out/state"
		printf 'socket: %s/sock\nstate_dir: %s/state\nsm:\n  enabled: true\n' "$out" "$out" \
		    > "$out/fabricd.yaml"
		SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
		    "$build/fabricd" -c "$out/fabricd.yaml" > "$out/fabricd.log" 2>&1 &
		FD=$!
		i=0
		until "$build/fabricctl" -s "$out/sock" status 2>/dev/null | grep -q '^    state: up'; do
			i=$((i + 1))
			[ $i -gt 3000 ] && return 1
			sleep 0.1
		done ;;
	esac
}
stop_sm() {
	[ -n "$FD" ] && kill "$FD" 2>/dev/null && wait "$FD" 2>/dev/null
	FD=
	sim_stop
}

one() {	# SM LABEL LINKS...
	sm=$1 label=$2
	shift 2
	x0=$(xmit)
	t0=$(date +%s.%N)
	for l in "$@"; do sim_console "Unlink $l" > /dev/null; done
	if ! settle base after; then
		printf '%-14s %-22s %s\n' "$sm" "$label" "did not settle"
		return
	fi
	x1=$(xmit)
	blocks=$(awk -f "$FTSDIFF" "$out/base.fts" "$out/after.fts" | sed -n 's/^blocks \([0-9]*\).*/\1/p')
	mv=$(awk -f "$ROUTEMOVE" "$out/base.disc" "$out/base.fts" "$out/after.disc" "$out/after.fts")
	loads=$(awk -v loads=1 -f "$LFTWALK_AWK" "$out/after.disc" "$out/after.fts" | sed -n 's/^loads: //p')
	settle_s=$(awk -v a="$t0" -v b="$first" 'BEGIN { printf "%.1f", b - a }')
	for l in "$@"; do sim_console "ReLink $l" > /dev/null; done
	back=no
	if settle after relinked && cmp -s "$out/base.fts" "$out/relinked.fts"; then
		back=yes
	fi
	rblocks=$(awk -f "$FTSDIFF" "$out/after.fts" "$out/relinked.fts" | sed -n 's/^blocks \([0-9]*\).*/\1/p')
	printf '%-14s %-22s %6s %9s / %-9s %6s / %-5s %7s %8s %4s (%s blocks)\n' "$sm" "$label" \
	    "$blocks" "$(field moved "$mv")" "$(field had_to "$mv")" "$(field max "$loads")" \
	    "$(field bound "$loads")" "$((x1 - x0))" "$settle_s" "$back" "$rblocks"
	snap base
}

for size in $sizes; do
	echo "== $size hosts: blocks, CA pairs moved / had to, hottest / bound, SM MADs, settle_s, back after ReLink"
	for sm in $sms; do
		if ! start_sm "$sm" "$size" || ! snap base; then
			echo "$sm: did not come up"
			stop_sm
			continue
		fi
		leaf='"sw-p1-l1"[19]'
		agg='"sw-p2-a3"[30]'
		set --
		for p in $(seq 1 36); do set -- "$@" "\"sw-c7\"[$p]"; done
		one "$sm" "leaf uplink" "$leaf"
		one "$sm" "aggregation-core link" "$agg"
		one "$sm" "whole core switch" "$@"
		stop_sm
	done
done
