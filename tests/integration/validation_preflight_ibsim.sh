#!/bin/sh
# Pre-flight on an ibsim fabric run by fabricd's own SM (4 hosts, 2
# leaves, 1 spine; host4 cabled at 4X SDR on purpose).  Faults are
# injected with the simulator, and each is first confirmed with an
# independent tool (iblinkinfo) before fabricd's verdict is checked:
#   healthy hosts                     -> exit 0
#   a degraded host port              -> exit 1 naming host4 port 1
#   --nccl with no launcher installed -> exit 2
#   Unlink of a host's cable          -> exit 1 naming that host's port
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
sim_available || skip "ibsim or umad2sim not installed"
fd_setup
fd_on_exit sim_stop
SIM_DIR=$T/sim

sim_topology -k 2 -h 2 -s 1 -x host4:1 || fail topogen
sim_start || fail ibsim
fd_config "$(printf 'sm:\n  enabled: true\nvalidation:\n  mpirun: %s/none/mpirun\n  job_timeout: 5s' "$T")"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
ctl --json status | grep -q '"not implemented"' && skip "the SM is not implemented in this build"
subnet_state() {
	ctl --json status 2>/dev/null | tr -d ' \n\t' |
	    sed -n 's/.*"subnet":{"state":"\([a-z]*\)".*/\1/p'
}
i=0
until [ "$(subnet_state)" = up ]; do
	[ $i -ge 300 ] && fail "subnet not up within 30 s"
	i=$((i + 1))
	sleep 0.1
done

# preflight HOSTS... -> $rc, JSON in $T/pf.json
pf() { ctl --json preflight "$@" >"$T/pf.json" 2>&1; rc=$?; }
faults_name() {	# CODE HOST: a fault with that code names that host
	tr -d '\n' < "$T/pf.json" | sed 's/},/}\n/g' | grep "\"code\": *\"$1\"" | grep -q "\"host\": *\"$2\""
}

pf --hosts host1,host2,host3
[ $rc -eq 0 ] || fail "healthy hosts: exit $rc: $(cat "$T/pf.json")"

# the slow cable really is slow (iblinkinfo, not fabricd)
sim_diag iblinkinfo > "$T/links" 2>&1 || fail iblinkinfo
grep '"host4' "$T/links" | grep -q '4X' || fail "host4 link is not 4X: $(grep host4 "$T/links")"
pf --hosts host1,host4
[ $rc -eq 1 ] || fail "degraded host4: exit $rc"
faults_name IBPortDegraded host4 || fail "no IBPortDegraded fault naming host4: $(cat "$T/pf.json")"

pf --hosts host1,host2 --nccl
[ $rc -eq 2 ] || fail "--nccl without a launcher: exit $rc"

sim_console 'Unlink "host2"[1]' || fail "ibsim console"
sim_diag iblinkinfo 2>/dev/null | grep -q '"host2' && fail "host2 still cabled after Unlink"
i=0
while :; do
	pf --hosts host1,host2,host3
	[ $rc -eq 1 ] && break
	[ $i -ge 60 ] && fail "Unlink not seen by preflight within 30 s: exit $rc"
	i=$((i + 1))
	sleep 0.5
done
# named: host2's port 1 and the leaf port it hung off (which iblinkinfo
# shows as no longer cabled to host2)
faults_name IBPortDown host2 || fail "no IBPortDown fault naming host2: $(cat "$T/pf.json")"
tr -d '\n' < "$T/pf.json" | sed 's/},/}\n/g' | grep '"IBPortDown"' | grep '"host": *"host2"' |
	grep '"host_port": *1' | grep -q '"port": *"sw-l1 port [0-9]*"' ||
	fail "the fault does not name host2 port 1 and its leaf port: $(cat "$T/pf.json")"
fd_stop
pass
