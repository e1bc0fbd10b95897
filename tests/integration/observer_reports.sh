#!/bin/sh
# run.sh: long (OpenSM's bring-up and its Reports: about 40 s)
# An observer's Reports (issue 27), on the defaults (refresh 4h): OpenSM
# 3.3.23 is master on an ibsim fat tree, fabricd observes from the host
# (other than OpenSM's) with the lowest LID.
#  - after its first view it subscribes to traps 64, 65 and 128 with three
#    SubnAdmSet(InformInfo) (logged below umad_send by madlog), and OpenSM
#    takes them: saquery -I lists the observer's LID;
#  - a cable of OpenSM's leaf is unlinked and OpenSM reroutes; the Report of trap 128 that
#    OpenSM would forward (ibsim gives Reports only to IsSM clients, so it
#    is injected below umad_recv: tests/fixtures/mad/report_inject.c) is
#    answered with a ReportResp of its TID, and within 2 s (and a margin)
#    the view has the cable gone: the switch it names read again in place
#    (its PortInfoRecords and LinkRecords, 2 x ports SA Gets, counted in
#    the madlog), not a whole read (issue 41: a whole read once came at the
#    port's turn, LID x 4 s); `route` agrees with ibtracert;
#  - a Report of a trap it did not ask for (144) is answered and starts
#    no read and no patch;
#  - no SubnSet: SA Gets, the three InformInfo Sets, ReportResps.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq

opensm_tree_up
h=$(lowest_lid_host)
mylid=$(lid "$h")
obs_on_defaults "$h" "$FABRICD_BUILD/tests/libreport_inject.so $FABRICD_BUILD/tests/libmadlog.so" \
    MADLOG_TIME=1 REPORT_INJECT="$T/o/inject"
use o
wait_view 120 || fail "no view within 120 s: $(octl --json status | jq -c .sm.observer)"
capture -e "$T/same.out" same "first view"
links=$(wc -l < "$T/want.links")

# the subscriptions, as OpenSM holds them
end=$(( $(date +%s) + 60 ))	# only ends the wait
until [ "$(grep -c '^0x03 0x02 0x0003 ' "$OD/madlog")" -ge 3 ] &&
    [ "$(octl --json status | jq -r .sm.observer.subscriptions.accepted)" = 3 ]; do
	[ "$(date +%s)" -ge "$end" ] && fail "subscriptions: $(grep -c '^0x03 0x02 0x0003 ' "$OD/madlog") Sets, $(octl --json status | jq -c .sm.observer.subscriptions)"
	sleep 0.2
done
sim_diag saquery -I > "$T/ii.txt" 2>&1
grep -Eq "trap_num\.*(64|65|128)$" "$T/ii.txt" ||
    fail "saquery -I lists no subscription to 64, 65 or 128: $(head -20 "$T/ii.txt")"
echo "three InformInfo Sets (traps 64, 65, 128), OpenSM answered each; saquery -I lists them"

# a cable pulled, OpenSM reroutes, its Report brings the read forward (the
# uplink of OpenSM's own leaf: the leaf's trap reaches OpenSM)
views=$(obs views)
unlink_uplink host1 host13
[ "$(obs views)" = "$views" ] || fail "a read came before the Report (refresh 4h)"
smlid=$(obs master_lid)
leaflid=$(sed -n "s/^Switch.*\"$leaf\".* port 0 lid \([0-9]*\) .*/\1/p" "$T/disc.txt")
gets0=$(grep -c '^0x03 0x01 ' "$OD/madlog")
inject_report "$OD/inject" "$smlid 128 $leaflid 0x5e1f0a01"
t0=$(date +%s)
end=$(( t0 + 2 + 5 ))	# the 2 s window and a busy machine's margin
until [ "$(obs patches)" = 1 ] && [ "$(obs links)" -eq $((links - 1)) ] 2>/dev/null &&
    agree host1 host13 > "$T/agree.out"; do
	[ "$(date +%s)" -ge "$end" ] && fail "the view lacks the Unlink $((end - t0)) s after the Report: $(obs patches) patches, $(obs links) links, $(cat "$T/agree.out")"
	sleep 0.2
done
[ "$(obs views)" = "$views" ] || fail "a whole read followed the Report"
ports=$(awk -v s="$leaf" '/^Switch/ { split($0, q, "\""); if (q[4] == s) { print $2; exit } }' "$T/disc.txt")
gets=$(( $(grep -c '^0x03 0x01 ' "$OD/madlog") - gets0 ))
[ "$gets" -eq $((2 * ports + 1)) ] ||
    fail "the patch of $leaf ($ports ports) sent $gets SA Gets, not $((2 * ports + 1))"
capture -e "$T/same.out" same "after the patch"
grep -q '^0x03 0x86 0x0002 ' "$OD/madlog" || fail "no ReportResp sent"
grep '^0x03 0x86 0x0002 ' "$OD/madlog" > "$T/resp"
echo "Report of trap 128: answered, $leaf read again ($gets SA Gets), the view has the Unlink $(( $(date +%s) - t0 )) s later, routes as ibtracert"

# a trap not asked for: answered, no read
views=$(obs views)
inject_report "$OD/inject" "$smlid 144 $mylid 0x5e1f0a02"
end=$(( $(date +%s) + 60 ))	# only ends the wait
until [ "$(grep -c '^0x03 0x86 0x0002 ' "$OD/madlog")" -ge 2 ]; do
	[ "$(date +%s)" -ge "$end" ] && fail "the Report of trap 144 was not answered"
	sleep 0.2
done
sleep 3	# the patch window (2 s) and a second
[ "$(obs views)" = "$views" ] && [ "$(obs patches)" = 1 ] ||
    fail "a Report of trap 144 started a read or a patch"
echo "Report of trap 144: answered, no read"

fd_reap_pid "$PID_o" "$OD/fabricd.log" || fail "the observer exited with status $?"
bad=$(awk '!(($1 == "0x03" && ($2 == "0x01" || $2 == "0x86" || ($2 == "0x02" && $3 == "0x0003"))) ||
    (($1 == "0x01" || $1 == "0x81" || $1 == "0x04") && $2 == "0x01"))' "$OD/madlog")
[ -z "$bad" ] || fail "MADs other than Gets, InformInfo Sets and ReportResps: $(echo "$bad" | head -3)"
echo "madlog: $(grep -c '^0x03 0x01 ' "$OD/madlog") SA Gets, 3 InformInfo Sets, $(grep -c '^0x03 0x86 ' "$OD/madlog") ReportResps, no SubnSet"
pass
