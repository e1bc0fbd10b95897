#!/bin/sh
# fabricd's default routing (auto: ftree on a fat tree) against OpenSM's
# ftree on the same fabrics, judged only by infiniband-diags: every CA pair
# is walked through the tables dump_fts reads (tests/lib/lftwalk.awk), the
# routes crossing each inter-switch link direction counted, and fabricd's
# hottest link must be no busier than OpenSM's.  Fabrics: a 2-level radix-36
# tree (324 hosts), a 3-level radix-16 tree, a 3-level tree with parallel
# links between aggregation and core switches and a leaf without hosts.
# A rail-optimised tree (4 HCAs a host, HCA i on leaf i of its group):
# walking only the pairs of one rail, every rail is at its ideal.
# Every walk runs the credit-loop check too: neither SM's tables may have
# one.  The figures are printed for docs/sm.md.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup opensm

loads() {	# the "loads:" line of the walk over the current dump
	lft_dump || fail "dump_fts"
	awk -v loads=1 -v cdg=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" > "$T/walk.txt" ||
	    fail "LFT walk: $(head -5 "$T/walk.txt")"
	sed -n 's/^loads: //p' "$T/walk.txt"
}
field() { echo "$2" | sed -n "s/.*\\b$1 \\([^ ]*\\).*/\\1/p"; }

compare() {	# LABEL LEAVES TOPOGEN-ARGS...: LEAVES as the engine must count them
	label=$1
	leaves=$2
	shift 2
	sim_topology "$@" || fail topogen
	sim_start || fail ibsim
	rm -rf "$STATE"
	sm_start_fabricd host1
	sm_wait_up 60 || fail "subnet not up ($label)"
	capture "$T/ours" loads
	ours=$(cat "$T/ours")
	# the operator view agrees with the walk from outside
	ctl routing > "$T/routing.txt" || fail "fabricctl routing"
	pairs=$(sed -n 's/^lftwalk: \([0-9]*\) pairs ok.*/\1/p' "$T/walk.txt")
	grep -q "^CA pairs routed $pairs, failed 0" "$T/routing.txt" ||
	    fail "fabricctl routing counts other pairs than the walk ($pairs): $(cat "$T/routing.txt")"
	[ "$(awk '/^L[0-9]+->L/ && $5 > m { m = $5 } END { print m + 0 }' "$T/routing.txt")" = \
	    "$(field max "$ours")" ] || fail "fabricctl routing's busiest link is not the walk's: $(cat "$T/routing.txt")"
	grep -q '^engine ftree (configured auto)' "$T/routing.txt" || fail "routing: $(head -1 "$T/routing.txt")"
	ctl --json routing | grep -q '"hottest"' || fail "no hottest links in --json"
	cat "$T/routing.txt"
	db "SELECT message FROM events WHERE message LIKE 'routing: ftree engine (auto: %'" |
	    grep -q "fat tree: $leaves leaves," || fail "no event naming ftree ($label): $(db "SELECT message FROM events WHERE message LIKE 'routing%'")"
	fd_stop
	sim_stop
	sim_start || fail ibsim
	OSM_ARGS='-R ftree' sim_opensm host1 120 || fail "OpenSM ftree ($label)"
	capture "$T/theirs" loads
	theirs=$(cat "$T/theirs")
	grep -q 'ftree' "$SIM_DIR/osm.log" || fail "OpenSM did not say ftree"
	sim_stop
	echo "$label: fabricd $ours"
	echo "$label: OpenSM ftree $theirs"
	[ "$(field max "$ours")" -le "$(field max "$theirs")" ] ||
	    fail "$label: fabricd's hottest link $(field max "$ours") > OpenSM's $(field max "$theirs")"
}

compare "2-level radix 36, 324 hosts" 18 -k 18 -h 18 -s 18
compare "3-level radix 16, 256 hosts" 32 -P 16 -p 4 -k 8 -h 8 -a 8
# 2 cables from every aggregation switch to each of 6 cores; 4 leaves a
# pod, the last one without hosts
compare "3-level radix 16, parallel links, 84 hosts" 8 -P 16 -p 2 -k 4 -h 12 -a 4 -u 1
# rail-local pairs only: the hottest link at the per-rail bound
sim_topology -P 16 -k 8 -h 8 -s 8 -G 4 || fail topogen
sim_start || fail ibsim
rm -rf "$STATE"
sm_start_fabricd host1
sm_wait_up 60 || fail "subnet not up (rails)"
lft_dump || fail dump_fts
awk -v loads=1 -v rails=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" > "$T/walk.txt" ||
    fail "LFT walk (rails): $(head -5 "$T/walk.txt")"
rl=$(sed -n 's/^loads: //p' "$T/walk.txt")
echo "rail-optimised, 16 hosts x 4 HCAs, rail pairs: fabricd $rl"
[ "$(field max "$rl")" = "$(field bound "$rl")" ] || fail "a rail is not at its ideal: $rl"
fd_stop
sim_stop
sim_start || fail ibsim
OSM_ARGS='-R ftree' sim_opensm host1 120 || fail "OpenSM ftree (rails)"
lft_dump || fail dump_fts
awk -v loads=1 -v rails=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" > "$T/walk.txt"
echo "rail-optimised, 16 hosts x 4 HCAs, rail pairs: OpenSM ftree $(sed -n 's/^loads: //p' "$T/walk.txt")"
sim_stop
pass
