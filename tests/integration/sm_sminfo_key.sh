#!/bin/sh
# SubnSet(SMInfo) is obeyed only with our SM_Key: an SM of another
# administration (another key) that tells fabricd to step down (DISABLE)
# gets status 0x1C and fabricd stays MASTER, as sminfo from a third host
# shows, with a warning event naming the key; the same Set with the
# configured key is obeyed (sminfo: NOTACT), which shows the key and
# nothing else made the difference.  fabricd is STANDBY under OpenSM for
# this, the state in which another master may disable it.  The Sets come from tools/smi_set, a
# raw libibumad client on host3 (no infiniband-diags tool sends them).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup opensm sminfo

# OpenSM (priority 15, SM_Key 1, its default) is master; fabricd
# (priority 5, the same key) goes STANDBY: a state in which DISABLE from a
# master is legal, so only the key can make it refuse.
sim_topology -P 8 -k 2 -h 2 -s 2 || fail topogen
sim_start || fail ibsim
OSM_ARGS="-p 15" sim_opensm host2 30 || fail "OpenSM did not bring the subnet up"
FD_GUID=$(sm_guid_of host1)
FD_LID=$(sm_lid_of host1)
sm_start_fabricd host1 "  priority: 5
  standby_poll: 500ms"
sm_wait_sminfo 10 "$FD_GUID 5 STANDBY" "$FD_LID" ||
    fail "fabricd not STANDBY under OpenSM: $(sm_sminfo_at "$FD_LID")"

out=$(sim_run -H host3 -t 10 "$FABRICD_BUILD/tools/smi_set" -d "$FD_LID" -m 3 -k 0x99 -g 0x77) ||
    fail "smi_set (wrong key): $out"
echo "$out" | grep -q '^status 0x001c ' || fail "a DISABLE with another SM_Key was not refused: $out"
sleep 0.5
[ "$(sm_sminfo_at "$FD_LID")" = "$FD_GUID 5 STANDBY" ] ||
    fail "wrong key: sminfo says $(sm_sminfo_at "$FD_LID")"
[ "$(db "SELECT count(*) FROM events WHERE source = 'sm' AND severity = 1
    AND message = 'SM 0x0000000000000077 has SM_Key 0x0000000000000099, not ours: ignored'")" = 1 ] ||
    fail "no event for the foreign key: $(db "SELECT message FROM events WHERE source = 'sm'")"

out=$(sim_run -H host3 -t 10 "$FABRICD_BUILD/tools/smi_set" -d "$FD_LID" -m 3 -k 1 -g 0x77) ||
    fail "smi_set (our key): $out"
echo "$out" | grep -q '^status 0x0000 ' || fail "a DISABLE with our SM_Key was refused: $out"
sm_wait_sminfo 5 "$FD_GUID 5 NOTACT" "$FD_LID" ||
    fail "our key: sminfo says $(sm_sminfo_at "$FD_LID"), want NOTACT"
pass
