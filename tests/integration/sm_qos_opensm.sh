#!/bin/sh
# QoS on one ibsim fat tree, checked with tools we did not write:
#  1-2. the SL2VL and VL arbitration tables smpquery reads on a host of
#       each leaf and on every used port pair of a leaf and a spine are
#       those OpenSM leaves without `qos TRUE` when there is no policy
#       (fabricd writes none: SL 0 runs on VL 0 in ibsim's tables), and
#       those OpenSM writes with `qos TRUE` and the equivalent qos_sl2vl /
#       qos_vlarb_* settings with one; a second sweep writes none
#       (sm_sweeps.qos_sets and port_sets); qos show agrees with smpquery
#  3.   a restart on the tables OpenSM left writes none
#  4.   saquery -p: the training SL in its partition, the storage SL for
#       the NVMe-oF ServiceID; nccl-env and qos env agree with the SA
#  5.   a raw SL2VL Set from another host fails the pre-flight naming the
#       port; an operator's heavy sweep writes the table back
#  6.   a reload with other shares rewrites the arbitration tables
#
# Switch pairs whose in port is DOWN are not compared: OpenSM writes them,
# fabricd does not (docs/qos.md).  VLHighLimit cannot be compared: ibsim
# does not keep it.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup opensm

POLICY='  qos:
    classes:
      training:   { sl: 1, vl: 1, share: 50, priority: high, pkeys: [0x0a01] }
      storage:    { sl: 2, vl: 2, share: 30, services: [nvme-of] }
      kv:         { sl: 3, vl: 3, share: 15 }
      management: { sl: 0, vl: 0, share: 5 }'
# The same in OpenSM's words: unclassified SLs run on management's VL 0;
# the high table has the high class, the low table the others in order.
OSM_POLICY='qos_sl2vl 0,1,2,3,0,0,0,0,0,0,0,0,0,0,0,0
qos_vlarb_high 1:50
qos_vlarb_low 2:30,3:15,0:5'

# qos_dump FILE: the tables as smpquery prints them (a host per leaf, every
# used port pair of sw-l1 and sw-s1), keyed by node
# description (the two SMs give different LIDs), in a fixed order.
qos_dump() {
	sim_diag -t 30 ibnetdiscover > "$T/disc.txt" || fail "ibnetdiscover"
	: > "$1"
	for h in host1 host3 host5 host7; do	# one per leaf
		lid=$(sed -n "s/.*\"$h\" lid \([0-9]*\) .*/\1/p" "$T/disc.txt" | head -1)
		[ -n "$lid" ] || fail "no LID for $h"
		sim_diag smpquery sl2vl "$lid" | sed -n "s/^ports: /$h /p" >> "$1"
		sim_diag smpquery vlarb "$lid" | grep -E '^(VL|WEIGHT)' | sed "s/^/$h /" >> "$1"
	done
	for sw in sw-l1 sw-s1; do
		lid=$(sed -n "s/^Switch.*\"$sw\".* lid \([0-9]*\) .*/\1/p" "$T/disc.txt")
		# the ports with a link, and port 0
		used=$(awk -v sw="\"$sw\"" '/^Switch/ { on = index($0, "# " sw " ") > 0; next }
		    /^$/ { on = 0 } on && /^\[[0-9]+\]/ { print substr($1, 2, index($1, "]") - 2) }' \
		    "$T/disc.txt" | sort -n | tr '\n' ' ')
		for out in 0 $used; do
			sim_diag smpquery sl2vl "$lid" "$out" | awk -v sw="$sw" -v used="0 $used" '
			    BEGIN { n = split(used, u, " "); for (i = 1; i <= n; i++) ok[u[i]] = 1 }
			    /^ports: in/ { split($0, a, /[ ,:]+/); if (a[3] in ok) print sw, $0 }' >> "$1"
			sim_diag smpquery vlarb "$lid" "$out" | grep -E '^(VL|WEIGHT)' |
			    sed "s/^/$sw out $out /" >> "$1"
		done
	done
	[ "$(grep -c . "$1")" -ge $((4 * 5 + 2 * 8)) ] || { cat "$1"; fail "short dump"; }
}

# osm_run CONF-LINES: OpenSM with `qos TRUE` and these options until SUBNET UP.
osm_run() {
	{ echo "qos TRUE"; echo "qos_policy_file $SIM_DIR/no-policy.conf"; printf '%s\n' "$1"; } \
	    > "$SIM_DIR/osm.conf"
	OSM_ARGS="-F $SIM_DIR/osm.conf" sim_opensm host1 || fail "OpenSM did not come up"
}
osm_stop() {
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
	OSM_PID=
}

# last_qos: qos_sets and port_sets of the last heavy sweep.
last_qos() {
	db "SELECT qos_sets || ' ' || port_sets FROM sm_sweeps WHERE kind = 'heavy' ORDER BY id DESC LIMIT 1"
}
second_sweep_writes_none() {
	ctl sweep --heavy > /dev/null || fail "sweep --heavy"
	[ "$(last_qos)" = "0 0" ] || fail "$1: the second sweep wrote (qos_sets port_sets) $(last_qos)"
}

compare() {
	diff "$1" "$2" > "$T/diff.txt" || { head -20 "$T/diff.txt"; fail "$3"; }
}

sim_topology -P 8 -k 4 -h 2 -s 2 || fail topogen
sim_start || fail "ibsim"
# ibsim's own tables map SL 8-14 to VLs 8-14 that a VL0-7 port does not have
sim_diag smpquery sl2vl 0 -D 0 | grep -q '| 8| 9|10|11|12|13|14|' ||
    fail "ibsim's default SL2VL table is not what this test assumes"

# 1. no policy: the tables are left as the ports hold them, as OpenSM
# without `qos TRUE` leaves them: ibsim's factory tables send SL 0 (the
# one SL in use without a policy) to VL 0, so no table is written
sm_start_fabricd host1
sm_wait_up 30 || fail "subnet not up"
[ "$(last_qos | cut -d' ' -f1)" = 0 ] || fail "no policy: tables written ($(last_qos))"
second_sweep_writes_none "defaults"
qos_dump "$T/fd-default.txt"
grep -q '^host1 in  0, out  0: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|$' \
    "$T/fd-default.txt" || fail "host1: not ibsim's factory table: $(grep '^host1 in' "$T/fd-default.txt")"
fd_stop
OSM_ARGS= sim_opensm host1 || fail "OpenSM (no qos) did not come up"
qos_dump "$T/osm-default.txt"
osm_stop
compare "$T/fd-default.txt" "$T/osm-default.txt" "defaults: fabricd's tables differ from OpenSM's without qos"

# 2. a policy: OpenSM with the equivalent qos_* options
sm_start_fabricd host1 "$POLICY"
sm_wait_up 30 || fail "subnet not up with a policy"
second_sweep_writes_none "policy"
qos_dump "$T/fd-policy.txt"
# qos show: what it says a port holds is what smpquery reads there
row() { jq -r 'map("|" + (if . < 10 then " " else "" end) + tostring) | join("") + "|"'; }
ctl --json qos show > "$T/show.json" || fail "qos show"
[ "$(jq '[.ports[] | select(.differs | length > 0)] | length' "$T/show.json")" = 0 ] ||
    fail "qos show: ports differ from the policy after the sweep"
[ "$(jq '.policy.classes | length' "$T/show.json")" = 4 ] || fail "qos show: not 4 classes"
got=$(jq -c '.ports[] | select(.node == "host1") | .sl2vl' "$T/show.json" | row)
grep -qF "host1 in  0, out  0: $got" "$T/fd-policy.txt" || fail "qos show host1 sl2vl: $got"
ctl --json qos show sw-l1:3 > "$T/show1.json" || fail "qos show sw-l1:3"
got=$(jq -c '.ports[0].sl2vl_by_in[] | select(.in == 5) | .sl2vl' "$T/show1.json" | row)
grep -qF "sw-l1 ports: in  5, out  3: $got" "$T/fd-policy.txt" || fail "qos show sw-l1:3 in 5: $got"
[ "$(jq '.ports[0].vlarb_high[0]' -c "$T/show1.json")" = "[1,50]" ] || fail "qos show: vlarb_high"
grep -q '^sw-l1 out 3 WEIGHT: |0x32|' "$T/fd-policy.txt" || fail "smpquery: training's weight"
# the human form (issue 29: JSON arrays in a 250-column table): the same
# tables written out, lines an operator can read
nums() { grep -F "$1" "$T/fd-policy.txt" | head -1 | sed 's/.*: //; s/|/ /g' | tr -s ' ' | sed 's/^ //; s/ $//'; }
ctl qos show host1:1 > "$T/show.txt" || fail "qos show host1:1"
grep -qx "  SL2VL        $(nums 'host1 in  0, out  0:')" "$T/show.txt" ||
    fail "qos show host1:1: SL2VL line, smpquery: $(nums 'host1 in  0, out  0:'): $(cat "$T/show.txt")"
ctl qos show sw-l1:3 > "$T/show1.txt" || fail "qos show sw-l1:3"
# the line whose in ports ("in 0-6, 9: ...") take in 5 in
in5=$(awk -F': ' '/^  (SL2VL by in|           ) +in / { sub(/^ *(SL2VL by in)? *in /, "", $1)
	n = split($1, r, /, */); for (i = 1; i <= n; i++) { split(r[i], ab, "-"); if (ab[2] == "") ab[2] = ab[1]
	if (5 >= ab[1] + 0 && 5 <= ab[2] + 0) print $2 } }' "$T/show1.txt")
[ "$in5" = "$(nums 'sw-l1 ports: in  5, out  3:')" ] ||
    fail "qos show sw-l1:3: in 5's line, smpquery: $(nums 'sw-l1 ports: in  5, out  3:'): $(cat "$T/show1.txt")"
grep -q '^  VLArb high   VL1:50' "$T/show1.txt" || fail "qos show sw-l1:3: VLArb high: $(cat "$T/show1.txt")"
awk 'length > 132 { bad = 1 } END { exit bad }' "$T/show.txt" "$T/show1.txt" ||
    fail "qos show: a line over 132 columns"
ctl qos show nosuch:1 > /dev/null 2>&1 && fail "qos show of a port that does not exist"
fd_stop
cmp -s "$T/fd-policy.txt" "$T/fd-default.txt" && fail "the policy changed no table"
osm_run "$OSM_POLICY"
qos_dump "$T/osm-policy.txt"
osm_stop
compare "$T/fd-policy.txt" "$T/osm-policy.txt" "policy: fabricd's tables differ from OpenSM's"

# 3. a restart on tables that are already right writes none of them
sm_start_fabricd host1 "$POLICY
partitions:
  enabled: true"
sm_wait_up 30 || fail "subnet not up after the restart"
[ "$(last_qos | cut -d' ' -f1)" = 0 ] || fail "the restart wrote QoS tables: $(last_qos)"
sim_diag smpquery sl2vl "$(sm_lid_of host1)" | sed -n 's/^ports: /host1 /p' > "$T/restart.txt"
grep -qxF -f "$T/restart.txt" "$T/fd-policy.txt" || fail "host1's table changed across the restart"

# 4. the SA answers the class's SL: training's in its partition, storage's
# for the NVMe-oF ServiceID (rdma_cm's TCP port space, port 4420) even
# there, SL 0's class otherwise (host1, the SM's port, is the one full
# member of the default partition)
ctl partition create train --pkey=0x0a01 > /dev/null || fail "partition create"
ctl partition member add train host3 --full > /dev/null || fail "member add host3"
ctl partition member add train host5 --full > /dev/null || fail "member add host5"
# pr_sl SRC:DST [SAQUERY-ARGS]: the SL of the PathRecord between two hosts,
# asked by SRC as rdma_cm asks for its own paths (the SA answers a
# requester only paths between ports it shares a partition with; by LID:
# saquery resolves names through NodeRecord tables, one record a MAD under
# ibsim)
pr_sl() {
	src=${1%:*}
	pair="$(sm_lid_of "$src"):$(sm_lid_of "${1#*:}")"
	shift
	sim_diag -H "$src" -t 10 saquery -p --src-to-dst "$pair" "$@" |
	    sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-f]*\|[0-9]*\)$/\1/p' | head -1 |
	    { read -r v && echo $((v)); }
}
i=0
until [ "$(pr_sl host3:host5 --pkey 0x8a01)" = 1 ]; do
	[ $i -ge 50 ] && fail "PathRecord in the training partition: SL '$(pr_sl host3:host5 --pkey 0x8a01)', want 1"
	i=$((i + 1))
	sleep 0.2
done
[ "$(pr_sl host1:host4 --service_id 0x0000000001061144)" = 2 ] ||
    fail "PathRecord for NVMe-oF: SL '$(pr_sl host1:host4 --service_id 0x0000000001061144)', want 2"
[ "$(pr_sl host1:host4 --service_id 0x0000000001061145)" = 0 ] || fail "PathRecord for port 4421 not on SL 0"
[ "$(pr_sl host3:host5 --service_id 0x0000000001061144)" = 2 ] ||
    fail "PathRecord for NVMe-oF in the training partition: not storage's SL (the ServiceID wins)"
[ "$(pr_sl host1:host4)" = 0 ] || fail "PathRecord without a class not on SL 0: '$(pr_sl host1:host4)'"

# jobs: nccl-env and qos env say what the SA answers (and the config says)
env_of() { ctl --json nccl-env --hosts host3,host5 | jq -r ".env.$1"; }
[ "$(env_of NCCL_IB_SL)" = "$(pr_sl host3:host5 --pkey 0x8a01)" ] ||
    fail "nccl-env NCCL_IB_SL $(env_of NCCL_IB_SL), the SA answers $(pr_sl host3:host5 --pkey 0x8a01)"
[ "$(env_of UCX_IB_SL)" = 3 ] || fail "nccl-env UCX_IB_SL $(env_of UCX_IB_SL), kv is on SL 3"
ctl --json qos env --class storage > "$T/env.json" || fail "qos env"
sid=$(jq -r '.infiniband.service_id' "$T/env.json")
[ "$sid" = 0x0000000001061144 ] || fail "qos env: storage's ServiceID $sid"
[ "$(jq '.infiniband.rdma_cm_sl' "$T/env.json")" = "$(pr_sl host1:host4 --service_id "$sid")" ] ||
    fail "qos env: rdma_cm SL $(jq '.infiniband.rdma_cm_sl' "$T/env.json") but the SA answers $(pr_sl host1:host4 --service_id "$sid")"
ctl qos env --class nosuch > /dev/null 2>&1 && fail "qos env of a class that does not exist"

# 5. pre-flight: the job's SL (training's, SL 1) on every port of the routes
# host3 <-> host5.  Another host maps SL 1 of sw-l3's port to host5 onto
# VL 7, which has no weight: the pre-flight names that port; an operator's
# heavy sweep writes the table back (smpquery reads it restored).
qos_status() { ctl --json preflight --hosts host3,host5 | jq -r '.checks[] | select(.name == "qos") | .status'; }
[ "$(qos_status)" = pass ] || fail "preflight qos: $(ctl --json preflight --hosts host3,host5)"
l3=$(sed -n 's/^Switch.*"sw-l3".* lid \([0-9]*\) .*/\1/p' "$T/disc.txt")
for in in 3 4 5 6; do
	sim_run -H host4 -t 10 "$FABRICD_BUILD/tools/sl2vl_set" "$l3" $in 1 \
	    0,7,2,3,0,0,0,0,0,0,0,0,0,0,0,0 > /dev/null 2>&1 || fail "raw SL2VL Set on sw-l3"
done
sim_diag smpquery sl2vl "$l3" 1 | grep -q 'in  3, out  1: | 0| 7|' || fail "the raw Set did not take"
ctl --json preflight --hosts host3,host5 > "$T/pf.json"
[ "$(jq -r '.verdict' "$T/pf.json")" = fail ] || fail "preflight passed a route with SL 1 on VL 7"
jq -e '.faults[] | select(.code == "QosSlUnusable" and .node == "sw-l3" and .port_num == 1)' \
    "$T/pf.json" > /dev/null || fail "preflight did not name sw-l3 port 1: $(jq -c .faults "$T/pf.json")"
ctl sweep --heavy > /dev/null || fail "sweep --heavy"
[ "$(last_qos | cut -d' ' -f1)" -ge 1 ] || fail "the heavy sweep restored nothing: $(last_qos)"
sim_diag smpquery sl2vl "$l3" 1 | grep 'in  [3-6], out  1:' | grep -q '| 0| 7|' &&
    fail "sw-l3 still maps SL 1 to VL 7 after the heavy sweep"
[ "$(qos_status)" = pass ] || fail "preflight qos after the heavy sweep: $(qos_status)"

# 6. a reload with other shares rewrites the arbitration tables
fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}
  audit_interval: 1h	# the heavy sweep, not the audit (sm_audit.sh), restores here
$(printf '%s\n' "$POLICY" | sed 's/share: 15/share: 10/; s/share: 5 }/share: 10 }/')
partitions:
  enabled: true"
ctl reload > /dev/null || fail "reload"
i=0
until sim_diag smpquery vlarb "$(sm_lid_of host1)" | grep -q '^WEIGHT: |0x1E|0xA |0xA |'; do
	[ $i -ge 50 ] && fail "reload: host1's low table is not 2:30,3:10,0:10: $(sim_diag smpquery vlarb "$(sm_lid_of host1)")"
	i=$((i + 1))
	sleep 0.2
done
pass
