# Isolation (health.isolate) on ibsim, judged from dump_fts and sqlite:
#  - host3's only link over the critical BER is never isolated (the last
#    path between two CAs);
#  - a leaf uplink that carries host3's route, pushed over the critical
#    BER, is routed around: the walker over dump_fts finds every pair
#    reachable and no route crossing it; an event and a health_isolations
#    row name it;
#  - with max: 1, a second failing uplink only alerts (the cap);
#  - `health unisolate` restores the first (the row closed with the uid), and
#    the freed slot goes to the second; after a restart (with room for both)
#    the second is isolated again from the stored alarms and the first, its
#    alarm marked released, is not; the second comes back by itself once its
#    alarms have cleared (BER window 16 s + quiet time 2 s);
#  - dry_run: the event and a row with dry_run = 1, and the route unchanged.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup

# ber_critical low enough for 5,000 errors spread over a 16 s window
sim_fabric_up "-k 2 -h 2 -s 2" "health:
  interval: 1s
  quiet_time: 2s
  ber_window: 16s
  ber_critical: 1e-10
  isolate:
    enabled: true
    max: 1"

ev() { db "SELECT count(*) FROM events WHERE source = 'health' AND object = '$1' AND message LIKE '$2'"; }
wait_ev() {	# OBJECT PATTERN SECS
	i=0
	until [ "$(ev "$1" "$2")" -ge 1 ]; do
		[ $i -ge $(($3 * 10)) ] && fail "no event '$2' for $1 within $3 s: $(db "SELECT object, message FROM events WHERE source = 'health' AND severity >= 1")"
		i=$((i + 1)); sleep 0.1
	done
}
# sw-l1's egress port for a host's LID, from dump_fts
egress() { lft_dump || fail dump_fts; awk -v h="'$1'" '/^Unicast lids/ { on = /\(sw-l1\)/ } on && index($0, h) { print $2 + 0; exit }' "$SIM_DIR/fts.txt"; }

rounds() { ctl --json health | sed -n 's/^  "rounds": \([0-9]*\),$/\1/p'; }
i=0
until [ "$(rounds)" -ge 2 ]; do	# past the baseline round
	[ $i -ge 100 ] && fail "polling rounds do not advance"
	i=$((i + 1)); sleep 0.1
done

# 1. the last path: host3's own link
sim_console 'PerformanceSet "host3"[1] PortCounters.SymbolErrorCounter=5000' || fail console
wait_ev host3:1 'not isolated (ber failing): it is the last path between two CAs' 15
[ "$(db "SELECT count(*) FROM health_isolations")" = 0 ] || fail "a row for a refused isolation"

# 2. the uplink carrying host3's route
capture "$T/egress" egress host3
P=$(cat "$T/egress")
[ -n "$P" ] && [ "$P" -gt 2 ] || fail "no uplink for host3 on sw-l1: '$P'"
sim_console "PerformanceSet \"sw-l1\"[$P] PortCounters.SymbolErrorCounter=5000" || fail console
wait_ev "sw-l1:$P" 'isolated: ber: %routed around' 15
[ "$(db "SELECT check_name, dry_run FROM health_isolations WHERE object = 'sw-l1:$P' AND restored_ms IS NULL")" = "ber|0" ] ||
    fail "health_isolations: $(db "SELECT * FROM health_isolations")"
i=0
until capture "$T/egress" egress host3 && [ "$(cat "$T/egress")" != "$P" ]; do
	[ $i -ge 100 ] && fail "host3 still routed through sw-l1:$P"
	i=$((i + 1)); sleep 0.2
done
awk -v avoid="sw-l1:$P" -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" ||
    fail "the walker finds routes crossing sw-l1:$P or pairs unreachable"

# 3. the cap: a second uplink only alerts
Q=$((P == 3 ? 4 : 3))
sim_console "PerformanceSet \"sw-l1\"[$Q] PortCounters.SymbolErrorCounter=5000" || fail console
wait_ev "sw-l1:$Q" 'not isolated (ber failing): the cap of 1 isolated ports is reached' 15
[ "$(db "SELECT count(*) FROM health_isolations WHERE restored_ms IS NULL")" = 1 ] || fail "the cap did not hold"

# 4. unisolate: P back (row closed with uid 0), and Q takes the freed slot
ctl health unisolate "sw-l1:$P" >/dev/null || fail "unisolate"
[ "$(db "SELECT restored_by FROM health_isolations WHERE object = 'sw-l1:$P'")" = "unisolated by uid 0" ] ||
    fail "unisolate row: $(db "SELECT * FROM health_isolations")"
wait_ev "sw-l1:$Q" 'isolated: ber: %' 15
ctl health unisolate "sw-l1:$P" 2>/dev/null; [ $? -eq 1 ] || fail "unisolate of a port not isolated: not exit 1"

# 4b. the unisolate outlives a restart while P's alarm stands: restarted
# with room for both (max: 2), fabricd isolates Q again from its stored
# alarms, and not P
[ "$(db "SELECT released FROM health_alarms WHERE object = 'sw-l1:$P' AND check_name = 'ber'")" = 1 ] ||
    fail "P's alarm not marked released: $(db "SELECT object, check_name, released FROM health_alarms")"
fd_stop
sm_start_fabricd host1 "health:
  interval: 1s
  quiet_time: 2s
  ber_window: 16s
  ber_critical: 1e-10
  isolate:
    enabled: true
    max: 2"
sm_wait_up 30 || fail "subnet not up after the restart"
i=0
until [ "$(ev "sw-l1:$Q" 'isolated: ber: %')" -ge 2 ]; do
	[ $i -ge 150 ] && fail "Q not isolated again after the restart: $(db "SELECT * FROM health_isolations")"
	i=$((i + 1)); sleep 0.1
done
sleep 3		# more rounds, more reviews
[ "$(db "SELECT count(*) FROM health_isolations WHERE object = 'sw-l1:$P'")" = 1 ] ||
    fail "P isolated again after the restart though unisolated: $(db "SELECT * FROM health_isolations")"

# 5. the quiet time: Q comes back by itself once its alarms have cleared
i=0
until [ "$(db "SELECT count(*) FROM health_isolations WHERE object = 'sw-l1:$Q' AND restored_by LIKE 'its alarms cleared%'")" -ge 1 ]; do
	[ $i -ge 400 ] && fail "sw-l1:$Q not restored after the quiet time: $(db "SELECT * FROM health_isolations")"
	i=$((i + 1)); sleep 0.1
done
sleep 2
lft_dump || fail dump_fts
lft_check_all_pairs || fail "routes after the restore"
fd_stop

# 6. dry run: announced and recorded, no route changed
sm_start_fabricd host1 "health:
  interval: 1s
  ber_window: 16s
  ber_critical: 1e-10
  isolate:
    enabled: true
    dry_run: true"
sm_wait_up 30 || fail "subnet not up after the restart"
i=0
until [ "$(rounds)" -ge 2 ]; do
	[ $i -ge 100 ] && fail "polling rounds do not advance"
	i=$((i + 1)); sleep 0.1
done
capture "$T/egress" egress host3
D=$(cat "$T/egress")
sim_console "PerformanceSet \"sw-l1\"[$D] PortCounters.SymbolErrorCounter=15000" || fail console
wait_ev "sw-l1:$D" 'would isolate (dry run): ber: %' 15
[ "$(db "SELECT dry_run FROM health_isolations WHERE object = 'sw-l1:$D' AND restored_ms IS NULL")" = 1 ] ||
    fail "dry-run row: $(db "SELECT * FROM health_isolations")"
ctl health | grep -q "isolation (dry run): 1 of at most 10 ports" || fail "health: $(ctl health)"
sleep 3
capture "$T/egress" egress host3
[ "$(cat "$T/egress")" = "$D" ] || fail "a dry run changed host3's route"
fd_stop
pass
