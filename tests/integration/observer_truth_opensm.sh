#!/bin/sh
# run.sh: long (the observers' first reads: up to 30 s on their defaults)
# Every node tells the truth after the fabric changes (issue 41), beside
# OpenSM 3.3.23: master on host1 of the 16-host tree (priority 10), a
# standby OpenSM on host3 (priority 5), and two fabricd observers on their
# defaults (only sm.enabled: false) on the hosts with the highest LIDs.
# Judged by ibnetdiscover, ibtracert and smpquery as other clients:
#  1. both list every node within 30 s of their start (first_views; on
#     5f2420a the first read waited LID x 4 s: over 60 s here);
#  2. host1's leaf loses its links to the spine host9 -> host1 crosses;
#     within 15 s of OpenSM's reroute both pre-flights over the hosts of
#     the two leaves pass and `route host9 host1` names ibtracert's
#     switches; host9's own cable out, the pre-flight names host9
#     (spine_cut; on 5f2420a the pre-flight failed RouteLinkDown on the
#     dead links for hours and route named the old spine);
#  3. the master killed, the standby takes over: within 15 s both observers
#     follow it (status names its LID) and publish a view read from its SA
#     (on 5f2420a they followed the dead master's LID for hours).
# Every MAD each observer sent, logged below umad, is a Get.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq smpquery ibtracert

opensm_pair_up
sim_diag ibnetdiscover > "$T/disc.txt" || fail ibnetdiscover
truth_observers host1 host3 host9
first_views a b
# what the two OpenSMs logged last, should the master not reroute
osm_tail() {
	for _l in osm osm3; do
		printf '%s.log: ' "$_l"
		grep -E 'Notice|SUBNET UP|Entering|ERR|sweep' "$SIM_DIR/$_l.log" | tail -8 | cut -c1-160 | tr '\n' '|'
		printf ' '
	done
}
MASTER_NUDGE="kill -HUP $OSM1" MASTER_DIAG=osm_tail spine_cut a b

# ---- 3. the master dies, the standby takes over ----
for o in a b; do
	use $o
	eval "views_$o=\$(obs views)"
done
kill -9 "$OSM1"
wait "$OSM1" 2>/dev/null
OSM_PID=
end=$(( $(date +%s) + 60 ))	# only ends the wait for OpenSM
until grep -q 'SUBNET UP' "$SIM_DIR/osm3.log" 2>/dev/null &&
    [ "$(sim_diag -H host4 smpquery portinfo -L "$(lid host2)" 1 | sed -n 's/^SMLid:\.*\([0-9]*\)$/\1/p')" = "$lid3" ]; do
	[ "$(date +%s)" -ge "$end" ] && fail "host3's OpenSM did not take over within 60 s"
	sleep 0.3
done
t0=$(date +%s)
for o in a b; do
	use $o
	eval "v0=\$views_$o"
	until [ "$(obs master_lid)" = "$lid3" ] && [ "$(obs master_guid)" = "$g3" ] &&
	    [ "$(obs views)" -gt "$v0" ] && [ "$(obs view)" = fresh ]; do
		[ "$(date +%s)" -ge $((t0 + 15)) ] && fail "observer $o, 15 s after host3 took over: $(octl --json status | jq -c '.sm.observer | {master_lid, master_guid, views, view, last_error}')"
		sleep 0.2
	done
	echo "observer $o follows host3 (LID $lid3) and read its SA $(( $(date +%s) - t0 )) s after it took over"
	capture -e "$T/same.out" same "observer $o after the failover"
done
pair_gets_only
pass
