#!/bin/sh
# Replies that never come.  With the simulator dropping a tenth of the MADs
# entering a spine, the SM retries and still brings the fabric up (every
# port a unique LID and every link Active, by ibnetdiscover and iblinkinfo
# once the drops stop).  With every MAD to one host dropped, the sweep
# finishes anyway and names exactly the port behind which the host sits,
# which the net file (not fabricd) says is sw-l4's port 4 (sw-l4:4).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

sim_topology -P 8 -k 4 -h 4 -s 4 || fail topogen
grep -q '^\[4\] "host16"' "$SIM_DIR/topo.net" || fail "net file: host16 is not on port 4"
awk '/^Switch/ { sw = $3 } /"host16"/ && sw { print sw; exit }' "$SIM_DIR/topo.net" |
    grep -q '"sw-l4"' || fail "net file: host16 is not on sw-l4"
sim_start || fail "ibsim"
sim_console 'Error "sw-s1"[1] 10' || fail console
sim_console 'Error "sw-s2"[1] 10' || fail console
sim_console 'Error "host16"[1] 100' || fail console
sm_start_fabricd host1 "  mad_retries: 8"

# The first sweep completes and names the one port it could not see past.
i=0
until [ "$(db "SELECT count(*) FROM sm_sweeps WHERE kind = 'heavy'" 2>/dev/null)" -ge 1 ] 2>/dev/null; do
	[ $i -ge 100 ] && fail "no sweep finished"
	i=$((i + 1))
	sleep 0.1
done
what=$(db "SELECT unreachable_what FROM sm_sweeps WHERE kind = 'heavy' ORDER BY id LIMIT 1")
echo "unreachable: $what"
echo "$what" | grep -q 'node behind sw-l4:4' || fail "sweep did not name sw-l4:4: $what"
[ "$(echo "$what" | tr ';' '\n' | grep -vc 'sw-l4:4')" = 0 ] ||
    fail "sweep blamed more than host16's port: $what"
ctl --json events | jq -e '[.events[] | select(.message | contains("node behind sw-l4:4"))] | length > 0' >/dev/null ||
    fail "no event names the unreachable port"
retries=$(db "SELECT sum(retries) FROM sm_sweeps")
[ "$retries" -gt 0 ] || fail "no retries recorded with 10% drops"

# Drops stop on the host: the next sweeps bring everything up.
sim_console 'Error "host16"[1] 0' || fail console
sim_console 'Error "sw-s1"[1] 0' || fail console
sim_console 'Error "sw-s2"[1] 0' || fail console
ctl sweep --heavy >/dev/null || fail "sweep command"
sm_wait_up 10 || fail "subnet not up once the drops stopped"
lids=$(sm_lids)
[ "$(echo "$lids" | awk '$2 > 0' | awk '{ print $2 }' | sort -u | wc -l)" = 24 ] ||
    fail "not 24 unique non-zero LIDs: $lids"
notactive=$(sim_diag iblinkinfo | grep 'LinkUp' | grep -v 'Active/' || true)
[ -z "$notactive" ] || fail "links not Active: $notactive"
pass
