#!/bin/sh
# Duplicate GUIDs are reported, not merged: the test gives a spine the GUID
# of another spine (console `Guid`), and a re-sweep raises one error event
# naming that GUID while the first owner keeps its LID (ibnetdiscover).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

sim_fabric_up "-P 8 -k 2 -h 2 -s 2"
lid=$(sim_diag ibnetdiscover | sed -n 's/^Switch.*"sw-s1".* lid \([0-9]*\) .*/\1/p')
[ -n "$lid" ] && [ "$lid" -gt 0 ] || fail "sw-s1 has no LID"
sim_console 'Guid "sw-s2" 0x0002000000000003' || fail console
ctl sweep --heavy >/dev/null || fail "sweep"
# the GUID is the event's object; the message does not repeat it
n=$(ctl --json events | jq '[.events[] | select(.object == "0x0002000000000003" and (.message | startswith("duplicate GUID: ")))] | length')
[ "$n" = 1 ] || fail "$n duplicate-GUID events, want 1"
ctl nodes | grep -c '0x0002000000000003' | grep -qx 1 || fail "the duplicate was merged or dropped twice"
sim_diag smpquery portinfo "$lid" 0 | grep -q "LinkState:.*Active" || fail "sw-s1 lost its LID $lid"
pass
