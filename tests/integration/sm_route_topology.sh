#!/bin/sh
# `route` and `topology`, judged by infiniband-diags run as other clients
# of the simulator: (a) the switches `route --json` lists, in order, are
# the ones ibtracert walks (its own LID-routed queries of the switches),
# for pairs named by node name, port GUID, node GUID and LID; (b) the
# `topology` text, read by the same awk as the real ibnetdiscover output,
# gives the same nodes (GUID, type, LID) and links (guid:port pairs);
# (c) `topology --format dot` bundles every link ibnetdiscover counts,
# and dot accepts it when graphviz is installed; (d) after an inter-switch
# Unlink and the reroute, a pair that used the link still agrees with
# ibtracert; (e) an unknown end is exit 1 and a not_found error naming it.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup
SM_SWEEP=2s

# canon FILE: an ibnetdiscover topology file as sorted facts:
#   node S-<guid> switch LID | node H-<guid> ca | caport H-<guid>:P LID
#   link A:P B:Q  (the lower end first; once from each end, as both ends
#                  list their cabled ports)
canon() {
	awk '
	/^(Switch|Ca|Hca|Rt)[ \t]/ {
		split($0, q, "\""); cur = q[2]; type = $1
		if (type == "Switch") {
			l = $0; sub(/.* port 0 lid /, "", l); sub(/ .*/, "", l)
			print "node", cur, "switch", l
		} else
			print "node", cur, (type == "Rt" ? "router" : "ca")
		next
	}
	/^\[/ && cur != "" {
		p = substr($0, 2) + 0
		split($0, q, "\""); rest = q[3]
		rp = substr(rest, index(rest, "[") + 1) + 0
		a = cur ":" p; b = q[2] ":" rp
		if (a > b) { t = a; a = b; b = t }
		print "link", a, b
		if (type != "Switch") {
			split($0, h, "#"); l = h[2]; sub(/^[ \t]*lid /, "", l); sub(/ .*/, "", l)
			print "caport", cur ":" p, l
		}
		next
	}
	/^$/ { cur = "" }' "$1" | sort
}

# route_switches SRC DST: the switch GUIDs `route --json` lists, in order.
route_switches() {
	ctl --json route "$1" "$2" | awk '
	/"hops": \[/ { on = 1; next }
	on && /^  \]/ { on = 0 }
	on && /"guid":/ { g = $2; gsub(/[",]/, "", g) }
	on && /"type":/ { t = $2; gsub(/[",]/, "", t) }
	on && /^    }/ { if (t == "switch") print g; g = t = "" }'
}

# tracert_switches SLID DLID: the switch GUIDs ibtracert walks, in order.
tracert_switches() {
	sim_diag ibtracert "$1" "$2" | sed -n 's/.*switch port {\(0x[0-9a-fA-F]*\)}.*/\1/p' | tr 'A-F' 'a-f'
}

# agree SRC DST SLID DLID: route SRC DST walks ibtracert's switches.
agree() {
	want=$(tracert_switches "$3" "$4")
	got=$(route_switches "$1" "$2")
	[ -n "$want" ] || { echo "ibtracert $3 -> $4 found no switch"; return 1; }
	[ "$got" = "$want" ] && return 0
	echo "route $1 $2: [$(echo $got)], ibtracert $3 -> $4: [$(echo $want)]"
	return 1
}

node_guid() {	# HOST: node GUID from the net file (port GUID - 1)
	g=$(sim_port_guid "$1") && printf '0x%016x\n' $((g - 1))
}

sim_fabric_up "-P 8 -k 4 -h 4 -s 4 -x sw-l3:7"
sim_diag ibnetdiscover > "$T/disc.txt" || fail ibnetdiscover
lid() { sed -n "s/.*\"$1\" lid \([0-9]*\) .*/\1/p" "$T/disc.txt" | head -1; }

# (a) route vs ibtracert, each pair named a different way
for pair in "host1 host9" "host6 host16" "host12 host3" "host15 host14" "host4 host7"; do
	set -- $pair
	s=$(lid "$1") d=$(lid "$2")
	[ -n "$s" ] && [ -n "$d" ] || fail "no LID for $1 or $2 in ibnetdiscover"
	agree "$1" "$2" "$s" "$d" || fail "by name"
	agree "$(sim_port_guid "$1")" "$(sim_port_guid "$2")" "$s" "$d" || fail "by port GUID"
	agree "$(node_guid "$1")" "$2" "$s" "$d" || fail "by node GUID"
	agree "$s" "$d" "$s" "$d" || fail "by LID"
done
# the ends as named: the LIDs ibnetdiscover shows
ctl --json route host6 host16 | tr -d ' \n' | grep -q "\"dst\":{\"name\":\"host16\",[^}]*\"lid\":$(lid host16)}" ||
    fail "route host6 host16: dst is not host16 with LID $(lid host16)"
ctl route host6 host16 > "$T/route.txt" || fail "route exit status $? on a good route"
grep -c ' -> ' "$T/route.txt" | grep -qx "$(( $(tracert_switches "$(lid host6)" "$(lid host16)" | wc -l) + 1 ))" ||
    fail "route prints one line per hop: $(cat "$T/route.txt")"
echo "route agrees with ibtracert on 5 pairs x 4 namings"

# (b) topology vs ibnetdiscover, facts parsed by the same awk
ctl topology > "$T/ours.txt" || fail "topology"
canon "$T/disc.txt" > "$T/want"
canon "$T/ours.txt" > "$T/got"
nodes=$(grep -c '^node' "$T/want")
links=$(grep '^link' "$T/want" | sort -u | wc -l)
[ "$(grep -c '^link' "$T/want")" -eq $((2 * links)) ] || fail "ibnetdiscover: a link not listed from both ends"
[ "$nodes" -eq 24 ] && [ "$links" -eq 32 ] || fail "ibnetdiscover: $nodes nodes, $links links (want 24, 32)"
diff "$T/want" "$T/got" > "$T/diff" || { head -20 "$T/diff"; fail "topology differs from ibnetdiscover"; }
echo "topology: $nodes nodes and $links links as ibnetdiscover"

# (c) dot, grouped: the cables its bundles count (labelled edges, group
# boxes, host boxes; not a group's per-pod boxes, which split its count)
# are ibnetdiscover's links; only the bundle holding the degraded link is
# red, and so are its two lines (upper switch to the box, box to sw-l3)
ctl topology --format dot > "$T/ours.dot" || fail "topology --format dot"
grep -v '^	"group-[0-9]*-[0-9]*" \[' "$T/ours.dot" | grep -o 'label="[^"]*"' > "$T/bundles"
edges=$(grep -o '[0-9][0-9]* x [0-9]*x[A-Z]*' "$T/bundles" | awk '{ s += $1 } END { print s + 0 }')
[ "$edges" -eq "$links" ] || fail "dot: bundles count $edges cables, ibnetdiscover $links links"
grep '1 degraded' "$T/ours.dot" | grep -q 'color=red' || fail "dot: degraded link not marked"
[ "$(grep -c 'degraded' "$T/bundles")" -eq 1 ] || fail "dot: not exactly one degraded bundle"
[ "$(grep ' -- ' "$T/ours.dot" | grep -c 'color=red')" -ge 1 ] || fail "dot: no red line"
if command -v dot >/dev/null 2>&1; then
	dot -Tsvg "$T/ours.dot" > "$T/ours.svg" || fail "dot rejects the export"
else
	echo "graphviz not installed: dot syntax not checked"
fi

# (d) Unlink an inter-switch link a route uses, then compare again
pick=
for h in host1 host2 host3 host4 host9 host10 host11 host12 host13 host14 host15 host16; do
	# ibtracert: line 2 is the hop out of sw-l2, "[out] -> ..."
	if sim_diag ibtracert "$(lid host5)" "$(lid "$h")" | sed -n 3p | grep -q '^\[5\] ->'; then
		pick=$h
		break
	fi
done
[ -n "$pick" ] || fail "no route from host5 leaves sw-l2 by port 5"
agree host5 "$pick" "$(lid host5)" "$(lid "$pick")" || fail "before Unlink"
rerouted() { sim_diag ibtracert "$(lid host5)" "$(lid "$pick")" > "$T/tr.txt" &&
    grep -q '^To ca' "$T/tr.txt" && ! sed -n 3p "$T/tr.txt" | grep -q '^\[5\] ->'; }
s0=$(db "SELECT max(id) FROM sm_sweeps")
sim_console 'Unlink "sw-l2"[5]' || fail console
# within three sweeps (counted: sm_within_sweeps), not seconds
sm_within_sweeps "$s0" 3 "host5 -> $pick rerouted off sw-l2[5]" rerouted
ctl sweep > /dev/null || fail "sweep"
agree host5 "$pick" "$(lid host5)" "$(lid "$pick")" || fail "after Unlink"
agree "$pick" host5 "$(lid "$pick")" "$(lid host5)" || fail "after Unlink, reverse"
ctl --json topology | grep -q "\"links\": $((links - 1))," || fail "topology still counts the unlinked cable"
echo "after Unlink sw-l2[5]: host5 -> $pick agrees with ibtracert"

# (e) unknown ends
ctl --json route nosuch host1 > "$T/err.json"
rc=$?
[ "$rc" -eq 1 ] || fail "bad SRC: exit $rc, want 1"
grep -q '"code": "not_found"' "$T/err.json" || fail "bad SRC: $(cat "$T/err.json")"
grep -q '"message": "src:' "$T/err.json" || fail "bad SRC: error does not name src"
ctl --json route host1 0x7777 > "$T/err.json"
[ $? -eq 1 ] && grep -q '"message": "dst:' "$T/err.json" || fail "bad DST: $(cat "$T/err.json")"
ctl topology --format xml > /dev/null 2>&1 && fail "topology --format xml accepted"
pass
