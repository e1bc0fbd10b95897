#!/bin/sh
# `nodes` and `links` must not hold the loop (issue 22).  The 1,296-host
# 3-level tree (topogen -p 4: 180 switches, 1,476 nodes, 3,888 cables),
# fabricd on its defaults as the SM.  One reply of 3,888 links was built
# in one step of the loop; both commands now answer in pages (a `next`
# cursor) that fabricctl follows.  Checked from outside:
#  - `nodes` lists exactly the node GUIDs ibnetdiscover sees, each once;
#  - `links` lists exactly the cables ibnetdiscover shows (both ends,
#    NODE:PORT by the descriptions ibnetdiscover gives each GUID), each
#    once, and the table has a heading, a header and one line a cable;
#  - on the socket (tools/ctl_probe): a request without a cursor gets at
#    most 256 rows and a `next`, the page after it shares no row with it,
#    and a malformed cursor is invalid_argument;
#  - while `links` and `nodes` are listed five times each, no span of the
#    loop goes over the suite's CPU bound (loop_gate, tests/lib/common.sh:
#    the loop thread's CPU between two heartbeats; plain build only).  The
#    one-reply `links` was an 18-34 ms step here (3-4 ms before);
#  - the same for five `topology` and `routing` (their own block below).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq
PROBE=$FABRICD_BUILD/tools/ctl_probe

sim_fabric_up -w 60 "-p 4"

# The oracle, from ibnetdiscover: each node heading ("Switch"/"Ca", the
# quoted "S-<GUID>"/"H-<GUID>", its description after #) and each of its
# port lines ("[p]" ... "X-<GUID>"[q]): every cable is seen from both ends.
sim_diag -t 60 ibnetdiscover > "$T/ibnet" || fail ibnetdiscover
awk '/^(Switch|Ca)[ \t]/ { match($0, /"[SH]-[0-9a-f]+"/)
	print "0x" substr($0, RSTART + 3, RLENGTH - 4) }' "$T/ibnet" | sort > "$T/oracle.nodes"
awk 'function guid(s) { match(s, /"[SH]-[0-9a-f]+"/); return substr(s, RSTART + 3, RLENGTH - 4) }
    /^(Switch|Ca)[ \t]/ { g = guid($0); d = $0; sub(/.*# "/, "", d); sub(/".*/, "", d)
	desc[g] = d; next }
    /^\[[0-9]+\]/ { p = substr($0, 2, index($0, "]") - 2) + 0
	rest = $0; match(rest, /"[SH]-[0-9a-f]+"\[[0-9]+\]/)
	peer = substr(rest, RSTART, RLENGTH); q = peer; sub(/.*\[/, "", q); sub(/\]/, "", q)
	end[++n] = g " " p " " guid(peer) " " q }
    END { for (i = 1; i <= n; i++) { split(end[i], e, " ")
	a = desc[e[1]] ":" e[2]; b = desc[e[3]] ":" e[4]
	print (a < b ? a " " b : b " " a) } }' "$T/ibnet" | sort -u > "$T/oracle.links"
nn=$(wc -l < "$T/oracle.nodes")
nl=$(wc -l < "$T/oracle.links")
echo "ibnetdiscover: $nn nodes, $nl cables"
[ "$nn" -eq 1476 ] && [ "$nl" -eq 3888 ] || fail "not the 1,296-host tree: $nn nodes, $nl cables"

loop_gate_start
t0=$(date +%s%N)
for i in 1 2 3 4 5; do
	capture "$T/links.$i.json" ctl --json links
	capture "$T/nodes.$i.json" ctl --json nodes
done
# `qos show` without a port: 8,000 ports' tables were one 242 ms reply
capture "$T/qos.json" ctl --json qos show
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "5 x (links, nodes) and qos show in $ms ms"
loop_gate "5 x (links, nodes) and qos show"

# every listing: the nodes and cables ibnetdiscover sees, each once
for i in 1 5; do
	jq -r '.nodes[].guid' "$T/nodes.$i.json" | sort > "$T/fd.nodes"
	[ -z "$(uniq -d "$T/fd.nodes")" ] || fail "nodes $i: listed twice: $(uniq -d "$T/fd.nodes" | head -3)"
	cmp -s "$T/fd.nodes" "$T/oracle.nodes" || { diff "$T/oracle.nodes" "$T/fd.nodes" | head -5
		fail "nodes $i: $(wc -l < "$T/fd.nodes") nodes, ibnetdiscover $nn"; }
	jq -r '.links[] | [(.from + ":" + (.from_port | tostring)), (.to + ":" + (.to_port | tostring))] |
	    sort | join(" ")' "$T/links.$i.json" | sort > "$T/fd.links"
	[ -z "$(uniq -d "$T/fd.links")" ] || fail "links $i: listed twice: $(uniq -d "$T/fd.links" | head -3)"
	cmp -s "$T/fd.links" "$T/oracle.links" || { diff "$T/oracle.links" "$T/fd.links" | head -5
		fail "links $i: $(wc -l < "$T/fd.links") cables, ibnetdiscover $nl"; }
done
for i in 2 3 4 5; do
	cmp -s "$T/links.$i.json" "$T/links.1.json" || fail "links listing $i differs from the first"
done
# qos show: every cabled end ibnetdiscover shows (a switch port up, a CA
# port with link), each once, beside port 0 of switches only
jq -r '.ports[] | "\(.node):\(.port)"' "$T/qos.json" | sort > "$T/fd.qos"
[ -z "$(uniq -d "$T/fd.qos")" ] || fail "qos show: listed twice: $(uniq -d "$T/fd.qos" | head -3)"
tr ' ' '\n' < "$T/oracle.links" | sort > "$T/oracle.ends"
grep -v ':0$' "$T/fd.qos" | cmp -s - "$T/oracle.ends" || { grep -v ':0$' "$T/fd.qos" |
	diff "$T/oracle.ends" - | head -5; fail "qos show: not the $((nl * 2)) cabled ports"; }
grep ':0$' "$T/fd.qos" | grep -v '^sw-' && fail "qos show: port 0 of a CA"
echo "qos show: $(wc -l < "$T/fd.qos") ports ($(grep -c ':0$' "$T/fd.qos") switch ports 0)"

capture "$T/links.txt" ctl links
[ "$(sed -n 1p "$T/links.txt")" = "links:" ] || fail "links table heading: $(head -1 "$T/links.txt")"
[ "$(wc -l < "$T/links.txt")" -eq $((nl + 2)) ] || fail "links table: $(wc -l < "$T/links.txt") lines"

# the pages on the socket: a raw client that sends no cursor
for cmd in nodes links qos.show; do
	key=$cmd; [ "$cmd" = qos.show ] && key=ports
	capture "$T/p1" "$PROBE" "$SOCK" send "{\"v\":1,\"id\":1,\"cmd\":\"$cmd\",\"args\":{}}"
	jq -e --arg c "$key" '.ok and (.result[$c] | length) >= 1 and (.result[$c] | length) <= 256 and
	    (.result.next | type) == "string"' "$T/p1" >/dev/null || fail "$cmd first page: $(head -c 300 "$T/p1")"
	next=$(jq -r '.result.next' "$T/p1")
	capture "$T/p2" "$PROBE" "$SOCK" send \
	    "{\"v\":1,\"id\":2,\"cmd\":\"$cmd\",\"args\":{\"after\":\"$next\"}}"
	jq -c --arg c "$key" '.result[$c][]' "$T/p1" "$T/p2" | sort > "$T/pages"
	[ "$(jq --arg c "$key" '.result[$c] | length' "$T/p2")" -ge 1 ] && [ -z "$(uniq -d "$T/pages")" ] ||
	    fail "$cmd second page: $(head -c 300 "$T/p2")"
	for bad in 'zz' '0x1:256' '0x1:1 ' '' '0x12345678901234567'; do
		capture "$T/bad" "$PROBE" "$SOCK" send \
		    "{\"v\":1,\"id\":3,\"cmd\":\"$cmd\",\"args\":{\"after\":\"$bad\"}}"
		jq -e '.ok == false and .error.code == "invalid_argument"' "$T/bad" >/dev/null ||
		    fail "$cmd cursor \"$bad\": $(cat "$T/bad")"
	done
done
# each command's cursor is its own: a node cursor is no link cursor
capture "$T/bad" "$PROBE" "$SOCK" send '{"v":1,"id":4,"cmd":"links","args":{"after":"0x1"}}'
jq -e '.error.code == "invalid_argument"' "$T/bad" >/dev/null || fail "links after 0x1: $(cat "$T/bad")"

# `topology` (684 KB of ibnetdiscover text) and `routing` (every CA pair
# walked) were one step each: 10-30 ms and 18-23 ms here.  The topology
# now comes as text_part stream items that fabricctl joins; the joined
# text has ibnetdiscover's nodes and both ends of its cables.
loop_gate_start
for i in 1 2 3 4 5; do
	capture "$T/topo.$i.txt" ctl topology
	capture "$T/routing.$i.txt" ctl routing
done
loop_gate "5 x (topology, routing)"
for f in "$T/ibnet" "$T/topo.5.txt"; do
	grep -Ec '^(Switch|Ca)[[:space:]]' "$f"
	grep -c '^\[' "$f"
done > "$T/topo.counts"
[ "$(sed -n 1p "$T/topo.counts") $(sed -n 2p "$T/topo.counts")" = \
    "$(sed -n 3p "$T/topo.counts") $(sed -n 4p "$T/topo.counts")" ] ||
    fail "topology: nodes and port lines $(sed -n 3,4p "$T/topo.counts" | tr '\n' ' ')vs ibnetdiscover's $(sed -n 1,2p "$T/topo.counts" | tr '\n' ' ')"
cmp -s "$T/topo.1.txt" "$T/topo.5.txt" || fail "topology: two exports of one model differ"
grep -q "^CA pairs routed $((1296 * 1295)), failed 0" "$T/routing.5.txt" ||
    fail "routing: $(grep '^CA pairs' "$T/routing.5.txt")"
capture "$T/topo.raw" "$PROBE" "$SOCK" lines '{"v":1,"id":5,"cmd":"topology","args":{}}'
parts=$(grep -c '"text_part"' "$T/topo.raw")
echo "topology on the socket: $parts text_part items, $(wc -c < "$T/topo.raw") bytes"
[ "$parts" -ge 10 ] && grep -q '"ok": *true' "$T/topo.raw" ||
    fail "topology: $parts parts: $(head -c 300 "$T/topo.raw")"

fd_stop
pass
