#!/bin/sh
# InformInfo: a raw client (tools/inform_sub) subscribes host3 to traps 64
# and 65; saquery -I lists the subscriptions; when host5's link is
# Unlinked and ReLinked in ibsim, the SA sends host3 a Report of trap 65,
# then 64, for host5's GID, and forwards the switch's trap 128 to host4,
# subscribed to it; subscribed to 66/67 too, host3 is told of a
# group host2 creates and then deletes (its MGID); unsubscribing removes
# the entry.
#
# Under ibsim a Report (a request on QP1) reaches only a client that is
# IsSM, so the subscriber cannot receive it there; the Reports are read
# below fabricd's umad_send with the LD_PRELOAD double
# (tests/fixtures/mad/sendspy.c): destination LID, trap and GID.  Which
# LID and GUID host3 and host5 have comes from ibnetdiscover and the net
# file.  (saquery -I shows at most two InformInfoRecords under ibsim: 224
# bytes of a MAD, 64 bytes a record.)
. "$FABRICD_SRC/tests/lib/sm.sh"
SPY=$FABRICD_BUILD/tests/libumad_sendspy.so
[ -r "$SPY" ] || fail "no $SPY (make all builds it)"
sim_test_setup saquery
SUB=$FABRICD_BUILD/tools/inform_sub
sim_topology -k 2 -h 3 -s 1 || fail "topogen"
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
  sweep_interval: 1s"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD $SPY" SENDSPY_LOG="$T/spy.log" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 30 || fail "subnet not up"

for t in 64 65; do
	out=$(sim_run -H host3 -t 15 "$SUB" -t $t 2>&1) || fail "subscribe $t: $out"
done
out=$(sim_run -H host4 -t 15 "$SUB" -t 128 2>&1) || fail "subscribe 128: $out"
g3=$(sim_port_guid host3) g5=$(sim_port_guid host5)
# the port GID of a host as saquery prints it, from the net file's GUID
gid() { g=$(sim_port_guid "$1" | sed 's/^0x//'); printf 'fe80::%x:%x:%x:%x\n' \
    $((0x$(echo "$g" | cut -c1-4))) $((0x$(echo "$g" | cut -c5-8))) \
    $((0x$(echo "$g" | cut -c9-12))) $((0x$(echo "$g" | cut -c13-16))); }
subs_of() {	# HOST: the traps saquery -I lists for HOST's GID, sorted
	sim_diag -H host4 -t 10 saquery -I | awk -v g="$(gid "$1")" '
	    /SubscriberGID/ { split($0, a, "\\.\\.+"); mine = (a[2] == g) }
	    /trap_num/ && mine { split($0, a, "\\.\\.+"); print a[2] }' | sort -n | tr '\n' ' '
}
[ "$(subs_of host3)" = "64 65 " ] || fail "saquery -I lists host3's traps as '$(subs_of host3)'"
l3=$(sm_lid_of host3)

wait_report() {	# TRAP: a Report of TRAP for host5 went to host3's LID
	i=0
	until grep -q "method=0x06 attr=0x0002 .* dlid=$l3 trap=$1 gid_guid=$g5\$" "$T/spy.log"; do
		[ $i -ge 100 ] && fail "no Report of trap $1 for host5 to LID $l3: $(grep 'method=0x06' "$T/spy.log" | tail -3)"
		i=$((i + 1))
		sleep 0.2
	done
}
sim_console 'Unlink "host5"[1]' || fail "Unlink"
wait_report 65
# the switch's trap 128 for that link, forwarded to host4 as it came
l4=$(sm_lid_of host4)
i=0
until grep -q "method=0x06 attr=0x0002 .* dlid=$l4 trap=128 " "$T/spy.log"; do
	[ $i -ge 50 ] && fail "trap 128 not forwarded to host4 (LID $l4)"
	i=$((i + 1)); sleep 0.2
done
grep -q "trap=64 gid_guid=$g5\$" "$T/spy.log" && fail "trap 64 for host5 before it came back"
sim_console 'ReLink "host5"[1]' || fail "ReLink"
wait_report 64

out=$(sim_run -H host3 -t 15 "$SUB" -t 64 -u) || fail "unsubscribe: $out"
out=$(sim_run -H host3 -t 15 "$SUB" -t 64 -u)
[ $? -eq 3 ] || fail "a second unsubscribe was not refused: $out"
[ "$(subs_of host3)" = "65 " ] || fail "after unsubscribing 64, saquery -I lists '$(subs_of host3)'"

# traps 66/67: a group created and deleted (the Report carries its MGID)
for t in 66 67; do
	out=$(sim_run -H host3 -t 15 "$SUB" -t $t 2>&1) || fail "subscribe $t: $out"
done
JOIN=$FABRICD_BUILD/tools/mcast_join
sim_run -H host2 -t 15 "$JOIN" -c -m ff12:601b:ffff::5 > /dev/null || fail "host2 creating a group"
i=0
until grep -q "method=0x06 attr=0x0002 .* dlid=$l3 trap=66 gid_guid=0x0000000000000005\$" "$T/spy.log"; do
	[ $i -ge 50 ] && fail "no Report of trap 66 for ff12:601b:ffff::5"
	i=$((i + 1)); sleep 0.2
done
sim_run -H host2 -t 15 "$JOIN" -l -m ff12:601b:ffff::5 > /dev/null || fail "host2 leaving the group"
i=0
until grep -q "method=0x06 attr=0x0002 .* dlid=$l3 trap=67 gid_guid=0x0000000000000005\$" "$T/spy.log"; do
	[ $i -ge 50 ] && fail "no Report of trap 67 for ff12:601b:ffff::5"
	i=$((i + 1)); sleep 0.2
done
exit 0
