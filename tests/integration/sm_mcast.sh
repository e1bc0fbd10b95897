#!/bin/sh
# Multicast: IPoIB broadcast groups the SM creates per partition, joins and
# leaves from a raw client that asks as the kernel's IPoIB does
# (tools/mcast_join), and the forwarding trees the switches end up with.
#
# Fabric: 12 hosts on 3 leaves, 2 spines, two cables per leaf-spine pair
# (a loop for any tree that takes both).  Partitions blue (host2-7 full,
# host12 limited) and red (host8-11), both `ipoib:`; the default partition
# has its broadcast group too (sm.ipoib_broadcast).
#
# Checked with other tools only: saquery (-g before any join: the three
# groups the SM made; MCMR --mlid --gid per member afterwards), ibroute -M
# on every switch walked against ibnetdiscover's cabling (one loop-free
# tree reaching every member's port and no other CA port), ibtracert -m
# between members, and the raw client's own status codes for refusals.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/mcastwalk.sh"
sim_test_setup saquery
JOIN=$FABRICD_BUILD/tools/mcast_join
sim_fabric_up "-k 3 -h 4 -s 2 -P 8" "partitions:
  enabled: true
  default_membership: full
  tenants:
    acme:
      blue: { pkey: 0x0b01, full: [host2, host3, host4, host5, host6, host7], limited: [host12], ipoib: { mtu: 2048 } }
      red: { pkey: 0x0c01, full: [host8, host9, host10, host11], ipoib: { mtu: 2048, qkey: 0x0b1b } }"
ctl --json status | grep -q '"stored-only"' && fail "partitions stored only: the SM did not program them"

lid() { sm_lid_of "$1"; }
# the port GID of hostN, from the net file's GUID (caguid + 1)
gid() { g=$(sim_port_guid "$1" | sed 's/^0x//'); printf 'fe80::%x:%x:%x:%x\n' \
    $((0x$(echo "$g" | cut -c1-4))) $((0x$(echo "$g" | cut -c5-8))) \
    $((0x$(echo "$g" | cut -c9-12))) $((0x$(echo "$g" | cut -c13-16))); }
pkeys() {
	sim_diag -t 10 smpquery pkeys "$(lid "$1")" 1 | awk '/^ *[0-9]+:/ {
	    for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i }'
}
i=0
until pkeys host12 | grep -q 0x0b01 && pkeys host11 | grep -q 0x8c01; do
	[ $i -ge 100 ] && fail "partition tables never arrived: host12 $(pkeys host12)"
	i=$((i + 1))
	sleep 0.2
done

# 0. ClassPortInfo says the SA does multicast (CapabilityMask bit 9) and
# names QP1's Q_Key for traps and redirects, as OpenSM's does.
cpi=$(sim_diag -H host4 -t 10 saquery -c) || fail "saquery -c exited $?"
cap=$(echo "$cpi" | sed -n 's/^[[:space:]]*Capability mask\.*\(0x[0-9a-fA-F]*\)$/\1/p')
[ -n "$cap" ] && [ $(( cap & 0x200 )) -ne 0 ] || fail "ClassPortInfo CapabilityMask '$cap' lacks multicast"
[ "$(echo "$cpi" | grep -c 'QKey\.*0x80010000$')" -eq 2 ] || fail "ClassPortInfo Q_Keys: $cpi"

# 1. Before anyone asks, the SM made the three broadcast groups; each host
# sees those of its own partitions only.
sees_groups() {	# ASKER MGIDS-SEEN... -- MGIDS-NOT-SEEN...
	a=$1
	shift
	groups=$(sim_diag -H "$a" -t 10 saquery -g) || fail "saquery -g from $a exited $?"
	want=1
	for m in "$@"; do
		[ "$m" = -- ] && { want=0; continue; }
		if echo "$groups" | grep -q "MGID\.*$m\$"; then
			[ $want = 1 ] || fail "saquery -g from $a shows $m"
		else
			[ $want = 0 ] || fail "saquery -g from $a lacks $m: $groups"
		fi
	done
}
sees_groups host4 ff12:401b:ffff::ffff:ffff ff12:401b:8b01::ffff:ffff -- ff12:401b:8c01::ffff:ffff
sees_groups host8 ff12:401b:ffff::ffff:ffff ff12:401b:8c01::ffff:ffff -- ff12:401b:8b01::ffff:ffff
mlid_of() {	# ASKER MGID -> MLID, per saquery
	sim_diag -H "$1" -t 10 saquery MCMR --mgid "$2" |
	    sed -n 's/^[[:space:]]*mlid\.*\(0x[0-9a-fA-F]*\)$/\1/p' | head -1
}
BLUE=$(mlid_of host4 ff12:401b:8b01::ffff:ffff) RED=$(mlid_of host8 ff12:401b:8c01::ffff:ffff)
DFLT=$(mlid_of host4 ff12:401b:ffff::ffff:ffff)
for m in "$BLUE" "$RED" "$DFLT"; do
	[ $((m)) -ge $((0xc000)) ] || fail "MLIDs not from 0xC000: blue $BLUE red $RED default $DFLT"
done

# 2. Joins as IPoIB sends them (MGID, PortGID, P_Key, JoinState).
join() {	# HOST PKEY [mcast_join options]: must succeed
	h=$1 k=$2
	shift 2
	out=$(sim_run -H "$h" -t 15 "$JOIN" -p "$k" "$@" 2>&1) || fail "$h join $k $*: $out"
}
for h in host2 host3 host4 host5 host6 host7 host12; do join $h 0x8b01; done
for h in host8 host9 host10 host11; do join $h 0x8c01; done
for h in host2 host5 host9; do join $h 0xffff; done

# 3. Refusals: a port outside the partition, a limited member creating.
refused() {	# HOST WHAT mcast_join options...: must be refused by the SA
	h=$1 what=$2
	shift 2
	out=$(sim_run -H "$h" -t 15 "$JOIN" "$@" 2>&1)
	rc=$?
	[ $rc -eq 3 ] && echo "$out" | grep -q '^status 0x0[1-7]00' ||
	    fail "$what was not refused (rc $rc): $out"
}
refused host8 "red host8 joining blue" -p 0x8b01
refused host12 "limited host12 creating a blue group" -p 0x8b01 -c -m ff12:601b:8b01::1
# a full member creates one (and it is gone once it leaves)
out=$(sim_run -H host3 -t 15 "$JOIN" -p 0x8b01 -c -m ff12:601b:8b01::1) ||
    fail "host3 creating a group: $out"
NEW=$(echo "$out" | sed -n 's/.* mlid \(0x[0-9a-f]*\) .*/\1/p')
[ -n "$NEW" ] && [ "$NEW" != "$BLUE" ] || fail "created group's MLID '$NEW'"

# 4. saquery lists each member under its group's MLID, and no one else.
member() {	# MLID HOST [ASKER]: is HOST's GID listed in the group?
	sim_diag -H "${3:-host4}" -t 10 saquery MCMR --mlid "$1" --gid "$(gid "$2")" |
	    grep -qi "PortGid\.*$(gid "$2")\$"
}
for h in host2 host3 host4 host5 host6 host7 host12; do member "$BLUE" $h || fail "$h not in blue per saquery"; done
for h in host8 host9 host10 host11; do member "$RED" $h host8 || fail "$h not in red per saquery"; done
for h in host2 host5 host9; do member "$DFLT" $h || fail "$h not in the default group per saquery"; done
member "$BLUE" host8 && fail "host8 listed in blue"
member "$RED" host8 host4 && fail "red's members shown to host4 (blue)"
member "$NEW" host3 || fail "host3 not in the group it created"

# 5. The switches' MFTs: one loop-free tree per group reaching exactly its members.
trees_ok() {	# MLID HOSTS...
	m=$1
	shift
	lids=""
	for h in "$@"; do lids="$lids $(lid $h)"; done
	mc_check_tree "$m" $lids
}
check_trees() {
	mc_dump || return 1
	trees_ok "$BLUE" host2 host3 host4 host5 host6 host7 host12 &&
	    trees_ok "$RED" host8 host9 host10 host11 &&
	    trees_ok "$DFLT" host2 host5 host9 && trees_ok "$NEW" host3
}
i=0
until why=$(check_trees); do
	[ $i -ge 30 ] && fail "multicast trees: $why"
	i=$((i + 1))
	sleep 0.5
done
# fabricctl mcast agrees: blue's members, and its tree is what the
# switches hold (ibroute -M, parsed into mc.txt above)
command -v jq >/dev/null 2>&1 || fail "jq not installed (DEB_PKGS)"
ctl --json mcast "$BLUE" > "$T/blue.json" || fail "fabricctl mcast $BLUE"
[ "$(jq '.members | length' "$T/blue.json")" -eq 7 ] || fail "fabricctl mcast: blue members $(cat "$T/blue.json")"
jq -r '.tree[] | "\(.lid) \(.ports | map(tostring) | join(" "))"' "$T/blue.json" | sort > "$T/tree_fd.txt"
awk -v m="$(printf '0x%04x' "$BLUE")" '$1 == "M" && $3 == m { l = $2; for (i = 4; i <= NF; i++) l = l " " $i; print l }' \
    "$SIM_DIR/mc.txt" | sort > "$T/tree_sw.txt"
cmp -s "$T/tree_fd.txt" "$T/tree_sw.txt" || fail "fabricctl's tree differs from the switches':
$(diff "$T/tree_fd.txt" "$T/tree_sw.txt")"
[ "$(ctl --json mcast | jq '[.groups[].mlid] | length')" -ge 4 ] || fail "fabricctl mcast lists too few groups"
# an MGID in every IPv6 form names the group saquery gives that MLID
for g in ff12:401b:8b01::ffff:ffff ff12:401b:8b01:0:0:0:ffff:ffff FF12:401B:8B01:0000:0000:0000:FFFF:FFFF; do
	ctl --json mcast "$g" > "$T/g.json" 2>&1 || fail "fabricctl mcast $g: $(cat "$T/g.json")"
	m=$(jq -r '.mlid // empty' "$T/g.json")
	[ -n "$m" ] && [ $((m)) -eq $((BLUE)) ] || fail "fabricctl mcast $g: MLID '$m', saquery's $BLUE"
done
# the human table decodes what saquery prints as codes: MTU (IBA: 256 <<
# (code - 1)), rate (IBA's table for the codes a simulated 4X link gets)
# and Q_Key, on blue's line (issue 29: it printed qkey 2843, mtu 4, rate 3)
sim_diag -H host4 -t 10 saquery MCMR --mlid "$BLUE" > "$T/blue.mcmr" || fail "saquery MCMR --mlid $BLUE"
code() { sed -n "s/^[[:space:]]*$1\.*\(0x[0-9a-fA-F]*\).*/\1/p" "$T/blue.mcmr" | head -1; }
# (saquery prints mtu and rate with their selector in the top two bits)
mtu=$(code mtu) rate=$(code rate) qkey=$(code qkey)
[ -n "$mtu" ] && mtu=$((mtu & 0x3f))
[ -n "$rate" ] && rate=$((rate & 0x3f))
[ -n "$mtu" ] && [ -n "$rate" ] && [ -n "$qkey" ] || fail "saquery MCMR: no Mtu/Rate/Qkey: $(head -20 "$T/blue.mcmr")"
case $((rate)) in 2) rtext="2.5 Gb/s" ;; 3) rtext="10 Gb/s" ;; 5) rtext="5 Gb/s" ;; 6) rtext="20 Gb/s" ;;
	7) rtext="40 Gb/s" ;; 4) rtext="30 Gb/s" ;; *) fail "saquery rate code $rate: not a 4X/1X rate" ;; esac
ctl mcast > "$T/mcast.txt" || fail "fabricctl mcast"
line=$(grep -i "^ff12:401b:8b01" "$T/mcast.txt" | head -1)
printf '%s\n' "$line" | grep -q " $((256 << (mtu - 1))) $rtext " ||
    fail "fabricctl mcast: '$line': want MTU $((256 << (mtu - 1))) and $rtext (saquery: mtu $mtu rate $rate)"
printf '%s\n' "$line" | grep -qi " $(printf '0x%08x' "$qkey") " || fail "fabricctl mcast: '$line': Q_Key $qkey"
head -1 "$T/mcast.txt" | grep -q '^MGID .*MTU.*RATE' || fail "fabricctl mcast: no header: $(head -1 "$T/mcast.txt")"
ctl mcast "$BLUE" > "$T/blue.txt" || fail "fabricctl mcast $BLUE"
[ "$(grep -c ' full' "$T/blue.txt")" -eq 7 ] || fail "fabricctl mcast $BLUE: not 7 full members: $(cat "$T/blue.txt")"
# every join and leave this test sent was an MCMemberRecord request the SA counted
n=$(ctl --json sa | jq '.attributes[] | select(.attribute == "MCMemberRecord") | .requests')
[ "$n" -ge 18 ] || fail "fabricctl sa counts $n MCMemberRecord requests"
# ibtracert follows the MFTs from one member to another across the spines
sim_diag -t 15 ibtracert -m "$BLUE" "$(lid host2)" "$(lid host12)" > "$T/tr.txt" ||
    fail "ibtracert -m $BLUE host2 -> host12: $(cat "$T/tr.txt")"
grep -q '"host12"' "$T/tr.txt" || fail "ibtracert -m did not reach host12: $(cat "$T/tr.txt")"

# 6. Leaves prune: red shrinks to host8, the created group goes with its member.
for h in host9 host10 host11; do join $h 0x8c01 -l; done
join host3 0x8b01 -l -m ff12:601b:8b01::1
[ -z "$(sim_diag -H host4 -t 10 saquery MCMR --mgid ff12:601b:8b01::1 | grep -i mlid)" ] ||
    fail "the created group outlived its last member"
i=0
until mc_dump && why=$(trees_ok "$RED" host8) && [ -z "$(awk -v m="$(printf '0x%04x' "$NEW")" \
    '$1 == "M" && $3 == m' "$SIM_DIR/mc.txt")" ]; do
	[ $i -ge 30 ] && fail "after leaves: red ${why:-ok}; freed MLID $NEW still in an MFT"
	i=$((i + 1))
	sleep 0.5
done
member "$RED" host9 host8 && fail "host9 still listed in red after leaving"

# 7. Switch and port table records match what the switches say themselves
sw=$(sim_diag -t 20 ibnetdiscover | sed -n 's/^Switch.* lid \([0-9]*\) .*/\1/p' | head -1)
top_sa=$(sim_diag -H host4 -t 10 saquery SWIR "$sw" | sed -n 's/^[[:space:]]*LinearFDBTop\.*\(0x[0-9a-fA-F]*\)$/\1/p')
top_smp=$(sim_diag -H host4 -t 10 smpquery switchinfo "$sw" | sed -n 's/^LinearFdbTop:\.*\([0-9]*\)$/\1/p')
[ -n "$top_sa" ] && [ $((top_sa)) -eq "$top_smp" ] || fail "SwitchInfoRecord LinearFDBTop '$top_sa', smpquery '$top_smp'"
sim_diag -H host4 -t 10 saquery LFTR "$sw/0" | awk '/^[[:space:]]*[0-9]+[[:space:]]+[0-9]+$/ && $2 != 255 {
    printf "%d %d\n", $1, $2 }' | sort -n > "$T/lftr.txt"
sim_diag -H host4 -t 10 ibroute "$sw" | sed -n 's/^\(0x[0-9a-fA-F]*\) \([0-9]*\) :.*/\1 \2/p' |
    while read -r l p; do [ $((l)) -lt 64 ] && echo "$((l)) $p"; done | awk '{ print $1, $2 + 0 }' |
    sort -n > "$T/ibroute.txt"
[ -s "$T/lftr.txt" ] && cmp -s "$T/lftr.txt" "$T/ibroute.txt" ||
    fail "LFTRecord block 0 of LID $sw differs from ibroute: $(diff "$T/lftr.txt" "$T/ibroute.txt" | head -5)"
g=$(sim_diag -H host4 -t 10 saquery GIR "$(lid host6)" | sed -n 's/^[[:space:]]*GUID 0\.*\(0x[0-9a-f]*\)$/\1/p')
[ "$g" = "$(sim_port_guid host6)" ] || fail "GUIDInfoRecord of host6: '$g', want $(sim_port_guid host6)"
pass
