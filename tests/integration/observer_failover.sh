#!/bin/sh
# Observer mode across an SM failover (docs/sm.md): OpenSM master on host1
# (priority 10), a standby OpenSM on host3 (priority 5), fabricd observing
# from host2.  The master is killed; once the standby has taken over (the
# SM LID smpquery reads on host2's port is host3's), the observer follows
# it within its retries: status names host3's port and LID, and its nodes
# and links equal ibnetdiscover's again.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq smpquery
octl() { ctl "$@"; }

opensm_pair_up

fd_config "sm:
  enabled: false
  observer:
    enabled: true
    refresh: 2s"
fd_start SIM_HOST=host2 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
wait_view 120 || fail "the observer's view is not fresh within 120 s"
capture -e "$T/same.out" same "before the failover"
[ "$(obs master_guid)" = "$(sim_port_guid host1)" ] || fail "follows $(obs master_guid), not host1's port"

# the master dies; the standby takes over
lid2=$(lid host2)
kill -9 "$OSM1"
wait "$OSM1" 2>/dev/null
OSM_PID=
end=$(( $(date +%s) + 30 ))
until [ "$(sim_diag -H host4 smpquery portinfo -L "$lid2" 1 | sed -n 's/^SMLid:\.*\([0-9]*\)$/\1/p')" = "$lid3" ]; do
	[ "$(date +%s)" -ge "$end" ] && fail "host3's OpenSM did not take over within 30 s"
	sleep 0.3
done
t0=$(date +%s)
end=$(( t0 + 20 ))
until [ "$(obs master_lid)" = "$lid3" ] && [ "$(obs master_guid)" = "$g3" ] && [ "$(obs view)" = fresh ]; do
	[ "$(date +%s)" -ge "$end" ] && fail "the observer still follows LID $(obs master_lid) ($(obs master_guid)), 20 s after host3 took over; last error: $(obs last_error)"
	sleep 0.3
done
views=$(obs views)
until [ "$(obs views)" -gt "$views" ]; do
	[ "$(date +%s)" -ge "$end" ] && fail "no view read from host3's SA"
	sleep 0.2
done
capture -e "$T/same.out" same "after the failover"
echo "failover: the observer follows host3 ($g3, LID $lid3) $(( $(date +%s) - t0 )) s after it took over"
pass
