#!/bin/sh
# Master/standby election between fabricd and OpenSM on one simulated
# subnet, checked only with infiniband-diags run as other clients:
#   1. OpenSM (priority 15) is master; fabricd (priority 5) starts: sminfo
#      at fabricd's port says STANDBY, and fabricd writes nothing (every
#      port's MasterSMLID still names OpenSM, the LFTs dump_fts reads are
#      the ones OpenSM wrote);
#   2. OpenSM dies: within a few polls sminfo at the SM LID names fabricd's
#      port as MASTER, every port's MasterSMLID is fabricd's LID, and every
#      CA pair routes through the tables (lftwalk);
#   3. OpenSM (priority 15) starts again while fabricd is master: it goes
#      STANDBY, fabricd hands over (SubnSet(SMInfo) HANDOVER, as OpenSM
#      does): sminfo shows OpenSM MASTER and fabricd STANDBY.  (Under ibsim
#      OpenSM never finishes its first sweep as master: while standby it
#      sent fabricd a trap 144 whose TrapRepress ibsim drops, and with no
#      MAD timeouts in umad2sim it waits for that answer forever.  So no
#      SUBNET UP and no MasterSMLID check here.)
#   4. the reverse: fabricd (priority 15) starts next to a master OpenSM
#      (priority 1): it goes STANDBY, OpenSM hands over to it, and sminfo
#      at the SM LID names fabricd.
# The state changes are also read back from the events table (sqlite3).
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup opensm sminfo

# 4 leaves x 2 hosts, 2 spines: 8 CAs and 6 switches.
sim_topology -k 4 -h 2 -s 2 || fail topogen
sim_start || fail "ibsim"
OSM_GUID=$(sm_guid_of host1)
FD_GUID=$(sm_guid_of host2)

# ---- 1. OpenSM master, fabricd standby ----
OSM_ARGS="-p 15" sim_opensm host1 || fail "OpenSM did not bring the subnet up"
osm_lid=$(sm_lid_of host1)
[ -n "$osm_lid" ] || fail "no LID for OpenSM's port"
[ "$(sm_sminfo_at)" = "$OSM_GUID 15 MASTER" ] || fail "sminfo before fabricd: $(sm_sminfo_at)"
sm_lft_dump > "$T/lft.osm"
SM_SWEEP=1s sm_start_fabricd host2 "  priority: 5
  standby_poll: 1s
  standby_misses: 3"
fd_lid=$(sm_lid_of host2)
sm_wait_sminfo 15 "$FD_GUID 5 STANDBY" "$fd_lid" ||
    fail "sminfo at fabricd's port (LID $fd_lid): '$(sm_sminfo_at "$fd_lid")', want STANDBY"
sleep 3		# a few polls and sweep periods: a master would have written by now
[ "$(sm_sminfo_at)" = "$OSM_GUID 15 MASTER" ] || fail "the SM LID no longer OpenSM's: $(sm_sminfo_at)"
sm_all_smlids_are "$osm_lid" 14 || fail "a standby fabricd rewrote MasterSMLID"
sm_lft_dump > "$T/lft.standby"
cmp -s "$T/lft.osm" "$T/lft.standby" || fail "LFTs changed under a standby fabricd:
$(diff "$T/lft.osm" "$T/lft.standby" | head -10)"
[ "$(wc -l < "$T/lft.osm")" -gt 20 ] || fail "LFT dump too short"
st=$(ctl --json status) || fail "status"
echo "$st" | grep -q '"state": "standby"' || fail "status does not say standby: $st"
echo "$st" | grep -q "\"guid\": \"0x0*$OSM_GUID\"" || fail "status does not name the master: $st"
[ "$(db "SELECT count(*) FROM events WHERE source = 'sm' AND message LIKE 'SM state discovering -> standby%'")" = 1 ] ||
    fail "no standby event stored"

# ---- 2. OpenSM dies: fabricd takes over ----
kill "$OSM_PID"
wait "$OSM_PID" 2>/dev/null
OSM_PID=
t0=$(date +%s.%N)
sm_wait_sminfo 30 "$FD_GUID 5 MASTER" || fail "no takeover: sminfo at the SM LID says '$(sm_sminfo_at)'"
t1=$(date +%s.%N)
echo "takeover seen by sminfo $(echo "$t1 - $t0" | bc) s after OpenSM exited"
sm_wait_up 20 || fail "fabricd master: subnet not up"
fd_lid=$(sm_lid_of host2)
sm_all_smlids_are "$fd_lid" 14 || fail "after takeover MasterSMLID is not fabricd's LID $fd_lid"
lft_dump || fail "dump after takeover"
lft_check_all_pairs || fail "CA pairs do not route after takeover"
[ "$(db "SELECT count(*) FROM events WHERE source = 'sm' AND message LIKE 'SM state % -> master%'")" -ge 1 ] ||
    fail "no master event stored"

# ---- 3. a higher OpenSM comes back: fabricd hands over ----
OSM_ARGS="-p 15" sim_opensm host1 0 || fail "OpenSM did not start"
osm_lid=$(sm_lid_of host1)
sm_wait_sminfo 20 "$OSM_GUID 15 MASTER" "$osm_lid" ||
    fail "after handover sminfo at OpenSM's port says '$(sm_sminfo_at "$osm_lid")'"
sm_wait_sminfo 10 "$FD_GUID 5 STANDBY" "$fd_lid" ||
    fail "fabricd after handover: '$(sm_sminfo_at "$fd_lid")', want STANDBY"
grep -q 'Entering STANDBY state' "$SIM_DIR/osm.log" || fail "OpenSM was never standby: no handover"
[ "$(db "SELECT count(*) FROM events WHERE source = 'sm' AND message LIKE 'SM state master -> standby: handed over%'")" = 1 ] ||
    fail "no handover event stored"

# ---- 4. a higher fabricd starts next to a lower master OpenSM ----
fd_stop
kill "$OSM_PID"
wait "$OSM_PID" 2>/dev/null
OSM_PID=
OSM_ARGS="-p 1" sim_opensm host1 || fail "OpenSM priority 1"
sm_wait_sminfo 20 "$OSM_GUID 1 MASTER" || fail "OpenSM priority 1 not master: '$(sm_sminfo_at)'"
SM_SWEEP=1s sm_start_fabricd host2 "  priority: 15
  standby_poll: 1s"
sm_wait_sminfo 20 "$FD_GUID 15 MASTER" || fail "OpenSM did not hand over to fabricd: '$(sm_sminfo_at)'"
osm_lid=$(sm_lid_of host1)
sm_wait_sminfo 10 "$OSM_GUID 1 STANDBY" "$osm_lid" ||
    fail "OpenSM after its handover: '$(sm_sminfo_at "$osm_lid")', want STANDBY"
sm_wait_up 20 || fail "fabricd after OpenSM's handover: subnet not up"
sm_all_smlids_are "$(sm_lid_of host2)" 14 || fail "after OpenSM's handover MasterSMLID is not fabricd's"
pass
