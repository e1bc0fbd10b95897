#!/bin/sh
# LFT blocks whose Set got no answer are written again by the light sweeps
# that follow (sm/core/lft.c, sm_lft_mend; the sweep's "lft mend" step),
# without a heavy sweep: a Set without a reply leaves its block unknown in
# the SM's copy, and nothing else would write it short of a topology
# change.
#
# A cable between a leaf and a spine is pulled (ibsim's console Unlink):
# the heavy sweep it brings reroutes, and a double below fabricd's umad
# calls (tests/fixtures/mad/madlog.c: MADLOG_SWALLOW with
# MADLOG_SWALLOW_ATTR=0x0019) swallows every LinearForwardingTable Set
# meanwhile, each retry included, so the switches keep routes over the
# pulled cable.  The audit is off (its reads would mend the blocks too).
# Once the swallowing stops, with no heavy sweep asked for:
#   - by the end of the second light sweep after it (counted in fabricd's
#     sweep records, sqlite3, read before each walk; a minute of wall
#     clock only ends the wait) every CA pair walks to its LID through the
#     tables dump_fts reads (tests/lib/lftwalk.sh), not by asking fabricd;
#   - the double's log shows every swallowed (switch, block) Set again and
#     let through;
#   - no heavy sweep ran meanwhile: the log has no NodeInfo Get of the SM's
#     own port (route "0"), with which every heavy sweep's discovery starts.
# Seen failing: with sm/core/sweep.c's step_lft_mend() returning STEP_GO
# without calling sm_lft_mend(), 56 of 552 CA pairs still crossed the
# pulled cable 30 s on, no LFT Set sent since the loss stopped.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup dump_fts ibnetdiscover jq
MADLOG=$T/mads.log
SWALLOW=$T/swallow

sim_topology -P 8 -k 6 -h 4 -s 3 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
  sweep_interval: 2s
  audit: false"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$MADLOG" MADLOG_MARK=1 \
    MADLOG_SWALLOW="$SWALLOW" MADLOG_SWALLOW_ATTR=0x0019
sm_wait_up 30 || fail "subnet not up within 30 s"
lft_dump || fail "dump_fts"
lft_check_all_pairs > "$T/walk" || { tail -5 "$T/walk"; fail "routes before the loss"; }

# sw-l2's port 5 goes to sw-s1 (topogen's cabling, read back from ibsim)
sim_diag ibnetdiscover > "$T/disc" || fail ibnetdiscover
awk '/^Switch.*"sw-l2"/ { on = 1; next } /^$/ { on = 0 } on && /^\[5\]/' "$T/disc" | grep -q '"sw-s1"' ||
    fail "sw-l2[5] is not cabled to sw-s1: $(grep -A8 '"sw-l2"' "$T/disc" | head -9)"

last=$(db "SELECT coalesce(max(id), 0) FROM sm_sweeps")
touch "$SWALLOW"
sim_console 'Unlink "sw-l2"[5]' || fail console
# the swallowing stops once the heavy sweep that rerouted has ended and a
# light sweep after it (its mend swallowed too): no heavy sweep is still
# to come (a request during a sweep makes the next one heavy)
end=$(( $(date +%s) + 60 ))
until [ "$(db "SELECT count(*) FROM sm_sweeps WHERE kind = 'light' AND id > (SELECT min(id)
    FROM sm_sweeps WHERE id > $last AND kind = 'heavy')")" -ge 1 ]; do
	[ "$(date +%s)" -gt "$end" ] && fail "no heavy sweep and light sweep after it within 60 s of the Unlink"
	sleep 0.2
done
# while they are lost the switches still route over the pulled cable
lft_dump || fail "dump_fts during the loss"
lft_check_all_pairs > "$T/walk" && fail "every CA pair walks with the LFT Sets swallowed: the test proves nothing"
l0=$(wc -l < "$MADLOG")
s0=$(db "SELECT coalesce(max(id), 0) FROM sm_sweeps")
rm -f "$SWALLOW"
# (switch route, block) of every swallowed LFT Set
awk '$1 == "0x81" && $2 == "0x02" && $3 == "0x0019" && $NF == "swallowed" { print $7, $4 }' \
    "$MADLOG" | sort -u > "$T/lost"
[ -s "$T/lost" ] || fail "the reroute sent no LFT Set to swallow: the test proves nothing"
echo "swallowed: LFT Sets of $(wc -l < "$T/lost") blocks ($(cut -d' ' -f1 "$T/lost" | sort -u | wc -l) switches)"

# mended by the light sweeps, read from outside: two light sweeps that
# began after the loss stopped (the one under way may have begun before)
lights() { db "SELECT count(*) FROM sm_sweeps WHERE id > $s0 AND kind = 'light'"; }
end=$(( $(date +%s) + 120 ))
until n=$(lights); lft_dump && lft_check_all_pairs > "$T/walk"; do
	if [ "$n" -ge 3 ] || [ "$(date +%s)" -gt "$end" ]; then
		tail -3 "$T/walk"
		fail "CA pairs still unroutable after $n light sweeps since the LFT Sets stopped being swallowed ($(awk -v n="$l0" \
		    'NR > n && $2 == "0x02" && $3 == "0x0019"' "$MADLOG" | wc -l) LFT Sets since)"
	fi
	sleep 1
done
echo "mended with $n light sweeps recorded since the loss stopped"

l1=$(wc -l < "$MADLOG")
awk -v n="$l0" -v m="$l1" 'NR > n && NR <= m && $1 == "0x81" && $2 == "0x02" && $3 == "0x0019" &&
    $NF != "swallowed" { print $7, $4 }' "$MADLOG" | sort -u > "$T/again"
missing=$(comm -23 "$T/lost" "$T/again")
[ -z "$missing" ] || fail "swallowed LFT blocks (route block) not written again: $missing"
heavy=$(awk -v n="$l0" -v m="$l1" 'NR > n && NR <= m && $1 == "0x81" && $2 == "0x01" &&
    $3 == "0x0011" && $7 == "0"' "$MADLOG" | wc -l)
[ "$heavy" -eq 0 ] || fail "$heavy heavy sweeps ran before the mend: the light sweeps did not mend alone"
echo "every CA pair walks; the $(wc -l < "$T/lost") lost blocks written again by light sweeps"
fd_stop
pass
