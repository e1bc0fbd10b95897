#!/bin/sh
# What the pre-flight relies on survives a restart: a symbol-error burst on
# host3 (set in the simulator, seen by perfquery) raises the alarm; fabricd
# is restarted (SIGTERM, and separately SIGKILL) well inside the alarm's
# quiet time (the default, 15 min) and the pre-flight window (1 h); the
# pre-flight over a set whose route ends at host3 still fails naming host3
# port 1 and the burst's check (symbol_errors, or ber which the same
# errors raise), and a set without host3 passes.  Without the
# stored alarms the restarted daemon forgot the failure and passed.
# Every wait is for a condition (health rounds, the event's row, the
# subnet up), its timeout (120 s) only ending a wait, so that a slow or
# sanitized run waits longer and never fails for its speed.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup perfquery jq

# health polls every second here (other tests prove polling on the
# default interval); the quiet time and the window are the defaults.
YAML="health:
  interval: 1s"
sim_fabric_up -w 120 "-k 2 -h 2 -s 1" "$YAML"
rounds() { ctl --json status | jq -r '.health.rounds // empty'; }
pf() { ctl --json preflight "$@" >"$T/pf.json" 2>&1; rc=$?; }
names_host3() {
	tr -d '\n' < "$T/pf.json" | sed 's/},/}\n/g' | grep '"HealthEvent"' | grep '"host": *"host3"' |
	    grep '"port_num": *1' | grep -Eq '"health_check": *"(symbol_errors|ber)"'
}
pf --hosts host1,host3
[ $rc -eq 0 ] || fail "clean fabric: exit $rc: $(cat "$T/pf.json")"

# the burst must come after health has its baseline of host3:1, or the
# first reading takes the 5000 as the baseline and no delta ever shows:
# two rounds more than now, the second begun after the subnet was up
r0=$(rounds)
[ -n "$r0" ] || fail "no health rounds in status: $(ctl --json status)"
health_wait_rounds $((r0 + 2)) 120
lid3=$(sm_lid_of host3)
sim_console 'PerformanceSet "host3"[1] PortCounters.SymbolErrorCounter=5000' || fail console
sim_diag perfquery "$lid3" 1 | grep -q 'SymbolErrorCounter:\.*5000' || fail "perfquery does not see the burst"
r1=$(rounds)
end=$(( $(date +%s) + 120 ))
until [ "$(db "SELECT count(*) FROM events WHERE object = 'host3:1' AND message LIKE 'symbol_errors: %'")" -ge 1 ]; do
	[ "$(date +%s)" -ge "$end" ] &&
	    fail "no symbol_errors event for host3:1 within 120 s ($(( $(rounds) - r1 )) health rounds since the burst)"
	sleep 0.2
done
pf --hosts host1,host3
[ $rc -eq 1 ] && names_host3 || fail "before the restart: exit $rc: $(cat "$T/pf.json")"

for how in TERM KILL; do
	if [ $how = TERM ]; then fd_stop; else kill -9 "$FD_PID"; fd_killed; fi
	sm_start_fabricd host1 "$YAML"
	sm_wait_up 120 || fail "not up after the $how restart"
	# the counter was cleared by the first daemon: no new failure comes
	pf --hosts host1,host3
	[ $rc -eq 1 ] || fail "after a $how restart the pre-flight passed: $(cat "$T/pf.json")"
	names_host3 || fail "after a $how restart the fault does not name host3:1 and the burst: $(cat "$T/pf.json")"
	ctl --json health port host3:1 | grep -q symbol_errors ||
	    fail "after a $how restart host3:1 has no symbol_errors alarm: $(ctl --json health port host3:1)"
	pf --hosts host1,host2,host4
	[ $rc -eq 0 ] || fail "after a $how restart, the set without host3: exit $rc: $(cat "$T/pf.json")"
	echo "after a $how restart: host3:1 symbol_errors still named"
done
pass
