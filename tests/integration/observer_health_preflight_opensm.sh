#!/bin/sh
# Issue 27 beside OpenSM: OpenSM 3.3.23 is master on host1 of an ibsim fat
# tree; fabricd observes from host2 (a) and host3 (b).  Judged by
# infiniband-diags as other clients of the simulator:
#  - each observer's nodes and links equal ibnetdiscover, its routes
#    ibtracert's;
#  - OpenSM stopped (SIGSTOP: the switches keep its routes), a leaf uplink
#    that host2's route to a far host leaves by is unlinked (smpquery reads
#    it Down): the pre-flight over the pair fails naming that port, read
#    live; a pair whose route stays in the leaf passes; OpenSM resumed and
#    rerouted, the pair passes at a later read;
#  - SymbolErrorCounter set on host2's port (perfquery reads it): observer
#    a, health on its local ports, raises the symbol_errors event, observer
#    b does not;
#  - every MAD each observer sent, logged below umad, is a Get.
# (observer_health_preflight_fabricd.sh: the same with fabricd as master.)
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq

opensm_tree_up
observer_pair_checks "$OSM_PID" || fail "observer_pair_checks: $?"
pass
