#!/bin/sh
# bench/observer_sa.sh BUILD [HOSTS]: what one observer's read costs the
# master's SA (issue 27, docs/sm.md "Observer mode").  On a simulated fat
# tree (1296 hosts: topogen -p 4; 16: -k 4 -h 4 -s 2) with OpenSM 3.3.23
# as master on host1, fabricd with its SM off observes from host2; three
# reads are timed (status's last_read: queries, duration) with the
# longest step of fabricd's loop, and the model is held to ibnetdiscover's
# node and link counts.  Prints the SA load that 1,296 observers would
# make at a 30 s period and at the default 4 h (bench/observer_load.sh
# measures many observers at once).
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
hosts=${2:-1296}
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
sim_opensm host1 120 || fail "OpenSM did not bring the subnet up"
fd_config "sm:
  enabled: false
  observer:
    enabled: true
    refresh: 5s"
fd_start SIM_HOST=host2 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
obs() { ctl --json status | jq -r ".sm.observer.$1"; }

lag0=$(ctl --json status | jq -r '.loop.max_own_lag_ms')
for n in 1 2 3; do
	i=0
	until [ "$(obs views)" -ge "$n" ] 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 1200 ] && fail "no view $n within 120 s: $(obs last_error)"
		sleep 0.1
	done
	echo "read $n: $(obs last_read.queries) queries, $(obs last_read.errors) errors, $(obs last_read.duration_ms) ms"
done
lag=$(ctl --json status | jq -r '.loop.max_own_lag_ms')
q=$(obs last_read.queries)
nodes=$(obs nodes) links=$(obs links)
ends=$(sim_diag -t 60 ibnetdiscover | grep -c '^\[')
[ "$links" -eq $((ends / 2)) ] || fail "the view has $links links, ibnetdiscover $((ends / 2))"
echo "model: $nodes nodes, $links links (ibnetdiscover: $((ends / 2)) links)"
echo "loop: longest own step $lag ms (before the first read: $lag0 ms)"
echo "1,296 observers: $((q * 1296 / 30)) SA queries/s at refresh 30s, $((q * 1296 / 14400)) at the default 4h"
fd_stop
