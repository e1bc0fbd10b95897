#!/bin/sh
# Observers on every plane (issue 43, docs/sm.md "Several subnets"): two
# planes of the same 16-host tree, each its own ibsim; fabricd on host1
# the master of both (sm.subnets through the multisim double), and a
# second fabricd on host2 with the SM off and the same sm.subnets: an
# observer a plane, each reading its own plane's SA through its own
# device, on the observers' defaults (the first read within 30 s).
# host5's plane-2 cable is out from the start.  Checked from outside:
#  - the observer's status has a row per plane, each a fresh view, and
#    `--subnet P nodes` and `links` equal ibnetdiscover on P's simulator
#    (plane 2 without host5);
#  - its metrics carry each plane's observer series once, labelled;
#  - its pre-flight over host1,host9 passes, the planes check having
#    walked plane 2's routes between them; over host1,host5 it fails
#    (exit 1) with a planes fault naming plane2 and host5;
#  - every MAD the observer sent went out through one of its two
#    devices, both used, and none was a SubnSet (MULTISIM_LOG).
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup ibnetdiscover jq promtool
sm_two_planes
sim_second_console 'Unlink "host5"[1]' || fail "unlink host5 on plane 2"

SUBNETS=$SM_TWO_SUBNETS
fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}
$SUBNETS"
fd_start LD_PRELOAD="$MS" MULTISIM_DEVICES="ibp0=$SOCK_1:host1,ibp1=$SOCK_2:host1"
sm_wait_subnets_up 30 plane1 plane2

# the observer: host2 of both planes, its files in $T/o
OD=$T/o
planes_daemon "$OD" host2 "  enabled: false"
PID_o=$PLANES_PID
PLANE=plane1
octl() { "$FABRICCTL" -s "$OD/run/fabricd.sock" --subnet "$PLANE" "$@"; }
planes_views_wait "$OD" "$PID_o"

# each plane's view is its own simulator's
for n in 1 2; do
	if [ $n = 1 ]; then IBSIM_SOCKNAME=$SOCK_1; else IBSIM_SOCKNAME=$SOCK_2; fi
	export IBSIM_SOCKNAME
	PLANE=plane$n
	out=$(same "plane $n") || fail "plane $n: $(echo $out)"
	echo "plane $n: $(wc -l < "$T/want.nodes") nodes, $(wc -l < "$T/want.links") links as ibnetdiscover"
done
IBSIM_SOCKNAME=$SOCK_1
export IBSIM_SOCKNAME
PLANE=plane1

# metrics: each observer once, labelled
"$FABRICCTL" -s "$OD/run/fabricd.sock" metrics > "$T/metrics.txt" || fail "observer metrics"
out=$(promtool check metrics < "$T/metrics.txt" 2>&1) || fail "promtool: $out"
for n in 1 2; do
	grep -q "^fabricd_observer_nodes{subnet=\"plane$n\"} [1-9]" "$T/metrics.txt" ||
	    fail "no fabricd_observer_nodes of plane $n: $(grep '^fabricd_observer_nodes' "$T/metrics.txt")"
done

# the pre-flight on the observer
octl --json preflight --hosts host1,host9 > "$T/pf.ok" ||
    fail "observer pre-flight host1,host9: $(jq -c '.faults' "$T/pf.ok")"
jq -e '.checks[] | select(.name == "planes") | .detail |
    test("^plane2: 2 host ports \\(2 routes walked")' "$T/pf.ok" > /dev/null ||
    fail "the planes check walked no route of plane 2: $(jq -c '.checks' "$T/pf.ok")"
octl --json preflight --hosts host1,host5 > "$T/pf.bad"
rc=$?
[ $rc -eq 1 ] || fail "observer pre-flight host1,host5: exit $rc, want 1: $(jq -c '.checks' "$T/pf.bad")"
jq -e '.checks[] | select(.name == "planes") | .faults[] |
    select(.subnet == "plane2" and .host == "host5")' "$T/pf.bad" > /dev/null ||
    fail "no plane-2 fault naming host5: $(jq -c '.checks' "$T/pf.bad")"
echo "observer pre-flight: host1,host9 pass; host1,host5 fail on plane2"

# what the observer sent
n0=$(grep -c ' dev=ibp0 ' "$OD/ms.log")
n1=$(grep -c ' dev=ibp1 ' "$OD/ms.log")
other=$(grep -vc ' dev=ibp[01] ' "$OD/ms.log")
sets=$(grep -c '^send dev=ibp[01] class=0x8*1 method=0x02 ' "$OD/ms.log")
echo "observer MADs: $n0 through ibp0, $n1 through ibp1, $other elsewhere, $sets SubnSets"
[ "$n0" -gt 10 ] && [ "$n1" -gt 10 ] && [ "$other" -eq 0 ] || fail "the observer's MADs not on both planes"
[ "$sets" -eq 0 ] || fail "the observer sent $sets SubnSets"
kill "$PID_o" && wait "$PID_o"
rc=$?
[ $rc -eq 0 ] || fail "the observer exited with status $rc"
fd_stop
pass
