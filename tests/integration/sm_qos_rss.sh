#!/bin/sh
# What QoS costs (issue 22): fabricd on its DEFAULTS (QoS on, no policy)
# brings up the 3-level radix-36 tree of 1,296 hosts and 180 switches
# (topogen -p 4, as `make bench` uses) in at most 1.05x the peak RSS and
# 1.10x the MADs of the same bring-up with `sm.qos.enabled: false`, each
# on a fresh ibsim and a fresh state.
#
# The peak (VmHWM) is read once it has settled (unchanged for 3 s after
# the subnet is up): read at the moment of "up" it varies by several MB
# from run to run, with what the loop has still to store.  Settled it is
# the same each run.  The MADs are the fabric's count: PortXmitPkts of the
# SM's port (host1), read with perfquery from host2.
#
# Measured on b2ab821 (a full SL2VL table and four VLArb blocks kept for
# every (in, out) pair and port: 20 kB a switch, 0.5 kB a CA): 38.5 MB
# against 34.4 MB, 1.12x.  With the mirror keeping each distinct table
# once (sm/qos/qos_held.c): 34.4 MB both.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_require
need perfquery
fd_setup
fd_on_exit sim_stop
MAX_RSS_PCT=105
MAX_MAD_PCT=110

SIM_DIR=$T/sim		# kept between the two simulators: one topology file
sim_topology -p 4 > /dev/null || fail "topogen"
[ "$(grep -c '^Switch' "$SIM_DIR/topo.net")" = 180 ] || fail "not the 180-switch tree"
[ "$(grep -c '^Hca' "$SIM_DIR/topo.net")" = 1296 ] || fail "not the 1,296-host tree"

# bring_up SM-EXTRA: fabricd with only the socket, the state, the SM on
# and SM-EXTRA; sets RSS (settled VmHWM, kB) and XMIT (the SM port's
# PortXmitPkts once the subnet is up).
bring_up() {
	sim_start || fail "ibsim"
	rm -rf "$STATE"
	printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n%s' "$SOCK" "$STATE" "$1" > "$CONF"
	fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
	sm_wait_up 180 || fail "subnet not up within 180 s (or fabricd died)"
	rss_settled "$FD_PID"
	lid=$(sim_diag -H host2 -t 5 smpquery -D portinfo 0,1,1 1 | sed -n 's/^Lid:\.*\([0-9]*\)/\1/p' | head -1)
	[ -n "$lid" ] && [ "$lid" -gt 0 ] || fail "no LID for host1's port"
	XMIT=$(sim_diag -H host2 -t 5 perfquery -x "$lid" 1 | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)/\1/p')
	[ -n "$XMIT" ] && [ "$XMIT" -gt 0 ] || fail "perfquery: no PortXmitPkts for LID $lid"
	fd_stop
	sim_stop
}

bring_up ""
on_rss=$RSS on_xmit=$XMIT
bring_up "$(printf '  qos:\n    enabled: false\n')"
off_rss=$RSS off_xmit=$XMIT
echo "peak RSS: QoS on $on_rss kB, QoS off $off_rss kB" \
    "($(awk -v a="$on_rss" -v b="$off_rss" 'BEGIN { printf "%.3f", a / b }')x);" \
    "MADs (PortXmitPkts): $on_xmit against $off_xmit" \
    "($(awk -v a="$on_xmit" -v b="$off_xmit" 'BEGIN { printf "%.3f", a / b }')x)"
[ $((on_xmit * 100)) -le $((off_xmit * MAX_MAD_PCT)) ] ||
    fail "QoS on sent $on_xmit MADs, over $MAX_MAD_PCT% of QoS off's $off_xmit"
if ldd "$FABRICD" 2>/dev/null | grep -q libasan; then
	echo "(sanitizer build: its shadow memory is in the RSS, not asserted)"
else
	[ $((on_rss * 100)) -le $((off_rss * MAX_RSS_PCT)) ] ||
	    fail "QoS on peaked at $on_rss kB, over $MAX_RSS_PCT% of QoS off's $off_rss kB"
fi
exit 0
