#!/bin/sh
# sm.rebalance_window (issue 40) on the 64-host 3-level tree, judged from
# outside with dump_fts and the pair walk (tests/lib/routemove.awk,
# lftwalk.awk, ftsdiff.awk):
#   - a leaf uplink is cut and the repair settles: the balance drifts
#     (status's routing_hottest_routes above routing_bound_routes), and
#     `routing rebalance --dry-run` counts the blocks and pairs a
#     rebalance would move;
#   - a reload with a window that does not cover now: two heavy sweeps
#     later no rebalance event, and the tables are the repaired ones;
#   - a reload with a window computed from `date` to cover now: within a
#     few sweeps (counted, no sleep) the SM posts its rebalance event,
#     the tables then differ from the repaired ones by exactly the dry
#     run's blocks, the pairs moved are the dry run's, the event says the
#     same counts, and every CA pair routes, loop-free;
#   - two more heavy sweeps in the same window: no second rebalance;
#   - `routing` names the window once a reload set it.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup ibnetdiscover dump_fts
need jq
ROUTEMOVE=$FABRICD_SRC/tests/lib/routemove.awk
FTSDIFF=$FABRICD_SRC/tests/lib/ftsdiff.awk
MSG="rebalanced in the maintenance window"

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
# config [WINDOW]: the defaults, with sm.rebalance_window when given
config() {
	printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
	if [ -n "${1:-}" ]; then printf '  rebalance_window: "%s"\n' "$1" >> "$CONF"; fi
}
config
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"

blocks_between() { awk -f "$FTSDIFF" "$1" "$2" | sed -n 's/^blocks \([0-9]*\).*/\1/p'; }
field() { echo "$2" | sed -n "s/.*\\b$1 \\([^ ]*\\).*/\\1/p"; }
window_events() { ctl --json events | jq "[.events[] | select(.message | contains(\"$MSG\"))] | length"; }
balance() {
	ctl --json status | jq -c '[.. | objects | select(has("routing_bound_routes")) |
	    .routing_hottest_routes, .routing_bound_routes]'
}
# hhmm MINUTES: a time of day MINUTES after now (negative: before), HH:MM
now_min=$(( $(date +%H | sed 's/^0//') * 60 + $(date +%M | sed 's/^0//') ))
hhmm() {
	m=$(( ((now_min + $1) % 1440 + 1440) % 1440 ))
	printf '%02d:%02d' $((m / 60)) $((m % 60))
}

# the repair of a leaf uplink leaves the balance drifted
sim_console 'Unlink "sw-p1-l1"[3]' || fail Unlink
ctl sweep --heavy > /dev/null || fail sweep
said=$(balance)
hot=$(echo "$said" | jq '.[0]') bound=$(echo "$said" | jq '.[1]')
[ "$hot" -gt "$bound" ] || fail "no drift after the repair: hottest $hot, bound $bound"
capture "$T/dry.json" ctl --json routing rebalance --dry-run
dry_blocks=$(jq -r .blocks "$T/dry.json") dry_pairs=$(jq -r .pairs "$T/dry.json")
[ "$dry_blocks" -gt 0 ] || fail "the dry run counts no block"
lft_dump || fail dump
cp "$SIM_DIR/disc.txt" "$T/repaired.disc"
cp "$SIM_DIR/fts.txt" "$T/repaired.fts"
echo "repaired: hottest $hot, bound $bound; dry run $dry_blocks blocks, $dry_pairs pairs"

# a window that does not cover now: nothing
outside="$(hhmm 120)-$(hhmm 180)"
config "$outside"
ctl reload > /dev/null || fail "reload ($outside)"
ctl sweep --heavy > /dev/null || fail sweep
ctl sweep --heavy > /dev/null || fail sweep
[ "$(window_events)" = 0 ] || fail "window $outside (now $(hhmm 0)): rebalanced"
lft_dump || fail dump
cmp -s "$T/repaired.fts" "$SIM_DIR/fts.txt" ||
    fail "window $outside: the tables moved ($(blocks_between "$T/repaired.fts" "$SIM_DIR/fts.txt") blocks)"
echo "window $outside (now $(hhmm 0)): 2 heavy sweeps, no rebalance, the tables kept"

# a window that covers now (today's and yesterday's weekday: one that
# starts before midnight belongs to the day before)
inside="$(LC_ALL=C date -d yesterday +%a),$(LC_ALL=C date +%a) $(hhmm -10)-$(hhmm 60)"
config "$inside"
ctl reload > /dev/null || fail "reload ($inside)"
ctl routing | grep -qF "rebalance window $inside:" || fail "routing does not name the window"
n=0
while [ "$(window_events)" = 0 ]; do
	n=$((n + 1))
	[ $n -le 6 ] || fail "window $inside (now $(hhmm 0)): no rebalance in 6 sweeps"
	ctl sweep > /dev/null || fail sweep
done
lft_dump || fail dump
blocks=$(blocks_between "$T/repaired.fts" "$SIM_DIR/fts.txt")
mv_line=$(awk -f "$ROUTEMOVE" "$T/repaired.disc" "$T/repaired.fts" "$SIM_DIR/disc.txt" \
    "$SIM_DIR/fts.txt") || fail "after the rebalance: $mv_line"
awk -v cdg=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" > "$T/walk.txt" ||
    fail "walk after the rebalance: $(head -5 "$T/walk.txt")"
said=$(ctl --json events | jq -r "[.events[] | select(.message | contains(\"$MSG\"))][0].message")
echo "window $inside: after $n sweep(s) \"$said\"; dump_fts: $blocks blocks, $mv_line"
[ "$blocks" = "$dry_blocks" ] || fail "the window's rebalance wrote $blocks blocks, the dry run said $dry_blocks"
[ "$(field moved "$mv_line")" = "$dry_pairs" ] || fail "pairs moved: $mv_line; the dry run said $dry_pairs"
[ "$(field broken "$mv_line")" = 0 ] || fail "broken pairs: $mv_line"
echo "$said" | grep -q ": $dry_blocks LFT blocks, $dry_pairs CA pairs moved" ||
    fail "the event does not say the dry run's counts: $said"

# once per occurrence: more sweeps in the same window rebalance no more
cp "$SIM_DIR/fts.txt" "$T/rebalanced.fts"
ctl sweep --heavy > /dev/null || fail sweep
ctl sweep --heavy > /dev/null || fail sweep
[ "$(window_events)" = 1 ] || fail "a second rebalance in the same window"
lft_dump || fail dump
cmp -s "$T/rebalanced.fts" "$SIM_DIR/fts.txt" || fail "the tables moved after the window's rebalance"
pass
