#!/bin/sh
# `qos show` gives only tables it read, or says it did not read them
# (issue 42).  On its defaults (QoS on, no policy) fabricd reads a CA
# port's SL2VL table at each sweep, but neither VL arbitration table and
# few of a switch's (in, out) pairs; the mirror's unknown blocks (all
# 0xFF) were shown as eight VL15:255 entries.  On a small ibsim fat tree,
# against smpquery run from another host:
#  1. the listing (which reads nothing itself): every table of host1-8
#     and of sw-l1's ports is either what smpquery reads there or null
#     with a reason in not_read; host3's VLArb tables are null (nothing
#     read them), and the human form says "not read" on those lines;
#  2. qos show host3:1 reads what it has not first: SL2VL and both VLArb
#     tables are smpquery's, in --json and in the human form; the listing
#     gives them from then on, and still not host1's;
#  3. qos show sw-l1:3: every in port's SL2VL and both VLArb tables are
#     smpquery's;
#  4. QoS off (nothing read at all): host3's tables null, not_read says so.
# Seen failing on 9eaed61 (main before this; qos show as on 5f2420a), at
# its first table: "listing: host1: vlarb_high is [[15,255],[15,255],...]
# where smpquery reads [[0,4],[1,0],[2,0],...]".
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq smpquery ibnetdiscover
sim_fabric_up "-P 8 -k 4 -h 2 -s 2"
sim_diag -t 30 ibnetdiscover > "$T/disc.txt" || fail "ibnetdiscover"

# lid_of NAME: the LID of a host, or of a switch's port 0
lid_of() {
	_l=$(sed -n "s/.*\"$1\" lid \([0-9]*\) .*/\1/p" "$T/disc.txt" | head -1)
	[ -n "$_l" ] || fail "no LID for $1"
	echo "$_l"
}

# vlarb_of LID [PORT] > FILE: smpquery's two tables as qos show writes
# them, one line each: "low [[VL,WEIGHT],...]" and "high [...]".
vlarb_of() {
	sim_diag smpquery vlarb "$@" | awk '
	function num(s,   n, i) { s = tolower(s); gsub(/ /, "", s); sub(/^0x/, "", s); n = 0
		for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n }
	function flush() { if (t != "") { out = ""
		for (i = 1; i <= nv; i++) out = out (i > 1 ? "," : "") "[" v[i] "," w[i] "]"
		print t, "[" out "]" }; nv = nw = 0 }
	/^# Low priority/ { flush(); t = "low"; next }
	/^# High priority/ { flush(); t = "high"; next }
	/^VL/ { n = split($0, f, "|"); for (i = 2; i < n; i++) v[++nv] = num(f[i]); next }
	/^WEIGHT/ { n = split($0, f, "|"); for (i = 2; i < n; i++) w[++nw] = num(f[i]); next }
	END { flush() }'
}

# sl2vl_of LID [OUT] > FILE: "IN [VL of SL 0,...,VL of SL 15]" a line
sl2vl_of() {
	sim_diag smpquery sl2vl "$@" | awk -F'|' '/^ports: in/ { split($1, a, /[ ,:]+/); out = ""
		for (i = 2; i < NF; i++) { x = $i; gsub(/ /, "", x); out = out (i > 2 ? "," : "") x }
		print a[3], "[" out "]" }'
}

# check_port JSON-PORT NAME LID [OUT]: each table of one port of a qos show
# reply is smpquery's, or null with a reason; prints "read" or "unread"
# for each of sl2vl, vlarb_high, vlarb_low.
check_port() {
	echo "$1" > "$T/port.json"
	vlarb_of "$3" $4 > "$T/vlarb.txt"
	sl2vl_of "$3" $4 > "$T/sl2vl.txt"
	[ "$(wc -l < "$T/vlarb.txt")" = 2 ] || fail "smpquery vlarb $3 $4: $(cat "$T/vlarb.txt")"
	[ -s "$T/sl2vl.txt" ] || fail "smpquery sl2vl $3 $4 read nothing"
	for key in sl2vl vlarb_high vlarb_low; do
		got=$(jq -c ".$key" "$T/port.json")
		case $key in
		sl2vl) want=$(sed -n 's/^0 //p' "$T/sl2vl.txt") ;;
		*) want=$(sed -n "s/^${key#vlarb_} //p" "$T/vlarb.txt") ;;
		esac
		if [ "$got" = null ]; then
			why=$(jq -r ".not_read.$key // empty" "$T/port.json")
			[ -n "$why" ] || fail "$2: $key is null and not_read gives no reason: $1"
			echo "$key unread"
		else
			[ "$got" = "$want" ] || fail "$2: $key is $got where smpquery reads $want"
			echo "$key read"
		fi
	done
}

# 1. the listing: nothing read for it
ctl --json qos show > "$T/list.json" || fail "qos show"
for h in host1 host2 host3 host4 host5 host6 host7 host8; do
	p=$(jq -c ".ports[] | select(.node == \"$h\" and .port == 1)" "$T/list.json")
	[ -n "$p" ] || fail "listing: no $h:1"
	check_port "$p" "listing: $h" "$(lid_of "$h")" > "$T/$h.state"
done
grep -qx 'sl2vl read' "$T/host3.state" || fail "listing: host3's SL2VL table (the sweep reads it) not read"
grep -qx 'vlarb_high unread' "$T/host3.state" && grep -qx 'vlarb_low unread' "$T/host3.state" ||
    fail "listing: host3's VLArb tables, which nothing read, given as read: $(cat "$T/host3.state")"
l1=$(sed -n 's/^Switch.*"sw-l1".* lid \([0-9]*\) .*/\1/p' "$T/disc.txt")
[ -n "$l1" ] || fail "no LID for sw-l1"
n=0
for port in $(jq -r '.ports[] | select(.node == "sw-l1") | .port' "$T/list.json"); do
	p=$(jq -c ".ports[] | select(.node == \"sw-l1\" and .port == $port)" "$T/list.json")
	check_port "$p" "listing: sw-l1:$port" "$l1" "$port" > /dev/null
	n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "listing: $n ports of sw-l1"
# the human form: "not read" on host3's VLArb lines, no entries
ctl qos show > "$T/list.txt" || fail "qos show (human)"
awk '/^host3:1 / { on = 1; next } /^$/ { on = 0 } on' "$T/list.txt" > "$T/host3.txt"
grep -q '^  VLArb high   not read: ' "$T/host3.txt" && grep -q '^  VLArb low    not read: ' "$T/host3.txt" ||
    fail "listing, human: host3's VLArb lines do not say not read: $(cat "$T/host3.txt")"

# 2. one port: its unread tables are read first
ctl --json qos show host3:1 > "$T/host3.json" || fail "qos show host3:1"
check_port "$(jq -c '.ports[0]' "$T/host3.json")" "host3:1" "$(lid_of host3)" > "$T/host3.state"
[ "$(grep -c ' read$' "$T/host3.state")" = 3 ] ||
    fail "qos show host3:1 did not read its tables: $(cat "$T/host3.state")"
# the human form: the same entries ("VL0:4 VL1:0 x2" is VL0:4 VL1:0 VL1:0)
entries() {
	awk -v name="$1" 'index($0, "  " name " ") == 1 { sub(/^  VLArb [a-z]+ +/, "")
		n = split($0, t, " "); out = ""
		for (i = 1; i <= n; i++) if (t[i] ~ /^x[0-9]+$/) { for (k = 1; k < substr(t[i], 2) + 0; k++) out = out " " last }
		else { last = t[i]; sub(/^VL/, "", last); sub(/:/, ",", last); last = "[" last "]"; out = out " " last }
		gsub(/^ /, "", out); gsub(/ /, ",", out); print "[" out "]" }' "$2"
}
ctl qos show host3:1 > "$T/host3.txt" || fail "qos show host3:1 (human)"
vlarb_of "$(lid_of host3)" > "$T/vlarb.txt"
for t in high low; do
	want=$(sed -n "s/^$t //p" "$T/vlarb.txt")
	got=$(entries "VLArb $t" "$T/host3.txt")
	[ "$got" = "$want" ] || fail "qos show host3:1, human: VLArb $t $got, smpquery $want: $(cat "$T/host3.txt")"
done
# read once, known from then on: the listing gives host3's, not host1's
ctl --json qos show > "$T/list.json" || fail "qos show"
check_port "$(jq -c '.ports[] | select(.node == "host3")' "$T/list.json")" "listing after" \
    "$(lid_of host3)" > "$T/host3.state"
[ "$(grep -c ' read$' "$T/host3.state")" = 3 ] || fail "listing after host3:1: $(cat "$T/host3.state")"
check_port "$(jq -c '.ports[] | select(.node == "host1")' "$T/list.json")" "listing after" \
    "$(lid_of host1)" > "$T/host1.state"
grep -qx 'vlarb_high unread' "$T/host1.state" || fail "listing after host3:1: host1's VLArb read"

# 3. a switch port: every in port's SL2VL table, and both VLArb tables
ctl --json qos show sw-l1:3 > "$T/sw.json" || fail "qos show sw-l1:3"
check_port "$(jq -c '.ports[0]' "$T/sw.json")" "sw-l1:3" "$l1" 3 > "$T/sw.state"
[ "$(grep -c ' read$' "$T/sw.state")" = 3 ] || fail "qos show sw-l1:3: $(cat "$T/sw.state")"
sl2vl_of "$l1" 3 > "$T/sl2vl.txt"
jq -r '.ports[0].sl2vl_by_in[] | "\(.in) \(.sl2vl | tojson)"' "$T/sw.json" > "$T/sw.rows"
[ "$(wc -l < "$T/sw.rows")" -ge 5 ] || fail "qos show sw-l1:3: $(wc -l < "$T/sw.rows") in ports"
diff "$T/sl2vl.txt" "$T/sw.rows" > "$T/diff.txt" || { cat "$T/diff.txt"; fail "qos show sw-l1:3: SL2VL by in port is not smpquery's"; }

# 4. QoS off: nothing is read, and every table says so
fd_stop
sm_start_fabricd host1 '  qos:
    enabled: false'
sm_wait_up 30 || fail "subnet not up with QoS off"
ctl --json qos show host3:1 > "$T/off.json" || fail "qos show host3:1, QoS off"
for key in sl2vl vlarb_high vlarb_low; do
	[ "$(jq -c ".ports[0].$key" "$T/off.json")" = null ] || fail "QoS off: $key given: $(cat "$T/off.json")"
	jq -r ".ports[0].not_read.$key // empty" "$T/off.json" | grep -q 'QoS is off' ||
	    fail "QoS off: not_read.$key does not say so: $(cat "$T/off.json")"
done
pass
