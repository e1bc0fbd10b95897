#!/bin/sh
# run.sh: long (the observers' first reads: up to 30 s on their defaults)
# Issue 41 with fabricd as the master (host1, its defaults) and two
# fabricd observers on their defaults (only sm.enabled: false) on the
# hosts with the highest LIDs: every node listed within 30 s of their
# start; host1's leaf loses its links to a spine and, within 15 s of the
# master's reroute (ibtracert's), both pre-flights over the two leaves'
# hosts pass and `route host9 host1` names ibtracert's switches; host9's
# own cable out, the pre-flight names host9 (observer_truth_opensm.sh:
# the same beside OpenSM, and its failover).
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup jq ibtracert

sim_fabric_up "-P 8 -k 4 -h 4 -s 4"
sim_diag ibnetdiscover > "$T/disc.txt" || fail ibnetdiscover
set -- $(highest_lid_hosts 2 host1 host9)
[ $# = 2 ] || fail "two hosts: [$*]"
obs_defaults a "$1"
obs_defaults b "$2"
echo "observers: a on $1 (LID $(lid "$1")), b on $2 (LID $(lid "$2"))"
first_views a b
spine_cut a b
for o in a b; do
	eval "fd_reap_pid \$PID_$o \"$T/$o/fabricd.log\"" || fail "observer $o exited with status $?"
	capture "$T/gets.out" gets_only "$T/$o/madlog"
	echo "observer $o: $(cat "$T/gets.out")"
done
fd_stop
pass
