# Link checks from the SM's sweeps, checked against iblinkinfo and the
# events table (sqlite3 shell):
#  - a link cabled below what both ends support is reported degraded at
#    both ends, exactly the ports iblinkinfo marks "Could be";
#  - Unlink raises link_down for both ends, ReLink clears both;
#  - repeated flaps raise one flapping event.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq

SM_SWEEP=1s sim_fabric_up "-k 2 -h 2 -s 1 -x sw-l1:1" "health:
  interval: 1s
  flap_count: 3"

raised() {	# OBJECT CHECK: how many times that check was raised on that object
	db "SELECT count(*) FROM events WHERE source = 'health' AND severity >= 1 AND object = '$1' AND message LIKE '$2:%'"
}
cleared() {
	db "SELECT count(*) FROM events WHERE source = 'health' AND object = '$1' AND message LIKE '$2 cleared%'"
}
wait_for() {	# SECS COMMAND...: until COMMAND succeeds
	s=$1; shift
	for _ in $(seq 1 $((s * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}
is() { [ "$(raised "$1" "$2")" = "$3" ]; }
# the port's status as `health port` gives it, from the alarms it holds
status_is() { [ "$(ctl --json health port "$1" | jq -r .status)" = "$2" ]; }
is_cleared() { [ "$(cleared "$1" "$2")" = "$3" ]; }

# Degraded: the same ports iblinkinfo flags, at both ends.
wait_for 10 is sw-l1:1 degraded 1 || fail "sw-l1:1 not reported degraded"
could=$(sim_diag iblinkinfo -l | sed -n 's/^0x[0-9a-f]* " *\([^"]*\)" *[0-9]* *\([0-9]*\)\[.*Could be.*/\1:\2/p' | sort)
ours=$(db "SELECT DISTINCT object FROM events WHERE message LIKE 'degraded:%'" | sort)
[ -n "$could" ] && [ "$could" = "$ours" ] ||
    fail "iblinkinfo flags [$(echo $could)], fabricd raised degraded on [$(echo $ours)]"
[ "$(raised host1:1 degraded)" = 1 ] || fail "host1:1 (other end) not degraded"
status_is sw-l1:1 degraded && status_is host1:1 degraded ||
    fail "iblinkinfo's degraded ports: status $(ctl --json health port sw-l1:1 | jq -r .status)"
status_is sw-l2:1 ok || fail "a sound port: status $(ctl --json health port sw-l2:1 | jq -r .status)"
others=$(db "SELECT count(*) FROM events WHERE source = 'health' AND severity >= 1 AND message NOT LIKE 'degraded:%'")
[ "$others" = 0 ] || fail "unexpected events: $(db "SELECT object, message FROM events WHERE source = 'health'")"

# Unlink host3's cable: both ends down.
sim_console 'Unlink "sw-l2"[1]' || fail console
sim_diag iblinkinfo | grep -q '"host3"' && fail "iblinkinfo still shows host3 linked"
wait_for 15 is sw-l2:1 link_down 1 || fail "no link_down for sw-l2:1"
wait_for 5 is host3:1 link_down 1 || fail "no link_down for host3:1"
status_is sw-l2:1 down || fail "a port iblinkinfo shows unlinked: status $(ctl --json health port sw-l2:1 | jq -r .status)"

# ReLink: both clear.
sim_console 'ReLink "sw-l2"[1]' || fail console
wait_for 15 is_cleared sw-l2:1 link_down 1 || fail "link_down of sw-l2:1 not cleared"
wait_for 5 is_cleared host3:1 link_down 1 || fail "link_down of host3:1 not cleared"
status_is sw-l2:1 ok || fail "link_down cleared: status $(ctl --json health port sw-l2:1 | jq -r .status)"
sim_diag iblinkinfo | grep '"host3"' | grep -q 'Active/' || fail "iblinkinfo: host3 not Active again"

# Two more flaps: three downs within the window = flapping, raised once.
for flap in 2 3; do
	sim_console 'Unlink "sw-l2"[1]' || fail console
	wait_for 15 is sw-l2:1 link_down $flap || fail "flap $flap: no link_down"
	sim_console 'ReLink "sw-l2"[1]' || fail console
	wait_for 15 is_cleared sw-l2:1 link_down $flap || fail "flap $flap: not cleared"
done
wait_for 5 is sw-l2:1 flapping 1 || fail "no flapping event after 3 flaps"
[ "$(raised sw-l1:1 flapping)" = 0 ] || fail "flapping on a steady port"
fd_stop
pass
