#!/bin/sh
# Restarting fabricd changes nothing on the fabric: the same LIDs
# (ibnetdiscover), the same forwarding tables (ibroute on every switch), and
# the restarted daemon's first sweep writes no LFT block and no PortInfo
# (its sweep record in sqlite).  A restart that lost the database keeps the
# LIDs too: valid LIDs already on ports are kept.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

last_heavy() {
	db "SELECT lft_blocks || ' ' || port_sets FROM sm_sweeps WHERE kind = 'heavy' ORDER BY id DESC LIMIT 1"
}

sim_fabric_up -H host2 "-k 6 -h 4 -s 3"
lids1=$(sm_lids)
[ "$(echo "$lids1" | grep -c .)" = $((24 + 9)) ] || fail "ibnetdiscover: $lids1"
lft1=$(sm_lft_dump)
first=$(last_heavy)
[ "${first%% *}" -gt 0 ] || fail "first sweep wrote no LFT block ($first)"
echo "$lft1" | grep -q 'valid lids dumped' || fail "ibroute dumped nothing"

fd_stop
sm_start_fabricd host2
sm_wait_up 30 || fail "subnet not up after restart"
[ "$(sm_lids)" = "$lids1" ] || fail "LIDs changed across a restart"
[ "$(sm_lft_dump)" = "$lft1" ] || fail "LFTs changed across a restart"
[ "$(last_heavy)" = "0 0" ] || fail "restart sweep wrote LFT blocks / port sets: $(last_heavy)"
[ "$(db "SELECT count(*) FROM sm_sweeps WHERE kind = 'heavy'")" = 2 ] || fail "sweeps not recorded"

# Database gone: the LIDs on the ports are kept all the same.
fd_stop
rm -rf "$STATE"
sm_start_fabricd host2
sm_wait_up 30 || fail "subnet not up after losing the database"
[ "$(sm_lids)" = "$lids1" ] || fail "LIDs changed after losing the database"
[ "$(sm_lft_dump)" = "$lft1" ] || fail "LFTs changed after losing the database"
pass
