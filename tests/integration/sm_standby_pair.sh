#!/bin/sh
# Two fabricd SMs on one simulated subnet, checked with infiniband-diags
# only (sminfo, smpquery, ibnetdiscover, dump_fts):
#   1. A (priority 5) is master; B (priority 3) starts and goes STANDBY;
#   2. B's priority is raised to 10 (reload): A's next light sweep sees a
#      higher standby and hands over; B becomes MASTER, every port's
#      MasterSMLID names B, every CA pair routes, A is STANDBY;
#   3. B is killed (SIGKILL): A takes over after its missed polls.
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_available || skip "ibsim or umad2sim not installed"
command -v sminfo >/dev/null || skip "infiniband-diags not installed"
fd_setup
B_PID=
fd_on_exit 'sim_stop; [ -n "$B_PID" ] && kill -9 "$B_PID" 2>/dev/null'

sminfo_at() {
	sim_diag -H host4 -t 10 sminfo ${1:+"$1"} |
	    sed -n 's/.*sm guid 0x0*\([0-9a-f]*\),.* priority \([0-9]*\) state [0-9]* SMINFO_\([A-Z]*\).*/\1 \2 \3/p'
}

wait_sminfo() {
	i=0
	while [ "$(sminfo_at "$3")" != "$2" ]; do
		[ $i -ge $(($1 * 5)) ] && return 1
		i=$((i + 1))
		sleep 0.2
	done
}

# every switch's and CA port's MasterSMLID is $1 (smpquery portinfo)
all_smlids_are() {
	sim_diag -t 30 ibnetdiscover | awk '
	/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") print $(i + 1), 0; next }
	/^(Ca|Hca)/ { ca = 1; next }
	/^$/ { ca = 0 }
	ca && /^\[[0-9]+\]\(/ { p = substr($1, 2, index($1, "]") - 2)
		for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1), p; break } }' |
	while read -r lid port; do
		printf '%s %s\n' "$lid" "$(sim_diag smpquery portinfo "$lid" "$port" |
		    sed -n 's/^SMLid:\.*\([0-9]*\)/\1/p')"
	done > "$T/smlids.txt"
	[ "$(wc -l < "$T/smlids.txt")" -ge 14 ] || { cat "$T/smlids.txt"; return 1; }
	awk -v want="$1" '$2 != want { print "port LID " $1 ": MasterSMLID " $2 ", want " want; bad = 1 }
	    END { exit bad }' "$T/smlids.txt"
}

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

guid_of() { sim_port_guid "$1" | sed 's/^0x0*//'; }

sim_topology -k 4 -h 2 -s 2 || fail topogen
sim_start || fail "ibsim"
A_GUID=$(guid_of host1)
B_GUID=$(guid_of host2)

# ---- 1. A master, B standby ----
SM_SWEEP=1s sm_start_fabricd host1 "  priority: 5
  standby_poll: 1s"
sm_wait_up 20 || fail "A: subnet not up"
wait_sminfo 10 "$A_GUID 5 MASTER" || fail "A is not master: '$(sminfo_at)'"
mkdir -p "$T/b/run" "$T/b/state"
b_config 3
(cd "$T/b" && exec env SIM_HOST=host2 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    "$FABRICD" -c "$T/b/fabricd.yaml" >> "$T/b/fabricd.log" 2>&1) &
B_PID=$!
b_lid=$(sm_lid_of host2)
wait_sminfo 15 "$B_GUID 3 STANDBY" "$b_lid" || fail "B: '$(sminfo_at "$b_lid")', want STANDBY"
[ "$(sminfo_at)" = "$A_GUID 5 MASTER" ] || fail "the SM LID is not A's any more: $(sminfo_at)"

# ---- 2. B raised above A: A hands over ----
b_config 10
kill -HUP "$B_PID"
wait_sminfo 20 "$B_GUID 10 MASTER" || fail "no handover to B: sminfo at the SM LID says '$(sminfo_at)'
$(tail -20 "$T/b/fabricd.log")"
a_lid=$(sm_lid_of host1)
wait_sminfo 10 "$A_GUID 5 STANDBY" "$a_lid" || fail "A after its handover: '$(sminfo_at "$a_lid")'"
all_smlids_are "$(sm_lid_of host2)" || fail "after the handover MasterSMLID is not B's"
lft_dump || fail "dump after the handover"
lft_check_all_pairs || fail "CA pairs do not route after the handover"

# ---- 3. B dies: A takes over ----
kill -9 "$B_PID"
wait "$B_PID" 2>/dev/null
B_PID=
wait_sminfo 30 "$A_GUID 5 MASTER" || fail "A did not take over: '$(sminfo_at)'"
all_smlids_are "$(sm_lid_of host1)" || fail "after the takeover MasterSMLID is not A's"
[ "$(db "SELECT count(*) FROM events WHERE source = 'sm' AND message LIKE 'SM state %'")" -ge 3 ] ||
    fail "A's state changes are not all stored"
pass
