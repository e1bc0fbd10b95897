#!/bin/sh
# osmtest's flows against fabricd on two more fabrics of other shapes and
# LID plans than sm_osmtest.sh's and sm_osmtest_lid1.sh's (the 2-level
# tree with a switch at LID 1), and against OpenSM on the same ibsim
# fabric (tests/lib/osmtest.sh runs them):
#
#   B  a 3-level tree (topogen -P 8 -p 2 -k 2 -h 2 -a 2 -c 4: 12 switches
#      of radix 8, 8 hosts) on OpenSM's LID plan: OpenSM brings the subnet
#      up first, then fabricd takes it over and keeps the LIDs the ports
#      hold (checked: the same LID on every port, ibnetdiscover before
#      and after);
#   C  an irregular fabric (topogen -r 7 -n 6 -e 3 -h 2), fabricd on host3
#      first (its own plan from there: host1 gets LID 1), one switch with
#      a base (not enhanced) port 0 whose GUID is the lowest: it opens
#      -f c's inventory, so -f q asks its port 0 (checked with
#      ibnetdiscover and in the inventory).
#
# Asserted on each, against fabricd: -f c, -f v and -f q exit 0 with the
# verdict PASS (-f v is the SA validation of -f a); -f a gets through
# that validation to its wrong-SM_Key query and waits there, as it must
# under ibsim (the SA drops the query, osmtest waits for a timeout that
# umad2sim never gives: no SA can pass -f a here); -f a, -f m and -f s
# get at least as far as against OpenSM, stage by stage (OpenSM's -f a
# stops sooner, at the P_KeyTableRecord GetTable it answers in several
# RMPP segments; -f m both stop at the cleanup, ERR 02FE; -f s both on
# the 224-byte limit); no flow meets UNSUP_METHOD_ATTR but where osmtest
# provokes it on purpose.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/osmtest.sh"
sim_test_setup osmtest opensm

# fabricd_flows WHO: the flows against fabricd, each judged on its own.
fabricd_flows() {
	osmt_passes "$1" c || fail "$1: osmtest -f c against fabricd: $(osmt_why "$1" c)"
	osmt_passes "$1" v || fail "$1: osmtest -f v against fabricd: $(osmt_why "$1" v)"
	osmt_run "$1" a
	osmt_a_reaches_key "$1" || fail "$1: osmtest -f a did not get to the wrong-SM_Key query: $(osmt_why "$1" a)"
	osmt_passes "$1" q || fail "$1: osmtest -f q against fabricd: $(osmt_why "$1" q)"
	# -f q writes the records it got to qos.txt in its working folder
	mv "$SIM_DIR/run/qos.txt" "$T/$1.qos.txt" || fail "$1: osmtest -f q wrote no qos.txt"
	grep -q '^VL_ARBITRATION_TABLE' "$T/$1.qos.txt" || fail "$1: osmtest -f q wrote no VLArb record"
	osmt_run "$1" m
	osmt_run "$1" s
	bad=$(osmt_unsup_expected "$1" c v a q m s) || fail "$1: UNSUP_METHOD_ATTR: $bad"
}
opensm_flows() {
	osmt_passes "$1" c || fail "$1: osmtest -f c against OpenSM: $(osmt_why "$1" c)"
	for f in a m s; do
		osmt_run "$1" $f
	done
}
# as_far FABRIC: fabricd's -f a, m, s at least as far as OpenSM's
as_far() {
	for f in a m s; do
		osmt_as_far "fd$1" "osm$1" $f ||
		    fail "$1: osmtest -f $f: fabricd stops before OpenSM: $(head -5 "$T/fd$1-osm$1.$f.diff")"
	done
	echo "$1: -f a $(wc -l < "$T/fd$1.a.stages") stages (OpenSM $(wc -l < "$T/osm$1.a.stages")), -f m $(wc -l < "$T/fd$1.m.stages") ($(wc -l < "$T/osm$1.m.stages")), -f s $(wc -l < "$T/fd$1.s.stages") ($(wc -l < "$T/osm$1.s.stages"))"
}

# ---- B: 3-level tree, OpenSM's LIDs ----
sim_topology -P 8 -p 2 -k 2 -h 2 -a 2 -c 4 || fail "topogen B"
sim_start || fail "ibsim B"
sim_opensm host1 60 || fail "B: OpenSM did not bring the subnet up"
sm_lids > "$T/B.osm.lids"
opensm_flows osmB
sim_stop_opensm
sm_start_fabricd host1
sm_wait_up 30 || fail "B: fabricd: subnet not up"
sm_lids > "$T/B.fd.lids"
[ "$(wc -l < "$T/B.fd.lids")" -eq 20 ] || fail "B: $(wc -l < "$T/B.fd.lids") LIDs, want 20"
cmp -s "$T/B.osm.lids" "$T/B.fd.lids" || fail "B: fabricd moved OpenSM's LIDs: $(diff "$T/B.osm.lids" "$T/B.fd.lids" | head -4)"
fabricd_flows fdB
fd_stop
sim_stop
as_far B

# ---- C: irregular, a base SP0 switch at LID 1, fabricd on host3 ----
sim_topology -r 7 -n 6 -e 3 -h 2 || fail "topogen C"
grep -q '^switchguid=0x0002000000000001$' "$SIM_DIR/topo.net" || fail "topogen C: no sw-r1 GUID to lower"
sed -i 's/^switchguid=0x0002000000000001$/switchguid=0x0000000000000100/;
    s/^\(Switch .*"sw-r1".*\) enhanced port 0/\1 base port 0/' "$SIM_DIR/topo.net"
sim_start || fail "ibsim C"
sm_start_fabricd host3
sm_wait_up 30 || fail "C: fabricd: subnet not up"
sim_diag -H host2 ibnetdiscover > "$T/C.ibnd"
base=$(sed -n 's/^Switch.*"sw-r1".* base port 0 lid \([0-9]*\) .*/\1/p' "$T/C.ibnd")
[ -n "$base" ] || fail "C: sw-r1 has no base port 0 with a LID: $(grep '^Switch' "$T/C.ibnd")"
fabricd_flows fdC
awk '/^DEFINE_PORT/ { getline l; getline p; print l, p }' "$T/fdC.dat" | tr -s ' ' > "$T/C.inv"
grep -q "^lid $(printf '0x%x' "$base") port_num 0x0\$" "$T/C.inv" ||
    fail "C: the inventory has no port 0 of sw-r1 (LID $base): $(cat "$T/C.inv")"
# the four VLArb blocks of that port 0, as -f q got them
n=$(awk -v l="$(printf '0x%x' "$base")" '/^VL_ARBITRATION_TABLE/ { getline a; getline b
    if (a ~ "^lid  *" l "$" && b ~ /^port_num  *0x0$/) n++ } END { print n + 0 }' "$T/fdC.qos.txt")
[ "$n" -eq 4 ] || fail "C: -f q got $n VLArb blocks of sw-r1's base port 0, want 4"
echo "C: sw-r1's base port 0 (LID $base) in -f c's inventory, -f q got its 4 VLArb blocks"
fd_stop
sim_opensm host3 60 || fail "C: OpenSM did not bring the subnet up"
opensm_flows osmC
sim_stop
as_far C
pass
