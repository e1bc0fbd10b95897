#!/bin/sh
# `preflight --format slurm` as a prolog meets it, on an ibsim fabric run
# by fabricd's SM with health on (4 hosts, 2 leaves, 1 spine).  Faults are
# injected with the simulator and first confirmed with an independent
# tool (ibtracert, perfquery, smpquery):
#   symbol errors on the leaf port the host1 -> host3 route leaves by (a
#   switch link, no host's)    -> exit 1, no drain line, that port named
#                                 once as a "# fabricd: ..." reason line;
#                                 no line printed twice, and the port's
#                                 HealthEvent once in the JSON
#   a host the fabric never had -> a usage error (exit 2), no scontrol line
#   host2's cable unlinked, relinked: the link_down event raised and
#   cleared (the events table) -> host1,host2 pass again (a cleared state
#                                 event does not fail the check)
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq

sim_fabric_up "-k 2 -h 2 -s 1" "health:
  enabled: true
  interval: 1s
  quiet_time: 2s
  symbol_errors_per_min: 10
  ber_warning: 1e-3
  ber_critical: 1e-2"

# the leaf port host1's packets to host3 leave by, as ibtracert walks it
lid1=$(sm_lid_of host1)
lid3=$(sm_lid_of host3)
[ -n "$lid1" ] && [ -n "$lid3" ] || fail "LIDs of host1/host3: '$lid1' '$lid3'"
sim_diag -t 10 ibtracert "$lid1" "$lid3" > "$T/trace" 2>&1 || fail "ibtracert: $(cat "$T/trace")"
up=$(sed -n 's/^\[\([0-9]*\)\] -> switch .*"sw-s1".*/\1/p' "$T/trace" | head -1)
[ -n "$up" ] || fail "no sw-l1 uplink in the trace: $(cat "$T/trace")"
echo "host1 -> host3 leaves sw-l1 by port $up"

sim_console "PerformanceSet \"sw-l1\"[$up] PortCounters.SymbolErrorCounter=5000" || fail console
swlid=$(sim_diag ibnetdiscover | sed -n 's/^Switch.*"sw-l1".* lid \([0-9]*\) .*/\1/p' | head -1)
sim_diag -t 10 perfquery "$swlid" "$up" | grep -q 'SymbolErrorCounter:\.*5000' ||
	fail "perfquery does not see the errors on sw-l1 port $up"

all=host1,host2,host3,host4
i=0
while :; do
	ctl preflight --hosts $all --format slurm > "$T/slurm" 2> "$T/slurm.err"; rc=$?
	[ $rc -eq 1 ] && [ -s "$T/slurm" ] && break
	[ $i -ge 40 ] && fail "a switch link's errors: exit $rc within 20 s, output: $(cat "$T/slurm" "$T/slurm.err")"
	i=$((i + 1))
	sleep 0.5
done
cat "$T/slurm"
grep -q '^scontrol' "$T/slurm" && fail "a switch link's fault drained a host: $(cat "$T/slurm")"
grep "^# fabricd: HealthEvent sw-l1:$up:" "$T/slurm" | grep -q 'no node to drain' ||
	fail "sw-l1 port $up not named as a reason: $(cat "$T/slurm")"
[ -z "$(sort "$T/slurm" | uniq -d)" ] || fail "lines printed twice: $(sort "$T/slurm" | uniq -d)"
ctl --json preflight --hosts $all > "$T/pf.json"
n=$(jq --arg p "sw-l1:$up" '[.faults[] | select(.code == "HealthEvent" and .port == $p)] | length' "$T/pf.json")
[ "$n" = 1 ] || fail "sw-l1 port $up's HealthEvent $n times: $(jq -c .faults "$T/pf.json")"
# the counter clears; the event stays inside the window, so the rest of
# the test uses host1,host2 (one leaf, no route over the uplink)
sim_console "PerformanceSet \"sw-l1\"[$up] PortCounters.SymbolErrorCounter=0" || fail console

# a host no CA is named after: refused, not drained
sim_diag ibnetdiscover | grep -q '"nosuch' && fail "the fabric has a nosuch"
ctl preflight --hosts host1,nosuch --format slurm > "$T/slurm" 2> "$T/slurm.err"; rc=$?
[ $rc -eq 2 ] || fail "unknown host: exit $rc: $(cat "$T/slurm" "$T/slurm.err")"
grep -q scontrol "$T/slurm" && fail "unknown host drained: $(cat "$T/slurm")"
grep -q 'nosuch' "$T/slurm.err" || fail "the refusal does not name the host: $(cat "$T/slurm.err")"

# a link that went down and came back: the event cleared, the host fit
ev() { db "SELECT count(*) FROM events WHERE source = 'health' AND object = 'host2:1' AND message LIKE '$1'"; }
sim_console 'Unlink "host2"[1]' || fail console
i=0
until [ "$(ev 'link_down: %')" -ge 1 ]; do
	[ $i -ge 200 ] && fail "no link_down event for host2:1: $(db "SELECT message FROM events WHERE object = 'host2:1'")"
	i=$((i + 1)); sleep 0.1
done
sim_console 'ReLink "host2"[1]' || fail console
i=0
until [ "$(ev 'link_down cleared%')" -ge 1 ]; do
	[ $i -ge 300 ] && fail "host2:1's link_down never cleared: $(db "SELECT message FROM events WHERE object = 'host2:1'")"
	i=$((i + 1)); sleep 0.1
done
lid2=$(sm_lid_of host2)
sim_diag -t 10 smpquery portinfo "$lid2" 1 | grep -q 'LinkState:\.*Active' ||
	fail "host2 port 1 not Active after ReLink: $(sim_diag smpquery portinfo "$lid2" 1)"
i=0
while :; do
	ctl --json preflight --hosts host1,host2 > "$T/pf.json" 2>&1; rc=$?
	[ $rc -eq 0 ] && break
	[ $i -ge 20 ] && fail "after the link came back: exit $rc: $(jq -c .faults "$T/pf.json")"
	i=$((i + 1)); sleep 0.5
done
fd_stop
pass
