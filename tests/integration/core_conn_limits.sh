# What clients can cost the daemon is bounded: 300 connections held by
# nobody (a read_group member) plus 100 clients of four other read-only
# uids (25 each, all let in) that send requests and never read.  Meanwhile root's status answers
# every time (its times printed, not gated: a busy machine's clock decides
# them) and no span of the loop takes more CPU than the suite's bound
# (loop_gate, tests/lib/common.sh), the daemon's RSS (from /proc) stays
# under 64 MB, each uid gets at most max_connections_per_user (refusals
# told by the daemon's error line, not by when they came), and the silent
# ones are closed no sooner than idle_timeout, and the non-readers
# dropped.  A burst of 500 simultaneous root
# clients is taken whole (the listen backlog); status counts it all.
# The attackers run at nice 19: on a 2-core machine they would otherwise
# take the CPU from the daemon, and what this measures is the daemon's own
# queueing (caps, back-pressure, admin priority), not the CPU scheduler.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root to switch users"
getent group nogroup >/dev/null || skip "no nogroup group"
PROBE="$FABRICD_BUILD/tools/ctl_probe"
unpriv_env="ASAN_OPTIONS=detect_leaks=0 LSAN_OPTIONS="

fd_config "control:
  read_group: nogroup
  max_connections_per_user: 32
  idle_timeout: 10s"
fd_start
loop_gate_start

ctl_json() { "$FABRICCTL" -s "$SOCK" --json status | jq -r ".control.$1"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$FD_PID/status"; }

env $unpriv_env setpriv --reuid=nobody --regid=nogroup --clear-groups \
    nice -n 19 "$PROBE" "$SOCK" hold 300 60 > "$T/hold.out" &
holder=$!
flooders=
for u in 4244 4245 4246 4247; do
	env $unpriv_env setpriv --reuid=$u --regid=nogroup --clear-groups \
	    nice -n 19 "$PROBE" "$SOCK" flood 25 16 >> "$T/flood.out" &
	flooders="$flooders $!"
done
# the attack under way: nobody's 268 beyond its cap refused (the wall
# clock only ends the wait).  The connections open are read at that
# moment: at most 32 of nobody's, the 100 non-readers and status's own
# (the non-readers are dropped idle_timeout after their last progress,
# which a slow sanitized run can reach first: fewer is no breach)
i=0
until n=$(ctl_json connections); [ "$(ctl_json refused_total)" -ge 268 ]; do
	[ $i -ge 600 ] && fail "the attack never opened its connections: $n open, $(ctl_json refused_total) refused"
	i=$((i + 1))
	sleep 0.1
done
[ "$n" -le 133 ] || fail "$n connections open, more than 133: the per-uid cap did not hold"
out=$("$PROBE" "$SOCK" latency 50) || fail "root's status failed under load: $out"
echo "root status under load: $out (not gated)"
loop_gate "400 attackers' connections and floods"
rss=$(rss_kb)
echo "daemon RSS under load: $rss kB"
# AddressSanitizer keeps 256 MB of freed memory in quarantine on purpose:
# the bound is the daemon's, asserted on the plain build
if ldd "$FABRICD" 2>/dev/null | grep -q libasan; then
	echo "(sanitizer build: RSS not asserted)"
else
	[ "$rss" -lt 65536 ] || fail "daemon RSS $rss kB, limit 64 MB"
fi
[ "$(ctl_json refused_total)" = 268 ] || fail "refusals not counted: $(ctl_json refused_total)"

# nothing sent for idle_timeout: closed; replies unread for as long: dropped
wait $holder
wait $flooders
cat "$T/hold.out" "$T/flood.out"
grep -q '^accepted 32 refused 268 closed 32$' "$T/hold.out" ||
    fail "nobody's connections: $(tail -2 "$T/hold.out")"
# closed no sooner than idle_timeout (10 s: the 300 must all have come in
# before the first 32 are closed, which a loaded sanitized run at 16 (now 32)
# accepts a turn did not do in 3 s; the daemon checks a quarter of it
# apart, from the hold's start): a busy machine can only make it later
first=$(sed -n 's/^first_close_ms //p' "$T/hold.out")
[ -n "$first" ] && [ "$first" -ge 7000 ] || fail "idle ones closed after ${first:-no} ms (timeout 10 s)"
i=0
until [ "$(ctl_json connections)" = 1 ]; do
	[ $i -ge 600 ] && fail "$(ctl_json connections) connections still open a minute after the timeout"
	i=$((i + 1))
	sleep 0.1
done
[ "$(ctl_json idle_closed_total)" -ge 32 ] || fail "idle closings: $(ctl_json idle_closed_total)"
[ "$(ctl_json slow_dropped_total)" -ge 1 ] || fail "non-readers were not dropped"

# root is never capped per uid: 500 at once all get in
out=$("$PROBE" "$SOCK" hold 500 0.5)
printf '%s\n' "$out" | grep -q '^accepted 500 refused 0' || fail "burst of 500: $out"
ctl status | grep -q '^control: ' || fail "status shows no connection counts"
fd_stop
pass
