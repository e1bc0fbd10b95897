#!/bin/sh
# run.sh: long (the observers' first reads: up to 30 s on their defaults)
# Issue 41 with fabricd as the master (host1, its defaults) and two
# fabricd observers on their defaults (only sm.enabled: false) on the
# hosts with the highest LIDs: every node listed within 30 s of their
# start; host1's leaf loses its links to a spine and, within 15 s of the
# master's reroute (ibtracert's), both pre-flights over the two leaves'
# hosts pass and `route host9 host1` names ibtracert's switches; host9's
# own cable out, the pre-flight names host9; the master killed with no
# standby, both views are called stale within 45 s (observer_truth_opensm.sh:
# the same beside OpenSM, and its failover).
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup jq ibtracert

sim_fabric_up "-P 8 -k 4 -h 4 -s 4"
sim_diag ibnetdiscover > "$T/disc.txt" || fail ibnetdiscover
truth_observers host1 host9
first_views a b
spine_cut a b

# ---- the master dies and no other takes over: no MasterSMLID moves ----
# Each observer asks the master's SMInfo every 10 s; two unanswered and
# the view is stale (on 5f2420a it stayed fresh for the whole refresh).
kill -9 "$FD_PID"
wait "$FD_PID" 2>/dev/null
FD_PID=
t0=$(date +%s)
for o in a b; do
	use $o
	until [ "$(obs master_answers)" = false ] && [ "$(obs view)" = stale ]; do
		[ "$(date +%s)" -ge $((t0 + 45)) ] &&
		    fail "observer $o, 45 s after the master died: $(octl --json status | jq -c '.sm.observer | {master_lid, master_answers, view, last_error}')"
		sleep 0.5
	done
	echo "observer $o: the view stale $(( $(date +%s) - t0 )) s after the master died: $(obs last_error)"
done
pair_gets_only
pass
