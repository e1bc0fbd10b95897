#!/bin/sh
# The cost gate (issue 22): fabricd on its DEFAULTS (only the socket and
# state paths set, the SM enabled, QoS on as it ships) brings up the
# 3-level radix-36 tree of 1,296 hosts and 180 switches (topogen -p 4, as
# `make bench` uses) with at most 60,000 MADs in the first heavy sweep,
# and its peak RSS (VmHWM, read once it has settled after subnet up) stays
# under 48 MB.
#
# The MADs are counted by the fabric, not by fabricd: PortXmitPkts of the
# SM's port (host1), read with perfquery from host2 once the subnet is up
# (the packets of everything the port sent, SMP answers to the diag tools
# included: a few more than the sweep's).  fabricd's own count (the first
# heavy sweep's row in sm_sweeps, and status mads.sent) is printed beside
# it.  Both figures are deterministic: MADs are counted, memory is the
# same allocations each run.
#
# Measured on 2078622 (before QoS was made to cost what it needs):
# 541,549 MADs and 156-162 MB, both far over.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_require
need perfquery
need sqlite3
fd_setup
fd_on_exit sim_stop
MAX_MADS=60000
MAX_RSS_KB=$((48 * 1024))

sim_topology -p 4 || fail "topogen"
[ "$(grep -c '^Switch' "$SIM_DIR/topo.net")" = 180 ] || fail "not the 180-switch tree"
[ "$(grep -c '^Hca' "$SIM_DIR/topo.net")" = 1296 ] || fail "not the 1,296-host tree"
sim_start || fail "ibsim"

# the defaults: nothing but where the socket and the state go, and the SM on
printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 180 || fail "subnet not up within 180 s (or fabricd died)"

# PortXmitPkts of host1's port, asked from host2 (LID routed: the subnet is up)
lid=$(sim_diag -H host2 -t 5 smpquery -D portinfo 0,1,1 1 | sed -n 's/^Lid:\.*\([0-9]*\)/\1/p' | head -1)
[ -n "$lid" ] && [ "$lid" -gt 0 ] || fail "no LID for host1's port"
xmit=$(sim_diag -H host2 -t 5 perfquery -x "$lid" 1 | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)/\1/p')
[ -n "$xmit" ] || fail "perfquery: no PortXmitPkts for LID $lid"

# peak RSS of the bring-up and what follows it (the model stored, the
# first health round), once it has settled
rss_settled "$FD_PID"
rss=$RSS

sweep=$(db "SELECT mads FROM sm_sweeps WHERE kind = 'heavy' ORDER BY id LIMIT 1")
sent=$(ctl --json status | jq '.sm.mads.sent // .mads.sent // empty' 2>/dev/null | head -1)
echo "first heavy sweep: $xmit packets from the SM's port (perfquery PortXmitPkts;" \
    "fabricd counts ${sweep:-?} in the sweep, ${sent:-?} sent in all), peak RSS" \
    "$((rss / 1024)) MB ($rss kB)"
[ "$xmit" -le $MAX_MADS ] || fail "the first heavy sweep sent $xmit MADs (at most $MAX_MADS)"
[ -n "$sweep" ] && [ "$sweep" -le $MAX_MADS ] || fail "fabricd counts '$sweep' MADs in its first heavy sweep"
if ldd "$FABRICD" 2>/dev/null | grep -q libasan; then
	echo "(sanitizer build: its shadow memory is in the RSS, not asserted)"
else
	[ "$rss" -lt $MAX_RSS_KB ] || fail "peak RSS $rss kB (under $MAX_RSS_KB kB)"
fi

# The pre-flight a scheduler runs over the whole healthy cluster (3,884
# routes walked, 7,853 route ports' QoS tables read again) passes, and
# its steps on the loop stay under the suite's CPU bound (loop_gate, on
# the plain build).  A linear search of the route ports seen so far for every
# hop held it 24 ms; the whole walk in one step held it 14 ms on CI (7-9
# ms here, which the heartbeat sees as 0-9: a step shows as the part of
# it past the beat's due time), so the walk takes 1 ms slices, a turn of
# the loop each.  That the slices walk what one step walked is
# test_validation_walk's.
need jq
loop_gate_start
capture "$T/pf.json" ctl --json preflight --hosts "$(seq -s, -f 'host%g' 1 1296)"
loop_gate "a pre-flight over 1,296 hosts"
jq -e '.verdict == "pass" and (.checks[] | select(.name == "routes") | .detail |
    test("^3884 routes walked"))' "$T/pf.json" >/dev/null ||
    fail "pre-flight: $(jq -c '[.verdict, (.checks[] | [.name, .status, .detail])]' "$T/pf.json")"

# A pre-flight while an operator's heavy sweep runs passes too.  The model
# that sweep publishes knows each CA port's SL2VL table but not yet its VL
# arbitration (the pre-flight's own reads went into the model replaced):
# that is unknown, not "no weight".  It failed QosSlUnusable on host1's
# port.  A walk whose model is replaced between two slices starts again
# (the restarts are a metric).
ctl --json sweep --heavy > "$T/sweep.json" 2>&1 &
sweep_pid=$!
sleep 0.05
kill -0 $sweep_pid 2>/dev/null || fail "the heavy sweep ended before the pre-flight began"
ctl --json preflight --hosts "$(seq -s, -f 'host%g' 1 1296)" > "$T/pf2.json" 2>&1 || true
wait $sweep_pid || fail "sweep --heavy: $(cat "$T/sweep.json")"
jq -e '.verdict == "pass"' "$T/pf2.json" >/dev/null ||
    fail "pre-flight during a heavy sweep: $(jq -c '[.verdict, .faults[0:3]]' "$T/pf2.json")"
echo "pre-flight during a heavy sweep: pass; $(ctl metrics |
    grep '^fabricd_validation_preflight_walk_restarts_total')"
fd_stop
exit 0
