#!/bin/sh
# What the pre-flight relies on survives a failover: fabricd A (host1,
# priority 15) and B (host2, priority 5) with ha on one 3-member etcd
# cluster; health on, polling every second (the default interval is
# proven elsewhere), partitions off (health claims the writer lease itself).
# A symbol-error burst on host3 (set in the simulator, seen by perfquery)
# raises A's alarm; A is killed (SIGKILL); once B is master, its pre-flight
# over a set whose route ends at host3 fails naming host3 port 1, and a set
# without host3 passes.  The counter was read and cleared by A, so B's own
# polling sees nothing: only the replicated alarm can name it.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/etcd.sh"
sim_test_setup perfquery sminfo jq

yaml() {
	printf 'ha:\n  etcd:\n    endpoints: [ %s ]\nhealth:\n  interval: 1s\n' "$ETCD_ENDPOINTS"
}
pf() { bctl --json preflight "$@" >"$T/pf.json" 2>&1; rc=$?; }
names_host3() {
	tr -d '\n' < "$T/pf.json" | sed 's/},/}\n/g' | grep '"HealthEvent"' | grep '"host": *"host3"' |
	    grep '"port_num": *1' | grep -Eq '"health_check": *"(symbol_errors|ber)"'
}

etcd_cluster_start 3
sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail ibsim
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
SM_SWEEP=1s sm_start_fabricd host1 "  priority: 15
  standby_poll: 1s
$(yaml)"
sm_wait_up 30 || fail "A: subnet not up"
ha_start_b host2 5 "$(yaml)"
b_lid=$(sm_lid_of host2)
sm_wait_sminfo 20 "$B_GUID 5 STANDBY" "$b_lid" || fail "B is not standby"

lid3=$(sm_lid_of host3)
sim_console 'PerformanceSet "host3"[1] PortCounters.SymbolErrorCounter=5000' || fail console
sim_diag perfquery "$lid3" 1 | grep -q 'SymbolErrorCounter:\.*5000' || fail "perfquery does not see the burst"
i=0
until [ "$(db "SELECT count(*) FROM events WHERE object = 'host3:1' AND message LIKE 'symbol_errors: %'")" -ge 1 ]; do
	[ $i -ge 200 ] && fail "A raised no symbol_errors event for host3:1"
	i=$((i + 1)); sleep 0.1
done
# A publishes its alarms in the intent (etcdctl reads it), B polls it
i=0
until etcdq get --print-value-only /fabricd/fe80000000000000/health/alarms | grep -q '"host3:1"'; do
	[ $i -ge 100 ] && fail "A's alarm never reached etcd"
	i=$((i + 1)); sleep 0.1
done
sleep 1.5

kill -9 "$FD_PID"
fd_killed
sm_wait_sminfo 15 "$B_GUID 5 MASTER" "$b_lid" || fail "B did not take over"
sleep 3		# B's own rounds as master: nothing new on the counter
pf --hosts host3,host4
[ $rc -eq 1 ] || fail "after the failover the pre-flight passed: $(cat "$T/pf.json")"
names_host3 || fail "after the failover the fault does not name host3:1: $(cat "$T/pf.json")"
pf --hosts host2,host4
[ $rc -eq 0 ] || fail "after the failover, the set without host3: exit $rc: $(cat "$T/pf.json")"
echo "after the failover B's pre-flight names host3:1"
pass
