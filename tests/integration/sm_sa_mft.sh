#!/bin/sh
# MulticastForwardingTableRecord: what `saquery MFTR` answers for a switch
# is what `ibroute -M` reads from it, port for port, on two switches.
#
# Fabric: 2 leaves of 18 hosts, 1 spine, radix 36 (so a leaf's MFT has
# three port mask positions: ports 0-15, 16-31, 32-36; host18 is on port
# 18 and the uplink on 19, both in position 1).  Groups: the IPoIB
# broadcast group (0xC000) joined by host18, host19 and host1, and a group
# host18 creates and host20 joins (0xC001).
#
# Under ibsim a client reads only the first 224 bytes of an answer (no
# RMPP): a GetTableResp holds two 72-byte MFTRecords, so each record is
# asked alone, by LID, position and block (saquery MFTR LID/POS/BLOCK),
# for every position of block 0; block 1 (MLIDs 0xC020 on) must answer
# nothing, as no group has such an MLID.  One unnarrowed query checks the
# GetTable: its records are those of the narrowed ones.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup saquery ibroute
JOIN=$FABRICD_BUILD/tools/mcast_join
sim_fabric_up "-k 2 -h 18 -s 1"
for h in host18 host19 host1; do
	out=$(sim_run -H $h -t 15 "$JOIN" 2>&1) || fail "$h: join the broadcast group: $out"
done
out=$(sim_run -H host18 -t 15 "$JOIN" -c -m ff12:601b:ffff::1 2>&1) || fail "host18: create: $out"
out=$(sim_run -H host20 -t 15 "$JOIN" -m ff12:601b:ffff::1 2>&1) || fail "host20: join: $out"

# "MLID PORT" for every port in every MLID entry, from ibroute -M (an x
# in the column of the port: port p at character 13 + 2p)
ibroute_ports() {
	sim_diag -H host2 ibroute -M "$1" | awk '/^0xc/ {
	    for (i = 13; i <= length($0); i += 2) if (substr($0, i, 1) == "x") print $1, (i - 13) / 2 }' | sort
}
# the same from saquery MFTR records (Position p: bit b is port 16p + b)
sa_ports() {
	awk 'function hex(s,  v, i) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	    /Position\.+/ { sub(/.*\./, ""); pos = $0 + 0 }
	    /^[ \t]*0xc[0-9a-f]+[ \t]+0x[0-9a-f]+$/ { m = hex($2)
		for (b = 0; b < 16; b++) if (int(m / 2 ^ b) % 2) print $1, 16 * pos + b }' | sort
}
# wait until the switches hold the trees (host20's join programmed)
lid_l1=$(sim_diag -H host2 ibnetdiscover | sed -n 's/^Switch.*"sw-l1".* lid \([0-9]*\) .*/\1/p')
lid_l2=$(sim_diag -H host2 ibnetdiscover | sed -n 's/^Switch.*"sw-l2".* lid \([0-9]*\) .*/\1/p')
[ -n "$lid_l1" ] && [ -n "$lid_l2" ] || fail "no LID for sw-l1 or sw-l2"
i=0
until ibroute_ports "$lid_l2" | grep -q '^0xc001 2$'; do
	[ $i -ge 50 ] && fail "host20's port never in sw-l2's MFT: $(ibroute_ports "$lid_l2")"
	i=$((i + 1))
	sleep 0.2
done

for lid in $lid_l1 $lid_l2; do
	ibroute_ports "$lid" > "$T/ibroute.$lid"
	[ -s "$T/ibroute.$lid" ] || fail "ibroute -M $lid: no entry"
	: > "$T/sa.$lid"
	for pos in 0 1 2; do
		sim_diag -H host2 saquery MFTR "$lid/$pos/0" > "$T/sa.$lid.$pos"
		grep -q "Position\.*$pos\$" "$T/sa.$lid.$pos" || fail "saquery MFTR $lid/$pos/0: no record: $(cat "$T/sa.$lid.$pos")"
		[ "$(grep -c 'MFT Record dump' "$T/sa.$lid.$pos")" = 1 ] || fail "saquery MFTR $lid/$pos/0: not one record"
		sa_ports < "$T/sa.$lid.$pos" >> "$T/sa.$lid"
	done
	sort -o "$T/sa.$lid" "$T/sa.$lid"
	cmp -s "$T/sa.$lid" "$T/ibroute.$lid" || fail "LID $lid: saquery MFTR and ibroute -M differ (< SA > switch):
$(diff "$T/sa.$lid" "$T/ibroute.$lid")"
	echo "LID $lid: saquery MFTR = ibroute -M: $(tr '\n' ' ' < "$T/sa.$lid")"
	out=$(sim_diag -H host2 saquery MFTR "$lid//1")
	[ -z "$out" ] || fail "saquery MFTR $lid//1: a record of block 1: $out"
done
# position 1 carries host18's port (18) and the uplink (19) on sw-l1
grep -q '^0xc000 18$' "$T/sa.$lid_l1" && grep -q '^0xc000 19$' "$T/sa.$lid_l1" ||
    fail "sw-l1: no position-1 port in the broadcast group: $(cat "$T/sa.$lid_l1")"
# the unnarrowed GetTable: the first records of the table, each one of the above
sim_diag -H host2 saquery MFTR > "$T/sa.all"
n=$(grep -c 'MFT Record dump' "$T/sa.all")
[ "$n" -ge 1 ] || fail "saquery MFTR: no record"
for lid in $lid_l1 $lid_l2; do
	awk -v l="$lid" '/LID\.+/ { sub(/.*\./, ""); keep = ($0 == l) } keep' "$T/sa.all" | sa_ports > "$T/all.$lid"
	comm -23 "$T/all.$lid" "$T/sa.$lid" | grep . && fail "saquery MFTR (GetTable): LID $lid entries the narrowed queries lack"
done
echo "saquery MFTR (GetTable): $n records, all as narrowed"
pass
