#!/bin/sh
# run.sh: long (12 kills and takeovers: about a minute)
# The master killed in the middle of partition changes, with ha: fabricd A
# (host1, priority 15) and B (host2, priority 5), one 3-member etcd cluster
# (loopback).  Each of HA_KILLS (12; 6 under the sanitizers) rounds makes a
# new partition on A and adds two hosts to it; A is killed (SIGKILL) at a
# point of that member add: the 600 ms from before the commit to after the
# last Set are cut in as many slices as rounds, and round R kills at a
# random point of slice R, so that every part of the change is hit on
# every run (20 rounds at random points did not promise that).  B takes over; the P_Key tables of every host port, read with
# smpquery, must then equal the membership before the killed command or
# after it, for all hosts alike (never older, never a mix), as this test's
# own record of acknowledged commands has it: an acknowledged add must be
# there.  The killed SM is restarted as a standby (with ha the lease, not
# the priority, keeps a master: no handover back), and the next round
# kills the new master, so A and B take turns.
#
# A change must last for a kill to land inside it: the madlog double below
# both SMs' umad calls (tests/fixtures/mad/madlog.c) delays each
# SubnSet(P_KeyTable) by 100 ms, as a slow fabric would.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/etcd.sh"
sim_test_setup smpquery sminfo jq
# The sanitizer build takes 6 rounds: its point is memory errors on each
# path (a kill before, inside and after a change, each SM master in turn),
# which 100 ms slices cover; the finer spread is the plain build's (issue
# 39: make check's time).
ROUNDS=${HA_KILLS:-12}
ldd "$FABRICD" 2>/dev/null | grep -q libasan && ROUNDS=${HA_KILLS:-6}
WINDOW_MS=600
HOSTS="host3 host4 host5 host6 host7 host8"

# keys HOST: the 15-bit keys HOST's port holds besides the default, sorted.
keys() {
	sim_diag -H "$1" -t 10 smpquery -D pkeys 0 | awk '/^ *[0-9]+:/ {
	    for (i = 2; i <= NF; i++) if ($i != "0x0000") {
	        k = tolower($i); sub(/^0x/, "", k); n = 0
	        for (j = 1; j <= length(k); j++) n = n * 16 + index("0123456789abcdef", substr(k, j, 1)) - 1
	        n = n % 32768; if (n != 32767) printf "0x%04x\n", n } }' | sort | tr '\n' ' '
}
state() { for h in $HOSTS; do echo "$h $(keys "$h")"; done; }
# expect FILE: the state the record (lines "HOST KEY") gives, as state() prints it
expect() {
	for h in $HOSTS; do
		echo "$h $(awk -v h="$h" '$1 == h { print $2 }' "$1" | sort | tr '\n' ' ')"
	done
}
start_a() {
	fd_config "sm:
  enabled: true
  priority: 15
  sweep_interval: 1s
  standby_poll: 1s
$(ha_yaml)"
	fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
	    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_PKEY_SET_DELAY_MS=100
}
# idle CTL...: until its partitions are not busy (a sweep programming), 10 s
idle() {
	for _ in $(seq 1 100); do
		[ "$("$@" --json status 2>/dev/null | jq -r '.partitions.busy')" = false ] && return 0
		sleep 0.1
	done
	return 1
}

etcd_cluster_start 3
sim_topology -k 2 -h 4 -s 1 || fail topogen
sim_start || fail ibsim
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
B_PRELOAD=$FABRICD_BUILD/tests/libmadlog.so
B_ENV=MADLOG_PKEY_SET_DELAY_MS=100
start_a
sm_wait_up 30 || fail "A: subnet not up"
sm_wait_sminfo 10 "$A_GUID 15 MASTER" || fail "A is not master"
ha_start_b host2 5 "$(ha_yaml)"
b_lid=$(sm_lid_of host2)
a_lid=$(sm_lid_of host1)
sm_wait_sminfo 20 "$B_GUID 5 STANDBY" "$b_lid" || fail "B is not standby"
ha_writable ctl || fail "A never became writable"

# The master of the round (M) and its standby (S): a or b.
mctl() { if [ "$M" = a ]; then ctl "$@"; else bctl "$@"; fi; }
sctl() { if [ "$M" = a ]; then bctl "$@"; else ctl "$@"; fi; }
kill_master() {
	if [ "$M" = a ]; then
		kill -9 "$FD_PID"; wait "$FD_PID" 2>/dev/null; FD_PID=
	else
		kill -9 "$B_PID"; wait "$B_PID" 2>/dev/null; fd_second
	fi
}
# the standby's sminfo as MASTER, and the killed one back as STANDBY
standby_is() {
	if [ "$M" = a ]; then
		sm_wait_sminfo "$2" "$B_GUID 5 $1" "$b_lid"
	else
		sm_wait_sminfo "$2" "$A_GUID 15 $1" "$a_lid"
	fi
}
restart_master() { if [ "$M" = a ]; then start_a; else ha_start_b host2 5 "$(ha_yaml)"; fi; }
master_is() {
	if [ "$M" = a ]; then
		sm_wait_sminfo "$2" "$A_GUID 15 $1" "$a_lid"
	else
		sm_wait_sminfo "$2" "$B_GUID 5 $1" "$b_lid"
	fi
}

: > "$T/record"
acked=0 mid=0 after=0
M=a
for round in $(seq 1 "$ROUNDS"); do
	key=$(printf '0x%04x' $((0x0c00 + round)))
	n=$(( 3 + (round % 3) * 2 ))
	h1=host$n
	h2=host$((n + 1))
	idle mctl || fail "round $round: $M stays busy"
	mctl partition create "p$round" --pkey "$key" >/dev/null || fail "round $round: create p$round on $M"
	idle mctl || fail "round $round: $M stays busy"
	expect "$T/record" > "$T/before"
	printf '%s %s\n%s %s\n' "$h1" "$key" "$h2" "$key" >> "$T/record.next"
	cat "$T/record" "$T/record.next" > "$T/record.after"
	rm -f "$T/record.next"
	expect "$T/record.after" > "$T/after"
	( mctl partition member add "p$round" "host[$n$((n + 1))]" >/dev/null 2>&1 && touch "$T/acked" ) &
	cmd=$!
	# a random point of this round's slice of the change
	slice=$((WINDOW_MS / ROUNDS))
	at=$(( (round - 1) * slice + $(od -An -N2 -tu2 /dev/urandom) % slice ))
	sleep "$((at / 1000)).$(printf '%03d' $((at % 1000)))"
	kill_master
	wait "$cmd" 2>/dev/null
	standby_is MASTER 15 || fail "round $round: the standby of $M did not take over"
	ha_writable sctl || fail "round $round: the new master never became writable
$(tail -20 "$T/b/fabricd.log")"
	# a sweep of the new master's, begun after its intent was read,
	# programs what the intent says (sweep answers when it is done)
	sctl sweep > /dev/null || fail "round $round: the new master refused a sweep"
	idle sctl || fail "round $round: the new master stays busy"
	state > "$T/now"
	if [ -f "$T/acked" ]; then
		rm -f "$T/acked"
		acked=$((acked + 1))
		cmp -s "$T/now" "$T/after" || fail "round $round: an acknowledged add is not on the fabric:
$(diff "$T/after" "$T/now")"
	elif cmp -s "$T/now" "$T/after"; then
		mid=$((mid + 1))	# committed to etcd, not yet acknowledged: the new master finished it
	else
		cmp -s "$T/now" "$T/before" || fail "round $round: neither before nor after the killed add:
before: $(cat "$T/before")
after: $(cat "$T/after")
now: $(cat "$T/now")"
	fi
	cmp -s "$T/now" "$T/after" && { cp "$T/record.after" "$T/record"; after=$((after + 1)); }
	# the new master's intent matches the fabric: partition show lists what is there
	if cmp -s "$T/now" "$T/after"; then
		sctl --json partition show "p$round" | grep -qF "host[$n$((n + 1))]" ||
		    fail "round $round: the new master's p$round lacks the member: $(sctl --json partition show "p$round")"
	fi
	# the killed SM comes back as a standby: the lease keeps the new master
	restart_master
	master_is STANDBY 20 || fail "round $round: $M restarted is not standby"
	if [ "$M" = a ]; then M=b; else M=a; fi
done
echo "$ROUNDS kills: $acked acknowledged before the kill, $mid finished by the new master, $((ROUNDS - after)) rolled back (before)"
[ $((ROUNDS - acked)) -gt 0 ] || fail "every kill came after the acknowledgement: no kill landed mid-change"
pass
