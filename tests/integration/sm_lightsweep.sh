#!/bin/sh
# The periodic light sweep notices what sends no trap: another client sets
# a host port DOWN (ibsim bounces the link to Initialize and flags the
# switch's PortStateChange, without trap 128).  iblinkinfo shows the link
# Active again, and fabricd's sweep records (sqlite3) say which sweep did
# it, counted, not timed: the first sweep after the bounce that sent a
# PortInfo Set was begun by the sweep timer, and is at most the second
# sweep after it (within two sweep intervals).  A quiet fabric costs no
# heavy sweep: over three light sweeps no new one is recorded.  (The wall
# clock only ends the waits, at a minute.)
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup
SM_SWEEP=1s

host6_link() { sim_diag iblinkinfo | grep '"host6"'; }

sim_fabric_up "-P 8 -k 4 -h 4 -s 4"
i=0
until [ "$(db "SELECT count(*) FROM sm_sweeps WHERE kind = 'light'")" -ge 3 ]; do
	[ $i -ge 600 ] && fail "fewer than three light sweeps a minute on at a 1 s interval"
	i=$((i + 1)); sleep 0.1
done
heavy=$(db "SELECT count(*) FROM sm_sweeps WHERE kind = 'heavy'")
[ "$heavy" = 1 ] || fail "$heavy heavy sweeps on a quiet fabric"

# the precondition from ibportstate's own read-back after its Set (an
# iblinkinfo after it can come after a light sweep that already put the
# link back: seen once in three runs)
s0=$(db "SELECT max(id) FROM sm_sweeps")
sim_diag -H host2 ibportstate "$(sm_lid_of host6)" 1 down > "$T/down.txt" || fail "ibportstate down"
sed -n '/^After PortInfo set/,$p' "$T/down.txt" | grep -q '^LinkState:\.*Initialize' ||
    fail "precondition: link not bounced: $(cat "$T/down.txt")"
end=$(( $(date +%s) + 60 ))	# only ends the wait
until host6_link | grep -q 'Active/'; do
	[ "$(date +%s)" -gt "$end" ] && fail "link not Active again a minute on: $(host6_link)"
	sleep 0.2
done
# the sweep that set it, once its record is written
fixer() { db "SELECT id || ' ' || cause FROM sm_sweeps WHERE id > $s0 AND port_sets > 0 ORDER BY id LIMIT 1"; }
i=0
until [ -n "$(fixer)" ]; do
	[ $i -ge 600 ] && fail "no sweep after the bounce sent a PortInfo Set"
	i=$((i + 1)); sleep 0.1
done
set -- $(fixer)
echo "the link set Active again by sweep $1 ($2), number $(($1 - s0)) after the bounce"
[ "$2" = periodic ] || fail "sweep $1, which set the link again, was begun by an event, not by the sweep timer"
[ $(($1 - s0)) -le 2 ] || fail "the link was set again by the $(($1 - s0))th sweep after the bounce, not within two"
pass
