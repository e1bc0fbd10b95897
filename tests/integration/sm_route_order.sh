#!/bin/sh
# Downstream first (issue 40): when a route moves, the switches of its new
# way are written before the switch that steers onto it, so that no moved
# flow meets a half-written path.  On the 64-host 3-level tree, fabricd on
# its defaults below the madlog double (tests/fixtures/mad/madlog.c, with
# the ports of every LinearForwardingTable Set logged), a leaf uplink and
# an aggregation-core link fail and return, and the fabric is rebalanced
# with a link down and after its return; each time the Sets fabricd sent
# are replayed in order over the tables dump_fts read before
# (tests/lib/lftreplay.awk), every CA pair walked after each Set: no Set
# may leave more pairs broken than before it, none is broken at the end,
# and the replayed tables are the ones dump_fts reads after.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup ibnetdiscover dump_fts
REPLAY=$FABRICD_SRC/tests/lib/lftreplay.awk
MADLOG=$T/mads.log

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$MADLOG" MADLOG_PAYLOAD=1
sm_wait_up 60 || fail "subnet not up"
ctl sweep --heavy > /dev/null || fail sweep

# replay LABEL CMD...: run CMD (a console change and a sweep, or a
# rebalance), then replay the LFT Sets it made over the tables before
replay() {
	label=$1
	shift
	lft_dump || fail "$label: dump before"
	cp "$SIM_DIR/fts.txt" "$T/before.fts"
	from=$(($(wc -l < "$MADLOG") + 1))
	"$@"
	lft_dump || fail "$label: dump after"
	tail -n "+$from" "$MADLOG" > "$T/sets.log"
	out=$(awk -v sm=host1 -f "$REPLAY" "$SIM_DIR/disc.txt" "$T/before.fts" "$T/sets.log" \
	    "$SIM_DIR/fts.txt") || fail "$label: $out"
	echo "$label: $out"
	case $out in *"sets 0 "*) fail "$label: no LFT Set replayed: not the change meant" ;; esac
}
console_sweep() { sim_console "$1" || fail "$1"; ctl sweep --heavy > /dev/null || fail "sweep after $1"; }
rebalance() { ctl routing rebalance > /dev/null || fail "routing rebalance"; }

# A failure moves only pairs that were broken: any order of its Sets is
# safe.  A return and a rebalance move working routes: those are where a
# route moved before its new way is written would break.
for link in '"sw-p2-l1"[6]' '"sw-p3-a2"[6]'; do
	replay "Unlink $link" console_sweep "Unlink $link"
	replay "ReLink $link" console_sweep "ReLink $link"
done
console_sweep 'Unlink "sw-p1-l2"[7]'
replay "rebalance with sw-p1-l2[7] down" rebalance
console_sweep 'ReLink "sw-p1-l2"[7]'
replay "rebalance after its return" rebalance
pass
