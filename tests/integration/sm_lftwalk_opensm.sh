#!/bin/sh
# The route checker (tests/lib/lftwalk.*) against the reference SM: on
# fabrics routed by OpenSM every CA pair walks to its LID through the
# tables dump_fts reads, ibtracert agrees on a sample, and a table broken
# on purpose is caught.  This keeps the checker honest before it judges
# fabricd's routing (sm_routes.sh).
. "$FABRICD_SRC/tests/lib/ibsim.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_available || { echo "FAIL: ibsim or umad2sim not installed (make deps installs it)"; exit 1; }
command -v opensm >/dev/null || { echo "FAIL: opensm not installed (make deps installs it)"; exit 1; }
trap sim_stop EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

for topo in "-k 6 -h 4 -s 3" "-r 5 -n 10 -e 8 -h 2"; do
	# shellcheck disable=SC2086
	sim_topology $topo || fail topogen
	sim_start || fail "ibsim"
	sim_opensm || fail "opensm on $topo"
	lft_dump || fail "dump"
	lft_check_all_pairs || fail "OpenSM's tables on $topo"
	lft_check_tracert 6 || fail "ibtracert on $topo"
	# a switch that forwards one LID to a port with nothing behind it
	sed '0,/^\(0x[0-9a-f]* \)0[0-9][0-9] :/s//\1000 :/' "$SIM_DIR/fts.txt" > "$SIM_DIR/bad.txt"
	cmp -s "$SIM_DIR/fts.txt" "$SIM_DIR/bad.txt" && fail "could not corrupt the dump"
	awk -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/bad.txt" > /dev/null &&
	    fail "the checker passed a broken table"
	sim_stop
done
echo ok
