# The pre-flight window: a port that failed a health check at any time in
# validation.preflight_window (1 h by default) fails the pre-flight, long
# after the health event itself has cleared.
#   clean fabric, five pre-flights over every host     -> exit 0 each time
#   5,000 symbol errors on host3 (perfquery sees them) -> the event is raised
#   and cleared (quiet_time 2s here, as short as the old three-round rule)
#   preflight over a set with host3, after the clear   -> exit 1 naming host3
#                                                         port 1, the check and when
#   the same set without host3                         -> exit 0
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

# ber_warning is raised out of reach so that only symbol_errors (a rate
# over one round) fails here: its clear is what the old rule forgot.
sim_fabric_up "-k 2 -h 2 -s 1" "health:
  interval: 1s
  quiet_time: 2s
  ber_warning: 1e-3
  ber_critical: 1e-2"
pf() { ctl --json preflight "$@" >"$T/pf.json" 2>&1; rc=$?; }
faults_name() {	# CODE HOST: a fault with that code names that host
	tr -d '\n' < "$T/pf.json" | sed 's/},/}\n/g' | grep "\"code\": *\"$1\"" | grep -q "\"host\": *\"$2\""
}
all=host1,host2,host3,host4
for i in 1 2 3 4 5; do
	pf --hosts $all
	[ $rc -eq 0 ] || fail "clean fabric, pre-flight $i: exit $rc: $(cat "$T/pf.json")"
	sleep 0.5
done

lid3=$(sm_lid_of host3)
sim_console 'PerformanceSet "host3"[1] PortCounters.SymbolErrorCounter=5000' || fail console
sim_diag perfquery "$lid3" 1 | grep -q 'SymbolErrorCounter:\.*5000' || fail "perfquery does not see the burst"
t_burst=$(date +%s)
ev() { db "SELECT count(*) FROM events WHERE source = 'health' AND object = 'host3:1' AND message LIKE '$1'"; }
i=0
until [ "$(ev 'symbol_errors cleared%')" -ge 1 ]; do
	[ $i -ge 200 ] && fail "the symbol_errors event of host3:1 never cleared: $(db "SELECT message FROM events WHERE object = 'host3:1'")"
	i=$((i + 1)); sleep 0.1
done
[ "$(ev 'symbol_errors: %')" = 1 ] || fail "no symbol_errors event raised for host3:1"
ctl --json health port host3:1 | tr -d ' \n' | grep -q '"events":\[\]' ||
    fail "host3:1 still has active events: $(ctl --json health port host3:1)"
sleep 2
pf --hosts host1,host3
[ $rc -eq 1 ] || fail "after the clear: exit $rc: $(cat "$T/pf.json")"
faults_name HealthEvent host3 || fail "no HealthEvent naming host3: $(cat "$T/pf.json")"
tr -d '\n' < "$T/pf.json" | sed 's/},/}\n/g' | grep '"HealthEvent"' | grep '"port_num": *1' |
    grep '"health_check": *"symbol_errors"' | grep -q '"when": *"20[0-9-]*T[0-9:]*Z"' ||
    fail "the fault does not name port 1, the check and when: $(cat "$T/pf.json")"
echo "named $(( $(date +%s) - t_burst )) s after the burst, after the event cleared"
pf --hosts host1,host2,host4
[ $rc -eq 0 ] || fail "the set without host3: exit $rc: $(cat "$T/pf.json")"

fd_stop
pass
