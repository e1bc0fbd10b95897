#!/bin/sh
# topogen + the ibsim harness, checked with ibnetdiscover and iblinkinfo:
# the simulator accepts every generated fabric, discovery finds exactly the
# nodes asked for, only the link made slow on purpose is degraded, and a
# console Unlink really cuts a host off.
. "$FABRICD_SRC/tests/lib/ibsim.sh"
sim_available || { echo "FAIL: ibsim or umad2sim not installed (make deps installs it)"; exit 1; }
trap sim_stop EXIT INT TERM

count_nodes() {	# ibnetdiscover's node lines: "Switch 36 ..." and "Ca 1 ..."
	sim_diag ibnetdiscover | grep -c '^\(Switch\|Ca\)\b'
}

fail() { echo "FAIL: $*"; exit 1; }

# 2-level fat tree, one leaf uplink deliberately 4X SDR
sim_topology -k 4 -h 3 -s 2 -x sw-l2:5 || fail topogen
sim_start || fail "ibsim refused the 2-level fat tree"
n=$(count_nodes); [ "$n" = 18 ] || fail "2-level: $n nodes, want 18"
slow=$(sim_diag iblinkinfo -l | grep -c 'Could be')
[ "$slow" = 2 ] || fail "2-level: $slow degraded port lines, want 2 (both ends of one link)"
sim_diag iblinkinfo -l | grep 'Could be' | grep -q '"sw-l2"\|sw-l2' ||
    fail "the degraded link is not sw-l2's"
sim_console 'Unlink "host5"[1]' || fail "console"
n=$(count_nodes); [ "$n" = 17 ] || fail "after Unlink: $n nodes, want 17"
sim_console 'ReLink "host5"[1]' || fail "console"
n=$(count_nodes); [ "$n" = 18 ] || fail "after ReLink: $n nodes, want 18"
sim_stop

# 3-level fat tree: 2 pods of 3 leaves x 2 hosts, 3 aggs each, small radix
sim_topology -P 8 -p 2 -k 3 -h 2 -a 3 || fail topogen
sim_start || fail "ibsim refused the 3-level fat tree"
want=$(( 12 + 2 * 6 + $(grep -c '^Switch .*"sw-c' "$SIM_DIR/topo.net") ))
n=$(count_nodes); [ "$n" = "$want" ] || fail "3-level: $n nodes, want $want"
[ "$(sim_diag iblinkinfo -l | grep -c 'Could be')" = 0 ] || fail "3-level: degraded links"
sim_stop

# random irregular fabric: same seed, same file; discovery sees all of it
sim_topology -r 42 -n 12 -e 10 -h 2 || fail topogen
"$FABRICD_BUILD/tools/topogen" -r 42 -n 12 -e 10 -h 2 | cmp -s - "$SIM_DIR/topo.net" ||
    fail "random fabric is not reproducible from its seed"
sim_start || fail "ibsim refused the random fabric"
n=$(count_nodes); [ "$n" = 36 ] || fail "random: $n nodes, want 36"
echo "ok"
