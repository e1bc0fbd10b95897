#!/bin/sh
# bench/observer_load.sh BUILD [HOSTS] [OBSERVERS]: the SA load of many
# observers (issue 27, README "Observer mode at scale").  OpenSM 3.3.23
# is master on the simulated fat tree (1296 hosts: topogen -p 4; 16: -k 4
# -h 4 -s 2); OBSERVERS fabricd (default 8), their SM off, observe from as
# many hosts and read back to back (refresh 1s: every observer's turn is
# at once) for WINDOW seconds, the worst case of many nodes asking at once.
# Every MAD each sent is logged with a clock below umad (madlog); from
# those logs, not fabricd's counters: the SA queries of one read, the SA
# queries the master answered per second with all of them reading, and a
# read's time under that load.  Then, at the defaults (refresh 4h, first
# reads spread over 30 s, a Report's switch read again within 2 s), what
# 1,296 (and 5,184) observers ask of the master, from the measured queries
# per read and the SA's measured rate.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
hosts=${2:-1296}
k=${3:-8}
WINDOW=${WINDOW:-30}
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/sm.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
case $hosts in
16) topo="-k 4 -h 4 -s 2" ;;
1296) topo="-p 4" ;;
*) echo "bench: HOSTS is 16 or 1296"; exit 2 ;;
esac
KEEP_TMP=${KEEP_TMP:-}
sim_test_setup opensm jq
# shellcheck disable=SC2086
sim_topology $topo || fail topogen
sim_start || fail ibsim
sim_opensm host1 180 || fail "OpenSM did not bring the subnet up"

i=0
while [ $i -lt "$k" ]; do
	i=$((i + 1))
	d=$T/o$i
	mkdir -p "$d/run" "$d/state"
	printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: false\n  observer:\n    refresh: 1s\nhealth:\n  enabled: false\n' \
	    "$d/run/fabricd.sock" "$d/state" > "$d/fabricd.yaml"
	(cd "$d" && exec env SIM_HOST="host$((i + 1))" \
	    LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
	    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$d/madlog" MADLOG_TIME=1 \
	    "$FABRICD" -c "$d/fabricd.yaml" >> "$d/fabricd.log" 2>&1) &
	echo $! > "$d/pid"
	fd_on_exit "kill -KILL $! 2>/dev/null"
done
octl() { "$FABRICCTL" -s "$T/o$1/run/fabricd.sock" --json status | jq -r ".sm.observer.$2"; }
# every observer has a view: from then on all of them read back to back
end=$(( $(date +%s) + 600 ))
i=1
while [ $i -le "$k" ]; do
	until [ "$(octl $i views 2>/dev/null)" -ge 1 ] 2>/dev/null; do
		[ "$(date +%s)" -ge "$end" ] && fail "observer $i: no view within 600 s: $(octl $i last_error)"
		sleep 1
	done
	i=$((i + 1))
done
q=$(octl 1 last_read.queries)
sleep "$WINDOW"
# stopped between reads: umad2sim crashes a client an answer reaches
# after its agent is gone (shared notes, ibsim 7.5), so the period is made
# long again (reload) and each read under way allowed to end
i=1
while [ $i -le "$k" ]; do
	sed -i 's/refresh: 1s/refresh: 4h/' "$T/o$i/fabricd.yaml"
	"$FABRICCTL" -s "$T/o$i/run/fabricd.sock" reload > /dev/null || fail "observer $i: reload"
	i=$((i + 1))
done
i=1
while [ $i -le "$k" ]; do
	n=0
	while [ "$(octl $i reading)" = true ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
	fd_reap_pid "$(cat "$T/o$i/pid")" "$T/o$i/fabricd.log" || fail "observer $i exited with status $?"
	i=$((i + 1))
done
# the window: the last WINDOW seconds every log covers
cat "$T"/o*/madlog | awk '$1 == "0x03" && $2 == "0x01" { t = $NF; sub(/^t=/, "", t); print t }' | sort -n > "$T/sa.t"
t1=$(for f in "$T"/o*/madlog; do awk '$1 == "0x03" && $2 == "0x01" { t = $NF } END { sub(/^t=/, "", t); print t }' "$f"; done | sort -n | head -1)
t0=$((t1 - WINDOW * 1000))
n=$(awk -v a="$t0" -v b="$t1" '$1 >= a && $1 < b' "$T/sa.t" | wc -l)
rate=$((n / WINDOW))
# a read under that load: the reads are back to back and each asks
# exactly q SA queries (the count is deterministic), so every q-th query of
# an observer ends one; the time between two such ends, medians (its own
# PortInfo Gets no longer mark a read: it reads that port every 2 s to
# follow the master)
reads=$(for f in "$T"/o*/madlog; do
	awk -v a="$t0" -v b="$t1" -v q="$q" '$1 != "0x03" || $2 != "0x01" { next }
	    { t = $NF; sub(/^t=/, "", t); c++ }
	    c % q == 0 { if (s && t >= a && t < b) print t - s, q; s = t }' "$f"
done | sort -n)
nreads=$(echo "$reads" | grep -c .)
rmed=$(echo "$reads" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "observer load on the $hosts-host tree, OpenSM 3.3.23 master, $k observers reading back to back"
echo "  SA queries of one read: $q"
echo "  the master's SA answered $rate queries/s over the last $WINDOW s ($n queries, $nreads reads)"
echo "  one read under that load: $rmed ms (median)"
echo "at the defaults (refresh 4h, jittered by a quarter; first reads within 30 s, hashed):"
echo "  1,296 observers: $((q * 1296 / 14400)) queries/s steady; first reads: $((q * 1296 / 30)) queries/s asked, served in $((q * 1296 / (rate > 0 ? rate : 1))) s at the rate above"
echo "  a Report: its switch read again by every observer, 2 x ports + 1 queries each: $((73 * 1296)) for a 36-port switch, $((73 * 1296 / (rate > 0 ? rate : 1))) s at that rate"
echo "  a read is $q queries at 1,296 hosts; at 5,184 hosts (4x the ports) about $((q * 4)): $((q * 4 * 5184 / 14400)) queries/s steady"
exit 0
