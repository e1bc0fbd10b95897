#!/bin/sh
# A reload that moves the SM to another port (sm.port_guid) needs a
# restart: fabricctl hears restart needed, and nothing of the file is
# applied: SMInfo from another host (sminfo) still names the same port
# with the same priority, although the file also changed the priority.
# A reload of the priority alone is applied in place (sminfo sees it).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup sminfo

SM_SWEEP=1s sim_fabric_up -w 20 "-k 4 -h 2 -s 2" "  priority: 5"
GUID=$(sm_guid_of host1)
OTHER=$(sim_port_guid host3)
sm_wait_sminfo 10 "$GUID 5 MASTER" || fail "not master: '$(sm_sminfo_at)'"

cp "$CONF" "$T/good.yaml"
sed "s/^  priority: 5/  priority: 9\n  port_guid: $OTHER/" "$T/good.yaml" > "$CONF"
grep -q "port_guid: $OTHER" "$CONF" || fail "test setup: port_guid not written"
out=$(ctl --json reload 2>/dev/null); rc=$?
[ $rc -eq 1 ] || fail "reload moving the SM exited $rc, expected 1"
printf '%s' "$out" | grep -q 'restart needed: sm.port_guid' || fail "reply: $out"
sleep 2		# two sweep intervals: a priority applied would show by now
[ "$(sm_sminfo_at)" = "$GUID 5 MASTER" ] || fail "refused reload changed SMInfo: '$(sm_sminfo_at)'"

sed "s/^  priority: 5/  priority: 9/" "$T/good.yaml" > "$CONF"
ctl reload >/dev/null || fail "reload of the priority alone refused"
sm_wait_sminfo 10 "$GUID 9 MASTER" || fail "priority not applied in place: '$(sm_sminfo_at)'"
fd_stop
pass
