#!/bin/sh
# sm.rebalance_window (issue 40) where a rebalance would not help: the
# 64-host 3-level tree with a leaf uplink cut, whose repair leaves the
# hottest link above the bound but routing it afresh gives a worse one.
# Judged from outside with dump_fts and the pair walk (tests/lib/
# routemove.awk, lftwalk.awk, ftsdiff.awk):
#   - the repair drifts (status's routing_hottest_routes above
#     routing_bound_routes), and `routing rebalance --dry-run` counts the
#     blocks and pairs a rebalance would move and the hottest link it
#     would give, here not lower;
#   - a reload with a window that does not cover now: two heavy sweeps
#     later no event, and the tables are the repaired ones;
#   - a reload with a window that covers now: within a few sweeps the SM
#     says the rebalance would not lower the hottest link (the dry run's
#     figures) and the tables stay the repaired ones; more sweeps in the
#     window decide nothing more;
#   - the dry run told the truth: an operator's rebalance then writes the
#     dry run's blocks and moves its pairs, every pair routes loop-free,
#     and the hottest link is the one the dry run gave;
#   - `routing` names the window once a reload set it.
# tests/integration/sm_route_window_rebalance.sh is the case where the
# window rebalances.
. "$FABRICD_SRC/tests/lib/rebalance_window.sh"

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
window_config
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
window_repair 'Unlink "sw-p1-l1"[3]'
[ "$dry_after" -ge "$hot" ] ||
    fail "this case wants a rebalance that does not help: afresh $dry_after, now $hot"

# a window that does not cover now: nothing
outside="$(hhmm 120)-$(hhmm 180)"
window_config "$outside"
ctl reload > /dev/null || fail "reload ($outside)"
ctl sweep --heavy > /dev/null || fail sweep
ctl sweep --heavy > /dev/null || fail sweep
[ "$(window_events "maintenance window")" = 0 ] || fail "window $outside (now $(hhmm 0)): it acted"
lft_dump || fail dump
cmp -s "$T/repaired.fts" "$SIM_DIR/fts.txt" ||
    fail "window $outside: the tables moved ($(blocks_between "$T/repaired.fts" "$SIM_DIR/fts.txt") blocks)"
echo "window $outside (now $(hhmm 0)): 2 heavy sweeps, nothing decided, the tables kept"

# a window that covers now: the dry run first, and no rebalance
inside=$(window_now)
window_config "$inside"
ctl reload > /dev/null || fail "reload ($inside)"
ctl routing | grep -qF "rebalance window $inside:" || fail "routing does not name the window"
window_sweeps "$KEPT_MSG"
said=$(window_event "$KEPT_MSG")
echo "window $inside: after $n sweep(s) \"$said\""
echo "$said" | grep -qF "($hot routes now, $dry_after afresh, bound $bound; it would move $dry_blocks LFT blocks)" ||
    fail "the event does not give the dry run's figures: $said"
ctl sweep --heavy > /dev/null || fail sweep
ctl sweep --heavy > /dev/null || fail sweep
[ "$(window_events "maintenance window")" = 1 ] || fail "the window decided twice"
[ "$(window_events "$DONE_MSG")" = 0 ] || fail "the window rebalanced for a worse balance"
lft_dump || fail dump
cmp -s "$T/repaired.fts" "$SIM_DIR/fts.txt" ||
    fail "the tables moved in the window ($(blocks_between "$T/repaired.fts" "$SIM_DIR/fts.txt") blocks)"

# the dry run's figures are what a rebalance does
ctl routing rebalance > /dev/null || fail "routing rebalance"
window_judge
echo "an operator's rebalance: $blocks blocks, $mv_line, hottest $after"
[ "$blocks" = "$dry_blocks" ] || fail "the rebalance wrote $blocks blocks, the dry run said $dry_blocks"
[ "$(field moved "$mv_line")" = "$dry_pairs" ] || fail "pairs moved: $mv_line; the dry run said $dry_pairs"
[ "$(field broken "$mv_line")" = 0 ] || fail "broken pairs: $mv_line"
[ "$after" = "$dry_after" ] || fail "hottest link after the rebalance $after, the dry run said $dry_after"
pass
