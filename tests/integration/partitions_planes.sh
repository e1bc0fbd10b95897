#!/bin/sh
# Partitions as one tenant space over two planes (issue 43, docs/sm.md
# "Planes as one tenant space"): two planes of the same 16-host tree (4
# leaves x 4 hosts, 2 spines; the same net file, so the same GUIDs), each
# its own ibsim, fabricd on host1 of both through the multisim double,
# sm.subnets naming both ports with one group, partitions on, everything
# else on its defaults but the 2 s sweep of the SM tests.  Judged by
# smpquery on each plane's simulator, not by fabricd's own view:
#  - partitions' status names both planes, and partition commands take
#    --subnet of either (health still refuses plane 2);
#  - a partition with two members lands on both planes: host2 and host3
#    hold the key at the same index on each (smpquery pkeys), and
#    `partition nccl-env` gives that index, from the ports of both
#    planes; the history has one entry for each change;
#  - the QoS classes (sm.qos, one policy) are on both planes alike: host3's
#    SL2VL and VLArb tables by smpquery, and `qos env`'s SL on each plane;
#  - `nccl-env --partition` and the pre-flight's pkey check pass over both
#    planes' ports; a job's partition lands on both planes at one index,
#    the one `partition job env` gives;
#  - the simulator of plane 2 is stopped mid-change (the double sends it
#    SIGSTOP right after the first P_KeyTable Set has left through plane
#    1's device, so plane 1 is being written when plane 2 stops): the
#    change is refused (exit 1, naming a plane-2 port), `partition show`
#    lacks the new member, the history has one "failed" entry for it, and
#    once plane 2's simulator runs again neither plane's host4 holds the
#    key (plane 1's Sets rolled back; what plane 2's queue still held when
#    it woke is put back by its SM, whose rollback Sets were lost);
#  - the same change with both planes running lands on both.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery jq sqlite3
sm_two_planes

fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}
  qos:
    classes:
      training: { sl: 1, vl: 1, share: 60, pkeys: [0x0a01] }
      storage: { sl: 2, vl: 2, share: 30 }
      management: { sl: 0, vl: 0, share: 10 }
$SM_TWO_PLANES_GROUP
partitions:
  enabled: true
  jobs:
    squeue: /bin/false"
fd_start LD_PRELOAD="$MS" MULTISIM_DEVICES="ibp0=$SOCK_1:host1,ibp1=$SOCK_2:host1" \
    MULTISIM_LOG="$T/ms.fd" MULTISIM_STOP_FILE="$T/stop"
sm_wait_subnets_up 30 plane1 plane2
planes=$(ctl --json status | jq -c '.partitions.planes')
[ "$planes" = '["plane1","plane2"]' ] || fail "partitions' planes: $planes"
# one tenant space: partition commands take either plane, others do not
ctl --subnet plane2 partition list > /dev/null || fail "partition list --subnet plane2 refused"
out=$(ctl --subnet plane2 health 2>&1)
[ $? -eq 2 ] || fail "health --subnet plane2 was not refused: $out"

# pk N HOST: HOST's non-zero P_Key entries on plane N, "index=key ...",
# by smpquery from host2 over that plane's simulator (LID from its SM)
pk() {
	if [ "$1" = 1 ]; then IBSIM_SOCKNAME=$SOCK_1; else IBSIM_SOCKNAME=$SOCK_2; fi
	export IBSIM_SOCKNAME
	_lid=$(ctl --subnet "plane$1" --json nodes |
	    jq -r ".nodes[] | select(.description == \"$2\") | .lid")
	sim_diag -H host2 -t 10 smpquery pkeys "$_lid" | awk '/^ *[0-9]+:/ {
	    b = $1 + 0; for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%d=%s ", b + i - 2, $i }'
	IBSIM_SOCKNAME=$SOCK_1
	export IBSIM_SOCKNAME
}
# holds N HOST KEY: the index of KEY (0x8... full) on HOST of plane N, or nothing
holds() {
	pk "$1" "$2" | tr ' ' '\n' | sed -n "s/^\([0-9]*\)=$3\$/\1/p"
}
hist() { ctl --json partition history | jq -c "[.[] | select(.action == \"$1\")]"; }

# ---- a partition lands on both planes
ctl partition create red --pkey 0x0a01 > /dev/null || fail "create red"
for h in host2 host3; do
	ctl partition member add red "$h" > "$T/add.out" 2>&1 || fail "member add $h: $(cat "$T/add.out")"
done
for n in 1 2; do
	for h in host2 host3; do
		i=$(holds $n $h 0x8a01)
		[ -n "$i" ] || fail "plane $n: $h does not hold 0x8a01: $(pk $n $h)"
		echo "plane $n: $h holds 0x8a01 at index $i"
		idx=${idx:-$i}
		[ "$i" = "$idx" ] || fail "plane $n: $h holds 0x8a01 at $i, elsewhere at $idx"
	done
	[ -z "$(holds $n host4 0x8a01)" ] || fail "plane $n: host4 holds red's key"
done
env=$(ctl --json partition nccl-env red --hosts host2,host3)
[ "$(echo "$env" | jq -r .env)" = "NCCL_IB_PKEY=$idx" ] ||
    fail "nccl-env: $(echo "$env" | jq -c .), smpquery index $idx on both planes"
[ "$(echo "$env" | jq -c '[.ports[].port | split("/")[0]] | unique')" = '["plane1","plane2"]' ] ||
    fail "nccl-env did not look at both planes' ports: $(echo "$env" | jq -c .ports)"
[ "$(hist 'member add' | jq length)" = 2 ] || fail "history: $(hist 'member add')"
echo "red on both planes at index $idx; one history entry per change"
env=$(ctl --json nccl-env --hosts host2,host3 --partition red)
[ "$(echo "$env" | jq -r .env.NCCL_IB_PKEY)" = "$idx" ] || fail "nccl-env --partition red: $env"
pf=$(ctl --json preflight --hosts host2,host3 --partition red) ||
    fail "pre-flight --partition red on both planes: $(echo "$pf" | jq -c '.checks')"
echo "$pf" | jq -c '.checks[] | select(.name == "pkey" or .name == "planes") | {name, status, detail}'

# ---- a job's partition lands on both planes, one index
out=$(ctl --json partition job create 101 --hosts 'host[5-6]' --user alice --account ml) ||
    fail "job create: $out"
jkey=$(echo "$out" | jq -r .pkey)
jfull=$(printf '0x%04x' $((jkey | 0x8000)))
jidx=$(echo "$out" | jq -r .index)
for n in 1 2; do
	for h in host5 host6; do
		[ "$(holds $n $h "$jfull")" = "$jidx" ] ||
		    fail "plane $n: $h does not hold job 101's $jfull at $jidx: $(pk $n $h)"
	done
done
ctl partition job env 101 --host host6 | grep -qx "export NCCL_IB_PKEY=$jidx" ||
    fail "job env: $(ctl partition job env 101 --host host6)"
echo "job 101: $jfull at index $jidx on host5 and host6 of both planes"

# ---- the QoS classes are the same on both planes: SL to VL and VLArb as
# smpquery reads them on host3 and on its leaf's port, and qos env's SL
qos_of() {
	if [ "$1" = 1 ]; then IBSIM_SOCKNAME=$SOCK_1; else IBSIM_SOCKNAME=$SOCK_2; fi
	export IBSIM_SOCKNAME
	_lid=$(ctl --subnet "plane$1" --json nodes |
	    jq -r ".nodes[] | select(.description == \"host3\") | .lid")
	sim_diag -H host2 smpquery sl2vl "$_lid" | grep '^ports'
	sim_diag -H host2 smpquery vlarb "$_lid" | grep -v '^#'
	ctl --subnet "plane$1" --json qos env --class training | jq -c '.infiniband.sl'
	IBSIM_SOCKNAME=$SOCK_1
	export IBSIM_SOCKNAME
}
qos_of 1 > "$T/qos.1"
qos_of 2 > "$T/qos.2"
grep -q '^ports: in  0, out  0: | 0| 1| 2|' "$T/qos.1" || fail "plane 1: host3's SL2VL: $(cat "$T/qos.1")"
cmp -s "$T/qos.1" "$T/qos.2" || fail "QoS differs between the planes: $(diff "$T/qos.1" "$T/qos.2")"
[ "$(tail -1 "$T/qos.1")" = 1 ] || fail "qos env --class training: SL $(tail -1 "$T/qos.1")"
echo "QoS on both planes alike: host3's SL2VL and VLArb, training on SL 1"

# ---- plane 2's simulator stopped mid-change: refused, neither plane holds it
echo "ibp0 $SIM2_PID" > "$T/stop"
out=$(ctl partition member add red host4 2>&1)
rc=$?
kill -CONT "$SIM2_PID"
[ -e "$T/stop" ] && fail "the double never stopped plane 2's simulator (no P_KeyTable Set on ibp0)"
echo "with plane 2 stopped: exit $rc: $out"
[ $rc -eq 1 ] || fail "member add with plane 2 stopped: exit $rc, want 1: $out"
printf '%s\n' "$out" | grep -q "plane2/" || fail "the refusal names no plane-2 port: $out"
ctl --json partition show red | jq -e '[.members[] | .member] | index("host4") == null' > /dev/null ||
    fail "host4 is a member after a refused change: $(ctl --json partition show red | jq -c .members)"
failed=$(hist 'member add' | jq '[.[] | select(.result == "failed")] | length')
[ "$failed" = 1 ] || fail "history: $failed failed 'member add' entries: $(hist 'member add')"
[ -z "$(holds 1 host4 0x8a01)" ] || fail "plane 1: host4 holds red's key after the refusal: $(pk 1 host4)"
# plane 2 woke with what its queue held: its SM reads back what it could
# not put back and writes the committed table
i=0
until [ -z "$(holds 2 host4 0x8a01)" ]; do
	[ $i -ge 120 ] && fail "plane 2: host4 still holds red's key 60 s after its simulator woke"
	i=$((i + 1))
	sleep 0.5
done
echo "after the refusal: host4 holds red's key on neither plane ($(pk 1 host4)| $(pk 2 host4))"
ctl --json events | jq -r '.events[] | select(.source == "partitions") | .message' | tail -3
[ "$(db 'SELECT count(*) FROM pt_intent')" = 0 ] ||
    fail "an intent is left: $(db 'SELECT subnet, label FROM pt_intent')"

# ---- the same change with both planes running
i=0
until out=$(ctl partition member add red host4 2>&1); do
	# busy while plane 2's SM puts back what it woke with
	printf '%s\n' "$out" | grep -q "try again\|not undone yet\|not managed" ||
	    fail "member add host4 with both planes up: $out"
	[ $i -ge 60 ] && fail "member add host4 still refused 30 s on: $out"
	i=$((i + 1))
	sleep 0.5
done
for n in 1 2; do
	[ "$(holds $n host4 0x8a01)" = "$idx" ] || fail "plane $n: host4 does not hold red at $idx: $(pk $n host4)"
done
echo "with both planes up: host4 holds red on both at index $idx"

fd_stop
pass
