# BER per port over a time window, and the quiet time before a clear:
#  - host2 is cabled HDR (e=4 in the net file), host3 QDR; iblinkinfo
#    (not fabricd) confirms the width and lane rate of both;
#  - the same symbol-error count on both (PerformanceSet) gives BERs in the
#    ratio of their line rates, and each BER agrees with the one this test
#    computes from perfquery's reading and iblinkinfo's width x lane rate;
#  - the symbol_errors alarm clears only after quiet_time with no failure
#    (6 s here), not after the three passing rounds (3 s) of the old rule;
#  - `health port` shows the window and when an active alarm will clear.
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

sim_topology -k 2 -h 2 -s 1 || fail topogen
# host2's cable at HDR on both ends: its leaf's port line and its own.
awk '/^\[[0-9]+\] "host2"\[1\]/ { $0 = $0 " e=4" }
     /^Hca 1 "host2"/ { h = 1; print; next }
     h && /^\[1\]/ { $0 = $0 " e=4"; h = 0 }
     { print }' "$SIM_DIR/topo.net" > "$SIM_DIR/hdr.net" || fail awk
sim_start "$SIM_DIR/hdr.net" || fail ibsim
sm_start_fabricd host1 "health:
  interval: 1s
  quiet_time: 6s
  ber_window: 32s"
sm_wait_up 30 || fail "subnet not up"

# "WIDTH LANE_GBPS" of a host's link, as iblinkinfo prints it.
link_of() {
	sim_diag iblinkinfo | grep "\"$1\"" | head -1 |
	    sed -n 's/.*[( ]\([0-9]*\)X *\([0-9.]*\) Gbps Active.*/\1 \2/p'
}
set -- $(link_of host2); w2=$1 g2=$2
set -- $(link_of host3); w3=$1 g3=$2
[ "$g2" = 53.125 ] || fail "host2 is not HDR: $(sim_diag iblinkinfo | grep '"host2"')"
[ "$g3" = 10.0 ] || fail "host3 is not QDR: $(sim_diag iblinkinfo | grep '"host3"')"
echo "host2: ${w2}x $g2 Gb/s, host3: ${w3}x $g3 Gb/s"

rounds() { ctl --json health | sed -n 's/^  "rounds": \([0-9]*\),$/\1/p'; }
wait_rounds() {
	want=$(( $(rounds) + $1 ))
	for _ in $(seq 1 100); do [ "$(rounds)" -ge "$want" ] && return 0; sleep 0.1; done
	fail "polling rounds do not advance"
}
wait_rounds 2
sim_console 'PerformanceSet "host2"[1] PortCounters.SymbolErrorCounter=3000' || fail console
sim_console 'PerformanceSet "host3"[1] PortCounters.SymbolErrorCounter=3000' || fail console
t_burst=$(date +%s%3N)
wait_rounds 2

# field NAME of the "ber" object of `health port`
ber_field() { ctl --json health port "$1" | tr -d ' \n' | sed -n "s/.*\"ber\":{[^}]*\"$2\":\([0-9.e+-]*\).*/\1/p"; }
pq_sym() {
	lid=$(sm_lid_of "$1")
	sim_diag perfquery "$lid" 1 | sed -n 's/^SymbolErrorCounter:\.*\([0-9]*\)$/\1/p'
}
for h in host2 host3; do
	pq=$(pq_sym $h)
	[ "$pq" = 3000 ] || fail "perfquery of $h reads '$pq'"
	ber=$(ber_field $h:1 ber) cov=$(ber_field $h:1 covered_ms) n=$(ber_field $h:1 symbol_errors)
	[ "$n" = "$pq" ] || fail "$h: fabricd counts $n symbol errors in the window, perfquery $pq"
	[ "$h" = host2 ] && set -- "$w2" "$g2" || set -- "$w3" "$g3"
	awk -v h=$h -v ber="$ber" -v pq="$pq" -v w="$1" -v g="$2" -v ms="$cov" 'BEGIN {
	    want = pq / (w * g * 1e9 * ms / 1000); d = ber / want - 1
	    printf "%s: BER %s, computed from perfquery %.4e (%s x %s Gb/s, %s ms)\n", h, ber, want, w, g, ms
	    exit (ms > 0 && d < 0.001 && d > -0.001) ? 0 : 1 }' || fail "$h: BER $ber disagrees"
	eval "ber_$h=\$ber cov_$h=\$cov"
done
# shellcheck disable=SC2154
[ "$cov_host2" = "$cov_host3" ] || fail "windows differ: $cov_host2 / $cov_host3 ms"
awk -v a="$ber_host3" -v b="$ber_host2" -v r="$(echo "$w2 $g2 $w3 $g3" | awk '{ print ($1 * $2) / ($3 * $4) }')" \
    'BEGIN { printf "BER ratio QDR/HDR %.4f, line rate ratio %.4f\n", a / b, r; exit (a / b / r - 1 < 0.001 && a / b / r - 1 > -0.001) ? 0 : 1 }' ||
    fail "BER ratio is not the rate ratio"
[ "$(db "SELECT count(*) FROM events WHERE source = 'health' AND object = 'host2:1' AND message LIKE 'ber: BER %'")" -ge 1 ] ||
    fail "no ber event for host2:1: $(db "SELECT object, message FROM events WHERE source = 'health'")"

# health port: the window and when each active alarm clears
ctl --json health port host3:1 | tr -d ' \n' | grep -q '"check":"symbol_errors"[^}]*"clears_at_ms":[0-9]' ||
    fail "health port shows no clear time: $(ctl --json health port host3:1)"
ctl health port host3:1 | grep -q 'window' || fail "the human view shows no window: $(ctl health port host3:1)"

# Quiet time: symbol_errors fails one round, then passes; it clears no
# earlier than 6 s after that failure.
cleared_at() { db "SELECT time_ms FROM events WHERE object = 'host3:1' AND message LIKE 'symbol_errors cleared%'"; }
i=0
until [ -n "$(cleared_at)" ]; do
	[ $i -ge 150 ] && fail "symbol_errors of host3:1 never cleared"
	i=$((i + 1)); sleep 0.1
done
quiet=$(( $(cleared_at) - t_burst ))
echo "symbol_errors cleared $quiet ms after the burst"
[ "$quiet" -ge 6000 ] || fail "cleared after $quiet ms, before the 6 s quiet time"
fd_stop
pass
