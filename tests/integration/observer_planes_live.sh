#!/bin/sh
# An observer's pre-flight tells the truth on every plane, not only the
# first: each plane's view is as old as its last read of that plane's SA,
# so on the planes after the first, as on the first, the tables for the
# hosts' LIDs are read live before the routes' walk and the ports the
# routes leave by after it (docs/sm.md "Several subnets").
#
# Two planes of the 16-host tree, each its own ibsim with OpenSM master on
# host1; fabricd on host2 observes both (sm.subnets, the multisim double),
# on the observers' defaults.  Judged by infiniband-diags on plane 2's
# simulator:
#  - the pre-flight over host1,host9 passes, its planes check saying it
#    read plane 2's tables and route ports live;
#  - plane 2's OpenSM stopped (SIGSTOP: the switches keep its routes),
#    the leaf uplink host1's route to host9 leaves by on plane 2 unlinked
#    (smpquery reads it Down): the pre-flight fails with a planes fault
#    RouteLinkDown naming plane2 and that port, read live;
#  - OpenSM resumed and rerouted, the pair passes again;
#  - no MAD the observer sent was a SubnSet (MULTISIM_LOG).
# Broken on purpose (no live read on the planes): the pre-flight with the
# uplink out passes over plane 2's stale view, and the test fails.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq
sm_two_planes

# p2 TOOL ARGS...: an infiniband-diags tool on plane 2's simulator
p2() (
	SIM_DIR=$SIM2_DIR IBSIM_SOCKNAME=$SOCK_2
	export IBSIM_SOCKNAME
	sim_diag "$@"
)

sim_opensm host1 || fail "OpenSM on plane 1"
s1_dir=$SIM_DIR s1_osm=$OSM_PID
cp "$SIM_DIR/topo.net" "$SIM2_DIR/topo.net"	# the same net: OpenSM's port GUID
SIM_DIR=$SIM2_DIR IBSIM_SOCKNAME=$SOCK_2 OSM_PID=
export IBSIM_SOCKNAME
sim_opensm host1 || fail "OpenSM on plane 2"
OSM2=$OSM_PID
SIM_DIR=$s1_dir IBSIM_SOCKNAME=$SOCK_1 OSM_PID=$s1_osm
export IBSIM_SOCKNAME
fd_on_exit "kill -CONT $OSM2 2>/dev/null; kill $OSM2 2>/dev/null"
p2 ibnetdiscover > "$T/disc.txt" || fail "ibnetdiscover on plane 2"

# the observer: host2 of both planes, its files in $T/o
OD=$T/o
planes_daemon "$OD" host2 "  enabled: false"
PID_o=$PLANES_PID
pfo() { "$FABRICCTL" -s "$OD/run/fabricd.sock" --json preflight --hosts "$1" > "$T/pf.json"; }
planes_views_wait "$OD" "$PID_o"

# host1's route to host9 on plane 2, by ibtracert there: the leaf uplink
leaf=$(leaf_of host1)
leaflid=$(lid_of_switch "$leaf")
p2 ibtracert "$(lid host1)" "$(lid host9)" > "$T/tr.txt" || fail "ibtracert host1 host9 on plane 2"
port=$(sed -n 's/^\[\([0-9]*\)\] -> switch port .*/\1/p' "$T/tr.txt" | sed -n 2p)
[ -n "$leaflid" ] && [ -n "$port" ] || fail "host1 -> host9: no uplink of $leaf in: $(cat "$T/tr.txt")"

pfo host1,host9 || fail "pre-flight host1,host9: $(jq -c .faults "$T/pf.json")"
jq -e '.checks[] | select(.name == "planes") | .detail |
    test("^plane2: .*LFT blocks read live.*route ports read live, every one Active")' \
    "$T/pf.json" > /dev/null || fail "the planes check read nothing live: $(jq -c '.checks[] | select(.name == "planes")' "$T/pf.json")"
echo "host1,host9 passes, plane 2's tables and route ports read live"

kill -STOP "$OSM2"
sim_second_console "Unlink \"$leaf\"[$port]" || fail "unlink on plane 2"
state=$(p2 -H host2 smpquery portinfo "$leaflid" "$port" | sed -n 's/^LinkState:\.*//p')
[ "$state" = Down ] || fail "smpquery: plane 2's $leaf port $port is \"$state\" after the Unlink"
pfo host1,host9
rc=$?
[ $rc -eq 1 ] || fail "pre-flight host1,host9 with plane 2's $leaf[$port] out: exit $rc, want 1: $(jq -c .checks "$T/pf.json")"
jq -e --arg p "$leaf:$port" '.checks[] | select(.name == "planes") | .faults[] |
    select(.subnet == "plane2" and .code == "RouteLinkDown" and (.message | contains($p)))' \
    "$T/pf.json" > /dev/null ||
    fail "no plane-2 RouteLinkDown naming $leaf:$port: $(jq -c '.checks[] | select(.name == "planes")' "$T/pf.json")"
[ "$(jq -r '.checks[] | select(.name == "links_live") | .status' "$T/pf.json")" = pass ] ||
    fail "plane 1's links_live: $(jq -c '.checks[] | select(.name == "links_live")' "$T/pf.json")"
echo "plane 2's OpenSM stopped, $leaf[$port] out: host1,host9 fails naming plane2 and $leaf:$port"

kill -CONT "$OSM2"
end=$(( $(date +%s) + 60 ))	# only ends the wait
until pfo host1,host9; do
	[ "$(date +%s)" -ge "$end" ] && fail "60 s after plane 2's OpenSM went on: $(jq -c .faults "$T/pf.json")"
	sleep 0.5
done
echo "plane 2's OpenSM rerouted: host1,host9 passes"

sets=$(grep -c '^send dev=ibp[01] class=0x8*1 method=0x02 ' "$OD/ms.log")
[ "$sets" -eq 0 ] || fail "the observer sent $sets SubnSets"
kill "$PID_o" && wait "$PID_o"
rc=$?
[ $rc -eq 0 ] || fail "the observer exited with status $rc"
pass
