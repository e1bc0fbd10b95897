#!/bin/sh
# ClientReregister: after fabricd's first start, after a restart and after
# a standby takeover every CA port is sent PortInfo with ClientReregister
# set, and the multicast state rebuilds from the hosts' joins.
#
# ibsim ignores ClientReregister (it is not stored: `smpquery portinfo`
# under ibsim always reads 0, sim_mad.c's PortInfo Set), so the Sets are
# read below fabricd's libibumad with an LD_PRELOAD double
# (tests/fixtures/mad/sendspy.c): one line per PortInfo Set with the LID
# it carries and the bit.  Which LIDs are CA ports comes from
# ibnetdiscover; groups and trees from saquery and ibroute -M.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/mcastwalk.sh"
SPY=$FABRICD_BUILD/tests/libumad_sendspy.so
[ -r "$SPY" ] || fail "no $SPY (make all builds it)"
sim_test_setup saquery
JOIN=$FABRICD_BUILD/tools/mcast_join
sim_topology -k 2 -h 3 -s 1 || fail "topogen"
sim_start || fail "ibsim"

start_a() {
	fd_config "sm:
  enabled: true
  priority: 5
  sweep_interval: 1s
  standby_poll: 1s"
	fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD $SPY" SENDSPY_LOG="$T/spy-a.log" \
	    IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
	sm_wait_up 30 || fail "A: subnet not up"
}
ca_lids() { sim_diag -t 20 ibnetdiscover -p | awk '$1 == "CA" { print $2 }' | sort -un; }
# every_ca_reregistered LOG: each CA port's LID had a PortInfo Set with the bit
every_ca_reregistered() {
	n=0
	for l in $(ca_lids); do
		n=$((n + 1))
		grep -q "attr=0x0015 .* pi_lid=$l rereg=1\$" "$1" ||
		    { echo "CA LID $l got no ClientReregister in $1"; return 1; }
	done
	[ $n -ge 6 ] || { echo "only $n CA LIDs"; return 1; }
}
join_all() {
	for h in host2 host3 host4 host5 host6; do
		sim_run -H $h -t 15 "$JOIN" > "$T/join.txt" 2>&1 || fail "$h join: $(cat "$T/join.txt")"
	done
	sed -n 's/.* mlid \(0x[0-9a-f]*\) .*/\1/p' "$T/join.txt"
}
tree_of_all() {
	lids=""
	for h in host2 host3 host4 host5 host6; do lids="$lids $(sm_lid_of $h)"; done
	i=0
	until mc_dump && why=$(mc_check_tree "$1" $lids); do
		[ $i -ge 30 ] && fail "$2: tree of $1: $why"
		i=$((i + 1))
		sleep 0.5
	done
}
listed() { sim_diag -H host4 -t 10 saquery MCMR --mlid "$1" | grep -c 'PortGid'; }

# ---- 1. first start ----
start_a
why=$(every_ca_reregistered "$T/spy-a.log") || fail "first start: $why"
capture "$T/mlids" join_all
M1=$(cat "$T/mlids")
[ -n "$M1" ] || fail "no MLID from the joins"
tree_of_all "$M1" "first start"

# ---- 2. restart: reregistered again; groups come back from the rejoins ----
fd_stop
: > "$T/spy-a.log"
start_a
why=$(every_ca_reregistered "$T/spy-a.log") || fail "restart: $why"
[ "$(grep -c 'rereg=1$' "$T/spy-a.log")" -ge 6 ] || fail "restart: too few ClientReregister Sets"
capture "$T/mlids" join_all
M2=$(cat "$T/mlids")
[ "$M2" = "$M1" ] || fail "after the restart the group came back as $M2, was $M1"
[ "$(listed "$M2")" -ge 3 ] || fail "saquery lists too few members after the rejoin"
tree_of_all "$M2" "restart"

# ---- 3. standby takeover: B takes over when A dies, and reregisters ----
mkdir -p "$T/b/run" "$T/b/state"
cat > "$T/b/fabricd.yaml" <<EOC
socket: $T/b/run/fabricd.sock
state_dir: $T/b/state
log_level: debug
sm:
  enabled: true
  priority: 3
  sweep_interval: 1s
  standby_poll: 1s
  standby_misses: 2
EOC
(cd "$T/b" && exec env SIM_HOST=host2 LD_PRELOAD="$SIM_PRELOAD $SPY" SENDSPY_LOG="$T/spy-b.log" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" "$FABRICD" -c "$T/b/fabricd.yaml" >> "$T/b/fabricd.log" 2>&1) &
B_PID=$!
fd_second "$B_PID" "$T/b/fabricd.log"
b_lid=$(sm_lid_of host2)
sm_wait_sminfo 20 "$(sm_guid_of host2) 3 STANDBY" "$b_lid" || fail "B not standby: '$(sm_sminfo_at "$b_lid")'"
grep -q 'rereg=1$' "$T/spy-b.log" 2>/dev/null && fail "B reregistered hosts while standby"
kill -9 "$FD_PID"
fd_killed
sm_wait_sminfo 30 "$(sm_guid_of host2) 3 MASTER" || fail "B did not take over: '$(sm_sminfo_at)'"
i=0
until why=$(every_ca_reregistered "$T/spy-b.log"); do
	[ $i -ge 50 ] && fail "takeover: $why"
	i=$((i + 1))
	sleep 0.2
done
capture "$T/mlids" join_all
M3=$(cat "$T/mlids")
[ -n "$M3" ] || fail "no MLID after the takeover"
tree_of_all "$M3" "takeover"
exit 0
