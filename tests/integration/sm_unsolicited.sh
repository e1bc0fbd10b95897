#!/bin/sh
# MADs nobody asked for reach the SM's port and must never hurt it: SA
# queries (saquery), vendor-class pings (ibping), SMInfo from other hosts
# (LID-routed and directed route),
# a forged trap, while a sweep runs.  Afterwards the daemon is alive, sminfo
# still names it MASTER, and a heavy sweep still completes.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

sim_fabric_up "-P 8 -k 2 -h 2 -s 2"
smlid=$(sm_lid_of host1)
ctl sweep --heavy >/dev/null &
sweeper=$!
sim_diag -H host2 -t 5 saquery >/dev/null
sim_diag -H host3 -t 5 saquery -N >/dev/null
sim_diag -H host2 -t 3 ibping -c 2 -L "$smlid" >/dev/null
sim_diag -H host4 -t 5 smpquery sminfo "$smlid" >/dev/null
sim_diag -H host4 -t 5 perfquery "$smlid" >/dev/null
wait "$sweeper"
kill -0 "$FD_PID" 2>/dev/null || fail "fabricd died"
sim_diag -H host3 sminfo | grep -q SMINFO_MASTER || fail "sminfo after the noise"
# directed route too: host2 -> sw-l1 port 1 -> host1, the SM's port
grep -q '^\[1\] "host1"' "$SIM_DIR/topo.net" || fail "net file: host1 not on a leaf's port 1"
sim_diag -H host2 sminfo -D 0,1,1 | grep -q SMINFO_MASTER || fail "directed-route sminfo"
ctl sweep --heavy | grep -q 'ok: yes' || fail "heavy sweep after the noise"
pass
