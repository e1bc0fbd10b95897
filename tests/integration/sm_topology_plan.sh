#!/bin/sh
# The cabling-plan check and the Slurm and dot exports, judged by
# ibnetdiscover run as another client of the simulator.  The plan is a
# 2-level fat tree from tools/topogen; the simulated fabric is that plan
# with two cables swapped (host1 and host3 exchange their leaf ports) and
# one uplink (sw-l4's last) left out.
#   (a) `topology diff PLAN` names exactly those by both ends: one swapped
#       pair and one missing cable, nothing extra; the same from a CSV of
#       the plan; and the differences are those between the plan and
#       ibnetdiscover's view, computed here with awk and comm;
#   (b) ibnetdiscover's own output as the plan: no difference (exit 0);
#   (c) a malformed CSV line: exit 2, FILE:LINE:COLUMN;
#   (d) `--format slurm`: every leaf ibnetdiscover sees, with exactly the
#       hosts cabled to it, each spine with the leaves it is cabled to;
#       `--format slurm-yaml` the same tree, read by a YAML parser;
#   (e) `--format dot`: one rank per level and every cable counted once
#       in the bundled edges;
#   (f) ports are NODE:PORT everywhere: the active ports' (port, peer)
#       pairs are ibnetdiscover's cables, --state and --degraded filter as
#       iblinkinfo counts, SM events name a port once with ibnetdiscover's
#       LID, health port shows the state by name and takes NODE[PORT] too.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq
SM_SWEEP=2s

sim_topology -k 4 -h 2 -s 2 || fail topogen
cp "$SIM_DIR/topo.net" "$T/plan.net"

# relink NODE PORT PEER PEERPORT: in NODE's section, port PORT now goes to
# PEER[PEERPORT] (PEER "": the port line goes away).
relink() {
	awk -v n="$1" -v p="$2" -v peer="$3" -v pp="$4" '
	/^(Switch|Hca|Ca)[ \t]/ { split($0, q, "\""); cur = q[2] }
	/^\[/ && cur == n && substr($0, 2) + 0 == p {
		if (peer == "") next
		sub(/"[^"]*"\[[0-9]*\]/, "\"" peer "\"[" pp "]")
	}
	{ print }' "$SIM_DIR/topo.net" > "$T/net.tmp" && mv "$T/net.tmp" "$SIM_DIR/topo.net"
}
last=$(awk '/^Switch.*"sw-l4"/ { on = 1; next } /^$/ { on = 0 } on && /^\[/ { l = $0 } END { print l }' "$T/plan.net")
lp=$(printf '%s' "$last" | sed 's/^\[\([0-9]*\)\].*/\1/')
sp=$(printf '%s' "$last" | sed 's/^[^"]*"\([^"]*\)"\[\([0-9]*\)\].*/\1 \2/')
set -- $sp
spine=$1 spine_port=$2
[ -n "$lp" ] && [ -n "$spine" ] || fail "no uplink of sw-l4 in the plan"
relink sw-l1 1 host3 1
relink sw-l2 1 host1 1
relink host1 1 sw-l2 1
relink host3 1 sw-l1 1
relink sw-l4 "$lp" "" ""
relink "$spine" "$spine_port" "" ""

sim_start || fail "ibsim refused the edited fabric"
sm_start_fabricd host2
sm_wait_up 30 || fail "subnet not up"
sim_diag ibnetdiscover > "$T/disc.txt" || fail ibnetdiscover
grep -q '^Ca' "$T/disc.txt" || fail "ibnetdiscover saw no CA"

# cables FILE: "a:p b:q" per cable (names: a host's hostname, a switch's
# description), sorted, each once; for both topogen's and ibnetdiscover's files.
cables() {
	awk '
	/^(Switch|Ca|Hca|Rt)[ \t]/ {
		split($0, q, "\""); id = q[2]; name = id
		if (index($0, "#")) { split(substr($0, index($0, "#")), d, "\""); if (d[2] != "") name = d[2] }
		if ($1 != "Switch") sub(/[ \t].*/, "", name)
		names[id] = name
	}' "$1" > /dev/null
	awk '
	FNR == NR && /^(Switch|Ca|Hca|Rt)[ \t]/ {
		split($0, q, "\""); id = q[2]; name = id
		if (index($0, "#")) { split(substr($0, index($0, "#")), d, "\""); if (d[2] != "") name = d[2] }
		if ($1 != "Switch") sub(/[ \t].*/, "", name)
		names[id] = name; next
	}
	FNR == NR { next }
	/^(Switch|Ca|Hca|Rt)[ \t]/ { split($0, q, "\""); cur = names[q[2]]; next }
	/^\[/ && cur != "" {
		p = substr($0, 2) + 0
		split($0, q, "\""); rest = q[3]; rp = substr(rest, index(rest, "[") + 1) + 0
		peer = (q[2] in names) ? names[q[2]] : q[2]
		a = cur ":" p; b = peer ":" rp
		if (a > b) { t = a; a = b; b = t }
		print a, b
	}' "$1" "$1" | sort -u
}
cables "$T/plan.net" > "$T/plan.cables"
cables "$T/disc.txt" > "$T/live.cables"
[ "$(wc -l < "$T/plan.cables")" -eq 80 ] || fail "plan: $(wc -l < "$T/plan.cables") cables, want 80"
[ "$(wc -l < "$T/live.cables")" -eq 79 ] || fail "ibnetdiscover: $(wc -l < "$T/live.cables") cables, want 79"

# diff_sets JSON: "missing A B" and "extra A B" lines, swaps unfolded
# (a swap is two planned cables missing and two found instead), sorted.
diff_sets() {
	jq -r '(.missing[] | "missing \(.a) \(.b)"), (.extra[] | "extra \(.a) \(.b)"),
	    (.swapped[] | (.plan[] | "missing \(.a) \(.b)"), (.live[] | "extra \(.a) \(.b)"))' "$1" |
	    awk '{ a = $2; b = $3; if (a > b) { t = a; a = b; b = t } print $1, a, b }' | sort
}
{ comm -23 "$T/plan.cables" "$T/live.cables" | sed 's/^/missing /'
  comm -13 "$T/plan.cables" "$T/live.cables" | sed 's/^/extra /'; } | sort > "$T/want.sets"

# (a) the plan as topogen wrote it
(cd "$T" && ctl --json topology diff plan.net) > "$T/diff.json"
rc=$?
[ $rc -eq 1 ] || fail "topology diff: exit $rc with faults in the fabric, want 1"
diff_sets "$T/diff.json" > "$T/got.sets"
diff "$T/want.sets" "$T/got.sets" > /dev/null || { diff "$T/want.sets" "$T/got.sets"; fail "diff is not ibnetdiscover's view against the plan"; }
jq -e '(.missing | length) == 1 and (.extra | length) == 0 and (.swapped | length) == 1' "$T/diff.json" >/dev/null ||
    fail "want one missing, one swapped pair: $(cat "$T/diff.json")"
m=$(jq -r '.missing[0] | [.a, .b] | sort | join(" ")' "$T/diff.json")
[ "$m" = "$(printf '%s\n' "sw-l4:$lp" "$spine:$spine_port" | LC_ALL=C sort | paste -sd' ')" ] || fail "missing cable: $m, want sw-l4:$lp <-> $spine:$spine_port"
sw=$(jq -r '.swapped[0] | [(.plan[] | [.a, .b] | sort | join("-")), "/", (.live[] | [.a, .b] | sort | join("-"))] | join(" ")' "$T/diff.json")
[ "$sw" = "host1:1-sw-l1:1 host3:1-sw-l2:1 / host1:1-sw-l2:1 host3:1-sw-l1:1" ] || fail "swap: $sw"
jq -e '.plan_cables == 80 and .live_cables == 79 and .matching == 77 and .format == "ibnetdiscover"' "$T/diff.json" >/dev/null ||
    fail "counts: $(jq -c '{plan_cables, live_cables, matching, format}' "$T/diff.json")"
echo "topology diff: one swapped pair and one missing cable, as ibnetdiscover shows them"

# ... and as a CSV (a header, a comment, blanks around fields)
{ echo "node,port,peer,peer_port"; echo "# the same plan"
  tr ':' ',' < "$T/plan.cables" | sed 's/ /, /'; } > "$T/plan.csv"
ctl --json topology diff "$T/plan.csv" > "$T/diff.csv.json"
[ $? -eq 1 ] || fail "topology diff CSV: exit status"
diff_sets "$T/diff.csv.json" | diff "$T/want.sets" - >/dev/null || fail "CSV plan: another answer"
jq -e '.format == "csv"' "$T/diff.csv.json" >/dev/null || fail "CSV not read as CSV"

# (b) ibnetdiscover's own file, H-/S- ids and all: nothing differs
ctl --json topology diff "$T/disc.txt" > "$T/diff.same.json" || fail "diff against ibnetdiscover: exit $?: $(cat "$T/diff.same.json")"
jq -e '.matching == 79 and (.missing | length) == 0 and (.extra | length) == 0 and (.swapped | length) == 0' \
    "$T/diff.same.json" >/dev/null || fail "ibnetdiscover's view differs: $(cat "$T/diff.same.json")"

# (c) a malformed plan: a usage error naming FILE:LINE:COLUMN
printf 'sw-l1,1,host1,1\nsw-l1, x,host2,1\n' > "$T/bad.csv"
ctl --json topology diff "$T/bad.csv" > "$T/bad.json" 2>/dev/null
[ $? -eq 2 ] || fail "malformed plan: exit status"
jq -r .error.message "$T/bad.json" | grep -q "bad.csv:2:8: port must be a number" ||
    fail "malformed plan: $(cat "$T/bad.json")"

# (d) Slurm: leaf -> hosts and spine -> leaves from ibnetdiscover's file
awk '
/^(Switch|Ca|Hca)[ \t]/ {
	split($0, q, "\""); id = q[2]; split(substr($0, index($0, "#")), d, "\"")
	name[id] = d[2]; type[id] = $1; cur = id; next
}
/^\[/ && cur != "" { split($0, q, "\""); peer[cur] = peer[cur] " " q[2] }
END {
	for (s in type) if (type[s] == "Switch") {
		hosts = ""; sws = ""
		n = split(peer[s], v, " ")
		for (i = 1; i <= n; i++)
			if (type[v[i]] != "Switch") hosts = hosts " " name[v[i]]
			else if (!(v[i] in seen)) sws = sws " " v[i]
		if (hosts != "") print "leaf", name[s], hosts
		else { n = split(sws, w, " "); for (i = 1; i <= n; i++) print "up", name[s], name[w[i]] }
	}
}' "$T/disc.txt" | awk '$1 == "leaf" { for (i = 3; i <= NF; i++) print "leaf", $2, $i; next } { print }' |
    sort -u > "$T/slurm.want"
# expand EXPR: a Slurm hostlist of prefix[a-b,c] groups and plain names
expand() {
	printf '%s\n' "$1" | awk '{
		s = $0
		while (s != "") {
			if (match(s, /^[^,\[]*\[[^]]*\]/)) { g = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1) }
			else if (match(s, /^[^,]*/)) { g = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1) }
			sub(/^,/, "", s)
			if (index(g, "[")) {
				pre = substr(g, 1, index(g, "[") - 1); body = substr(g, index(g, "[") + 1)
				sub(/\]$/, "", body); n = split(body, r, ",")
				for (i = 1; i <= n; i++) {
					if (split(r[i], ab, "-") == 2) for (k = ab[1] + 0; k <= ab[2] + 0; k++) print pre k
					else print pre r[i]
				}
			} else if (g != "") print g
		}
	}'
}
ctl --json topology --format slurm | jq -r .text > "$T/topology.conf" || fail "topology --format slurm"
grep -v '^#' "$T/topology.conf" | grep . | while read -r sw list; do
	name=${sw#SwitchName=}
	case $list in
	Nodes=*) for h in $(expand "${list#Nodes=}"); do echo "leaf $name $h"; done ;;
	Switches=*) for s in $(expand "${list#Switches=}"); do echo "up $name $s"; done ;;
	*) echo "bad line: $sw $list" ;;
	esac
done | sort -u > "$T/slurm.got"
diff "$T/slurm.want" "$T/slurm.got" >/dev/null || { diff "$T/slurm.want" "$T/slurm.got"; fail "topology.conf is not ibnetdiscover's tree"; }
[ "$(grep -c '^leaf' "$T/slurm.want")" -eq 8 ] && [ "$(cut -d' ' -f2 "$T/slurm.want" | grep -c . )" -gt 0 ] ||
    fail "ibnetdiscover: not 8 hosts under leaves"
grep -q 'SwitchName=sw-l1 Nodes=host\[2-3\]' "$T/topology.conf" || fail "hosts not written as a hostlist: $(cat "$T/topology.conf")"
ctl --json topology --format slurm-yaml | jq -r .text > "$T/topology.yaml" || fail "slurm-yaml"
python3 -c '
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for sw in doc[0]["tree"]["switches"]:
    key = "nodes" if "nodes" in sw else "children"
    print(sw["switch"], "Nodes" if key == "nodes" else "Switches", sw[key])
' "$T/topology.yaml" | sed 's/ Nodes / Nodes=/; s/ Switches / Switches=/; s/^/SwitchName=/' > "$T/yaml.conf" ||
    fail "topology.yaml does not parse: $(cat "$T/topology.yaml")"
grep -v '^#' "$T/topology.conf" | grep . | diff - "$T/yaml.conf" >/dev/null || fail "topology.yaml is another tree than topology.conf"
echo "slurm: $(grep -c '^SwitchName' "$T/topology.conf") switches as ibnetdiscover sees them"

# (e) dot grouped by level: 2 ranks (leaves, spines), hosts in 4 boxes,
# every cable counted once in the edge labels
ctl --json topology --format dot | jq -r .text > "$T/fabric.dot" || fail "dot"
[ "$(grep -c 'rank=same' "$T/fabric.dot")" -eq 2 ] || fail "dot: not 2 ranks"
[ "$(grep -c 'shape=folder' "$T/fabric.dot")" -eq 4 ] || fail "dot: hosts not grouped per leaf"
sum=$(grep -v '^	"group-[0-9]*-[0-9]*" \[' "$T/fabric.dot" | grep -o 'label="[^"]*"' |
    grep -o '[0-9][0-9]* x [0-9]*x[A-Z]*' | awk '{ s += $1 } END { print s + 0 }')
[ "$sum" -eq 79 ] || fail "dot: bundles carry $sum cables, ibnetdiscover 79"
if command -v dot >/dev/null 2>&1; then
	dot -Tsvg "$T/fabric.dot" > "$T/fabric.svg" || fail "dot rejects the export"
fi
# (f) one way to write a port, NODE:PORT, and the ports filters: the
# active ports' (object, peer) pairs are ibnetdiscover's cables; --state
# down lists no port, as no cable was pulled (the rest are ports no cable
# reached: not down for a reason an operator must see); nothing is
# degraded (iblinkinfo agrees)
ctl --json ports > "$T/ports.json" || fail "ports"
ctl --json ports --state active > "$T/active.json" || fail "ports --state active"
jq -r '.ports[] | [.object, .peer] | sort | join(" ")' "$T/active.json" | sort -u > "$T/active.cables"
diff "$T/live.cables" "$T/active.cables" > /dev/null || fail "active ports' NODE:PORT pairs are not ibnetdiscover's cables"
jq -e '[.ports[] | select(.state != "active")] | length == 0' "$T/active.json" >/dev/null || fail "--state active let another state through"
all=$(jq '.ports | length' "$T/ports.json")
uncabled=$(jq '[.ports[] | select(.state == "down")] | length' "$T/ports.json")
[ "$uncabled" -eq $((all - 158)) ] || fail "ports: $uncabled down, want $all - 158"
down=$(ctl --json ports --state down | jq '.ports | length')
[ "$down" -eq 0 ] || fail "--state down: $down ports, want none of the $uncabled no cable reaches"
[ "$(ctl --json ports --degraded | jq '.ports | length')" -eq "$(sim_diag iblinkinfo -l | grep -c 'Could be')" ] ||
    fail "--degraded is not iblinkinfo's degraded ports"
ctl --json ports --state sideways > /dev/null 2>&1; [ $? -eq 2 ] || fail "--state sideways is not a usage error"
# SM events name the port once, as NODE:PORT, and the LID in the message is
# the one ibnetdiscover shows for it
lid4=$(sed -n 's/.*"host4" lid \([0-9]*\) .*/\1/p' "$T/disc.txt" | head -1)
ctl --json events | jq -e --arg l "LID $lid4 assigned" '[.events[] | select(.object == "host4:1" and
    (.message | startswith($l)) and (.message | contains("host4") | not))] | length >= 1' >/dev/null ||
    fail "no LID event for host4:1 with ibnetdiscover's LID $lid4"
ctl --json events | jq -e '[.events[] | select(.source == "sm" and (.object // "" | test("\\[")))] | length == 0' \
    >/dev/null || fail "an SM event still writes NODE[PORT]"
# health port: the state by name; the old NODE[PORT] still accepted
i=0
until ctl --json health port host2:1 > "$T/hp.json" 2>/dev/null; do
	[ $i -ge 100 ] && fail "health port host2:1: $(cat "$T/hp.json")"
	i=$((i + 1)); sleep 0.1
done
jq -e '.state_name == "active" and .object == "host2:1"' "$T/hp.json" >/dev/null || fail "health port: $(jq -c '{state, state_name, object}' "$T/hp.json")"
ctl --json health port 'host2[1]' | jq -e '.object == "host2:1"' >/dev/null || fail "health port host2[1] (old form) refused"
pass
