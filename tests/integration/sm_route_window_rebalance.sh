#!/bin/sh
# sm.rebalance_window (issue 40) where a rebalance helps: the 324-host
# 2-level tree (18 leaves x 18 hosts, 18 spines) with one leaf uplink
# cut, whose repair puts more routes on its hottest link than the bound
# and routing afresh reaches the bound.  Judged from outside with
# dump_fts and the pair walk (tests/lib/routemove.awk, lftwalk.awk,
# ftsdiff.awk):
#   - the repair drifts, and the dry run's hottest link afresh is lower;
#   - a reload with a window that covers now: within a few sweeps the SM
#     rebalances and says so; the tables then differ from the repaired
#     ones by exactly the dry run's blocks, the pairs moved are its pairs,
#     the event says the same counts, every CA pair routes, loop-free,
#     and the hottest link is the dry run's;
#   - two more heavy sweeps in the same window: no second rebalance.
# tests/integration/sm_route_window.sh is the case where it would not help.
. "$FABRICD_SRC/tests/lib/rebalance_window.sh"

sim_topology -k 18 -h 18 -s 18 || fail topogen
sim_start || fail ibsim
window_config
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
window_repair 'Unlink "sw-l3"[20]'
[ "$dry_after" -lt "$hot" ] || fail "this case wants a rebalance that helps: afresh $dry_after, now $hot"

inside=$(window_now)
window_config "$inside"
ctl reload > /dev/null || fail "reload ($inside)"
window_sweeps "$DONE_MSG"
window_judge
said=$(window_event "$DONE_MSG")
echo "window $inside: after $n sweep(s) \"$said\"; dump_fts: $blocks blocks, $mv_line"
[ "$blocks" = "$dry_blocks" ] || fail "the window's rebalance wrote $blocks blocks, the dry run said $dry_blocks"
[ "$(field moved "$mv_line")" = "$dry_pairs" ] || fail "pairs moved: $mv_line; the dry run said $dry_pairs"
[ "$(field broken "$mv_line")" = 0 ] || fail "broken pairs: $mv_line"
echo "$said" | grep -q ": $dry_blocks LFT blocks, $dry_pairs CA pairs moved" ||
    fail "the event does not say the dry run's counts: $said"
[ "$after" = "$dry_after" ] || fail "hottest link after the rebalance $after, the dry run said $dry_after"

# once per occurrence: more sweeps in the same window rebalance no more
cp "$SIM_DIR/fts.txt" "$T/rebalanced.fts"
ctl sweep --heavy > /dev/null || fail sweep
ctl sweep --heavy > /dev/null || fail sweep
[ "$(window_events "maintenance window")" = 1 ] || fail "a second decision in the same window"
lft_dump || fail dump
cmp -s "$T/rebalanced.fts" "$SIM_DIR/fts.txt" || fail "the tables moved after the window's rebalance"
pass
