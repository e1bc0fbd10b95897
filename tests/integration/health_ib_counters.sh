# IB counters through the SM's MAD engine, checked against perfquery (run as
# another client of the simulator) and the sqlite3 shell:
#  - a healthy fabric raises no health event at all;
#  - PerformanceSet SymbolErrorCounter on one port raises one event naming
#    exactly that port within two intervals, and the reading fabricd reports
#    is the one perfquery shows;
#  - clearing the counters with perfquery -R is a reset, not a spike: no new
#    event, no history row with a jump, the total does not move;
#  - a 16-bit counter close to saturation is cleared by fabricd with a
#    PortCounters Set (perfquery then reads 0) and the total keeps the counts;
#  - one polling round costs fewer MADs than ports x 2;
#  - `fabricctl metrics` passes the strict exposition-format parser.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

sim_fabric_up "-k 2 -h 2 -s 1" "health:
  interval: 1s"

health_events() {	# raised (warning and worse) health events, optionally for one object
	db "SELECT count(*) FROM events WHERE source = 'health' AND severity >= 1 AND message NOT LIKE 'ber:%' ${1:+AND object = '$1'}"
}
rounds() { ctl --json health | sed -n 's/^  "rounds": \([0-9]*\),$/\1/p'; }
wait_rounds() {	# N more complete polling rounds
	want=$(( $(rounds) + $1 ))
	for _ in $(seq 1 100); do [ "$(rounds)" -ge "$want" ] && return 0; sleep 0.1; done
	fail "polling rounds do not advance"
}

wait_rounds 3
[ "$(health_events)" = 0 ] || fail "healthy fabric raised: $(db "SELECT object, message FROM events WHERE source = 'health'")"

# MAD budget of a round, from fabricd's status, against the port count
# ibnetdiscover reports (every cabled port, both ends of each link).
ports=$(sim_diag ibnetdiscover | grep -c '^\[')
mads=$(ctl --json health | sed -n 's/^    "mads": \([0-9]*\),$/\1/p')
[ -n "$mads" ] && [ "$mads" -lt $((ports * 2)) ] || fail "round used $mads MADs for $ports ports"
echo "round: $mads MADs for $ports ports"

# One bad port.
lid=$(sim_diag ibnetdiscover | sed -n 's/^Switch.*"sw-l1".* lid \([0-9]*\) .*/\1/p')
[ -n "$lid" ] || fail "no LID for sw-l1"
sim_console 'PerformanceSet "sw-l1"[2] PortCounters.SymbolErrorCounter=500' || fail console
wait_rounds 2
[ "$(health_events sw-l1:2)" = 1 ] || fail "no symbol error event for sw-l1:2"
[ "$(health_events)" = 1 ] || fail "other ports raised events: $(db "SELECT object FROM events WHERE source = 'health' AND severity >= 1")"
db "SELECT message FROM events WHERE object = 'sw-l1:2'" | grep -q '^symbol_errors: SymbolErrorCounter +500' ||
    fail "event text: $(db "SELECT message FROM events WHERE object = 'sw-l1:2'")"
pq=$(sim_diag perfquery "$lid" 2 | sed -n 's/^SymbolErrorCounter:\.*\([0-9]*\)$/\1/p')
ours=$(ctl --json health port sw-l1:2 | tr -d ' \n' | sed -n 's/.*"SymbolErrorCounter":{"reading":\([0-9]*\),.*/\1/p')
[ "$pq" = 500 ] && [ "$ours" = "$pq" ] || fail "perfquery says '$pq', fabricd says '$ours'"

# Reset: perfquery -R clears the port's PortCounters.
t_reset=$(date +%s%3N)
sim_diag perfquery -R "$lid" 2 >/dev/null || fail "perfquery -R"
wait_rounds 3
[ "$(health_events)" = 1 ] || fail "the reset raised an event"
jump=$(db "SELECT count(*) FROM health_samples s JOIN health_ports p ON p.id = s.port_id
    WHERE p.node_guid = (SELECT node_guid FROM health_ports WHERE port = 2 AND node_desc = 'sw-l1')
    AND p.port = 2 AND s.tier = 0 AND s.t_ms > $t_reset
    AND (s.symbol_errors > 0 OR s.xmit_data_words > 100000 OR s.rcv_packets > 10000)")
[ "$jump" = 0 ] || fail "history shows a spike after the reset"
ctl metrics > "$T/metrics.txt" || fail "fabricctl metrics"
"$FABRICD_BUILD/tests/test_health_prom" "$T/metrics.txt" || fail "metrics: not valid exposition format"
grep -q '^fabricd_port_symbol_errors_total{node_guid="0x[0-9a-f]*",node="sw-l1",port="2"} 500$' "$T/metrics.txt" ||
    fail "total after the reset is not 500: $(grep 'symbol_errors_total.*sw-l1",port="2"' "$T/metrics.txt")"
pq=$(sim_diag perfquery "$lid" 2 | sed -n 's/^SymbolErrorCounter:\.*\([0-9]*\)$/\1/p')
[ "$pq" = 0 ] || fail "perfquery after -R: $pq"

# Near saturation: PortRcvErrors at 60000 of 65535 is cleared by fabricd.
sim_console 'PerformanceSet "sw-l1"[3] PortCounters.PortRcvErrors=60000' || fail console
wait_rounds 2
pq=$(sim_diag perfquery "$lid" 3 | sed -n 's/^PortRcvErrors:\.*\([0-9]*\)$/\1/p')
[ "$pq" = 0 ] || fail "PortRcvErrors not cleared near saturation: perfquery reads '$pq'"
ctl metrics > "$T/metrics2.txt" || fail "fabricctl metrics"
grep -q '^fabricd_port_rcv_errors_total{node_guid="0x[0-9a-f]*",node="sw-l1",port="3"} 60000$' "$T/metrics2.txt" ||
    fail "rcv_errors total of sw-l1:3: $(grep 'rcv_errors_total.*sw-l1",port="3"' "$T/metrics2.txt")"
[ "$(health_events sw-l1:3)" = 1 ] || fail "no rcv_errors event for sw-l1:3"
wait_rounds 2
[ "$(health_events sw-l1:3)" = 1 ] || fail "the clear raised another event"
fd_stop
pass
