#!/bin/sh
# An observer reads the master's SA table by table (issue 27: "with RMPP"),
# on the defaults, where the kernel reassembles RMPP.  ibsim cannot show
# that (every answer cut to 224 bytes, no RMPP), so it is shown below the
# API: tests/fixtures/mad/sa_gettable.c, loaded under fabricd, offers the
# registration flags every kernel since 3.19 has, answers each
# SubnAdmGetTable with the records the real master (OpenSM 3.3.23) gives
# one SubnAdmGet at a time, and hands the table to umad_recv() as the
# kernel hands over a reassembled transfer (-ENOSPC with its length, then
# whole).  Judged from outside fabricd:
#  - fabricd sent five SubnAdmGetTables (NodeRecord, PortInfoRecord,
#    LinkRecord, SwitchInfoRecord, LFTRecord: madlog, below umad_send) and
#    no per-record SubnAdmGet, no Set but the three InformInfo;
#  - the tables held what ibnetdiscover counts: a NodeRecord per node, a
#    LinkRecord per cable end;
#  - its nodes and links equal ibnetdiscover's, its routes ibtracert's;
#  - a cable unlinked: the next whole read (within the 30 s window, after
#    a Report naming a switch the view does not have: one it knows is
#    patched by Gets, observer_reports.sh) has it gone, by tables again.
# Broken on purpose: without the engine's long receive (an answer past 256
# bytes dropped, as before), no view comes and the test fails.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq

opensm_tree_up
h=$(lowest_lid_host)
mylid=$(lid "$h")
obs_on_defaults "$h" "$FABRICD_BUILD/tests/libreport_inject.so $FABRICD_BUILD/tests/libmadlog.so $FABRICD_BUILD/tests/libsa_gettable.so" \
    SA_GETTABLE_LOG="$T/o/tables" REPORT_INJECT="$T/o/inject"
use o
wait_view 150 ||
    fail "no view within 150 s: $(octl --json status | jq -c .sm.observer); $(tail -3 "$OD/fabricd.log")"
grep -q 'the kernel segments long answers' "$OD/fabricd.log" ||
    fail "the engine did not take the kernel-RMPP path: $(grep 'SA agent' "$OD/fabricd.log")"
[ "$(obs read_by)" = tables ] || fail "read_by: $(obs read_by), want tables"

# what fabricd sent: five tables, nothing record by record.  A table may
# go twice: the double asks its records while the send blocks fabricd's
# loop (under ASan beside other tests, longer than a try's timeout), so
# the engine's retry can follow the answer; the read itself asked each
# table once (its query count below).
for attr in 0x0011 0x0012 0x0020 0x0014 0x0015; do
	[ "$(grep -c "^0x03 0x12 $attr " "$OD/madlog")" -ge 1 ] ||
	    fail "SubnAdmGetTable($attr) not sent: the SA MADs sent: $(awk '$1 == "0x03" { print $2, $3 }' "$OD/madlog" | sort | uniq -c | tr '\n' ';');
the tables answered: $(cat "$OD/tables" 2>/dev/null | tr '\n' ';')
the observer: $(octl --json status | jq -c .sm.observer); $(tail -15 "$OD/fabricd.log")"
done
[ "$(grep -c '^0x03 0x01 ' "$OD/madlog")" = 0 ] ||
    fail "$(grep -c '^0x03 0x01 ' "$OD/madlog") SubnAdmGets sent beside the tables"
# SMP Gets may be LID routed too: the master's SMInfo, asked every 10 s
# (a read slow under the sanitizers outlasts the first ask)
bad=$(awk '!(($1 == "0x81" && $2 == "0x01") || ($1 == "0x01" && $2 == "0x01") ||
    ($1 == "0x03" && $2 == "0x12") ||
    ($1 == "0x03" && $2 == "0x02" && $3 == "0x0003") || ($1 == "0x04" && $2 == "0x01"))' "$OD/madlog")
[ -z "$bad" ] || fail "MADs other than Gets, GetTables and InformInfo Sets: $(echo "$bad" | head -3)"
[ "$(obs last_read.queries)" = 6 ] || fail "the read asked $(obs last_read.queries) queries, want 6 (its own PortInfo and five tables)"

# the tables held what ibnetdiscover counts
capture -e "$T/same.out" same "first view"
nodes=$(wc -l < "$T/want.nodes")
links=$(wc -l < "$T/want.links")
got_nodes=$(sed -n 's/^table attr=0x0011 records=\([0-9]*\) .*/\1/p' "$OD/tables" | head -1)
got_links=$(sed -n 's/^table attr=0x0020 records=\([0-9]*\) .*/\1/p' "$OD/tables" | head -1)
[ "$got_nodes" = "$nodes" ] || fail "NodeRecord table: ${got_nodes:-no} records, ibnetdiscover has $nodes nodes"
[ "$got_links" = $((2 * links)) ] || fail "LinkRecord table: ${got_links:-no} records, want 2 x $links cables"
capture -e "$T/agree.out" agree host2 host13
capture -e "$T/agree.out" agree host16 host3
capture -e "$T/agree.out" agree "$h" host9
echo "one read by five GetTables (the double asked $(awk '{ sub("gets=", "", $6); s += $6 } END { print s }' "$OD/tables") Gets for them):" \
    "$got_nodes NodeRecords, $got_links LinkRecords; nodes and links as ibnetdiscover, routes as ibtracert"

# a cable pulled: the next whole read, brought forward by a Report that
# names a switch the view does not have (LID 999), by tables
views=$(obs views)
unlink_uplink host1 host13
smlid=$(obs master_lid)
inject_report "$OD/inject" "$smlid 128 999 0x5e1f0b01"
end=$(( $(date +%s) + 150 ))	# only ends the wait (a sanitized read beside 7 other tests took over 20 s)
until [ "$(obs views)" -gt "$views" ] && [ "$(obs links)" -eq $((links - 1)) ] 2>/dev/null &&
    agree host1 host13 > "$T/agree.out"; do
	[ "$(date +%s)" -ge "$end" ] && fail "no view with the Unlink: $(obs views) views, $(obs links) links, $(cat "$T/agree.out")"
	sleep 0.3
done
[ "$(grep -c '^0x03 0x12 0x0011 ' "$OD/madlog")" -ge 2 ] || fail "the second read did not ask the tables"
[ "$(grep -c '^0x03 0x01 ' "$OD/madlog")" = 0 ] || fail "SubnAdmGets in the second read"
echo "a cable unlinked: the next read (by tables) has it gone, routes as ibtracert"
