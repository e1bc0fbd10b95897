#!/bin/sh
# The audit on the daemon's defaults (sweep_interval 10 s, audit_interval
# 60 s, audit_mad_budget 5000): light sweeps run every 10 s beside it and
# must not void its slices.  On a 64-host 3-level fat tree (radix 8, 4
# pods, 40 switches), host40 changes an LFT entry of a leaf and takes a
# partition's key off a host's P_Key table with LID-routed SubnSets
# (tools/smi_set -A); both are put back within one audit interval, as
# ibroute and smpquery read them, and the audit's own record of the pass
# in progress has no end yet (no negative duration).
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_available || skip "ibsim or umad2sim not installed"
command -v smpquery >/dev/null || skip "infiniband-diags not installed"
command -v jq >/dev/null || skip "jq not installed"
fd_setup
fd_on_exit sim_stop
SIM_DIR=$T/sim
AUDIT_INTERVAL=60	# the default

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
partitions:
  enabled: true
  tenants:
    acme:
      acme-train: { pkey: 0x0a01, full: [ host1, host20, host21 ] }"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up within 60 s"
audit() { ctl --json audit | jq -r "$1"; }
[ "$(audit .interval_ms)" = $((AUDIT_INTERVAL * 1000)) ] || fail "audit interval $(audit .interval_ms), not the default"
[ "$(ctl --json status | jq -r '.. | .sweep_interval_ms? // empty' | head -1)" != 3600000 ] ||
    fail "the sweep interval is not the default"

# index=key pairs of a port's P_Key table, LID routed, as smpquery reads it
pk() {
	sim_diag -t 10 smpquery pkeys "$@" | awk '/^ *[0-9]+:/ {
	    b = $1 + 0; for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%d=%s ", b + i - 2, $i }'
	echo
}
leaf=$(sim_diag ibnetdiscover | sed -n 's/^Switch.*"sw-p3-l4".* lid \([0-9]*\) .*/\1/p')
h1=$(sm_lid_of host1) h20=$(sm_lid_of host20)
[ -n "$leaf" ] && [ -n "$h1" ] && [ -n "$h20" ] || fail "LIDs: sw-p3-l4 [$leaf] host1 [$h1] host20 [$h20]"

# the partition's key reaches host20 first (the partitions module writes it)
end=$(( $(date +%s) + 60 ))
until pk "$h20" | grep -q '=0x8a01'; do
	[ "$(date +%s)" -gt "$end" ] && fail "host20 never got acme-train's key: $(pk "$h20")"
	sleep 0.5
done
pk0=$(pk "$h20")
idx=$(printf '%s\n' "$pk0" | tr ' ' '\n' | sed -n 's/^\([0-9]*\)=0x8a01$/\1/p')
[ -n "$idx" ] && [ "$idx" -lt 32 ] || fail "acme-train's index on host20: [$idx] in [$pk0]"
lft0=$(sim_diag ibroute "$leaf" | grep -v '^Unicast lids')
[ -n "$lft0" ] || fail "ibroute $leaf read nothing"
# entry LID: the port sw-p3-l4 sends LID out of, as ibroute reads it
entry() { sim_diag ibroute "$leaf" | awk -v l="$(printf '0x%04x' "$1")" '$1 == l { print $2 + 0 }'; }
was=$(entry "$h1")
[ -n "$was" ] || fail "sw-p3-l4 has no entry for host1 ($h1)"
to=1; [ "$was" = 1 ] && to=2	# a host port that does not lead to host1

tamper() { out=$(sim_diag -H host40 -t 10 "$FABRICD_BUILD/tools/smi_set" "$@" 2>&1)
	printf "%s\n" "$out" | grep -q "^status 0x0000" || fail "tampering refused: $* ($out)"; }
tamper -A 0x19 -M $((h1 / 64)) -d "$leaf" -b "$((h1 % 64))=$to"
tamper -A 0x16 -M 0 -d "$h20" -b "$((2 * idx))=0,$((2 * idx + 1))=0"
t0=$(date +%s)
[ "$(sim_diag ibroute "$leaf" | grep -v '^Unicast lids')" != "$lft0" ] || fail "the LFT tampering did not take"
[ "$(pk "$h20")" != "$pk0" ] || fail "the P_Key tampering did not take"

# A pass under way has no end: its duration is not given (or not negative).
negative=
limit=$((AUDIT_INTERVAL + 15))
until [ "$(sim_diag ibroute "$leaf" | grep -v '^Unicast lids')" = "$lft0" ] && [ "$(pk "$h20")" = "$pk0" ]; do
	[ $(( $(date +%s) - t0 )) -gt $limit ] &&
	    fail "not put back within $limit s: host1's entry $(entry "$h1") (was $was); host20 [$(pk "$h20")] (was [$pk0]); audit $(ctl --json audit | jq -c '{passes, last_pass, current_pass, totals}')"
	cur=$(ctl --json audit | jq -c '.current_pass')
	if [ "$cur" != null ] && [ -z "$negative" ]; then
		d=$(printf '%s\n' "$cur" | jq -r '.duration_ms // 0')
		[ "$d" -ge 0 ] || negative="a pass under way with duration $d: $cur"
		ctl audit > "$T/audit.txt" || negative="fabricctl audit failed: $(cat "$T/audit.txt")"
		grep -Eq '(duration|end)[a-z_]*: *-[0-9]' "$T/audit.txt" &&
		    negative="fabricctl audit prints a negative time: $(cat "$T/audit.txt")"
	fi
	sleep 0.5
done
echo "put back after $(( $(date +%s) - t0 )) s (audit interval ${AUDIT_INTERVAL} s, light sweeps every 10 s; timing under load)"
[ -z "$negative" ] || fail "$negative"
[ "$(audit '.totals.repairs')" -ge 2 ] || fail "audit repairs: $(audit .totals)"
end=$(( $(date +%s) + 30 ))
until [ "$(audit .passes)" -ge 1 ]; do
	[ "$(date +%s)" -gt "$end" ] && fail "the first pass never ended: $(ctl --json audit | jq -c .current_pass)"
	sleep 0.5
done
d=$(audit '.last_pass.duration_ms')
[ "$d" != null ] && [ "$d" -ge 0 ] || fail "the last pass lasted $d ms"
echo "a pass: $(audit .last_pass.reads) reads"

fd_stop
pass
