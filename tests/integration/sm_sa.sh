#!/bin/sh
# The SA answers saquery (run from other hosts) with records whose fields
# are what the fabric itself reports: NodeRecords and PortInfoRecords equal
# smpquery nodeinfo/portinfo of the same LID, PathRecords carry the LIDs
# and GIDs ibnetdiscover shows and the rate of the slowest link on the path
# ibtracert walks (two parallel sw1-sw2 cables, one of them 1x: which one
# a path takes is the switches' business, ibtracert tells), an unknown LID
# gets no record, a path disappears with its link, and a stream of garbage
# SA MADs from a raw client (tools/sa_fuzz) gets error answers without
# hurting the daemon.  SL2VL and VLArb table records equal smpquery
# sl2vl / vlarb of the same ports.
#
# Reference behaviour, OpenSM 3.3.23 on the same fabric: `saquery NR 999`
# and `saquery -p --src-to-dst 1:999` print nothing and exit 0 (an empty
# GetTableResp).  Name lookups (`saquery NAME`, `-N NAME`, `--src-to-dst
# a:b` with names) fetch the whole NodeRecord table, of which under ibsim
# only the first record arrives (one MAD, no RMPP): OpenSM's first record
# was host4, so even `saquery host1` failed ("Failed to find lid").
# fabricd lists nodes in node-GUID order, so only the node with the lowest
# GUID (host1 in this net file, by its caguid) can be found by name here.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup saquery
mkdir -p "$SIM_DIR"
cat > "$SIM_DIR/topo.net" <<'EOF'
switchguid=0x0002000000000100
Switch 8 "sw1" # "sw1" enhanced port 0
[1] "host1"[1]
[2] "host2"[1]
[7] "sw2"[7]
[8] "sw2"[8] w=1

switchguid=0x0002000000000200
Switch 8 "sw2" # "sw2" enhanced port 0
[1] "host3"[1]
[2] "host4"[1]
[3] "host5"[1]
[7] "sw1"[7]
[8] "sw1"[8] w=1

caguid=0x0001000000000010
Hca 1 "host1" # "host1"
[1] "sw1"[1]

caguid=0x0001000000000020
Hca 1 "host2" # "host2"
[1] "sw1"[2]

caguid=0x0001000000000030
vendid=0x0002c9
devid=0x1017
Hca 1 "host3" # "host3"
[1] "sw2"[1]

caguid=0x0001000000000040
Hca 1 "host4" # "host4"
[1] "sw2"[2]

caguid=0x0001000000000050
Hca 1 "host5" # "host5"
[1] "sw2"[3]
EOF
sim_start || fail "ibsim"
sm_start_fabricd host1
sm_wait_up 30 || fail "subnet not up"

sa() { sim_diag -H host2 -t 10 saquery "$@"; }
# field NAME: the value of "NAME....value" in saquery/smpquery output on stdin
field() { sed -n "s/^[[:space:]]*$1[.:]*\(.*\)$/\1/p" | head -1; }
hex() { printf '0x%x' "$1"; }

disc=$(sim_diag ibnetdiscover) || fail "ibnetdiscover"
lid_of() { sm_lid_of "$1"; }
sw_lid() { echo "$disc" | sed -n "s/^Switch.*\"$1\".* lid \([0-9]*\) .*/\1/p"; }
h1=$(lid_of host1); h3=$(lid_of host3); h4=$(lid_of host4); h5=$(lid_of host5)
s2=$(sw_lid sw2)
[ -n "$h1" ] && [ -n "$h3" ] && [ -n "$s2" ] || fail "LIDs from ibnetdiscover: $h1 $h3 $s2"

# ---- ClassPortInfo ----
sa -c | grep -q 'Class version.*2' || fail "saquery -c"

# ---- NodeRecord by LID, against smpquery nodeinfo ----
check_node() {	# LID TYPE NAME
	nr=$(sa NR "$1") || fail "saquery NR $1"
	ni=$(sim_diag -H host2 smpquery nodeinfo "$1") || fail "smpquery nodeinfo $1"
	[ "$(echo "$nr" | grep -c 'NodeRecord dump')" = 1 ] || fail "NR $1: not one record: $nr"
	[ "$(echo "$nr" | field lid)" = "$1" ] || fail "NR $1: lid"
	for f in Guid:node_guid PortGuid:port_guid SystemGuid:sys_guid DevId:device_id \
	    Revision:revision; do
		want=$(echo "$ni" | field "${f%%:*}")
		got=$(echo "$nr" | field "${f#*:}")
		[ "$(hex "$want")" = "$(hex "$got")" ] || fail "NR $1: ${f#*:} $got, smpquery $want"
	done
	[ "$(echo "$nr" | field num_ports)" = "$(echo "$ni" | field NumPorts)" ] || fail "NR $1: num_ports"
	[ "$(echo "$nr" | field port_num)" = "$(echo "$ni" | field LocalPort)" ] || fail "NR $1: port_num"
	[ "$(hex "$(echo "$nr" | field vendor_id)")" = "$(hex "$(echo "$ni" | field VendorId)")" ] ||
	    fail "NR $1: vendor_id $(echo "$nr" | field vendor_id), smpquery $(echo "$ni" | field VendorId)"
	echo "$nr" | field node_type | grep -q "$2" || fail "NR $1: node_type"
	[ "$(echo "$nr" | field NodeDescription)" = "$3" ] || fail "NR $1: description"
}
check_node "$h3" "Channel Adapter" host3
check_node "$s2" "Switch" sw2

# by name: the one node whose record arrives whole (see the header)
g=$(sim_port_guid host1)
[ "$(hex "$(sa host1 | field port_guid)")" = "$(hex "$g")" ] || fail "saquery host1"

# no such LID: nothing, as OpenSM
out=$(sa NR 999) || fail "saquery NR 999 exited $?"
[ -z "$out" ] || fail "NR 999 gave: $out"

# ---- PortInfoRecord by LID, against smpquery portinfo ----
pir=$(sa PIR "$h3") || fail "saquery PIR"
pi=$(sim_diag -H host2 smpquery portinfo "$h3" 1) || fail "smpquery portinfo"
[ "$(echo "$pir" | field EndPortLid)" = "$h3" ] || fail "PIR: EndPortLid"
for f in Lid SMLid LinkWidthActive LinkSpeedActive MtuCap LinkState PhysLinkState LMC CapMask; do
	[ "$(echo "$pir" | field "$f")" = "$(echo "$pi" | field "$f")" ] ||
	    fail "PIR $h3: $f $(echo "$pir" | field "$f"), smpquery $(echo "$pi" | field "$f")"
done
[ "$(sa PIR "$s2" | grep -c 'PortInfoRecord dump')" -ge 1 ] || fail "PIR of a switch"

# ---- SMInfoRecord against sminfo, IsSM ports against smpquery ----
smi=$(sim_diag -H host2 sminfo) || fail sminfo
smir=$(sa SMIR) || fail "saquery SMIR"
[ "$(echo "$smir" | field LID)" = "$(echo "$smi" | sed -n 's/.*sm lid \([0-9]*\) .*/\1/p')" ] ||
    fail "SMIR LID: $smir / $smi"
[ "$(hex "$(echo "$smir" | field GUID)")" = "$(echo "$smi" | sed -n 's/.*sm guid \(0x[0-9a-f]*\),.*/\1/p')" ] ||
    fail "SMIR GUID: $smir / $smi"
[ "$(echo "$smir" | field Priority)" = "$(echo "$smi" | sed -n 's/.* priority \([0-9]*\) .*/\1/p')" ] &&
    [ "$(echo "$smir" | field SMState)" = "$(echo "$smi" | sed -n 's/.* state \([0-9]*\) .*/\1/p')" ] ||
    fail "SMIR priority/state: $smir / $smi"
issm=$(sa -s | sed -n '/^IsSM ports/,/^IsSMdisabled/p' | field EndPortLid)
[ "$issm" = "$h1" ] || fail "saquery -s: IsSM ports '$issm', want the SM's LID $h1"
sim_diag -H host2 smpquery portinfo "$h1" 1 | grep -q '^[[:space:]]*IsSM$' || fail "smpquery: host1 not IsSM"

# ---- LinkRecords: every cable both ways, as ibnetdiscover lists them ----
want=$(echo "$disc" | awk '
	/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") L = $(i + 1); sw = 1; next }
	/^(Ca|Hca)/ { sw = 0; next }
	/^\[/ { match($0, /^\[[0-9]+\]/); p = substr($0, 2, RLENGTH - 2)
		match($0, /"\[[0-9]+\]/); q = substr($0, RSTART + 2, RLENGTH - 3)
		n = 0; for (i = 1; i <= NF; i++) if ($i == "lid") l[++n] = $(i + 1)
		print (sw ? L : l[1]), p, q, l[n] }' | sort)
got=$(sa -x | awk -F'[.]+' '/FromLID/ { a = $2 } /FromPort/ { b = $2 } /ToPort/ { c = $2 }
	/ToLID/ { print a, b, c, $2 }' | sort)
[ "$(echo "$want" | wc -l)" = 14 ] || fail "ibnetdiscover: not 7 cables: $want"
[ "$got" = "$want" ] || fail "LinkRecords differ from ibnetdiscover: $got // $want"

# ---- PathRecord: LIDs, GIDs, MTU, and the rate of the path ibtracert walks ----
# gid_of GUID: the port's GID as saquery prints it (link-local prefix).
gid_of() {
	printf 'fe80::%x:%x:%x:%x' $(($1 >> 48 & 0xffff)) $(($1 >> 32 & 0xffff)) \
	    $(($1 >> 16 & 0xffff)) $(($1 & 0xffff))
}
# props LID PORT: "RATE MTU GBPS" of a port by smpquery portinfo: the IBA
# rate code of width x lane speed, the MTU code of MtuCap.
props() {
	sim_diag -H host2 smpquery portinfo "$1" "$2" | awk -F'[.:]+' '
	/^LinkWidthActive/ { w = $2 + 0 }
	/^LinkSpeedActive/ { s = ($2 ~ /^2$/) ? 2.5 : $2 + 0 }
	/^MtuCap/ { m = $2 + 0 }
	END { g = w * s
	      split("2.5:2 5:5 10:3 20:6 30:4 40:7 60:8 80:9 120:10", t, " ")
	      for (i in t) { split(t[i], kv, ":"); if (kv[1] + 0 == g) r = kv[2] }
	      split("256:1 512:2 1024:3 2048:4 4096:5", u, " ")
	      for (i in u) { split(u[i], kv, ":"); if (kv[1] + 0 == m) c = kv[2] }
	      print r, c, g }'
}
slow_seen=0
check_path() {	# SLID DLID DST-PORT-GUID
	pr=$(sa -p --src-to-dst "$1:$2") || fail "saquery -p $1:$2"
	[ "$(echo "$pr" | grep -c 'PathRecord dump')" = 1 ] || fail "PR $1:$2: $pr"
	[ "$(echo "$pr" | field slid)" = "$1" ] && [ "$(echo "$pr" | field dlid)" = "$2" ] ||
	    fail "PR $1:$2: slid/dlid"
	[ "$(echo "$pr" | field dgid)" = "$(gid_of "$3")" ] ||
	    fail "PR $1:$2: dgid $(echo "$pr" | field dgid), port GUID $3"
	[ "$(echo "$pr" | field sgid)" = "$(gid_of "$(sim_port_guid host1)")" ] || fail "PR $1:$2: sgid"
	[ "$(echo "$pr" | field hop_flow_raw)" = 0x0 ] || fail "PR $1:$2: hop limit not 0 (local path)"
	# the path: each "[out] -> ... lid X" line of ibtracert is the out
	# port of the node before; the slowest of them sets the rate
	tr=$(sim_diag -H host2 ibtracert "$1" "$2") || fail "ibtracert $1 $2"
	min=999 prev=$1 rate= mtu=9
	for hop in $(echo "$tr" | sed -n 's/^\[\([0-9]*\)\] -> .* lid \([0-9]*\)-.*/\1:\2/p'); do
		set -- "$1" "$2" "$3" $(props "$prev" "${hop%%:*}")
		[ -n "$6" ] || fail "no rate for LID $prev port ${hop%%:*}"
		if awk -v a="$6" -v b="$min" 'BEGIN { exit !(a < b) }'; then min=$6 rate=$4; fi
		[ "$5" -lt "$mtu" ] && mtu=$5
		prev=${hop#*:}
	done
	[ -n "$rate" ] || fail "ibtracert $1 $2: no hops: $tr"
	got=$(( $(echo "$pr" | field rate) & 63 ))
	[ "$got" = "$rate" ] || fail "PR $1:$2: rate code $got, slowest port on the ibtracert path $rate"
	got=$(( $(echo "$pr" | field mtu) & 63 ))
	[ "$got" = "$mtu" ] || fail "PR $1:$2: mtu code $got, smallest MtuCap on the path $mtu"
	echo "$tr" | grep -q '^\[8\] -> switch' && slow_seen=$((slow_seen + 1))
	echo "path $1 -> $2: rate code $rate ($min Gb/s), mtu code $mtu"
}
check_path "$h1" "$h3" "$(sim_port_guid host3)"
check_path "$h1" "$h4" "$(sim_port_guid host4)"
check_path "$h1" "$h5" "$(sim_port_guid host5)"
check_path "$h1" "$s2" 0x0002000000000200
[ "$slow_seen" -gt 0 ] || fail "no path crossed the 1x link: the fabric no longer tests the rate"

# by GID: the same path as by LID
pr=$(sa -p --sgid-to-dgid "$(gid_of "$(sim_port_guid host1)")-$(gid_of "$(sim_port_guid host3)")") ||
    fail "saquery --sgid-to-dgid"
[ "$(echo "$pr" | field slid)" = "$h1" ] && [ "$(echo "$pr" | field dlid)" = "$h3" ] ||
    fail "PR by GID: $pr"
out=$(sa -p --src-to-dst "$h1:999") || fail "saquery -p to LID 999 exited $?"
[ -z "$out" ] || fail "PR to LID 999 gave: $out"

# ---- garbage from a raw client ----
res=$(sim_run -H host4 -t 30 "$FABRICD_BUILD/tools/sa_fuzz" -n 400 -s 7) || fail "sa_fuzz: $res"
echo "sa_fuzz: $res"
answered=$(echo "$res" | awk '{ print $4 }')
errors=$(echo "$res" | awk '{ print $6 }')
[ "$answered" -gt 100 ] && [ "$errors" -gt 50 ] || fail "sa_fuzz: too few answers: $res"
kill -0 "$FD_PID" 2>/dev/null || fail "fabricd died under SA garbage"
# the daemon counted at least the error answers the client received
counted=$(ctl --json status | sed -n '/"sa"/,/}/s/.*"errors": \([0-9]*\).*/\1/p')
[ "${counted:-0}" -ge "$errors" ] || fail "status sa.errors $counted < $errors answered"
[ "$(sa NR "$h3" | field lid)" = "$h3" ] || fail "SA not answering after the garbage"

# ---- SL2VL and VLArb table records, against smpquery sl2vl / vlarb ----
# saquery prints " 0| 1|...", smpquery "| 0| 1|..." and VLArb in hex:
# both become "0 1 ..." (decimal).  Under ibsim a GetTable answer is one
# MAD: 10 SL2VL or 2 VLArb records, so each is asked by LID and ports.
nums() { tr '|' '\n' | while read -r v; do [ -n "$v" ] && printf '%d ' "$v"; done; echo; }
sa_row() { sed -n "s/^[[:space:]]*$1[[:space:]]*: *//p" | head -1 | nums; }
check_sl2vl() {	# LID IN OUT (CA: 0 0)
	got=$(sa SL2VL "$1/$2/$3" | sa_row VL)
	want=$(sim_diag -H host2 smpquery sl2vl "$1" "$3" |
	    sed -n "s/^ports: in *$2, out *$3: //p" | nums)
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "SL2VL $1 in $2 out $3: SA '$got', smpquery '$want'"
}
check_vlarb() {	# LID PORT (smpquery's port: 0 for a CA) SA-PORT
	smp=$(sim_diag -H host2 smpquery vlarb "$1" "$2") || fail "smpquery vlarb $1 $2"
	cap=$(echo "$smp" | sed -n 's/.*LowCap \([0-9]*\).*/\1/p')
	for b in 1:1 3:2; do	# block 1: low 0-31, block 3: high 0-31 (smpquery's 1st, 2nd table)
		rec=$(sa VLAR "$1/$3/${b%:*}") || fail "saquery VLAR $1/$3/${b%:*}"
		for f in VL WEIGHT; do
			name=$f; [ $f = WEIGHT ] && name=Weight
			got=$(echo "$rec" | sa_row "$name" | cut -d' ' -f1-"$cap")
			want=$(echo "$smp" | grep "^$f" | sed -n "${b#*:}p" | sed 's/^[A-Z]* *: *//' | nums |
			    cut -d' ' -f1-"$cap")
			[ -n "$want" ] && [ "$got" = "$want" ] ||
			    fail "VLArb $1 port $3 block ${b%:*} $f: SA '$got', smpquery '$want'"
		done
	done
}
check_sl2vl "$h3" 0 0
check_sl2vl "$s2" 1 7
check_sl2vl "$s2" 0 7
check_vlarb "$h3" 0 1
check_vlarb "$s2" 7 7
# GetTable: every record of sw2 out port 7 is what smpquery reads
sa SL2VL "$s2//7" | sed -n 's/^[[:space:]]*InPort\.*//p' > "$T/in7"
[ -s "$T/in7" ] || fail "SL2VL GetTable of $s2 out 7: no record"
while read -r in; do check_sl2vl "$s2" "$in" 7; done < "$T/in7"

# ---- a path goes away with its link ----
sim_console 'Unlink "host5"' || fail console
i=0
until ! sim_diag -H host2 -t 5 ibtracert "$h1" "$h5" >/dev/null 2>&1 &&
    [ -z "$(sa -p --src-to-dst "$h1:$h5")" ]; do
	[ $i -ge 50 ] && fail "PathRecord to unlinked host5 still answered"
	i=$((i + 1))
	sleep 0.2
done
check_path "$h1" "$h3" "$(sim_port_guid host3)"
pass
