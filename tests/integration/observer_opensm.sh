#!/bin/sh
# Observer mode (docs/sm.md): OpenSM is master on an ibsim fat tree and
# fabricd, its SM off, observes from host2.  Judged by infiniband-diags
# run as other clients of the simulator, never by fabricd's own answers:
# (a) `nodes` (GUID, type, LID, description), `links` (GUID:port pairs)
#     and the `topology` text equal ibnetdiscover's, so does the links
#     count its metrics export (observer series, no SM one; promtool
#     accepts them);
# (b) `route` walks the switches ibtracert walks, for a sample of pairs,
#     and the pre-flight's route check passes on the same model;
# (c) status follows OpenSM's port (its GUID and the SM LID smpquery reads
#     on host2's port);
# (d) what only the master may do (sweep, audit, port disable, counter
#     reset, partition and job-partition changes) answers unavailable,
#     naming observer mode and OpenSM's port;
# (e) an inter-switch Unlink, OpenSM's reroute: the view has it within
#     one refresh, and links and routes agree again;
# (f) every MAD fabricd sent, logged below umad (tests/fixtures/mad/madlog.c),
#     is a Get: SA queries and its own PortInfo, no SubnSet.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq promtool
REFRESH=2

octl() { ctl "$@"; }

sim_topology -P 8 -k 4 -h 4 -s 4 || fail topogen
sim_start || fail ibsim
sim_opensm host1 || fail "OpenSM did not bring the subnet up"

MADLOG=$T/madlog
: > "$MADLOG"
fd_config "sm:
  enabled: false
  observer:
    enabled: true
    refresh: ${REFRESH}s
partitions:
  enabled: true"
fd_start SIM_HOST=host2 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$MADLOG"
wait_view 120 || { ctl status; fail "the observer's view is not fresh within 120 s"; }
[ "$(ctl --json status | jq -r '.modules[] | select(.name == "sm") | .state')" = observer ] ||
    fail "status does not say the sm module observes: $(ctl status)"

# (a) nodes, links and topology as ibnetdiscover
capture -e "$T/same.out" same "first view"
nodes=$(wc -l < "$T/want.nodes") links=$(wc -l < "$T/want.links")
[ "$nodes" -eq 24 ] && [ "$links" -eq 32 ] || fail "ibnetdiscover: $nodes nodes, $links links (want 24, 32)"
capture -e "$T/topo.out" same_topology
echo "observer: $nodes nodes and $links links as ibnetdiscover (nodes, links, topology)"
# the metrics: the observer's series, its links ibnetdiscover's count, no SM series
ctl metrics > "$T/metrics.txt" || fail metrics
for m in fabricd_observer_view_age_seconds fabricd_observer_views_total \
    fabricd_observer_last_read_queries fabricd_observer_master_lid; do
	grep -q "^$m " "$T/metrics.txt" || fail "metrics: no $m"
done
grep -qx "fabricd_observer_links $links" "$T/metrics.txt" ||
    fail "metrics: $(grep '^fabricd_observer_links ' "$T/metrics.txt"), ibnetdiscover $links links"
grep -q '^fabricd_sm_state' "$T/metrics.txt" && fail "metrics: an observer exports SM state"
out=$(promtool check metrics < "$T/metrics.txt" 2>&1) || fail "promtool check metrics: $out"

# (b) route against ibtracert
for pair in "host1 host9" "host6 host16" "host12 host3" "host15 host14" "host2 host7"; do
	set -- $pair
	capture -e "$T/agree.out" agree "$1" "$2"
done
echo "route agrees with ibtracert on 5 pairs"
# the route loads over the master's tables: every CA pair ibnetdiscover
# counts walks to its end
cas=$(grep -c ' ca ' "$T/want.nodes")
ctl --json routing > "$T/routing.json" || fail routing
[ "$(jq -r '.pairs' "$T/routing.json")" = $((cas * (cas - 1))) ] && [ "$(jq -r '.failed' "$T/routing.json")" = 0 ] ||
    fail "routing over OpenSM's tables: $(jq -c '{pairs, failed}' "$T/routing.json"), $cas CAs"
# the pre-flight walks the same model: its route check passes on them
ctl --json preflight --hosts host1,host9,host16 > "$T/pf.json" || fail "preflight: $(cat "$T/pf.json")"
[ "$(jq -r '.checks[] | select(.name == "routes") | .status' "$T/pf.json")" = pass ] ||
    fail "preflight's route check on the observer: $(cat "$T/pf.json")"

# (c) the master followed: OpenSM's port, at the SM LID host2's port holds
osm_guid=$(sim_port_guid host1)
smlid=$(sim_diag -H host3 smpquery portinfo -L "$(lid host2)" 1 | sed -n 's/^SMLid:\.*\([0-9]*\)$/\1/p')
[ -n "$smlid" ] || fail "smpquery: no SMLid for host2's port"
[ "$(obs master_guid)" = "$osm_guid" ] || fail "status follows $(obs master_guid), OpenSM is $osm_guid"
[ "$(obs master_lid)" = "$smlid" ] || fail "status follows LID $(obs master_lid), host2's SMLid is $smlid"

# (d) what the master does: unavailable, naming observer mode and OpenSM
for cmd in "sweep" "audit" "port disable host5:1" "port reset-counters host5:1" \
    "partition create obs --pkey 0x0b01" "partition job create 7 --hosts host3,host4"; do
	# shellcheck disable=SC2086
	ctl --json $cmd > "$T/err.json" 2>&1 && fail "$cmd succeeded on an observer"
	grep -q '"code": "unavailable"' "$T/err.json" || fail "$cmd: $(cat "$T/err.json")"
	grep -q "observer mode: the SM is $osm_guid (LID $smlid) elsewhere" "$T/err.json" ||
	    fail "$cmd: the reason does not name observer mode and OpenSM: $(cat "$T/err.json")"
done

# (e) Unlink the leaf's uplink that host1 -> host9 takes; OpenSM reroutes
views=$(obs views)
unlink_uplink host1 host9
t0=$(date +%s)
# one refresh (jittered up to 1.25 periods) and a read
end=$(( t0 + REFRESH * 2 + 2 ))
# (a read that began while OpenSM was still rerouting has the link gone
# but LFTs not yet rewritten: the next read, a period later, agrees)
until [ "$(obs links)" -eq $((links - 1)) ] 2>/dev/null && agree host1 host9 > "$T/agree.out"; do
	[ "$(date +%s)" -ge "$end" ] && fail "the view has $(obs links) links, $((links - 1)) after Unlink, $((end - t0)) s later: $(cat "$T/agree.out")"
	sleep 0.2
done
[ "$(obs views)" -gt "$views" ] || fail "no new view after the Unlink"
capture -e "$T/same.out" same "after Unlink"
capture -e "$T/agree.out" agree host1 host9
capture -e "$T/agree.out" agree host9 host1
echo "Unlink $leaf[$port]: in the view within $(( $(date +%s) - t0 )) s; host1 <-> host9 agrees with ibtracert"

# (f) nothing but Gets: SA (class 0x03) and its own PortInfo
fd_stop
capture "$T/gets.out" gets_only "$MADLOG"
cat "$T/gets.out"
pass
