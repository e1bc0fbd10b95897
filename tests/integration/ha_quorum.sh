#!/bin/sh
# Acknowledged means replicated: one fabricd master with ha on a 3-member
# etcd cluster (loopback).  The P_Key Sets it sends are counted below its
# umad calls (tests/fixtures/mad/madlog.c), the tables read with smpquery,
# the intent with etcdctl:
#   1. one member killed: a change still works, and etcd holds it;
#   2. two killed: a change is refused with `unavailable`, no P_Key Set is
#      sent, the tables do not move, `status` says why; a `port disable`
#      too: no PortInfo Set, the port stays up, nothing stored;
#   3. the members back: changes work again, a port disable lands in etcd;
#   4. a node cut off by its own disabled port: with two members down its
#      `port enable` is refused too and the disabled set (sqlite, etcd)
#      does not move; with them back it is taken out, in etcd as well.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/etcd.sh"
sim_test_setup smpquery jq

pk() {
	sim_diag -H "$1" -t 10 smpquery -D pkeys 0 | awk '/^ *[0-9]+:/ {
	    for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i }'
}
# P_KeyTable SubnSets (attribute 0x0016, method 0x02) fabricd sent so far.
pkey_sets() { awk '$2 == "0x02" && $3 == "0x0016"' "$T/mads.log" 2>/dev/null | wc -l; }
model() { etcdq get --print-value-only /fabricd/fe80000000000000/partitions/model; }
# until status says etcd is unavailable (6 s at most; judged after)
wait_unavailable() {
	for _ in $(seq 1 60); do
		[ "$(ctl --json status | jq -r '.ha.state')" = unavailable ] && break
		sleep 0.1
	done
}
pi_sets() { awk '$2 == "0x02" && $3 == "0x0015"' "$T/mads.log" 2>/dev/null | wc -l; }
phys() {
	_l=$(sim_diag ibnetdiscover | sed -n 's/^Switch.*"sw-l2" .* lid \([0-9]*\) .*/\1/p' | head -1)
	sim_diag smpquery portinfo "$_l" 1 | sed -n 's/^PhysLinkState:\.*//p'
}

etcd_cluster_start 3
sim_topology -k 2 -h 4 -s 1 || fail topogen
sim_start || fail ibsim
fd_config "sm:
  enabled: true
  sweep_interval: 1s
ha:
  etcd:
    endpoints: [ $ETCD_ENDPOINTS ]
partitions:
  enabled: true"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    MADLOG_FILE="$T/mads.log" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 30 || fail "subnet not up"
for _ in $(seq 1 100); do
	ctl partition create blue --pkey 0x0b02 >/dev/null 2>&1 && break
	sleep 0.1	# until the lease is held and the intent read
done
ctl partition member add blue host2 >/dev/null || fail "member add host2 (all members up)"
case "$(pk host2)" in *0x8b02*) ;; *) fail "host2: '$(pk host2)'" ;; esac

# ---- 1. one member down: a quorum of two ----
# (the member killed may be the leader: the change goes once the two left
# have elected one and status says so; during an election etcd itself
# answers nothing)
etcd_kill 3
sleep 1
for _ in $(seq 1 100); do
	[ "$(ctl --json status | jq -r '.ha.state')" = running ] && break
	sleep 0.1
done
ctl partition member add blue host3 >/dev/null || fail "member add host3 with one member down"
case "$(pk host3)" in *0x8b02*) ;; *) fail "host3: '$(pk host3)'" ;; esac
model | grep -q host3 || fail "etcd's intent lacks host3: $(model)"

# ---- 2. two down: no quorum ----
etcd_kill 2
wait_unavailable
st=$(ctl --json status | jq -c '.ha')
[ "$(printf '%s' "$st" | jq -r .state)" = unavailable ] || fail "status with 2 of 3 down: $st"
printf '%s' "$st" | jq -r .why | grep -qi "quorum\|leader\|unreachable" || fail "status says no why: $st"
echo "status: $(printf '%s' "$st" | jq -r .why)"
before=$(pkey_sets)
h4=$(pk host4)
out=$(ctl --json partition member add blue host4 2>&1) && fail "a change without quorum was accepted: $out"
printf '%s' "$out" | grep -q '"unavailable"' || fail "refused, but not as unavailable: $out"
echo "refused: $out"
sleep 2	# a sweep or two: still nothing
[ "$(pkey_sets)" = "$before" ] || fail "P_Key Sets sent without quorum: $before -> $(pkey_sets)"
[ "$(pk host4)" = "$h4" ] || fail "host4's table moved: '$h4' -> '$(pk host4)'"
ctl --json partition show blue | grep -q host4 && fail "the refused member is in the partition"
ph=$(phys)
pis=$(pi_sets)
out=$(ctl --json port disable sw-l2:1 2>&1) && fail "a port disable without quorum was accepted: $out"
printf '%s' "$out" | grep -q '"unavailable"' || fail "port disable refused, but not as unavailable: $out"
sleep 1
[ "$(pi_sets)" = "$pis" ] || fail "PortInfo Sets sent without quorum: $pis -> $(pi_sets)"
[ "$(phys)" = "$ph" ] || fail "sw-l2:1 moved without quorum: $ph -> $(phys)"
[ "$(db 'SELECT count(*) FROM sm_disabled_ports')" = 0 ] || fail "the refused disable was stored"
echo "port disable refused: $out"

# ---- 3. the members back ----
etcd_restart 2
etcd_restart 3
ok=
for _ in $(seq 1 100); do
	ctl partition member add blue host4 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] || fail "changes do not work again after the members came back: $(ctl --json status | jq -c .ha)"
case "$(pk host4)" in *0x8b02*) ;; *) fail "host4 after recovery: '$(pk host4)'" ;; esac
model | grep -q host4 || fail "etcd's intent lacks host4"
ok=
for _ in $(seq 1 50); do
	ctl port disable sw-l2:1 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] || fail "port disable does not work again: $(ctl --json port disable sw-l2:1 2>&1)"
etcdq get --print-value-only /fabricd/fe80000000000000/sm/state | jq -e '.disabled | length == 1' \
    >/dev/null || fail "the disabled port is not in etcd"
[ "$(phys)" = Disabled ] || fail "sw-l2:1 after the disable: $(phys)"
ctl port enable sw-l2:1 >/dev/null || fail "port enable"
etcdq get --print-value-only /fabricd/fe80000000000000/sm/state | jq -e '.disabled | length == 0' \
    >/dev/null || fail "the enabled port is still in etcd"

# ---- 4. a node off the fabric ----
disabled_in_etcd() {
	etcdq get --print-value-only /fabricd/fe80000000000000/sm/state | jq -r '.disabled | length'
}
# (its answer cannot come back over the link it took down: fabric_error,
# the port kept in the set; the cable then pulled, so that the switch's
# side is down too and the node leaves fabricd's model)
ctl port disable host8:1 >/dev/null 2>&1
sim_console 'Unlink "host8"[1]' || fail unlink
for _ in $(seq 1 100); do	# fabricd's model lets it go at a heavy sweep
	ctl sweep --heavy >/dev/null || fail "sweep"
	ctl nodes | grep -q host8 || break
	sleep 0.1
done
ctl nodes | grep -q host8 && fail "host8 still in fabricd's model: $(ctl nodes | grep host8)"
[ "$(db 'SELECT count(*) FROM sm_disabled_ports')" = 1 ] || fail "host8:1 is not in the disabled set"
etcd_kill 2
etcd_kill 3
wait_unavailable
out=$(ctl --json port enable host8:1 2>&1) && fail "port enable of an unreachable node without quorum: $out"
printf '%s' "$out" | grep -q '"unavailable"' || fail "refused, but not as unavailable: $out"
[ "$(db 'SELECT count(*) FROM sm_disabled_ports')" = 1 ] ||
    fail "the refused enable took host8:1 out of the stored set"
echo "port enable of the node off the fabric refused: $out"
etcd_restart 2
etcd_restart 3
ok=
for _ in $(seq 1 100); do
	out=$(ctl --json port enable host8:1 2>&1)
	printf '%s' "$out" | grep -q "out of the disabled set" && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] || fail "port enable of host8:1 with the members back: $out"
[ "$(db 'SELECT count(*) FROM sm_disabled_ports')" = 0 ] || fail "host8:1 still stored as disabled"
[ "$(disabled_in_etcd)" = 0 ] || fail "host8:1 still disabled in etcd: $(disabled_in_etcd)"
pass
