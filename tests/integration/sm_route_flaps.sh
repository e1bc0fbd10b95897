#!/bin/sh
# 50 flaps (issue 40): on the 64-host 3-level tree (40 switches), fabricd
# on its defaults, 50 inter-switch links picked at random (fixed seed) are
# unlinked and relinked one at a time, each settled by a heavy sweep that
# `fabricctl sweep --heavy` waits for.  While each link is down, every CA
# pair walks to its LID through the tables dump_fts reads, and only the
# pairs whose path crossed the link moved (tests/lib/routemove.awk); after
# the last flap the tables equal, block for block, the ones before the
# first: a flapping link does not ratchet the fabric away from its balance.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup ibnetdiscover dump_fts
ROUTEMOVE=$FABRICD_SRC/tests/lib/routemove.awk
FLAPS=50
# the sanitized daemon sweeps several times slower: 20 flaps there (the
# plain pass runs the 50)
ldd "$FABRICD" 2>/dev/null | grep -q libasan && FLAPS=20

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
ctl sweep --heavy > /dev/null || fail sweep
lft_dump || fail dump
cp "$SIM_DIR/disc.txt" "$T/first.disc"
cp "$SIM_DIR/fts.txt" "$T/first.fts"

# "NAME PORT" of every inter-switch link, once (from its lower-named end),
# FLAPS of them drawn with a fixed seed (repeats allowed)
awk '/^Switch/ { split($0, q, "\""); cur = q[2]; next }
    /^Hca/ { cur = "" }
    cur != "" && /^\[/ { split($0, q, "\""); if (q[2] ~ /^sw-/ && cur < q[2]) print cur, substr($1, 2) + 0 }' \
    "$SIM_DIR/topo.net" > "$T/links"
n=$(wc -l < "$T/links")
[ "$n" -gt 0 ] || fail "no inter-switch links in the net file"
awk -v n="$n" -v k=$FLAPS 'BEGIN { srand(40); for (i = 0; i < k; i++) print int(rand() * n) + 1 }' \
    > "$T/picks"

moved_total=0
i=0
while read -r pick; do
	i=$((i + 1))
	set -- $(sed -n "${pick}p" "$T/links")
	sim_console "Unlink \"$1\"[$2]" || fail "Unlink $1 $2"
	ctl sweep --heavy > /dev/null || fail "flap $i: sweep"
	lft_dump || fail "flap $i: dump"
	mv=$(awk -f "$ROUTEMOVE" "$T/first.disc" "$T/first.fts" "$SIM_DIR/disc.txt" \
	    "$SIM_DIR/fts.txt") || fail "flap $i ($1[$2] down): $mv"
	moved=$(echo "$mv" | sed -n 's/.* moved \([0-9]*\) .*/\1/p')
	had=$(echo "$mv" | sed -n 's/.* had_to \([0-9]*\) .*/\1/p')
	[ "$moved" = "$had" ] || fail "flap $i ($1[$2] down): $mv"
	moved_total=$((moved_total + moved))
	sim_console "ReLink \"$1\"[$2]" || fail "ReLink $1 $2"
	ctl sweep --heavy > /dev/null || fail "flap $i: sweep after the ReLink"
done < "$T/picks"
lft_dump || fail "dump after the flaps"
echo "$FLAPS flaps: $moved_total pairs moved in all, each flap exactly the pairs that crossed its link"
cmp -s "$T/first.fts" "$SIM_DIR/fts.txt" || {
	diff "$T/first.fts" "$SIM_DIR/fts.txt" | head -10
	fail "after $FLAPS flaps the tables are not the ones before the first"
}
pass
