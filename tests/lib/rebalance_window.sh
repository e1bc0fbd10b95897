# sm.rebalance_window's tests (sm_route_window*.sh): a fabric whose repair
# has drifted from the bound, a window set by a reload, and what the SM
# then decides, judged from outside (dump_fts, the pair walk).
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup ibnetdiscover dump_fts
need jq
ROUTEMOVE=$FABRICD_SRC/tests/lib/routemove.awk
FTSDIFF=$FABRICD_SRC/tests/lib/ftsdiff.awk
DONE_MSG="rebalanced in the maintenance window"
KEPT_MSG="a rebalance would not lower the hottest link"

# window_config [WINDOW]: the defaults, with sm.rebalance_window when given
window_config() {
	printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
	if [ -n "${1:-}" ]; then printf '  rebalance_window: "%s"\n' "$1" >> "$CONF"; fi
}
blocks_between() { awk -f "$FTSDIFF" "$1" "$2" | sed -n 's/^blocks \([0-9]*\).*/\1/p'; }
field() { echo "$2" | sed -n "s/.*\\b$1 \\([^ ]*\\).*/\\1/p"; }
# window_events TEXT: how many events say TEXT
window_events() { ctl --json events | jq "[.events[] | select(.message | contains(\"$1\"))] | length"; }
window_event() { ctl --json events | jq -r "[.events[] | select(.message | contains(\"$1\"))][0].message"; }
# balance: [hottest, bound] as status says them
balance() {
	ctl --json status | jq -c '[.. | objects | select(has("routing_bound_routes")) |
	    .routing_hottest_routes, .routing_bound_routes]'
}
now_min=$(( $(date +%H | sed 's/^0//') * 60 + $(date +%M | sed 's/^0//') ))
# hhmm MINUTES: a time of day MINUTES after now (negative: before), HH:MM
hhmm() {
	m=$(( ((now_min + $1) % 1440 + 1440) % 1440 ))
	printf '%02d:%02d' $((m / 60)) $((m % 60))
}
# a window that covers now (today's and yesterday's weekday: one that
# starts before midnight belongs to the day before)
window_now() { echo "$(LC_ALL=C date -d yesterday +%a),$(LC_ALL=C date +%a) $(hhmm -10)-$(hhmm 60)"; }

# window_repair CONSOLE-LINE: cut, repair, and the drift and the dry run:
# hot, bound, dry_blocks, dry_pairs, dry_after; the repaired tables kept
# in $T/repaired.disc and .fts
window_repair() {
	sim_console "$1" || fail "$1"
	ctl sweep --heavy > /dev/null || fail sweep
	_said=$(balance)
	hot=$(echo "$_said" | jq '.[0]') bound=$(echo "$_said" | jq '.[1]')
	[ "$hot" -gt "$bound" ] || fail "no drift after the repair: hottest $hot, bound $bound"
	capture "$T/dry.json" ctl --json routing rebalance --dry-run
	dry_blocks=$(jq -r .blocks "$T/dry.json") dry_pairs=$(jq -r .pairs "$T/dry.json")
	dry_after=$(jq -r .hottest_link_routes_after "$T/dry.json")
	[ "$dry_blocks" -gt 0 ] || fail "the dry run counts no block"
	[ "$dry_after" -gt 0 ] || fail "the dry run says no hottest link afresh: $(cat "$T/dry.json")"
	lft_dump || fail dump
	cp "$SIM_DIR/disc.txt" "$T/repaired.disc"
	cp "$SIM_DIR/fts.txt" "$T/repaired.fts"
	echo "repaired: hottest $hot, bound $bound; dry run $dry_blocks blocks, $dry_pairs pairs," \
	    "hottest afresh $dry_after"
}

# window_judge: the tables now against the repaired ones, judged from
# outside: blocks changed, mv_line (routemove's), after (the hottest link
# of the pair walk's loads); every pair must route, loop-free
window_judge() {
	lft_dump || fail dump
	blocks=$(blocks_between "$T/repaired.fts" "$SIM_DIR/fts.txt")
	mv_line=$(awk -f "$ROUTEMOVE" "$T/repaired.disc" "$T/repaired.fts" "$SIM_DIR/disc.txt" \
	    "$SIM_DIR/fts.txt") || fail "after the rebalance: $mv_line"
	awk -v cdg=1 -v loads=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" \
	    > "$T/walk.txt" || fail "walk after the rebalance: $(head -5 "$T/walk.txt")"
	after=$(field max "$(sed -n 's/^loads: //p' "$T/walk.txt")")
}

# window_sweeps TEXT: sweeps (at most 6) until an event says TEXT
window_sweeps() {
	n=0
	while [ "$(window_events "$1")" = 0 ]; do
		n=$((n + 1))
		[ $n -le 6 ] || fail "window $(window_now) (now $(hhmm 0)): no \"$1\" in 6 sweeps"
		ctl sweep > /dev/null || fail sweep
	done
}
