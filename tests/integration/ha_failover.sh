#!/bin/sh
# High availability keeps the tenants (issue 25's reproduction): fabricd A
# (host1, priority 15) and B (host2, priority 5) on one simulated 2-level
# tree, both with partitions on and one 3-member etcd cluster (loopback).
# On A a partition with host5 and host6 is made; A is killed (SIGKILL).
# Judged from outside fabricd: smpquery on host5 and host6 (each its own
# table), sminfo for the master, etcdctl for the writer key.
#   1. B takes over when A's writer lease ends (its TTL, 3 s), not after
#      its missed SMInfo polls (30 s on the defaults): sminfo, B's log;
#   2. host5 and host6 still hold 0x8b01, now and after B's sweeps;
#   3. B's `partition list` has red-train with both members;
#   4. the writer key in etcd names B; a change on B lands on the fabric;
#   5. A restarted as a standby (priority 1) writes nothing: etcd's revision
#      does not move, and no SubnSet leaves it (counted below its umad
#      calls, tests/fixtures/mad/madlog.c);
#   6. B stopped cleanly (SIGTERM): the writer key leaves B at once (gone,
#      or already taken by A), not after the lease's TTL.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/etcd.sh"
sim_test_setup smpquery sminfo jq

# pk HOST: the non-zero keys of HOST's own P_Key table.
pk() {
	sim_diag -H "$1" -t 10 smpquery -D pkeys 0 | awk '/^ *[0-9]+:/ {
	    for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i }'
}

etcd_cluster_start 3
sim_topology -k 4 -h 4 -s 2 || fail topogen
sim_start || fail ibsim
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
WA=$(printf '%016x' "0x$A_GUID")	# the writer key's value: the SM port GUID
WB=$(printf '%016x' "0x$B_GUID")
WKEY=/fabricd/fe80000000000000/writer

SM_SWEEP=1s sm_start_fabricd host1 "  priority: 15
  standby_poll: 1s
$(ha_yaml)"
sm_wait_up 30 || fail "A: subnet not up"
sm_wait_sminfo 10 "$A_GUID 15 MASTER" || fail "A is not master: '$(sm_sminfo_at)'"
ha_start_b host2 5 "$(ha_yaml)"
b_lid=$(sm_lid_of host2)
sm_wait_sminfo 20 "$B_GUID 5 STANDBY" "$b_lid" || fail "B: '$(sm_sminfo_at "$b_lid")', want STANDBY"

# A holds the writer lease once it has swept as master
for _ in $(seq 1 100); do
	[ "$(etcdq get --print-value-only $WKEY)" = "$WA" ] && break
	sleep 0.1
done
w=$(etcdq get --print-value-only $WKEY)
[ "$w" = "$WA" ] || fail "the writer key holds '$w', not A ($A_GUID)"

ctl partition create red-train --pkey 0x0b01 --tenant red >/dev/null || fail "create on A"
ctl partition member add red-train host5 >/dev/null || fail "member add host5 on A"
ctl partition member add red-train host6 >/dev/null || fail "member add host6 on A"
case "$(pk host5)" in *0x8b01*) ;; *) fail "host5 after the change: '$(pk host5)'" ;; esac
case "$(pk host6)" in *0x8b01*) ;; *) fail "host6 after the change: '$(pk host6)'" ;; esac
# the standby follows the intent (polled once a second)
for _ in $(seq 1 50); do
	bctl --json partition list 2>/dev/null | jq -e '.[] | select(.name == "red-train")' \
	    >/dev/null && break
	sleep 0.1
done

# ---- A dies ----
kill -9 "$FD_PID"
wait "$FD_PID" 2>/dev/null
FD_PID=
t0=$(date +%s%N)
# (15 s only ends the wait: on the default standby_poll, 10 s, missed
# polls would take 30 s; the lease's end is what must make B take over)
sm_wait_sminfo 15 "$B_GUID 5 MASTER" "$b_lid" || fail "B did not take over: '$(sm_sminfo_at "$b_lid")'
$(tail -20 "$T/b/fabricd.log")"
took=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "B master ${took} ms after the kill"
grep -q "the master's etcd writer lease ended" "$T/b/fabricd.log" ||
    fail "B took over, but not because A's lease ended: $(grep 'SM state' "$T/b/fabricd.log" | tail -3)"
grep -q "did not answer as master" "$T/b/fabricd.log" &&
    fail "B took over by missed polls, not by the lease"

# B's own sweeps as master (every second) must keep the tenant's key
for i in 1 2 3 4 5 6; do
	for h in host5 host6; do
		case "$(pk $h)" in *0x8b01*) ;; *) fail "$h after the failover (${i}s): '$(pk $h)'
$(tail -30 "$T/b/fabricd.log")" ;; esac
	done
	sleep 1
done
members=$(bctl --json partition show red-train | jq -r '[.members[]?.selector // .members[]?] | length' 2>/dev/null)
bctl --json partition list | jq -e '.[] | select(.name == "red-train")' >/dev/null ||
    fail "B does not list red-train: $(bctl --json partition list)"
bctl --json partition show red-train | grep -q host5 || fail "red-train on B lacks host5: $(bctl --json partition show red-train)"
bctl --json partition show red-train | grep -q host6 || fail "red-train on B lacks host6"
echo "B lists red-train (members: $members)"

# ---- B writes: the lease is B's, and a change lands ----
for _ in $(seq 1 100); do
	w=$(etcdq get --print-value-only $WKEY)
	[ "$w" = "$WB" ] && break
	sleep 0.1
done
[ "$w" = "$WB" ] || fail "the writer key holds '$w' after the takeover, not B"
for _ in $(seq 1 50); do
	bctl partition member add red-train host7 >/dev/null 2>&1 && break
	sleep 0.2
done
case "$(pk host7)" in *0x8b01*) ;; *) fail "host7 after a change on B: '$(pk host7)'" ;; esac

# ---- 5. the old master back, as a standby ----
rev() { etcdq endpoint status -w json | jq '[.[].Status.header.revision] | max'; }
sleep 2	# B's journal delete and its sweeps settled
rev0=$(rev)
fd_config "sm:
  enabled: true
  priority: 1
  sweep_interval: 1s
  standby_poll: 1s
$(ha_yaml)"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    MADLOG_FILE="$T/a-mads.log" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
a_lid=$(sm_lid_of host1)
sm_wait_sminfo 20 "$A_GUID 1 STANDBY" "$a_lid" || fail "A restarted: '$(sm_sminfo_at "$a_lid")'"
sleep 5
sets=$(awk '$2 == "0x02" && ($1 == "0x81" || $1 == "0x01")' "$T/a-mads.log" | wc -l)
[ "$sets" = 0 ] || fail "the restarted standby sent $sets SubnSets:
$(awk '$2 == "0x02"' "$T/a-mads.log" | head -5)"
[ "$(rev)" = "$rev0" ] || fail "etcd's revision moved from $rev0 to $(rev) with A as a standby"
[ "$(etcdq get --print-value-only $WKEY)" = "$WB" ] || fail "the writer key left B"
ctl --json partition show red-train | grep -q host7 || fail "A as standby did not follow the intent"
echo "A as standby: 0 SubnSets, etcd revision $rev0 unchanged, red-train followed"

# ---- 6. a clean stop of the master gives the lease up at once ----
kill "$B_PID"
t0=$(date +%s%N)
wait "$B_PID" 2>/dev/null
B_PID=
fd_second
# gone, or already A's: the standby reads the key four times a second and
# may have taken the lease by now; B's name would stay for the TTL
w=$(etcdq get --print-value-only $WKEY)
[ "$w" != "$WB" ] || fail "the writer key still names B after B stopped"
echo "writer key left B $(( ($(date +%s%N) - t0) / 1000000 )) ms after B's SIGTERM (lease TTL 3 s): '${w:-gone}'"
pass
