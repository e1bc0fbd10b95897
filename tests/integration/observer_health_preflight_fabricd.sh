#!/bin/sh
# Issue 27 with fabricd as master: fabricd is the SM on host1 of an ibsim
# fat tree, and two more fabricd observe from host2 (a) and host3 (b).
# The checks of observer_health_preflight_opensm.sh, the master stopped
# with SIGSTOP while a cable is pulled: nodes and links as ibnetdiscover,
# routes as ibtracert, the pre-flight over a pulled cable fails naming it
# and passes once the master rerouted, the symbol_errors event from the
# observer whose port it is, and Gets only.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup jq

sim_fabric_up "-P 8 -k 4 -h 4 -s 4"
sim_diag ibnetdiscover > "$T/disc.txt" || fail ibnetdiscover
observer_pair_checks "$FD_PID" || fail "observer_pair_checks: $?"
fd_stop
pass
