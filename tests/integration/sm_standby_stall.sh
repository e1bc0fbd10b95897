#!/bin/sh
# Without ha, a master that stalls and wakes beside a new master elects
# again before it writes (issue 38): fabricd A (host1, priority 15) and B
# (host2, priority 5) on the 16-host 2-level tree, no etcd, standby polls
# every second (so B takes over in about 3 s; the stall rule scales with
# the poll).  A is stopped (SIGSTOP) with a Set to retry (the double
# swallows it while $T/swallow exists), B takes over, a cable is unlinked,
# A resumed (SIGCONT).  Judged from outside fabricd, with each SM's
# SubnSets logged below its umad calls with one clock (tests/fixtures/mad/
# madlog.c, MADLOG_TIME):
#   1. A sends no SubnSet from its wake until B hands the subnet over
#      (B's SubnSet(SMInfo) HANDOVER: A is the higher, IBA's rule), or at
#      all if B keeps it; A's log says it stood still and elected again;
#   2. then exactly one master answers sminfo, and every CA pair is routed
#      through the tables the switches hold (dump_fts), around the cable.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup smpquery sminfo ibnetdiscover dump_fts jq

walk() { lft_dump && lft_check_all_pairs > "$T/walk.txt" 2>&1; }

sim_topology -k 4 -h 4 -s 2 || fail topogen
sim_start || fail ibsim
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
fd_config "sm:
  enabled: true
  priority: 15
  standby_poll: 1s"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    MADLOG_FILE="$T/a-mads.log" MADLOG_TIME=1 MADLOG_SWALLOW="$T/swallow" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 30 || fail "A: subnet not up"
sm_wait_sminfo 20 "$A_GUID 15 MASTER" || fail "A is not master"
mkdir -p "$T/b/run" "$T/b/state"
printf 'socket: %s\nstate_dir: %s\nlog_level: debug\nsm:\n  enabled: true\n  priority: 5\n  standby_poll: 1s\n' \
    "$T/b/run/fabricd.sock" "$T/b/state" > "$T/b/fabricd.yaml"
(cd "$T/b" && exec env SIM_HOST=host2 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    MADLOG_FILE="$T/b-mads.log" MADLOG_TIME=1 IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    "$FABRICD" -c "$T/b/fabricd.yaml" >> "$T/b/fabricd.log" 2>&1) &
B_PID=$!
fd_second "$B_PID" "$T/b/fabricd.log"
a_lid=$(sm_lid_of host1)
b_lid=$(sm_lid_of host2)
sm_wait_sminfo 20 "$B_GUID 5 STANDBY" "$b_lid" || fail "B is not standby: '$(sm_sminfo_at "$b_lid")'"

# ---- A stalls with a Set to retry ----
sm_stop_mid_set "$T/a-mads.log" "$T/swallow" sw-l4:30
sm_wait_sminfo 30 "$B_GUID 5 MASTER" "$b_lid" || fail "B did not take over: '$(sm_sminfo_at "$b_lid")'"
sim_console 'Unlink "sw-l2"[5]' || fail unlink

# ---- A wakes ----
a_lines=$(wc -l < "$T/a-mads.log")
kill -CONT "$FD_PID"
one=
for _ in $(seq 1 300); do	# (30 s only ends the wait)
	a=$(sm_sminfo_at "$a_lid") b=$(sm_sminfo_at "$b_lid")
	case "$a/$b" in
	*MASTER/*STANDBY|*STANDBY/*MASTER) one="A '$a', B '$b'"; break ;;
	esac
	sleep 0.1
done
[ -n "$one" ] || fail "not one master after A woke: A '$a', B '$b'"
wait "$MID_SET_PID" && fail "A's port disable succeeded after A woke"
grep -q "stood still for" "$T/fabricd.log" || fail "A's log does not say it stood still"
# B's HANDOVER to A (if any): A may write from then on, not before
t_ho=$(awk '$2 == "0x02" && $3 == "0x0020" && $4 == "0x00000001" {
    sub(/^t=/, "", $NF); print $NF; exit }' "$T/b-mads.log")
n=$(awk -v n="$a_lines" -v ho="${t_ho:-}" 'NR > n && $2 == "0x02" && ($1 == "0x81" || $1 == "0x01") {
    t = $NF; sub(/^t=/, "", t); if (ho == "" || t + 0 < ho + 0) c++ } END { print c + 0 }' "$T/a-mads.log")
[ "$n" = 0 ] || fail "A sent $n SubnSets after it woke, before any handover (at ${t_ho:-none}):
$(awk -v n="$a_lines" 'NR > n && $2 == "0x02"' "$T/a-mads.log" | head -5)"
echo "A woke: no SubnSet before the handover (B's HANDOVER at t=${t_ho:-none}); $one"

# ---- the fabric is right ----
ok=
for _ in $(seq 1 60); do	# the master's sweep routes around the cable
	walk && { ok=1; break; }
	sleep 1
done
[ -n "$ok" ] || fail "a CA pair is not routed: $(head -5 "$T/walk.txt")"
echo "every pair routed: $(tail -1 "$T/walk.txt")"
a=$(sm_sminfo_at "$a_lid") b=$(sm_sminfo_at "$b_lid")
case "$a/$b" in
*MASTER/*STANDBY|*STANDBY/*MASTER) ;;
*) fail "not one master at the end: A '$a', B '$b'" ;;
esac
pass
