#!/bin/sh
# New hosts and switches (issue 40): on the 64-host 3-level tree, fabricd
# on its defaults, a host and a whole leaf switch (with its four hosts)
# are out of the fabric when the SM first routes it, then cabled in.
# Judged from outside with dump_fts and the pair walk (tests/lib/
# routemove.awk, lftwalk.awk, ftsdiff.awk): when each joins, no route
# between the CAs that were there moves (only the routes to and through
# the new LIDs are added), every CA pair, the new ones included, routes
# loop-free, and the LFT blocks written are only those the new LIDs fall
# in (at most one block per switch and new LID).
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup ibnetdiscover dump_fts
ROUTEMOVE=$FABRICD_SRC/tests/lib/routemove.awk
FTSDIFF=$FABRICD_SRC/tests/lib/ftsdiff.awk
LEAF=sw-p2-l4
HOST=host64

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
# the leaf's cabled ports, from the net file
leaf_ports=$(awk -v sw="$LEAF" '/^Switch/ { split($0, q, "\""); cur = q[2]; next }
    /^(Hca|Ca)/ { cur = "" }
    cur == sw && /^\[/ { print substr($1, 2) + 0 }' "$SIM_DIR/topo.net")
[ -n "$leaf_ports" ] || fail "no cabled port of $LEAF in the net file"
host_leaf=$(awk -v h="$HOST" '/^(Hca|Ca)/ { split($0, q, "\""); cur = q[2]; next }
    cur == h && /^\[1\]/ { split($0, q, "\""); print q[2]; exit }' "$SIM_DIR/topo.net")
[ -n "$host_leaf" ] && [ "$host_leaf" != "$LEAF" ] || fail "$HOST's leaf: '$host_leaf'"
sim_console "Unlink \"$HOST\"[1]" || fail "Unlink $HOST"
for p in $leaf_ports; do sim_console "Unlink \"$LEAF\"[$p]" || fail "Unlink $LEAF $p"; done

printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
ctl sweep --heavy > /dev/null || fail sweep
lft_dump || fail dump
cas0=$(grep -c '^Ca' "$SIM_DIR/disc.txt")
switches=$(grep -c '^Switch' "$SIM_DIR/disc.txt")
echo "first routing: $cas0 CAs, $switches switches"

# join CONSOLE-LINES...: cable them in, settle, and judge against before
join() {
	_label=$1
	shift
	cp "$SIM_DIR/disc.txt" "$T/before.disc"
	cp "$SIM_DIR/fts.txt" "$T/before.fts"
	for _c in "$@"; do sim_console "$_c" || fail "$_c"; done
	ctl sweep --heavy > /dev/null || fail "$_label: sweep"
	ctl sweep --heavy > /dev/null || fail "$_label: sweep"
	lft_dump || fail "$_label: dump"
	_mv=$(awk -f "$ROUTEMOVE" "$T/before.disc" "$T/before.fts" "$SIM_DIR/disc.txt" \
	    "$SIM_DIR/fts.txt") || fail "$_label: $_mv"
	awk -v cdg=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" > "$T/walk.txt" ||
	    fail "$_label: walk: $(head -5 "$T/walk.txt")"
	_new=$(( $(grep -c '^Ca' "$SIM_DIR/disc.txt") - $(grep -c '^Ca' "$T/before.disc") ))
	_newsw=$(( $(grep -c '^Switch' "$SIM_DIR/disc.txt") - $(grep -c '^Switch' "$T/before.disc") ))
	_blocks=$(awk -f "$FTSDIFF" "$T/before.fts" "$SIM_DIR/fts.txt" | sed -n 's/^blocks \([0-9]*\).*/\1/p')
	_sw=$(grep -c '^Switch' "$SIM_DIR/disc.txt")
	echo "$_label: $_new new CAs, $_newsw new switches; $_mv; $_blocks LFT blocks changed"
	[ "$_new" -gt 0 ] || fail "$_label: no new CA in the fabric"
	echo "$_mv" | grep -q ' moved 0 ' || fail "$_label: routes between the CAs that were there moved: $_mv"
	# a new switch's table is all new; the others gain an entry per new LID
	[ "$_blocks" -le $(( (_sw - _newsw) * (_new + _newsw) + _newsw * 4 )) ] ||
	    fail "$_label: $_blocks LFT blocks changed for $_new new CAs and $_newsw new switches"
}
join "$HOST joins" "ReLink \"$HOST\"[1]"
set --
for p in $leaf_ports; do set -- "$@" "ReLink \"$LEAF\"[$p]"; done
join "$LEAF joins with its hosts" "$@"
pass
