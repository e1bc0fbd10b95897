#!/bin/sh
# Two subnets in one fabricd (issue 43, docs/sm.md "Several subnets"): two
# planes of the same 16-host tree (4 leaves x 4 hosts, 2 spines, one link
# from each leaf to each spine; the same net file, so the same GUIDs on
# both), each its own ibsim, every host a CA in each; plane 2 has one leaf
# uplink unlinked (sw-l1 port 5) before the start, so that the two
# differ.  fabricd runs on host1 of both through the multisim double
# (tests/fixtures/mad/multisim.c: ibp0 on plane 1, ibp1 on plane 2),
# sm.subnets naming the ports by device, everything else on its defaults
# but the 2 s sweep of the SM tests.  Checked from outside:
#  - both subnets up, each with fabricd's port the MASTER (sminfo from that
#    plane's host2), status listing both;
#  - `fabricctl --subnet P nodes` and `links` equal ibnetdiscover run on
#    P's simulator, and plane 2 has one link fewer than plane 1; `nodes`
#    without --subnet is plane 1's;
#  - `fabricctl --subnet P route` names the switches ibtracert on P's
#    simulator walks, host1 to the 12 hosts off its leaf on each plane,
#    and some of those routes differ between the planes;
#  - `fabricctl metrics` (promtool accepts it) has each SM's series once
#    per subnet (subnet="planeN"), and each plane's events carry its
#    source (sm/planeN);
#  - the store holds each plane's nodes and LIDs under its name (the same
#    GUIDs twice), and every MAD fabricd sent went out through one of the
#    two devices, both used (MULTISIM_LOG);
#  - the pre-flight passes host1,host5,host9 with both planes up (plane 2's
#    ports and its routes between the three walked too), fails
#    (exit 1) with host5's plane-2 cable unlinked, a "planes" fault naming
#    plane2 and host5 while plane 1's checks pass, and passes again once
#    the cable is back;
#  - an unknown --subnet and a command that is not per subnet (events)
#    with plane 2 exit 2, naming why;
#  - after a restart both planes come up again with the LIDs they had.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup smpquery ibnetdiscover ibtracert sminfo jq sqlite3 promtool
sm_two_planes
sim_second_console 'Unlink "sw-l1"[5]' || fail "unlink on plane 2"

fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}
$SM_TWO_SUBNETS"
start_both() {
	fd_start LD_PRELOAD="$MS" MULTISIM_DEVICES="ibp0=$SOCK_1:host1,ibp1=$SOCK_2:host1" \
	    MULTISIM_LOG="$T/ms.fd"
	sm_wait_subnets_up 30 plane1 plane2
}
start_both
ctl --json status | jq -c '[.sm.subnets[] | {name, port_guid, state, subnet_state}]'
ctl status > "$T/status.txt" || fail "status"
# status --subnet: that SM's own section (plane 2 has one link fewer)
l1=$(ctl --json status | jq .sm.subnet.active_links)
l2=$(ctl --subnet plane2 --json status | jq .sm.subnet.active_links)
[ "$l2" -eq $((l1 - 1)) ] || fail "status --subnet plane2: $l2 active links, plane 1 $l1"
for n in 1 2; do
	grep -Eq "^plane$n +master +up +1 +0x0*$(sm_guid_of host1) +6 +16 " "$T/status.txt" ||
	    fail "status shows no row for plane $n: $(sed -n '/subnets:/,/^$/p' "$T/status.txt")"
done

# on_plane N CMD...: CMD with N's simulator (IBSIM_SOCKNAME) and --subnet
# planeN for fabricctl (observer.sh's octl)
on_plane() {
	_n=$1
	shift
	if [ "$_n" = 1 ]; then IBSIM_SOCKNAME=$SOCK_1; else IBSIM_SOCKNAME=$SOCK_2; fi
	export IBSIM_SOCKNAME
	PLANE=plane$_n "$@"
	_rc=$?
	IBSIM_SOCKNAME=$SOCK_1
	export IBSIM_SOCKNAME
	return $_rc
}
octl() { ctl --subnet "$PLANE" "$@"; }

own=$(sm_guid_of host1)
for n in 1 2; do
	s=$(on_plane $n sim_diag -H host2 sminfo) || fail "sminfo on plane $n"
	echo "plane $n: $s"
	case $s in
	*"sm guid 0x$own,"*SMINFO_MASTER*) ;;
	*) fail "plane $n: fabricd's port 0x$own is not the master: $s" ;;
	esac
done

# each subnet's nodes and links are its own simulator's
for n in 1 2; do
	out=$(on_plane $n same "plane $n") || fail "plane $n: $(echo $out)"
	cp "$T/got.links" "$T/links.$n"
	cp "$T/want.nodes" "$T/nodes.$n"
	echo "plane $n: $(wc -l < "$T/nodes.$n") nodes, $(wc -l < "$T/links.$n") links as ibnetdiscover"
done
[ "$(wc -l < "$T/links.2")" -eq $(($(wc -l < "$T/links.1") - 1)) ] ||
    fail "plane 2 should have one link fewer: $(wc -l < "$T/links.1") and $(wc -l < "$T/links.2")"
ctl --json nodes | jq -r '.nodes[] | "\(.guid) \(.type) \(.lid) \(.description)"' | sort > "$T/default.nodes"
cmp -s "$T/default.nodes" "$T/nodes.1" || fail "nodes without --subnet is not plane 1's"

# routes: each plane's as its switches hold them, host1 to every host off
# its leaf; the unlinked uplink moves some of plane 2's
differ=0
for d in 5 6 7 8 9 10 11 12 13 14 15 16; do
	for n in 1 2; do
		on_plane $n sim_diag ibnetdiscover > "$T/disc.txt" || fail "ibnetdiscover plane $n"
		out=$(on_plane $n agree host1 host$d) || fail "plane $n: $out"
		on_plane $n route_switches host1 host$d | tr '\n' ' ' > "$T/route.$n"
	done
	cmp -s "$T/route.1" "$T/route.2" || {
		differ=$((differ + 1))
		echo "host1 -> host$d: plane 1 [$(cat "$T/route.1")], plane 2 [$(cat "$T/route.2")], each as ibtracert"
	}
done
echo "host1 to 12 hosts: every route as ibtracert on its plane, $differ differ between the planes"
[ "$differ" -ge 1 ] || fail "no route differs between the planes: the route check cannot tell them apart"

# metrics: each SM's series once per subnet, labelled; events name theirs
ctl metrics > "$T/metrics.txt" || fail "fabricctl metrics"
out=$(promtool check metrics < "$T/metrics.txt" 2>&1) || fail "promtool: $out"
for n in 1 2; do
	grep -q "^fabricd_sm_sweeps_total{subnet=\"plane$n\"} [1-9]" "$T/metrics.txt" ||
	    fail "no fabricd_sm_sweeps_total of plane $n: $(grep '^fabricd_sm_sweeps_total' "$T/metrics.txt")"
	grep -q "^fabricd_sm_state{subnet=\"plane$n\",state=\"master\"} 1" "$T/metrics.txt" ||
	    fail "plane $n not master in the metrics: $(grep '^fabricd_sm_state{' "$T/metrics.txt")"
	ctl --json events | jq -r ".events[] | select(.source == \"sm/plane$n\") | .message" \
	    > "$T/events.$n"
	grep -q "^fabric discovered: 6 switches, 16 CAs" "$T/events.$n" ||
	    fail "no 'fabric discovered' event from sm/plane$n: $(head -3 "$T/events.$n")"
done
[ "$(grep -c '^fabricd_sm_active_links{' "$T/metrics.txt")" -eq 2 ] || fail "active_links not twice"
grep -q '^fabricd_sm_mads_sent_total{subnet="plane2"} [1-9]' "$T/metrics.txt" ||
    fail "no MAD count of plane 2's engine: $(grep '^fabricd_sm_mads' "$T/metrics.txt")"
grep '^fabricd_sm_active_links{' "$T/metrics.txt"

# the durable record, per plane
rows=$(db "SELECT subnet || ' ' || count(*) FROM sm_nodes GROUP BY subnet ORDER BY subnet" | tr '\n' ,)
echo "sm_nodes: $rows"
[ "$rows" = "plane1 22,plane2 22," ] || fail "sm_nodes per subnet: $rows (want 22 on each plane)"
same_guids=$(db "SELECT count(*) FROM sm_nodes a JOIN sm_nodes b ON a.guid = b.guid
    WHERE a.subnet = 'plane1' AND b.subnet = 'plane2'")
[ "$same_guids" = 22 ] || fail "the planes' GUIDs are not kept apart: $same_guids shared rows"
for n in 1 2; do
	lids=$(db "SELECT count(*) FROM sm_lids WHERE subnet = 'plane$n'")
	[ "$lids" = 22 ] || fail "plane $n: $lids LIDs stored, want 22"
	on_plane $n sm_lids > "$T/lids.$n"
done
links2=$(db "SELECT count(*) FROM sm_links WHERE subnet = 'plane2'")
[ "$links2" = "$(wc -l < "$T/links.2")" ] || fail "plane 2: $links2 links stored"

# every MAD through one of the two devices, both used
n0=$(grep -c ' dev=ibp0 ' "$T/ms.fd")
n1=$(grep -c ' dev=ibp1 ' "$T/ms.fd")
other=$(grep -vc ' dev=ibp[01] ' "$T/ms.fd")
echo "MULTISIM_LOG: $n0 MADs through ibp0, $n1 through ibp1, $other elsewhere"
[ "$n0" -gt 100 ] && [ "$n1" -gt 100 ] && [ "$other" -eq 0 ] || fail "MADs not on both planes"

# a subnet the daemon does not serve, and a command that is not per subnet
out=$(ctl --subnet plane3 nodes 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "--subnet plane3: exit $rc: $out"
printf '%s\n' "$out" | grep -q "no such subnet here; the subnets are plane1, plane2" ||
    fail "--subnet plane3: $out"
out=$(ctl events --limit 1 --subnet plane2 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "events --subnet plane2: exit $rc: $out"
printf '%s\n' "$out" | grep -q "serves the first subnet, plane1, only" || fail "events --subnet plane2: $out"
ctl events --limit 1 --subnet plane1 > /dev/null || fail "events --subnet plane1 refused"

# the pre-flight: a host passes only with its port on both planes up
ctl preflight --hosts host1,host5,host9 > "$T/pf.ok" || fail "pre-flight on both planes up: $(cat "$T/pf.ok")"
ctl --json preflight --hosts host1,host5,host9 > "$T/pf.ok.json"
jq -c '.checks[] | select(.name == "planes")' "$T/pf.ok.json"
# plane 2's own routes walked too (its SM's tables), every pair of the three
jq -e '.checks[] | select(.name == "planes") |
    .detail | test("^plane2: 3 host ports \\(6 routes walked")' "$T/pf.ok.json" > /dev/null ||
    fail "the planes check walked no route of plane 2: $(jq -c '.checks[] | select(.name == "planes")' "$T/pf.ok.json")"
sim_second_console 'Unlink "host5"[1]' || fail "unlink host5 on plane 2"
i=0
until ! ctl --subnet plane2 --json nodes | jq -e '.nodes[] | select(.description == "host5")' \
    > /dev/null; do
	[ $i -ge 300 ] && fail "plane 2's SM still has host5 30 s after its cable went"
	i=$((i + 1))
	sleep 0.1
done
ctl --json nodes | jq -e '.nodes[] | select(.description == "host5")' > /dev/null ||
    fail "host5 left plane 1 too"
ctl --json preflight --hosts host1,host5,host9 > "$T/pf.json"
rc=$?
[ $rc -eq 1 ] || fail "pre-flight with host5's plane-2 cable out: exit $rc, want 1: $(cat "$T/pf.json")"
jq -c '.checks[] | select(.name == "planes")' "$T/pf.json"
jq -e '.checks[] | select(.name == "planes") | .faults[] |
    select(.subnet == "plane2" and .host == "host5" and .code == "IBPortDown")' "$T/pf.json" \
    > /dev/null || fail "no plane-2 fault naming host5: $(jq -c '.checks' "$T/pf.json")"
jq -e '[.checks[] | select(.name != "planes") | .status] | all(. == "pass" or . == "skipped")' \
    "$T/pf.json" > /dev/null || fail "plane 1's checks failed too: $(jq -c '.checks' "$T/pf.json")"
ctl preflight --hosts host1,host5,host9 | grep "plane2: host5" || fail "the human output names no plane 2"
ctl preflight --hosts host1,host9 > /dev/null || fail "host1 and host9 fail without host5"
sim_second_console 'ReLink "host5"[1]' || fail "relink host5 on plane 2"
i=0
until ctl preflight --hosts host1,host5,host9 > /dev/null; do
	[ $i -ge 300 ] && fail "host5 back on plane 2: the pre-flight still fails 30 s on"
	i=$((i + 1))
	sleep 0.1
done

# a restart: both planes again, each with its LIDs
fd_stop
start_both
for n in 1 2; do
	on_plane $n sm_lids > "$T/lids.after"
	cmp -s "$T/lids.$n" "$T/lids.after" ||
	    fail "plane $n: LIDs moved at restart: $(diff "$T/lids.$n" "$T/lids.after" | head -5)"
done
echo "after a restart: both planes up, every LID kept"
fd_stop
pass
