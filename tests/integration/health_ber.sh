# BER per port over a time window, and the quiet time before a clear:
#  - host2 is cabled HDR (e=4 in the net file), host3 QDR; iblinkinfo
#    (not fabricd) confirms the width and lane rate of both;
#  - the same symbol-error count on both (PerformanceSet) gives BERs in the
#    ratio of their line rates, and each BER agrees with the one this test
#    computes from perfquery's reading and iblinkinfo's width x lane rate
#    over the time its own clock says the samples can cover (from before
#    fabricd started to after the reading, less what the first and last
#    poll can lag: not fabricd's covered_ms);
#  - the symbol_errors alarm clears only after quiet_time with no failure
#    (6 s here), not after the three passing rounds (3 s) of the old rule;
#  - `health port` shows the window and when an active alarm will clear.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

sim_topology -k 2 -h 2 -s 1 || fail topogen
# host2's cable at HDR on both ends: its leaf's port line and its own.
awk '/^\[[0-9]+\] "host2"\[1\]/ { $0 = $0 " e=4" }
     /^Hca 1 "host2"/ { h = 1; print; next }
     h && /^\[1\]/ { $0 = $0 " e=4"; h = 0 }
     { print }' "$SIM_DIR/topo.net" > "$SIM_DIR/hdr.net" || fail awk
sim_start "$SIM_DIR/hdr.net" || fail ibsim
t_start=$(date +%s%3N)
sm_start_fabricd host1 "health:
  interval: 1s
  quiet_time: 6s
  ber_window: 32s"
sm_wait_up 30 || fail "subnet not up"
t_up=$(date +%s%3N)

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

# field NAME of the "ber" object of HOST's `health port`, as read_ports kept it
ber_field() { tr -d ' \n' < "$T/$1.json" | sed -n "s/.*\"ber\":{[^}]*\"$2\":\([0-9.e+-]*\).*/\1/p"; }
# read_ports: both ports' `health port`, back to back, in one polling round
# (the same covered_ms; a few tries), between t_q0 and t_q1
read_ports() {
	for _ in 1 2 3 4 5; do
		t_q0=$(date +%s%3N)
		ctl --json health port host2:1 > "$T/host2.json" || fail "health port host2:1"
		ctl --json health port host3:1 > "$T/host3.json" || fail "health port host3:1"
		t_q1=$(date +%s%3N)
		[ "$(ber_field host2 covered_ms)" = "$(ber_field host3 covered_ms)" ] && return 0
	done
	fail "no two readings in one round: $(ber_field host2 covered_ms) / $(ber_field host3 covered_ms) ms"
}
pq_sym() {
	lid=$(sm_lid_of "$1")
	sim_diag perfquery "$lid" 1 | sed -n 's/^SymbolErrorCounter:\.*\([0-9]*\)$/\1/p'
}
# health port: the window and when each active alarm clears
ctl --json health port host3:1 | tr -d ' \n' | grep -q '"check":"symbol_errors"[^}]*"clears_at_ms":[0-9]' ||
    fail "health port shows no clear time: $(ctl --json health port host3:1)"
ctl health port host3:1 | grep -q 'window' || fail "the human view shows no window: $(ctl health port host3:1)"

# Read 12 s after the subnet came up, so that the 4 s this test cannot
# place the first and last polls in are a third of the window at most.
while [ $(( $(date +%s%3N) - t_up )) -lt 12000 ]; do sleep 0.2; done
read_ports
for h in host2 host3; do
	pq=$(pq_sym $h)
	[ "$pq" = 3000 ] || fail "perfquery of $h reads '$pq'"
	ber=$(ber_field $h ber) cov=$(ber_field $h covered_ms) n=$(ber_field $h symbol_errors)
	# The samples span at most [t_start, t_q1], plus one interval (1 s: a
	# round with no round before it counts the nominal interval, health/ib.c
	# finish_round); at least from the first poll after the subnet is up to
	# the last before the reading, each within two intervals of those.
	hi=$((t_q1 - t_start + 1000))
	lo=$((t_q0 - 2000 - (t_up + 2000)))
	[ "$lo" -gt 0 ] || fail "the window this test can bound is empty ($lo ms)"
	[ "$n" = "$pq" ] || fail "$h: fabricd counts $n symbol errors in the window, perfquery $pq"
	[ "$h" = host2 ] && set -- "$w2" "$g2" || set -- "$w3" "$g3"
	case $ber in ''|*[!0-9.e+-]*) fail "$h: no BER in health port: '$ber'" ;; esac
	awk -v h=$h -v ber="$ber" -v pq="$pq" -v w="$1" -v g="$2" -v lo="$lo" -v hi="$hi" 'BEGIN {
	    bmax = pq / (w * g * 1e9 * lo / 1000); bmin = pq / (w * g * 1e9 * hi / 1000)
	    printf "%s: BER %s, from perfquery and this test'"'"'s clock %.4e..%.4e (%s x %s Gb/s, %s..%s ms)\n", h, ber, bmin, bmax, w, g, lo, hi
	    exit (ber > 0 && ber >= bmin && ber <= bmax) ? 0 : 1 }' || fail "$h: BER $ber outside what perfquery and the clock allow"
	eval "ber_$h=\$ber cov_$h=\$cov"
done
# shellcheck disable=SC2154
[ "$cov_host2" = "$cov_host3" ] || fail "windows differ: $cov_host2 / $cov_host3 ms"
awk -v a="$ber_host3" -v b="$ber_host2" -v r="$(echo "$w2 $g2 $w3 $g3" | awk '{ print ($1 * $2) / ($3 * $4) }')" \
    'BEGIN { printf "BER ratio QDR/HDR %.4f, line rate ratio %.4f\n", a / b, r; exit (a / b / r - 1 < 0.001 && a / b / r - 1 > -0.001) ? 0 : 1 }' ||
    fail "BER ratio is not the rate ratio"
[ "$(db "SELECT count(*) FROM events WHERE source = 'health' AND object = 'host2:1' AND message LIKE 'ber: BER %'")" -ge 1 ] ||
    fail "no ber event for host2:1: $(db "SELECT object, message FROM events WHERE source = 'health'")"

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
