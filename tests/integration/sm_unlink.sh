#!/bin/sh
# Links going away and coming back: after a console Unlink of an
# inter-switch link, within three sweeps (two intervals, and one that may
# have been under way; counted in fabricd's sweep records, not timed:
# sm_within_sweeps) every CA pair reaches its LID again through the
# tables dump_fts reads (lftwalk, which takes the cabling from
# ibnetdiscover), no table points at the dead port, only the switches
# whose table changed were written (one block each on this small fabric,
# once per stage: downstream first),
# and an event names the link.  ReLink brings it back Active, within three
# sweeps too.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup
SM_SWEEP=2s

# per_switch FILE: "guid checksum" per switch section of a dump_fts output
per_switch() {
	awk '/^Unicast lids/ { if (g) print g, h; g = $0; sub(/.* guid /, "", g); sub(/ .*/, "", g); h = ""; next }
	    /^0x/ { h = h $1 $2 } END { if (g) print g, h }' "$1" |
	    while read -r g h; do echo "$g $(echo "$h" | cksum | cut -d' ' -f1)"; done | sort
}

routes_ok() { lft_dump && lft_check_all_pairs >/dev/null 2>&1; }
relinked() { sim_diag iblinkinfo | grep -A12 'sw-l2' | grep '  5\[' | grep -q 'Active/'; }

sim_fabric_up "-P 8 -k 4 -h 4 -s 4"
lft_dump || fail "dump_fts"
lft_check_all_pairs || fail "routes before Unlink"
per_switch "$SIM_DIR/fts.txt" > "$T/before"
last=$(db "SELECT max(id) FROM sm_sweeps")

sim_console 'Unlink "sw-l2"[5]' || fail console
sm_within_sweeps "$last" 3 "every CA pair routes after the Unlink" routes_ok
sim_diag ibnetdiscover | grep -q '"sw-s1"' || fail "sw-s1 lost"
awk '/^Unicast lids/ { on = /sw-l2/ } on && $2 == "005" { bad = 1 } END { exit bad }' \
    "$SIM_DIR/fts.txt" || fail "sw-l2 still routes out of its dead port 5"
awk '/^Unicast lids/ { on = /sw-s1/ } on && $2 == "002" { bad = 1 } END { exit bad }' \
    "$SIM_DIR/fts.txt" || fail "sw-s1 still routes out of its dead port 2"
per_switch "$SIM_DIR/fts.txt" > "$T/after"
changed=$(join "$T/before" "$T/after" | awk '$2 != $3' | wc -l)
written=$(db "SELECT coalesce(sum(lft_blocks), 0) FROM sm_sweeps WHERE id > $last")
[ "$changed" -gt 0 ] || fail "no table changed"
echo "tables changed: $changed, blocks written: $written"
# one block each, written once per stage of the entries that change in it
# (downstream first, docs/sm.md): at least once, and on a two-level tree
# at most twice
[ "$written" -ge "$changed" ] && [ "$written" -le $((changed * 2)) ] ||
    fail "$written LFT blocks written, $changed switch tables changed"
# the event's object is one end, its message names the other (NODE:PORT)
ctl --json events | jq -e '[.events[] | select((.object == "sw-l2:5" or (.message | contains(" sw-l2:5 "))) and
    (.message | test("^link to .* down$")))] | length > 0' >/dev/null || fail "no event names the link"

s1=$(db "SELECT max(id) FROM sm_sweeps")
sim_console 'ReLink "sw-l2"[5]' || fail console
sm_within_sweeps "$s1" 3 "sw-l2[5] Active after ReLink" relinked
sm_within_sweeps "$s1" 3 "every CA pair routes after ReLink" routes_ok
ctl --json events | jq -e '[.events[] | select((.object == "sw-l2:5" or (.message | contains(" sw-l2:5 "))) and
    (.message | test("^link to .* up$")))] | length > 0' >/dev/null || fail "no event for the link coming back"
pass
