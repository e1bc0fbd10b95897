#!/bin/sh
# Two fabricd SMs on one simulated subnet, checked with infiniband-diags
# only (sminfo, smpquery, ibnetdiscover, dump_fts):
#   1. A (priority 5) is master; B (priority 3) starts and goes STANDBY;
#   2. B's priority is raised to 10 (reload): A's next light sweep sees a
#      higher standby and hands over; B becomes MASTER, every port's
#      MasterSMLID names B, every CA pair routes, A is STANDBY;
#   3. B is killed (SIGKILL): A takes over after its missed polls.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup sminfo jq

# b_config PRIORITY: the second daemon's configuration.
b_config() {
	cat > "$T/b/fabricd.yaml" <<EOF
socket: $T/b/run/fabricd.sock
state_dir: $T/b/state
log_level: debug
sm:
  enabled: true
  priority: $1
  sweep_interval: 1s
  standby_poll: 1s
EOF
}

sim_topology -k 4 -h 2 -s 2 || fail topogen
sim_start || fail "ibsim"
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)

# ---- 1. A master, B standby ----
SM_SWEEP=1s sm_start_fabricd host1 "  priority: 5
  standby_poll: 1s"
sm_wait_up 20 || fail "A: subnet not up"
sm_wait_sminfo 10 "$A_GUID 5 MASTER" || fail "A is not master: '$(sm_sminfo_at)'"
mkdir -p "$T/b/run" "$T/b/state"
b_config 3
(cd "$T/b" && exec env SIM_HOST=host2 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    "$FABRICD" -c "$T/b/fabricd.yaml" >> "$T/b/fabricd.log" 2>&1) &
B_PID=$!
fd_second "$B_PID" "$T/b/fabricd.log"
b_lid=$(sm_lid_of host2)
sm_wait_sminfo 15 "$B_GUID 3 STANDBY" "$b_lid" || fail "B: '$(sm_sminfo_at "$b_lid")', want STANDBY"
[ "$(sm_sminfo_at)" = "$A_GUID 5 MASTER" ] || fail "the SM LID is not A's any more: $(sm_sminfo_at)"
# a standby's own LID is the one the master gave its port (it said 0)
got=$("$FABRICCTL" -s "$T/b/run/fabricd.sock" --json status | jq -r '.sm.lid')
[ "$got" = "$((b_lid))" ] || fail "B (standby) reports LID $got, its port holds $b_lid"

# ---- 2. B raised above A: A hands over ----
b_config 10
kill -HUP "$B_PID"
sm_wait_sminfo 20 "$B_GUID 10 MASTER" || fail "no handover to B: sminfo at the SM LID says '$(sm_sminfo_at)'
$(tail -20 "$T/b/fabricd.log")"
a_lid=$(sm_lid_of host1)
sm_wait_sminfo 10 "$A_GUID 5 STANDBY" "$a_lid" || fail "A after its handover: '$(sm_sminfo_at "$a_lid")'"
sm_all_smlids_are "$(sm_lid_of host2)" 14 || fail "after the handover MasterSMLID is not B's"
lft_dump || fail "dump after the handover"
lft_check_all_pairs || fail "CA pairs do not route after the handover"

# ---- 3. B dies: A takes over ----
kill -9 "$B_PID"
wait "$B_PID" 2>/dev/null
fd_second
sm_wait_sminfo 30 "$A_GUID 5 MASTER" || fail "A did not take over: '$(sm_sminfo_at)'"
sm_all_smlids_are "$(sm_lid_of host1)" 14 || fail "after the takeover MasterSMLID is not A's"
[ "$(db "SELECT count(*) FROM events WHERE source = 'sm' AND message LIKE 'SM state %'")" -ge 3 ] ||
    fail "A's state changes are not all stored"
pass
