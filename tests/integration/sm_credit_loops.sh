#!/bin/sh
# The credit-loop check (tests/lib/lftwalk.awk -v cdg=1: cycles in the
# channel dependency graph of every CA-to-CA route through the tables
# dump_fts reads), on fabricd's tables and OpenSM's: minhop on a ring of
# five switches has a loop (both SMs' tables), and fabricd warns of it
# after routing; updn on the same ring and ftree (the default) on a
# 3-level fat tree have none.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

cdg() {	# the cdg line of the current tables; status 1 on a loop
	lft_dump || fail "dump_fts"
	awk -v cdg=1 -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt" > "$T/cdg.txt"
	rc=$?
	grep '^lftwalk:' "$T/cdg.txt" | grep -q ' 0 failed' || fail "routes broken: $(head -3 "$T/cdg.txt")"
	sed -n 's/^cdg: //p' "$T/cdg.txt"
	return $rc
}

run() {	# ROUTING TOPOGEN-ARGS...: fabricd routes the fabric; loads dumped
	routing=$1
	shift
	sim_topology "$@" || fail topogen
	sim_start || fail ibsim
	rm -rf "$STATE"
	sm_start_fabricd host1 "${routing:+  routing: $routing}"
	sm_wait_up 30 || fail "subnet not up ($routing $*)"
}

run minhop -R 5 -h 2
capture -r "$T/out" cdg
out=$(cat "$T/out")
[ $CAPTURE_RC -ne 0 ] || fail "no loop found in minhop's tables on a ring: $out"
echo "fabricd minhop, ring of 5: $out"
echo "$out" | grep -q 'cycle sw-r' || fail "the cycle is not named: $out"
db "SELECT message FROM events WHERE severity = 1 AND message LIKE 'routing: the minhop tables have a credit loop%'" |
    grep -q . || fail "no warning from fabricd: $(db "SELECT message FROM events WHERE message LIKE 'routing%'")"
fd_stop
sim_stop

run updn -R 5 -h 2
capture -r "$T/out" cdg
out=$(cat "$T/out")
[ $CAPTURE_RC -eq 0 ] || fail "updn's tables on a ring have a loop: $out"
echo "fabricd updn, ring of 5: $out"
db "SELECT count(*) FROM events WHERE message LIKE '%credit loop%'" | grep -qx 0 ||
    fail "a loop warning for updn"
fd_stop
sim_stop

run "" -P 8 -p 2 -k 4 -h 4 -a 4
capture -r "$T/out" cdg
out=$(cat "$T/out")
[ $CAPTURE_RC -eq 0 ] || fail "ftree's tables have a loop: $out"
echo "fabricd default (ftree), 3-level tree: $out"
ctl --json status | grep -q '"routing_engine": *"ftree"' || fail "status does not say ftree"
fd_stop
sim_stop

need opensm
if :; then
	sim_topology -R 5 -h 2 || fail topogen
	sim_start || fail ibsim
	sim_opensm host1 || fail "OpenSM minhop"
	capture -r "$T/out" cdg
	out=$(cat "$T/out")
	[ $CAPTURE_RC -ne 0 ] || fail "no loop found in OpenSM's minhop tables on a ring: $out"
	echo "OpenSM minhop, ring of 5: $out"
	sim_stop
fi
pass
