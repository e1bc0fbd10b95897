#!/bin/sh
# The periodic light sweep notices what sends no trap: another client sets
# a host port DOWN (ibsim bounces the link to Initialize and flags the
# switch's PortStateChange, without trap 128).  Within two sweep intervals
# iblinkinfo shows the link Active again.  A quiet fabric costs no heavy
# sweep: over several intervals no new one is recorded.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup
SM_SWEEP=1s

host6_link() { sim_diag iblinkinfo | grep '"host6"'; }

sim_fabric_up "-P 8 -k 4 -h 4 -s 4"
sleep 3
heavy=$(db "SELECT count(*) FROM sm_sweeps WHERE kind = 'heavy'")
light=$(db "SELECT count(*) FROM sm_sweeps WHERE kind = 'light'")
[ "$heavy" = 1 ] || fail "$heavy heavy sweeps on a quiet fabric"
[ "$light" -ge 2 ] || fail "$light light sweeps in 3 s at a 1 s interval"

# the precondition from ibportstate's own read-back after its Set (an
# iblinkinfo after it can come after a light sweep that already put the
# link back: seen once in three runs)
sim_diag -H host2 ibportstate "$(sm_lid_of host6)" 1 down > "$T/down.txt" || fail "ibportstate down"
sed -n '/^After PortInfo set/,$p' "$T/down.txt" | grep -q '^LinkState:\.*Initialize' ||
    fail "precondition: link not bounced: $(cat "$T/down.txt")"
end=$(( $(date +%s) + 2 ))
until host6_link | grep -q 'Active/'; do
	[ "$(date +%s)" -gt "$end" ] && fail "link not Active again: $(host6_link)"
	sleep 0.2
done
pass
