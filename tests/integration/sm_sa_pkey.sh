#!/bin/sh
# PathRecords in a tenant partition: with the partitions module on, a
# partition created through fabricctl gives saquery (`-p --pkey`) a path
# between a full and a limited member carrying the partition's P_Key, and
# none between two limited members or to a port outside the partition;
# without a P_Key the record carries the lowest shared key (as OpenSM).
# Who holds which key (and how) is read independently with smpquery pkeys,
# which P_KeyTableRecords equal (to a requester with the SA key; without
# it, its own port's alone).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup saquery
mkdir -p "$SIM_DIR"
{
	echo 'switchguid=0x0002000000000100'
	echo 'Switch 8 "sw1" # "sw1" enhanced port 0'
	for i in 1 2 3 4 5; do echo "[$i] \"host$i\"[1]"; done
	for i in 1 2 3 4 5; do
		echo
		echo "caguid=0x000100000000${i}0"
		echo "Hca 1 \"host$i\" # \"host$i\""
		echo "[1] \"sw1\"[$i]"
	done
} > "$SIM_DIR/topo.net"
sim_start || fail "ibsim"
sm_start_fabricd host1 "partitions:
  enabled: true
  default_membership: limited"
sm_wait_up 30 || fail "subnet not up"
ctl --json status | grep -q '"stored-only"' && fail "partitions stored only: the SM did not program them"

ctl partition create acme --pkey=0x0a01 >/dev/null || fail "partition create"
ctl partition member add acme host2 --full >/dev/null || fail "member add host2"
ctl partition member add acme host3 --limited >/dev/null || fail "member add host3"
ctl partition member add acme host4 --limited >/dev/null || fail "member add host4"

lid() { sm_lid_of "$1"; }
h2=$(lid host2) h3=$(lid host3) h4=$(lid host4) h5=$(lid host5)
[ -n "$h2" ] && [ -n "$h3" ] && [ -n "$h4" ] && [ -n "$h5" ] || fail "LIDs: $h2 $h3 $h4 $h5"

# pkeys LID: the non-zero entries of the port's P_Key table, per smpquery
pkeys() {
	sim_diag -H host1 -t 10 smpquery pkeys "$1" 1 | awk '/^ *[0-9]+:/ {
	    for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i }'
}
# The fabric holds what this test is about (independently of fabricd).
i=0
until pkeys "$h4" | grep -q '0x0a01'; do
	[ $i -ge 100 ] && fail "host4 never got 0x0a01: $(pkeys "$h4")"
	i=$((i + 1))
	sleep 0.1
done
pkeys "$h2" | grep -q '0x8a01' || fail "host2 not full in 0x0a01: $(pkeys "$h2")"
pkeys "$h3" | grep -q '0x0a01' || fail "host3 not limited in 0x0a01: $(pkeys "$h3")"
pkeys "$h5" | grep -qi 'a01' && fail "host5 holds 0x0a01: $(pkeys "$h5")"
pkeys "$h3" | grep -q '0x7fff' || fail "host3 not limited in the default partition: $(pkeys "$h3")"

# pr SLID DLID [saquery options]: the P_Key of each PathRecord answered
pr() {
	s=$1 d=$2
	shift 2
	out=$(sim_diag -H host2 -t 10 saquery -p --slid "$s" --dlid "$d" "$@") ||
	    fail "saquery -p $s:$d $* exited $?"
	echo "$out" | sed -n 's/^[[:space:]]*pkey[.]*\(0x[0-9a-fA-F]*\).*/\1/p' |
	    while read -r k; do printf '0x%04x\n' "$k"; done
}
# pk S D ARGS...: pr in this shell (its fail ends the test), the answer in $PK
pk() { capture -e "$T/pk" pr "$@"; PK=$(cat "$T/pk"); }
# full with limited, both ways: the partition's key as asked
pk "$h2" "$h3" --pkey 0x8a01
[ "$PK" = 0x8a01 ] || fail "host2->host3 in 0x8a01: '$PK'"
pk "$h4" "$h2" --pkey 0x8a01
[ "$PK" = 0x8a01 ] || fail "host4->host2 in 0x8a01: '$PK'"
# two limited members, and a port outside the partition: nothing
pk "$h3" "$h4" --pkey 0x8a01
[ -z "$PK" ] || fail "host3->host4 (both limited) answered: $PK"
pk "$h2" "$h5" --pkey 0x8a01
[ -z "$PK" ] || fail "host2->host5 (not a member) answered: $PK"
# no P_Key asked: the lowest shared key, as the source port holds it
pk "$h2" "$h3"
[ "$PK" = 0x8a01 ] || fail "host2->host3 without P_Key: '$PK'"
pk "$h3" "$h2"
[ "$PK" = 0x0a01 ] || fail "host3->host2 without P_Key: '$PK'"
# host3 and host5 share only 0x7fff, both limited: no path at all
pk "$h3" "$h5"
[ -z "$PK" ] || fail "host3->host5 (limited in 0x7fff only) answered: $PK"

# Partition-aware answers (as OpenSM): host5, in no partition with anyone
# but as a limited member of 0x7fff, gets no NodeRecord or PathRecord of
# acme's members; host3 (limited in acme) gets host2's (full there); the
# SM's port (host1, full in 0x7fff) stays visible to everyone.
nr() {	# ASKER LID: the NodeRecords' NodeGUIDs the asker gets for LID
	sim_diag -H "$1" -t 10 saquery NR "$2" | sed -n 's/^[[:space:]]*node_guid\.*\(0x[0-9a-f]*\)$/\1/p'
}
[ -n "$(nr host3 "$h2")" ] || fail "host3 (acme) got no NodeRecord of host2"
[ -z "$(nr host5 "$h2")" ] || fail "host5 (outside acme) got host2's NodeRecord"
[ -z "$(nr host5 "$h3")" ] || fail "host5 got host3's NodeRecord"
[ -n "$(nr host5 "$(lid host1)")" ] || fail "host5 got no NodeRecord of the SM's port"
[ -n "$(nr host5 "$h5")" ] || fail "host5 got no NodeRecord of itself"
out=$(sim_diag -H host5 -t 10 saquery -p --slid "$h2" --dlid "$h3")
echo "$out" | grep -q dlid && fail "host5 got a PathRecord between acme's members: $out"

# P_KeyTableRecord: block 0 of a port's table as smpquery reads it, to a
# requester presenting the SA key (fabricd's sm_key, 1); without it the
# request is refused (IBA: trusted requests only; OpenSM refuses too).
pktr() {	# ASKER LID [saquery options]: the non-zero entries of the records
	a=$1 l=$2
	shift 2
	sim_diag -H "$a" -t 10 saquery PKTR "$@" "$l//0" | sed -n 's/^[[:space:]]*0x/0x/p' |
	    tr -s ' \t' '\n\n' | grep '^0x' | grep -v '^0x0000$' | tr '\n' ' '
}
# (a port's record is left out while a sweep's tables are on the fabric:
# asked again until the deadline)
pktr_known() {
	i=0
	until got=$(pktr "$@") && [ -n "$got" ]; do
		[ $i -ge 50 ] && break
		i=$((i + 1))
		sleep 0.2
	done
	echo "$got"
}
for l in "$h2" "$h3" "$h5"; do
	got=$(pktr_known host2 "$l" --smkey 1)
	[ -n "$got" ] && [ "$got" = "$(pkeys "$l")" ] ||
	    fail "PKeyTableRecord of LID $l with the SA key: '$got', smpquery '$(pkeys "$l")'"
done
[ -z "$(pktr host3 "$h3")" ] || fail "host3 without the SA key got a PKeyTableRecord: $(pktr host3 "$h3")"
[ -z "$(pktr host3 "$h2")" ] || fail "host3 (LID $h3) without the SA key got host2's (LID $h2) P_Keys: $(pktr host3 "$h2")"
sim_diag -H host3 -t 10 saquery PKTR "$h2//0" 2>&1 | grep -qi 'REQ_INVALID\|0x0200\|invalid' ||
    SIM_DIAG_STDERR=1 sim_diag -H host3 -t 10 saquery PKTR "$h2//0" 2>&1 | grep -qi 'REQ_INVALID\|0x0200\|invalid' ||
    fail "an untrusted PKeyTableRecord request was not refused: $(SIM_DIAG_STDERR=1 sim_diag -H host3 -t 10 saquery PKTR "$h2//0" 2>&1)"

# the member leaves: its path in the partition goes with its key
ctl partition member remove acme host3 >/dev/null || fail "member remove host3"
pkeys "$h3" | grep -qi 'a01' && fail "host3 still holds 0x0a01 per smpquery: $(pkeys "$h3")"
pk "$h2" "$h3" --pkey 0x8a01
[ -z "$PK" ] || fail "host2->host3 after host3 left answered: $PK"
exit 0
