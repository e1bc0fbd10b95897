#!/bin/sh
# ftree on degraded fat trees, judged by infiniband-diags (the dump_fts
# walk of tests/lib/lftwalk.awk) with OpenSM's ftree beside:
#  - 5% of the leaf uplinks, picked at random, unplugged in ibsim's console
#    before the SM starts: the hottest link over the bound ceil(L*(N-L)/u)
#    of the worst leaf (L hosts, u live uplinks, N CAs), rounded to two
#    decimals, is at most what docs/sm.md gives (1.10x, 1.11x), and
#    OpenSM's ftree's is the figure docs/sm.md gives for it;
#  - on the whole tree, one inter-switch Unlink while fabricd runs: the
#    repair keeps the hottest link within 1.2x of the bound, and a
#    `routing rebalance` meets the target; the ReLink and a rebalance:
#    back at the ideal.  The LFT blocks that changed (counted between the
#    dumps, the same measure for both SMs) are printed next to OpenSM's,
#    with fabricd's own count of blocks sent.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup opensm
FTSDIFF=$FABRICD_SRC/tests/lib/ftsdiff.awk

loads() {	# the "loads:" line of the walk over the current dump
	lft_dump || fail "dump_fts"
	awk -v loads=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" > "$T/walk.txt" ||
	    fail "LFT walk: $(head -5 "$T/walk.txt")"
	sed -n 's/^loads: //p' "$T/walk.txt"
}
field() { echo "$2" | sed -n "s/.*\\b$1 \\([^ ]*\\).*/\\1/p"; }
# ratio LOADS: 100 x hottest link / bound, rounded; fails on a loads line
# without both figures (an empty value must not compare as 0).
ratio() {
	m=$(field max "$1")
	b=$(field bound "$1")
	case $m$b in ''|*[!0-9]*) fail "no max/bound in the loads line: '$1'" ;; esac
	[ "$b" -gt 0 ] || fail "bound 0 in '$1'"
	echo $(( (m * 200 + b) / (b * 2) ))
}
within() {	# LABEL LOADS MAX-PERCENT: the ratio at most MAX-PERCENT
	r=$(ratio "$2") || exit 1
	[ "$r" -le "$3" ] || fail "$1: hottest link at $r% of the bound, docs/sm.md says $3% ($2)"
}

# Leaf uplinks of the net file ("NAME PORT", sw-l*/sw-p*-l* to a switch),
# PCT percent of them picked at random with SEED.
pick_uplinks() {	# PCT SEED
	awk -v pct="$1" -v seed="$2" '
	/^Switch/ { split($0, q, "\""); cur = q[2]; leaf = cur ~ /^sw-(p[0-9]+-)?l[0-9]+$/; next }
	leaf && /^\[/ { split($0, q, "\""); if (q[2] ~ /^sw-/) { n++; up[n] = cur " " substr($1, 2) + 0 } }
	END {
		srand(seed)
		for (i = n; i > 1; i--) { j = int(rand() * i) + 1; t = up[i]; up[i] = up[j]; up[j] = t }
		k = int((n * pct + 99) / 100)
		for (i = 1; i <= k; i++) print up[i]
	}' "$SIM_DIR/topo.net"
}
unplug() {	# FILE of "NAME PORT"
	while read -r name port; do
		sim_console "Unlink \"$name\"[$port]" || fail "Unlink $name $port"
	done < "$1"
}
# settle SECS TEST: dump and walk until TEST (a function of the loads
# line) holds; the last loads line in $got.  1 if it never did.
settle() {
	end=$(( $(date +%s) + $1 ))
	while :; do
		if lft_dump && awk -v loads=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" \
		    "$SIM_DIR/fts.txt" > "$T/walk.txt" 2>&1; then
			got=$(sed -n 's/^loads: //p' "$T/walk.txt")
			"$2" && return 0
		fi
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
# in_target: the hottest link at most TARGET% of the bound (docs/sm.md:
# fabricd is at the bound after the Unlink).
TARGET=100
in_target() { m=$(field max "$got"); b=$(field bound "$got"); [ -n "$m" ] && [ -n "$b" ] && [ $((m * 100)) -le $((b * TARGET)) ]; }
changed() { ! cmp -s "$SIM_DIR/fts.txt" "$T/before.txt"; }
changed_in_target() { changed && in_target; }
# changed, and the same tables as the previous dump (kept in prev.txt)
changed_held() {
	changed && cmp -s "$SIM_DIR/fts.txt" "$T/prev.txt" && return 0
	cp "$SIM_DIR/fts.txt" "$T/prev.txt"
	return 1
}
at_ideal() { [ "$(field max "$got")" = "$(field max "$ideal")" ] && [ "$(field idle "$got")" = 0 ]; }
blocks() { awk -f "$FABRICD_SRC/tests/lib/ftsdiff.awk" "$T/before.txt" "$SIM_DIR/fts.txt"; }

# SM: "fabricd" or "opensm", on the whole 2-level tree: Unlink one leaf
# uplink, then ReLink it; prints the loads and the changed blocks.
flap() {
	sm=$1
	sent=
	sim_topology -k 18 -h 18 -s 18 || fail topogen
	sim_start || fail ibsim
	if [ "$sm" = fabricd ]; then
		rm -rf "$STATE"
		sm_start_fabricd host1
		sm_wait_up 60 || fail "subnet not up"
	else
		OSM_ARGS='-R ftree' sim_opensm host1 120 || fail "OpenSM ftree"
	fi
	settle 10 true || fail "$sm: no walkable tables"
	ideal=$got
	cp "$SIM_DIR/fts.txt" "$T/before.txt"
	last=$(db "SELECT max(id) FROM sm_sweeps" 2>/dev/null)
	sim_console 'Unlink "sw-l3"[20]' || fail console
	if [ "$sm" = fabricd ]; then
		# a repair: only the routes that crossed the link move, placed
		# where the links are least busy (docs/sm.md, Route stability):
		# within 1.2x of the bound; a rebalance then meets the target
		TARGET=120
		if settle 15 changed_in_target; then ok=yes; else ok=no; fi
		echo "fabricd repaired: $got; changed $(blocks)"
		[ $ok = yes ] || fail "fabricd: loads after the Unlink's repair: $got"
		cp "$SIM_DIR/fts.txt" "$T/repaired.txt"
		ctl routing rebalance > /dev/null || fail "routing rebalance"
		TARGET=100
		if settle 15 in_target; then ok=yes; else ok=no; fi
	else
		# OpenSM's figures are printed, not gated, and it does not meet
		# the target: its tables once they changed and held still for
		# one dump, not the 15 s of waiting for a target it never meets
		rm -f "$T/prev.txt"
		settle 15 changed_held
		if in_target; then ok=yes; else ok=no; fi
	fi
	[ "$sm" = fabricd ] && sent=$(db "SELECT coalesce(sum(lft_blocks), 0) FROM sm_sweeps WHERE id > $last")
	echo "$sm after Unlink sw-l3[20]: $got; changed $(blocks)${sent:+, blocks sent $sent}; target met: $ok"
	[ "$sm" = fabricd ] && [ $ok = no ] && fail "fabricd: loads after the Unlink: $got"
	cp "$SIM_DIR/fts.txt" "$T/before.txt"
	last=$(db "SELECT max(id) FROM sm_sweeps" 2>/dev/null)
	sim_console 'ReLink "sw-l3"[20]' || fail console
	# fabricd: after a rebalance in the degraded fabric the tables are
	# valid with the link back, so nothing moves until the next rebalance
	[ "$sm" = fabricd ] && { ctl routing rebalance > /dev/null || fail "routing rebalance"; }
	if settle 15 at_ideal; then ok=yes; else ok=no; fi
	[ "$sm" = fabricd ] && sent=$(db "SELECT coalesce(sum(lft_blocks), 0) FROM sm_sweeps WHERE id > $last")
	echo "$sm after ReLink: $got; changed $(blocks)${sent:+, blocks sent $sent}; back at the ideal: $ok"
	[ "$sm" = fabricd ] && [ $ok = no ] && fail "fabricd: loads after the ReLink: $got (ideal $ideal)"
	[ "$sm" = fabricd ] && fd_stop
	sim_stop
}

degraded() {	# LABEL OURS% THEIRS% TOPOGEN-ARGS...: the docs/sm.md figures
	label=$1
	want_ours=$2
	want_theirs=$3
	shift 3
	sim_topology "$@" || fail topogen
	pick_uplinks 5 13 > "$T/cut.txt"
	sim_start || fail ibsim
	unplug "$T/cut.txt"
	rm -rf "$STATE"
	sm_start_fabricd host1
	sm_wait_up 60 || fail "subnet not up ($label)"
	capture "$T/ours" loads
	ours=$(cat "$T/ours")
	fd_stop
	sim_stop
	sim_start || fail ibsim
	unplug "$T/cut.txt"
	OSM_ARGS='-R ftree' sim_opensm host1 120 || fail "OpenSM ftree ($label)"
	capture "$T/theirs" loads
	theirs=$(cat "$T/theirs")
	sim_stop
	echo "$label, $(wc -l < "$T/cut.txt") leaf uplinks unplugged: fabricd $ours"
	echo "$label, $(wc -l < "$T/cut.txt") leaf uplinks unplugged: OpenSM ftree $theirs"
	within "$label" "$ours" "$want_ours"
	r=$(ratio "$theirs") || exit 1
	[ "$r" -eq "$want_theirs" ] ||
	    fail "$label: OpenSM's hottest link at $r% of the bound, docs/sm.md says $want_theirs% ($theirs)"
}

degraded "2-level radix 36, 324 hosts" 110 183 -k 18 -h 18 -s 18
degraded "3-level radix 16, 256 hosts" 111 416 -P 16 -p 4 -k 8 -h 8 -a 8
flap fabricd
flap opensm
pass
