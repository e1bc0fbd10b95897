# Helpers of the observer tests (docs/sm.md, Observer mode), sourced after
# tests/lib/sm.sh: fabricd's view, asked of the observer through `octl`
# (which the test defines: ctl, or a second daemon's socket), against
# infiniband-diags run as other clients of the simulator.  Files land in $T.

# ibnd_nodes FILE: "GUID TYPE LID DESCRIPTION" of every node of an
# ibnetdiscover file (a CA's LID: its first port's), sorted.
ibnd_nodes() {
	awk '
	/^(Switch|Ca|Hca)[ \t]/ {
		split($0, q, "\""); g = "0x" substr(q[2], 3); d = q[4]; cur = ""
		if ($1 == "Switch") {
			l = $0; sub(/.* port 0 lid /, "", l); sub(/ .*/, "", l)
			print g, "switch", l, d
		} else {
			cur = g; cdesc = d
		}
		next
	}
	cur != "" && /^\[/ {
		split($0, h, "#"); l = h[2]; sub(/^[ \t]*lid /, "", l); sub(/ .*/, "", l)
		print cur, "ca", l, cdesc; cur = ""
	}' "$1" | sort
}

# ibnd_links FILE: "GUID:P GUID:Q" for every cable (lower end first), once.
ibnd_links() {
	awk '
	/^(Switch|Ca|Hca)[ \t]/ { split($0, q, "\""); cur = "0x" substr(q[2], 3); next }
	/^\[/ && cur != "" {
		p = substr($0, 2) + 0
		split($0, q, "\""); rest = q[3]
		rp = substr(rest, index(rest, "[") + 1) + 0
		a = cur ":" p; b = "0x" substr(q[2], 3) ":" rp
		if (a > b) { t = a; a = b; b = t }
		print a, b
	}
	/^$/ { cur = "" }' "$1" | sort -u
}

# canon FILE: an ibnetdiscover-format text as sorted facts (nodes with
# their LIDs, links), the same awk for ibnetdiscover's and ours.
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
		next
	}
	/^$/ { cur = "" }' "$1" | sort
}

# ours_nodes / ours_links: the same facts from fabricd's JSON (links name
# nodes by description: mapped to GUIDs through `nodes`).
ours_nodes() {
	octl --json nodes > "$T/nodes.json" || return 1
	jq -r '.nodes[] | "\(.guid) \(.type) \(.lid) \(.description)"' "$T/nodes.json" | sort
}
ours_links() {
	octl --json links > "$T/links.json" || return 1
	jq -r --slurpfile n "$T/nodes.json" '
	    ($n[0].nodes | map({ (.description): .guid }) | add) as $g |
	    .links[] | ["\($g[.from]):\(.from_port)", "\($g[.to]):\(.to_port)"] | sort | join(" ")' \
	    "$T/links.json" | sort -u
}

# same WHAT: fabricd's nodes and links equal ibnetdiscover's now.
same() {
	sim_diag ibnetdiscover > "$T/disc.txt" || { echo "ibnetdiscover failed"; return 1; }
	ibnd_nodes "$T/disc.txt" > "$T/want.nodes"
	ibnd_links "$T/disc.txt" > "$T/want.links"
	[ -s "$T/want.nodes" ] && [ -s "$T/want.links" ] || { echo "ibnetdiscover: nothing read"; return 1; }
	ours_nodes > "$T/got.nodes" && ours_links > "$T/got.links" || { echo "nodes/links failed"; return 1; }
	diff "$T/want.nodes" "$T/got.nodes" > "$T/diff" ||
	    { head -10 "$T/diff"; echo "$1: nodes differ from ibnetdiscover"; return 1; }
	diff "$T/want.links" "$T/got.links" > "$T/diff" ||
	    { head -10 "$T/diff"; echo "$1: links differ from ibnetdiscover"; return 1; }
}

# route_switches SRC DST / tracert_switches SLID DLID: switch GUIDs in order.
route_switches() {
	octl --json route "$1" "$2" | jq -r '.hops[] | select(.type == "switch") | .guid'
}
tracert_switches() {
	sim_diag ibtracert "$1" "$2" | sed -n 's/.*switch port {\(0x[0-9a-fA-F]*\)}.*/\1/p' | tr 'A-F' 'a-f'
}
lid() { sed -n "s/.*\"$1\" lid \([0-9]*\) .*/\1/p" "$T/disc.txt" | head -1; }
agree() {
	s=$(lid "$1") d=$(lid "$2")
	[ -n "$s" ] && [ -n "$d" ] || { echo "no LID for $1 or $2 in ibnetdiscover"; return 1; }
	want=$(tracert_switches "$s" "$d")
	got=$(route_switches "$1" "$2")
	[ -n "$want" ] || { echo "ibtracert $s -> $d found no switch"; return 1; }
	[ "$got" = "$want" ] && return 0
	echo "route $1 $2: [$(echo $got)], ibtracert $s -> $d: [$(echo $want)]"
	return 1
}

obs() { octl --json status | jq -r ".sm.observer.$1"; }

# wait_view SECS [READS]: until the observer's view is fresh (and, with
# READS, until more than READS views were published).
wait_view() {
	end=$(( $(date +%s) + $1 ))
	until [ "$(obs view 2>/dev/null)" = fresh ] && [ "$(obs views 2>/dev/null)" -gt "${2:--1}" ]; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		kill -0 "${OBS_PID:-$FD_PID}" 2>/dev/null || return 1
		sleep 0.2
	done
}


# gets_only MADLOG: every MAD the daemon sent (tests/fixtures/mad/madlog.c)
# is a Get: SA (class 0x03), SMP, or PerfMgt (health's); no SubnSet, no
# Set of any class.  Prints the counts.
gets_only() {
	[ -s "$1" ] || { echo "madlog recorded nothing"; return 1; }
	_sa=$(grep -c '^0x03 0x01 ' "$1")
	[ "$_sa" -gt 0 ] || { echo "no SubnAdmGet logged"; return 1; }
	_bad=$(awk '!(($1 == "0x01" || $1 == "0x81" || $1 == "0x03" || $1 == "0x04") && $2 == "0x01")' "$1")
	[ -z "$_bad" ] || { echo "MADs other than Gets: $(echo "$_bad" | head -3)"; return 1; }
	echo "madlog: $_sa SubnAdmGets, $(grep -c '^0x81 0x01 ' "$1") SMP Gets, no Set"
}
