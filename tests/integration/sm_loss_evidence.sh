#!/bin/sh
# Act on evidence, not on silence (issue 40): 30% MAD loss on every one of
# the 40 switches of the 64-host 3-level tree (ibsim's console Error, on
# every hop entering them) during three heavy sweeps, fabricd on its
# defaults.  After each sweep (the loss paused only while the tables are
# dumped, so that the diag tools can read them) and after the loss:
#   - every CA pair walks to its LID through the tables dump_fts reads
#     (tests/lib/lftwalk.awk): no route was taken from a node that only
#     stayed silent;
#   - the model keeps all 40 switches and 64 CAs (`status`): a switch that
#     does not answer behind a port whose link is up is kept with its
#     links, its CAs and its routes (sm/core/recover.c).
# Measured before (issue 40): the model shrank to 34 switches and 28 CAs,
# and 3,036 of 4,032 pairs were unroutable while the subnet said up.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup dump_fts jq

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
[ "$(grep -c '^Switch' "$SIM_DIR/topo.net")" = 40 ] || fail "not the 40-switch tree"
sim_start || fail ibsim
printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
switches=$(awk '/^Switch/ { split($0, q, "\""); print q[2] }' "$SIM_DIR/topo.net")

loss() {	# PERCENT on every switch
	for s in $switches; do sim_console "Error \"$s\" $1" || fail console; done
}
check() {	# LABEL: the model whole, every pair routable
	st=$(ctl --json status) || fail "$1: status"
	sw=$(echo "$st" | jq '[.. | objects | select(has("switches")) | .switches][0]')
	ca=$(echo "$st" | jq '[.. | objects | select(has("cas")) | .cas][0]')
	lft_dump || fail "$1: dump"
	walk=$(lft_check_all_pairs) || fail "$1: pairs unroutable: $(echo "$walk" | tail -3)"
	echo "$1: model $sw switches, $ca CAs; $(echo "$walk" | tail -1)"
	[ "$sw" = 40 ] && [ "$ca" = 64 ] || fail "$1: the model has $sw switches and $ca CAs (40, 64)"
}

check "before the loss"
for round in 1 2 3; do
	loss 30
	ctl sweep --heavy > /dev/null || fail "sweep $round refused"
	loss 0
	check "heavy sweep $round under 30% loss"
done
lost=$(db "SELECT coalesce(sum(timeouts), 0) FROM sm_sweeps WHERE kind = 'heavy'")
kept=$(db "SELECT count(*) FROM events WHERE message LIKE '%unreachable, kept with its%'")
echo "during the loss: $lost MADs timed out, $kept nodes kept as unreachable"
[ "$lost" -gt 0 ] || fail "the loss lost nothing: the test proves little"
ctl sweep --heavy > /dev/null || fail "sweep after the loss refused"
check "after the loss"
gone=$(db "SELECT object || ': ' || message FROM events WHERE message LIKE 'node gone%'")
[ -z "$gone" ] || fail "healthy nodes reported gone: $gone"
pass
