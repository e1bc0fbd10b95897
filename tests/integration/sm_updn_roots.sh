#!/bin/sh
# Up/down routing from configured roots, judged by infiniband-diags: on a
# 2-level fat tree (one cable from each leaf to each spine) with sw-s2 configured as the only root, every route
# between hosts of different leaves climbs to sw-s2 (by the rules of
# up/down nothing else is legal: a leaf may not go down to another spine
# and up again), as the tables dump_fts reads show; with the roots
# detected the same routes spread over all three spines.  A root that is
# not in the fabric is an event, and the fabric is still routed.  Config
# errors name file:line:column.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

# ---- config errors, positions counted from the file we write ----
cat > "$T/bad.yaml" <<EOF
socket: $T/bad.sock
state_dir: $T/bad-state
sm:
  enabled: true
  routing: updn
  updn_roots: [0x0002c90300000a01, spine-1, 0x0002c90300000a01]
EOF
out=$("$FABRICD" -n -c "$T/bad.yaml" 2>&1) && fail "bad updn_roots accepted"
echo "$out" | grep -q "bad.yaml:6:36: expected a switch node GUID" ||
    fail "no position for the bad GUID: $out"
echo "$out" | grep -q "bad.yaml:6:45: root 0x0002c90300000a01 is listed twice" ||
    fail "no position for the duplicate: $out"
printf 'sm:\n  updn_roots: 0x1\n' > "$T/bad2.yaml"
"$FABRICD" -n -c "$T/bad2.yaml" 2>&1 | grep -q "bad2.yaml:2:15: expected a list for updn_roots" ||
    fail "a scalar for updn_roots accepted: $("$FABRICD" -n -c "$T/bad2.yaml" 2>&1)"

# ---- routes on the simulator ----
# Radix 6: 3 hosts and one cable to each of the 3 spines per leaf.
sim_topology -P 6 -k 4 -h 3 -s 3 || fail topogen
sim_start || fail ibsim
sim_diag ibnetdiscover > "$T/cold.txt" || fail ibnetdiscover
guid_of() {	# NAME: node GUID from ibnetdiscover's Switch line
	sed -n "s/^Switch.*\"S-\([0-9a-f]*\)\".*# \"$1\".*/0x\1/p" "$T/cold.txt"
}
root=$(guid_of sw-s2)
[ -n "$root" ] || fail "sw-s2 not in ibnetdiscover's output"

# hosts by leaf: host1-3 on sw-l1, 4-6 on sw-l2 ... (topogen's cabling);
# every ordered pair on different leaves
spines_used() {	# the spine GUIDs inter-leaf routes cross, with counts
	lft_dump || fail dump_fts
	lft_check_all_pairs > /dev/null || fail "LFT walk: $(lft_check_all_pairs)"
	# the hosts' LIDs from the discovery lft_dump just saved (one
	# ibnetdiscover for all 12, not two per pair)
	lids=
	for a in $(seq 1 12); do
		l=$(sed -n "s/.*\"host$a\" lid \([0-9]*\) .*/\1/p" "$SIM_DIR/disc.txt" | head -1)
		[ -n "$l" ] || fail "host$a has no LID in ibnetdiscover's output"
		lids="$lids $l"
	done
	# shellcheck disable=SC2086
	lid_n() { printf '%s\n' $lids | sed -n "$1p"; }
	for a in $(seq 1 12); do
		for b in $(seq 1 12); do
			[ $(( (a + 2) / 3 )) = $(( (b + 2) / 3 )) ] && continue
			awk -v path="$(lid_n $a),$(lid_n $b)" -f "$LFTWALK_AWK" \
			    "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" | sed -n 2p
		done
	done | sort | uniq -c
}

sm_start_fabricd host1 "  routing: updn
  updn_roots: [$root]"
sm_wait_up 30 || fail "subnet not up (updn, configured root)"
capture "$T/used" spines_used
used=$(cat "$T/used")
[ "$(echo "$used" | wc -l)" = 1 ] && echo "$used" | grep -q " $root\$" ||
    fail "inter-leaf routes do not all cross the configured root $root: $used"
fd_stop
sim_stop

# The same fabric with the roots detected: the routes spread over spines,
# so the check above can tell configured roots from detected ones.
sim_start || fail ibsim
rm -rf "$STATE"
sm_start_fabricd host1 "  routing: updn"
sm_wait_up 30 || fail "subnet not up (updn, detected roots)"
capture "$T/used" spines_used
used=$(cat "$T/used")
[ "$(echo "$used" | wc -l)" -ge 2 ] || fail "detected roots: one spine carries everything: $used"
fd_stop
sim_stop

# A root that is not there: warned about, and everything is still routed.
sim_start || fail ibsim
rm -rf "$STATE"
sm_start_fabricd host1 "  routing: updn
  updn_roots: [0x00000000deadbeef]"
sm_wait_up 30 || fail "subnet not up (updn, absent root)"
lft_dump || fail dump_fts
lft_check_all_pairs > /dev/null || fail "LFT walk with an absent root: $(lft_check_all_pairs)"
[ "$(db "SELECT count(*) FROM events WHERE source = 'sm' AND severity >= 1
    AND message LIKE 'updn: 1 configured root is not a switch of the fabric: 0x00000000deadbeef%'")" = 1 ] ||
    fail "no event for the absent root: $(db "SELECT message FROM events WHERE source = 'sm'")"
pass
