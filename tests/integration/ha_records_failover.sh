#!/bin/sh
# The SM's own records survive a failover (issue 25: LID assignments,
# per-port M_Key records, the ports an operator disabled, the partitions'
# history): fabricd A (host1, priority 15) and B (host2, priority 5) with
# ha on one 3-member etcd cluster, partitions on, M_Key on with one secret.
# B's database holds a stale past: host5's and host6's LIDs swapped (what a
# node that was master long ago would remember).  On A: a partition change
# and `port disable` of a leaf port (host13 cut off).  A is killed (SIGKILL).  Judged from
# outside fabricd:
#   1. every node's LID (ibnetdiscover) is the same under B as under A:
#      B took A's assignments, not its own older copy;
#   2. the disabled link, enabled behind B's back (ibportstate), is
#      disabled again by B;
#   3. B's database holds A's M_Key records (sqlite3 on both files), and
#      the value in etcd (etcdctl) holds none of those keys in the clear;
#   4. B's `partition history` has A's create and member add, as this test
#      ran them;
#   5. a QoS policy in B's file that is not A's is told (status, an event)
#      while B is standby, and told again once the files agree.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/etcd.sh"
sim_test_setup smpquery sminfo ibportstate jq sqlite3

SM_EXTRA="  mkey_secret: \"ha-records-test-secret\"
  audit_interval: 2s"
# the lowered audit interval: sm_port_admin proves the audit's re-disable
# itself; here only whose set it acts on is tested
yaml() { printf '%s\n%s\n' "$SM_EXTRA" "$(ha_yaml)"; }
lids() {
	sim_diag -t 10 ibnetdiscover | grep -o '"[a-z0-9-]*" \(base port 0 \)\{0,1\}lid [0-9]*' |
	    sed 's/ base port 0//' | sort -u
}
bdb() { sqlite3 -batch -noheader "$T/b/state/fabricd.db" "$@"; }
KEY=/fabricd/fe80000000000000/sm/state

etcd_cluster_start 3
sim_topology -k 4 -h 4 -s 2 || fail topogen
sim_start || fail ibsim
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
SM_SWEEP=1s sm_start_fabricd host1 "  priority: 15
  standby_poll: 1s
$(yaml)"
sm_wait_up 30 || fail "A: subnet not up"
sm_wait_sminfo 10 "$A_GUID 15 MASTER" || fail "A is not master: '$(sm_sminfo_at)'"
b_lid=$(sm_lid_of host2)

# ---- B's stale past: its database has host5 and host6 swapped ----
ha_start_b host2 5 "$(yaml)"
sm_wait_sminfo 20 "$B_GUID 5 STANDBY" "$b_lid" || fail "B: '$(sm_sminfo_at "$b_lid")', want STANDBY"
kill "$B_PID"
wait "$B_PID" 2>/dev/null
l5=$(sm_lid_of host5)
l6=$(sm_lid_of host6)
g5=$(printf '0x%016x' "$(sim_port_guid host5)")
g6=$(printf '0x%016x' "$(sim_port_guid host6)")
bdb "INSERT OR REPLACE INTO sm_lids (guid, lid, time_ms) VALUES ('$g5', $l6, 0), ('$g6', $l5, 0)" ||
    fail "could not write B's database"
ha_start_b host2 5 "$(yaml)"
sm_wait_sminfo 20 "$B_GUID 5 STANDBY" "$b_lid" || fail "B restarted: '$(sm_sminfo_at "$b_lid")'"

# ---- on A: a partition change and a disabled spine link ----
for _ in $(seq 1 100); do
	ctl partition create red-train --pkey 0x0b01 --tenant red >/dev/null 2>&1 && break
	sleep 0.2
done
ctl partition member add red-train host5 >/dev/null || fail "member add on A"
sw_lid() {
	sim_diag ibnetdiscover | sed -n "s/^Switch.*\"$1\" .* lid \([0-9]*\) .*/\1/p" | head -1
}
LS=$(sw_lid sw-l4)
[ -n "$LS" ] || fail "no LID for sw-l4"
pi() { sim_diag smpquery portinfo "$LS" 1 | sed -n "s/^$1:\.*//p"; }
for _ in $(seq 1 50); do	# until A has read the SM's records since it won the lease
	ctl port disable sw-l4:1 > "$T/disable.out" 2>&1 && break
	grep -q unavailable "$T/disable.out" || break
	sleep 0.1
done
grep -q unavailable "$T/disable.out" && fail "port disable: $(cat "$T/disable.out")"
i=0
until [ "$(pi PhysLinkState)" = Disabled ]; do
	[ $i -ge 50 ] && fail "after disable: $(pi PhysLinkState)"
	i=$((i + 1)); sleep 0.1
done
before=$(lids)
[ "$(echo "$before" | wc -l)" -ge 21 ] || fail "ibnetdiscover shows too few LIDs: $before"

# A's records reach etcd and B's database
i=0
until etcdq get --print-value-only $KEY | jq -e '.disabled | length == 1' >/dev/null 2>&1 &&
    [ "$(bdb 'SELECT count(*) FROM sm_disabled_ports')" = 1 ]; do
	[ $i -ge 100 ] && fail "A's disabled port never reached B: $(etcdq get --print-value-only $KEY | head -c 300)"
	i=$((i + 1)); sleep 0.1
done
akeys=$(db "SELECT printf('%016x %016x', port_guid, mkey) FROM sm_mkeys ORDER BY 1")
[ "$(echo "$akeys" | wc -l)" -ge 16 ] || fail "A recorded too few M_Keys: $akeys"
i=0
until [ "$(bdb "SELECT printf('%016x %016x', port_guid, mkey) FROM sm_mkeys ORDER BY 1")" = "$akeys" ]; do
	[ $i -ge 100 ] && fail "B's M_Key records are not A's: $(bdb 'SELECT count(*) FROM sm_mkeys') rows"
	i=$((i + 1)); sleep 0.1
done
etcdq get --print-value-only $KEY > "$T/state.json"
jq -e '.mkeys | type == "string"' "$T/state.json" >/dev/null || fail "no sealed M_Keys in etcd"
for k in $(echo "$akeys" | awk '{ print $2 }'); do
	grep -qi "$k" "$T/state.json" && fail "M_Key $k in the clear in etcd"
done
echo "B holds A's $(echo "$akeys" | wc -l) M_Key records; etcd holds them sealed"

# B's QoS policy against A's: the same (neither has classes), then B's file
# given a class and reloaded: told; taken out again: the master's again
qos_verdict() { bctl --json status | jq -r '.sm.replica.qos_policy'; }
until_verdict() {
	i=0
	until [ "$(qos_verdict)" = "$1" ]; do
		[ $i -ge 50 ] && fail "B's QoS verdict: '$(qos_verdict)', want '$1'"
		i=$((i + 1)); sleep 0.1
	done
}
until_verdict "the master's"
cp "$T/b/fabricd.yaml" "$T/b/fabricd.yaml.orig"
sed -i 's/^  audit_interval: 2s$/&\n  qos:\n    classes:\n      training: { sl: 1, vl: 1, share: 90 }\n      management: { sl: 0, vl: 0, share: 10 }/' "$T/b/fabricd.yaml"
bctl reload >/dev/null || fail "reload of B with a QoS class"
until_verdict "differs from the master's"
bctl --json events | grep -q "QoS policy (sm.qos in its file) differs from the master" ||
    fail "no event says B's QoS policy differs"
cp "$T/b/fabricd.yaml.orig" "$T/b/fabricd.yaml"
bctl reload >/dev/null || fail "reload of B without it"
until_verdict "the master's"
echo "B's differing QoS policy told, and cleared"
sleep 1.5	# B's next poll of the intent

# ---- A dies ----
kill -9 "$FD_PID"
fd_killed
sm_wait_sminfo 10 "$B_GUID 5 MASTER" "$b_lid" || fail "B did not take over: '$(sm_sminfo_at "$b_lid")'"
# a heavy sweep of B's as master (sweep answers when it is done), not a
# fixed wait that a loaded machine could end before B swept at all
for _ in $(seq 1 50); do
	bctl sweep --heavy > /dev/null 2>&1 && break	# refused until B is master inside too
	sleep 0.2
done
bctl sweep --heavy > /dev/null || fail "B as master refuses a heavy sweep"
after=$(lids)
[ "$before" = "$after" ] || fail "LIDs moved at the failover:
$(diff "$(printf '%s\n' "$before" > "$T/l1"; echo "$T/l1")" "$(printf '%s\n' "$after" > "$T/l2"; echo "$T/l2")")"
echo "all $(echo "$after" | wc -l) LIDs unchanged under B (host5 $l5, host6 $l6)"

# the disabled link stays B's to keep down
sim_diag ibportstate "$LS" 1 enable > "$T/ibportstate.out" || fail "ibportstate enable"
i=0
until [ "$(pi PhysLinkState)" = Disabled ]; do
	[ $i -ge 100 ] && fail "B left sw-l4:1 enabled ($(pi PhysLinkState)): not in its disabled set
$(tail -20 "$T/b/fabricd.log")"
	i=$((i + 1)); sleep 0.1
done
echo "sw-l4:1 enabled behind B's back: disabled again"

# A's history is B's
bctl --json partition history > "$T/history.json" || fail "partition history on B"
jq -e '[.[] | select(.result == "ok" and .uid != null) | [.action, .detail.name, .detail.member // ""]]
    | index([["create", "red-train", ""]]) != null and
      index([["member add", "red-train", "host5"]]) != null' "$T/history.json" >/dev/null ||
    fail "B's history lacks A's changes: $(cat "$T/history.json")"
pass
