#!/bin/sh
# Whole SA tables for kernel RMPP, on a 1,296-host fat tree (180 switches):
# a NodeRecord GetTable leaves fabricd as ONE buffer of every record (1,476:
# each switch and each host port) with the RMPP header the kernel's RMPP
# layer segments (version 1, type DATA, RMPPFlags Active alone), and the
# SA agent is registered with rmpp_version 1.
#
# ibsim cannot show this: umad2sim does no RMPP, cuts every send to 256
# bytes and has no registration flags (IB_USER_MAD_REGISTER_AGENT2), by
# which fabricd tells it from a kernel and frames one segment itself.  So
# the answer is read below fabricd's umad_send() with an LD_PRELOAD double
# (tests/fixtures/mad/sendspy.c) that also stands in for the kernel's
# registration flags (SENDSPY_AGENT2).  The records it carries are
# compared with ibnetdiscover's ports; saquery itself (under ibsim) gets
# the first 224 bytes.
. "$FABRICD_SRC/tests/lib/sm.sh"
SPY=$FABRICD_BUILD/tests/libumad_sendspy.so
[ -r "$SPY" ] || fail "no $SPY (make all builds it)"
sim_test_setup saquery
sim_topology -p 4 || fail "topogen"
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
  sweep_interval: 60s"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD $SPY" SENDSPY_LOG="$T/spy.log" \
    SENDSPY_DUMP="$T/answer.bin" SENDSPY_AGENT2=1 IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 240 || fail "subnet not up"

grep -q '^register2 class=0x03 version=2 rmpp=1 flags=0x0 mask=0x[0-9a-f]* rc=0$' "$T/spy.log" ||
    fail "SA agent not registered with rmpp_version 1: $(grep 'class=0x03' "$T/spy.log" | head -3)"

sim_diag -H host2 -t 60 ibnetdiscover -p > "$T/ports.txt" || fail "ibnetdiscover"
# every LID-carrying port's GUID: switches' (once each) and host ports'
awk '$1 == "SW" { print $4 } $1 == "CA" { print $4 }' "$T/ports.txt" | sort -u > "$T/want.txt"
n=$(wc -l < "$T/want.txt")
[ "$n" -eq 1476 ] || fail "ibnetdiscover shows $n LID-carrying ports, not 1476"

sim_diag -H host2 -t 60 saquery > /dev/null 2>&1	# NodeRecord GetTable
i=0
until grep -q 'class=0x03 method=0x92 attr=0x0011' "$T/spy.log"; do
	[ $i -ge 100 ] && fail "no NodeRecord GetTableResp sent"
	i=$((i + 1))
	sleep 0.1
done
sends=$(grep 'class=0x03 method=0x92 attr=0x0011' "$T/spy.log")
[ "$(echo "$sends" | wc -l)" -eq 1 ] || fail "the answer left in several sends: $sends"
want_len=$((56 + 1476 * 112))
echo "$sends" | grep -q " len=$want_len rmpp_version=1 rmpp_type=1 rmpp_flags=0x01 seg=0 paylen=0 attr_offset=14\$" ||
    fail "answer not one kernel-RMPP buffer of 1476 NodeRecords ($want_len bytes): $sends"
# the records are the fabric's ports: PortGUID at offset 24 of each 112-byte record
[ "$(wc -c < "$T/answer.bin")" -eq "$want_len" ] || fail "dumped answer is $(wc -c < "$T/answer.bin") bytes"
od -An -v -tx1 -j 56 -w112 "$T/answer.bin" | awk '{ g = "0x"; for (i = 25; i <= 32; i++) g = g $i; print g }' |
    sort -u > "$T/got.txt"
cmp -s "$T/want.txt" "$T/got.txt" || fail "records differ from ibnetdiscover's ports: $(diff "$T/want.txt" "$T/got.txt" | head -5)"
exit 0
