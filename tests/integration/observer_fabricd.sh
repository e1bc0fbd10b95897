#!/bin/sh
# Observer mode with fabricd as the master (docs/sm.md): fabricd is the SM
# on host1 of an ibsim fat tree, a second fabricd, its SM off, observes
# from host2 through the first one's SA.  As observer_opensm.sh, judged by
# infiniband-diags: the observer's `nodes`, `links` and `topology` equal
# ibnetdiscover's, its `route` walks ibtracert's switches, it follows
# host1's port, and every MAD it sent (madlog, below umad) is a Get.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup jq

sim_fabric_up "-P 8 -k 4 -h 4 -s 4"

B=$T/b
mkdir -p "$B/run" "$B/state"
cat > "$B/fabricd.yaml" <<EOY
socket: $B/run/fabricd.sock
state_dir: $B/state
log_level: debug
sm:
  enabled: false
  observer:
    enabled: true
    refresh: 2s
EOY
MADLOG=$B/madlog
: > "$MADLOG"
(cd "$B" && exec env SIM_HOST=host2 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$MADLOG" \
    "$FABRICD" -c "$B/fabricd.yaml" >> "$B/fabricd.log" 2>&1) &
OBS_PID=$!
fd_second "$OBS_PID" "$B/fabricd.log"
octl() { "$FABRICCTL" -s "$B/run/fabricd.sock" "$@"; }

wait_view 120 || fail "the observer's view is not fresh within 120 s: $(tail -5 "$B/fabricd.log")"
capture -e "$T/same.out" same "observer of fabricd"
nodes=$(wc -l < "$T/want.nodes") links=$(wc -l < "$T/want.links")
[ "$nodes" -eq 24 ] && [ "$links" -eq 32 ] || fail "ibnetdiscover: $nodes nodes, $links links (want 24, 32)"
capture -e "$T/topo.out" same_topology
for pair in "host1 host9" "host6 host16" "host12 host3" "host2 host7"; do
	set -- $pair
	capture -e "$T/agree.out" agree "$1" "$2"
done
[ "$(obs master_guid)" = "$(sim_port_guid host1)" ] ||
    fail "the observer follows $(obs master_guid), the SM is $(sim_port_guid host1)"
echo "observer of fabricd: $nodes nodes, $links links as ibnetdiscover; 4 routes as ibtracert"

# stopped first, so that the log holds every MAD it sent
fd_reap_pid "$OBS_PID" "$B/fabricd.log" || fail "the observer exited with status $?"
fd_second
capture "$T/gets.out" gets_only "$MADLOG"
cat "$T/gets.out"
pass
