#!/bin/sh
# A restart keeps the repaired tables (issue 40: no rebalance on start),
# on the 64-host 3-level tree, judged from outside with dump_fts and the
# pair walk (tests/lib/routemove.awk, ftsdiff.awk):
#   - a leaf uplink is cut and the repair settles; `routing rebalance
#     --dry-run` says a rebalance would move blocks (N > 0), and the dry
#     run itself changes no table;
#   - fabricd is stopped and started again on the same state: once the
#     subnet is up, two heavy sweeps later no sweep since the start wrote
#     an LFT block, the tables are the repaired ones block for block, and
#     no CA pair moved or broke.  A start that routed afresh would write
#     the N blocks the dry run counted.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup ibnetdiscover dump_fts
need jq
ROUTEMOVE=$FABRICD_SRC/tests/lib/routemove.awk
FTSDIFF=$FABRICD_SRC/tests/lib/ftsdiff.awk

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
blocks_between() { awk -f "$FTSDIFF" "$1" "$2" | sed -n 's/^blocks \([0-9]*\).*/\1/p'; }
field() { echo "$2" | sed -n "s/.*\\b$1 \\([^ ]*\\).*/\\1/p"; }

sim_console 'Unlink "sw-p1-l1"[3]' || fail Unlink
ctl sweep --heavy > /dev/null || fail sweep
lft_dump || fail dump
cp "$SIM_DIR/disc.txt" "$T/repaired.disc"
cp "$SIM_DIR/fts.txt" "$T/repaired.fts"
capture "$T/dry.json" ctl --json routing rebalance --dry-run
dry_blocks=$(jq -r .blocks "$T/dry.json")
[ "$dry_blocks" -gt 0 ] || fail "the dry run counts no block: a restart would prove nothing"
lft_dump || fail dump
cmp -s "$T/repaired.fts" "$SIM_DIR/fts.txt" || fail "the dry run changed the tables"
echo "repaired; a rebalance would move $dry_blocks blocks, $(jq -r .pairs "$T/dry.json") pairs"

fd_stop
last=$(db "SELECT max(id) FROM sm_sweeps")
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up after the restart"
ctl sweep --heavy > /dev/null || fail sweep
ctl sweep --heavy > /dev/null || fail sweep
written=$(db "SELECT count(*) || ' sweeps, ' || sum(kind = 'heavy') || ' heavy, ' ||
    total(lft_blocks) FROM sm_sweeps WHERE id > $last")
lft_dump || fail dump
blocks=$(blocks_between "$T/repaired.fts" "$SIM_DIR/fts.txt")
mv_line=$(awk -f "$ROUTEMOVE" "$T/repaired.disc" "$T/repaired.fts" "$SIM_DIR/disc.txt" \
    "$SIM_DIR/fts.txt") || fail "after the restart: $mv_line"
echo "since the restart: $written LFT blocks written; dump_fts: $blocks blocks differ; $mv_line"
[ "$(field moved "$mv_line")" = 0 ] && [ "$(field broken "$mv_line")" = 0 ] ||
    fail "the restart moved pairs: $mv_line"
[ "$blocks" = 0 ] || fail "the restart rewrote $blocks blocks of the repaired tables"
case "$written" in *" heavy, 0.0") ;; *) fail "the sweeps since the restart wrote blocks: $written" ;; esac
pass
