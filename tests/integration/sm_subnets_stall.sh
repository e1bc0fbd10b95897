#!/bin/sh
# run.sh: long (standby polls and sweeps on the defaults: about two minutes)
# One master, whatever happens, on every subnet of a daemon (issue 43 with
# issue 38's stall): two planes of the 16-host tree, each its own ibsim;
# fabricd A (host1, priority 15) and B (host2, priority 5) each serve both
# (sm.subnets through the multisim double), no etcd, every other setting
# on its default (sweeps and standby polls every 10 s).  A is stopped (SIGSTOP) with a Set to retry (madlog, above the
# double, swallows plane 1's PortInfo Set of a port disable while
# $T/swallow exists), B takes over each plane, a cable is unlinked on
# each, A resumed (SIGCONT).  Judged from outside fabricd,
# with each daemon's MADs logged below its umad calls, per device, on one
# clock (MULTISIM_LOG), and infiniband-diags on each plane's simulator:
#   1. B is master of both planes while A is stopped (sminfo on each);
#   2. A sends no SubnSet through a plane's device from its wake until B
#      hands that plane over (B's SMInfo Set HANDOVER through that plane's
#      device: A is the higher, IBA's rule), or at all if B keeps it;
#   3. then each plane has exactly one master (sminfo at A's and B's
#      ports), and every CA pair of each plane is routed through the
#      tables its switches hold (dump_fts), around its cable;
#   4. plane 1's master then dies (SIGKILL): the other daemon is master
#      of both planes, and routes each around one more cable.
# The stopped A must not stall a simulator either: the double's sockets
# queue what ibsim sends A as umad2sim's do.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup smpquery sminfo ibnetdiscover dump_fts jq
sm_two_planes

walk() { lft_dump && lft_check_all_pairs > "$SIM_DIR/walk.txt" 2>&1; }
# takes_both WHO GUID PRIORITY LID: WHO is master of both planes
takes_both() {
	for n in 1 2; do
		plane_sim $n sm_wait_sminfo 90 "$2 $3 MASTER" "$4" ||
		    fail "plane $n: $1 did not take over: '$(plane_sim $n sm_sminfo_at "$4")'"
	done
}
# unlink_each PORT1 PORT2: a cable out on each plane ("sw-l2"[5])
unlink_each() {
	sim_console "Unlink $1" || fail "unlink on plane 1"
	sim_second_console "Unlink $2" || fail "unlink on plane 2"
}
one_master() {
	_a=$(plane_sim "$1" sm_sminfo_at "$a_lid") _b=$(plane_sim "$1" sm_sminfo_at "$b_lid")
	case "$_a/$_b" in
	*MASTER/*STANDBY|*STANDBY/*MASTER) echo "A '$_a', B '$_b'" ;;
	*) echo "A '$_a', B '$_b'"; return 1 ;;
	esac
}

A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
fd_config "sm:
  enabled: true
  priority: 15
$SM_TWO_SUBNETS"
fd_start LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $MS" \
    MULTISIM_DEVICES="ibp0=$SOCK_1:host1,ibp1=$SOCK_2:host1" MULTISIM_LOG="$T/a.log" \
    MADLOG_FILE="$T/a-mads.log" MADLOG_SWALLOW="$T/swallow"
sm_wait_subnets_up 30 plane1 plane2
planes_daemon "$T/b" host2 "  enabled: true
  priority: 5"
B_PID=$PLANES_PID
fd_second "$B_PID" "$T/b/fabricd.log"
a_lid=$(sm_lid_of host1)
b_lid=$(sm_lid_of host2)
for n in 1 2; do
	plane_sim $n sm_wait_sminfo 20 "$A_GUID 15 MASTER" "$a_lid" ||
	    fail "plane $n: A is not master: '$(plane_sim $n sm_sminfo_at "$a_lid")'"
	plane_sim $n sm_wait_sminfo 60 "$B_GUID 5 STANDBY" "$b_lid" ||
	    fail "plane $n: B is not standby: '$(plane_sim $n sm_sminfo_at "$b_lid")'"
done
echo "A master and B standby on both planes"

# ---- A stalls with a Set to retry; B takes each plane; a cable goes on each ----
sm_stop_mid_set "$T/a-mads.log" "$T/swallow" sw-l4:4
fd_on_exit "kill -CONT $FD_PID 2>/dev/null"
takes_both B "$B_GUID" 5 "$b_lid"
unlink_each '"sw-l2"[5]' '"sw-l3"[6]'
echo "A stopped: B master of both planes; sw-l2[5] out on plane 1, sw-l3[6] on plane 2"

# ---- A wakes ----
a_lines=$(wc -l < "$T/a.log")
kill -CONT "$FD_PID"
for n in 1 2; do
	i=0
	until got=$(one_master $n); do	# (90 s only ends the wait)
		[ $i -ge 900 ] && fail "plane $n: not one master 90 s after A woke: $got"
		i=$((i + 1))
		sleep 0.1
	done
	echo "plane $n after A woke: $got"
done
for n in 1 2; do
	dev=ibp$((n - 1))
	# B's HANDOVER to A on this plane (if any): A may write there from then on
	t_ho=$(awk -v d="dev=$dev" '$1 == "send" && $2 == d && $4 == "method=0x02" &&
	    $5 == "attr=0x0020" && $6 == "mod=0x00000001" { sub(/^t=/, "", $7); print $7; exit }' "$T/b/ms.log")
	sets=$(awk -v n="$a_lines" -v d="dev=$dev" -v ho="${t_ho:-}" 'NR > n && $1 == "send" &&
	    $2 == d && ($3 == "class=0x81" || $3 == "class=0x01") && $4 == "method=0x02" {
	    t = $7; sub(/^t=/, "", t); if (ho == "" || t + 0 < ho + 0) c++ } END { print c + 0 }' "$T/a.log")
	[ "$sets" = 0 ] || fail "plane $n: A sent $sets SubnSets through $dev after it woke, before any handover (at ${t_ho:-none}):
$(awk -v n="$a_lines" -v d="dev=$dev" 'NR > n && $2 == d && $4 == "method=0x02"' "$T/a.log" | head -5)"
	echo "plane $n: A sent no SubnSet through $dev before the handover (B's HANDOVER at t=${t_ho:-none})"
done
wait "$MID_SET_PID" && fail "A's port disable succeeded after A woke"
[ "$(grep -c "stood still for" "$T/fabricd.log")" -ge 2 ] ||
    fail "A's log does not say each plane's SM stood still: $(grep "stood still" "$T/fabricd.log")"

# walked: every CA pair of each plane routed through its switches' tables
walked() {
	for n in 1 2; do
		ok=
		for _ in $(seq 1 60); do	# the master's sweep routes around the cable
			plane_sim $n walk && { ok=1; break; }
			sleep 1
		done
		dir=$SIM_DIR
		[ "$n" = 2 ] && dir=$SIM2_DIR
		[ -n "$ok" ] || fail "plane $n: a CA pair is not routed: $(head -5 "$dir/walk.txt")"
		echo "plane $n: every pair routed: $(tail -1 "$dir/walk.txt")"
	done
}

# ---- each plane's tables are right ----
walked
for n in 1 2; do
	got=$(one_master $n) || fail "plane $n: not one master at the end: $got"
done

# ---- plane 1's master dies (SIGKILL): the other daemon takes both planes ----
case "$(plane_sim 1 sm_sminfo_at "$a_lid")" in
*MASTER) kill -KILL "$FD_PID"; fd_killed; who=B guid=$B_GUID pri=5 lid=$b_lid ;;
*) kill -KILL "$B_PID"; wait "$B_PID" 2>/dev/null; fd_second; who=A guid=$A_GUID pri=15 lid=$a_lid ;;
esac
takes_both "$who" "$guid" "$pri" "$lid"
unlink_each '"sw-l1"[6]' '"sw-l4"[5]'
echo "the other master killed: $who master of both planes; sw-l1[6] out on plane 1, sw-l4[5] on plane 2"
walked
pass
