#!/bin/sh
# bench/metrics.sh BUILD [HOSTS]: time a Prometheus scrape of a simulated
# fat tree.  Brings up ibsim with HOSTS hosts (324 or 1296, default 1296),
# fabricd as its SM with health polling every port, waits until health has
# finished two polling rounds (a switch port's traffic baseline waits for
# the second, so only then does every port have all its series), and
# scrapes GET /metrics SCRAPES times (BENCH_SCRAPES, default 5) with curl,
# which measures each request from connect to last byte.  Prints the median
# and worst time, the size and the series count, checked by promtool.
# Not part of make check: the 1,296-host fabric alone takes a while to come up.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
hosts=${2:-1296}
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/ibsim.sh"
sim_available || { echo "bench: ibsim/umad2sim not installed"; exit 1; }
command -v curl > /dev/null || { echo "bench: curl is needed"; exit 1; }
scrapes=${BENCH_SCRAPES:-5}
out=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-mbench.XXXXXX")
FD=
trap 'sim_stop; [ -n "$FD" ] && kill "$FD" 2>/dev/null; rm -rf "$out"' EXIT INT TERM

case $hosts in
324) args="-k 18 -h 18 -s 18" ;;
1296) args="-p 4" ;;
*) echo "bench: HOSTS is 324 or 1296"; exit 2 ;;
esac
SIM_DIR=$out/sim
# shellcheck disable=SC2086
sim_topology $args > /dev/null || exit 1
sim_start || exit 1
port=$((20000 + $$ % 20000))
d=$out/fd
mkdir -p "$d/state"
cat > "$d/fabricd.yaml" <<YAML
socket: $d/fabricd.sock
state_dir: $d/state
log_level: notice
sm:
  enabled: true
health:
  interval: 5s
metrics:
  listen: 127.0.0.1:$port
YAML
(cd "$SIM_DIR/run" && SIM_HOST=host1 LD_PRELOAD=$SIM_PRELOAD \
    exec "$build/fabricd" -c "$d/fabricd.yaml" > "$d/fabricd.log" 2>&1) &
FD=$!
ctl() { "$build/fabricctl" -s "$d/fabricd.sock" "$@"; }
i=0
until [ "$(ctl --json health 2>/dev/null | sed -n 's/^  "rounds": \([0-9]*\),$/\1/p')" -ge 2 ] 2>/dev/null; do
	kill -0 "$FD" 2>/dev/null && [ $i -lt 6000 ] || { echo "bench: no polling round"; tail -3 "$d/fabricd.log"; exit 1; }
	i=$((i + 1))
	sleep 0.1
done
url="http://127.0.0.1:$port/metrics"
: > "$out/times"
n=0
while [ $n -lt "$scrapes" ]; do
	n=$((n + 1))
	curl -sf -o "$out/scrape.txt" -w '%{time_total}\n' "$url" >> "$out/times" || { echo "bench: curl failed"; exit 1; }
done
lint=ok
if command -v promtool > /dev/null; then
	promtool check metrics < "$out/scrape.txt" > "$out/lint" 2>&1 || lint="promtool: $(head -3 "$out/lint")"
fi
ports=$(ctl --json health | sed -n 's/^  "ports": \([0-9]*\),$/\1/p')
sort -n "$out/times" | awk -v n="$scrapes" -v hosts="$hosts" -v ports="$ports" \
    -v bytes="$(wc -c < "$out/scrape.txt")" -v series="$(grep -vc '^#' "$out/scrape.txt")" -v lint="$lint" '
    { t[NR] = $1 }
    END { m = n % 2 ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
	printf "%d hosts, %d ports: scrape median %.3f s, worst %.3f s (%d scrapes); %.1f MB, %d series; %s\n",
	    hosts, ports, m, t[n], n, bytes / 1e6, series, lint }'
