#!/bin/sh
# fabricd's routing, judged only by infiniband-diags: on a 324-host fat
# tree (minhop) and a random irregular fabric (updn) every CA-to-CA pair
# walks to its LID through the tables dump_fts reads from the switches, with
# no loop, and ibtracert follows the same switches on a sample.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup

subnet_state() {
	ctl --json status 2>/dev/null | tr -d ' \n\t' |
	    sed -n 's/.*"subnet":{"state":"\([a-z]*\)".*/\1/p'
}

route_check() {	# ROUTING TOPOGEN-ARGS...
	routing=$1
	shift
	sim_topology "$@" || fail topogen
	sim_start || fail "ibsim"
	rm -rf "$STATE"
	fd_config "$(printf 'sm:\n  enabled: true\n  routing: %s' "$routing")"
	# a refused key or an SM that says "not implemented" is a failure
	out=$("$FABRICD" -n -c "$CONF" 2>&1) || fail "routing: $routing refused: $out"
	fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
	i=0
	until [ "$(subnet_state)" = up ]; do
		[ $i -ge 300 ] && fail "subnet not up within 30 s ($routing, $*)"
		i=$((i + 1))
		sleep 0.1
	done
	lft_dump || fail "dump_fts"
	lft_check_all_pairs || fail "LFT walk ($routing, $*)"
	lft_check_tracert 8 || fail "ibtracert ($routing, $*)"
	fd_stop
	sim_stop
}

route_check minhop -k 18 -h 18 -s 18
route_check updn -r 11 -n 16 -e 14 -h 2
pass
