#!/bin/sh
# bench/loop_spans.sh BUILD [RUNS] [TESTS...]: the margin of the suite's
# loop gate (tests/lib/common.sh loop_gate, LOOP_CPU_GATE_MS), measured
# on a loaded machine.  Runs each test that gates the loop RUNS times
# (20), three scripts side by side as make check runs them, beside a
# busy loop at nice 0 (a neighbour's build on the same cores), and
# collects the "loop spans:" lines the gates print: for each gated step,
# how many CPU spans between two beats of the heartbeat went over 2, 5,
# 10, 20, 40 and 80 ms.  Prints, per step, the highest bound any run
# passed (the longest span lies between it and the next) and whether the
# gate keeps twice that as its margin.  The figures are in docs/metrics.md
# ("The loop's CPU spans").  Not part of make check: it takes a while.
set -u
build=$(cd "${1:?usage: loop_spans.sh BUILD [RUNS] [TESTS...]}" && pwd) || exit 2
runs=${2:-20}
shift
[ $# -gt 0 ] && shift
src=$(cd "$(dirname "$0")/.." && pwd)
tests=${*:-"core_conn_limits core_file_access core_events_pages validation_jobs_pages
    health_metrics_loop health_ports_paging sm_pages sm_cost_gate health_storm sm_defaults
    partitions_jobs_scale"}
gate=$(sed -n 's/^LOOP_CPU_GATE_MS=//p' "$src/tests/lib/common.sh")
out=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-spans.XXXXXX") || exit 2

hog() { while :; do :; done; }
hog & h1=$!
trap 'kill $h1 2>/dev/null' EXIT INT TERM

: > "$out/list"
for i in $(seq 1 "$runs"); do
	for t in $tests; do echo "$i $t" >> "$out/list"; done
done
# shellcheck disable=SC2016
# each line "RUN TEST" comes after the fixed arguments: $3 $4
xargs -P 3 -L 1 sh -c 'cd "$0" && FABRICD_BUILD="$1" FABRICD_SRC="$0" \
    timeout 600 sh "tests/integration/$4.sh" > "$2/$4.$3.log" 2>&1 ||
    echo "FAIL $4 run $3" >> "$2/failed"' "$src" "$build" "$out" < "$out/list" &
wait $!
kill $h1 2>/dev/null

echo "loop gate: $gate ms of CPU in a span between two beats; $runs loaded runs each"
printf '%-64s %6s %s\n' "gated step" runs "spans over 2/5/10/20/40/80 ms, the most in one run"
grep -h '^loop spans: ' "$out"/*.log | sed 's/^loop spans: //' |
    awk -F': over 2/5/10/20/40/80 ms of CPU while it ran: ' -v gate="$gate" '
	{ n[$1]++; split($2, c, " "); for (i = 1; i <= 6; i++) if (c[i] > m[$1, i]) m[$1, i] = c[i] }
	END {
		split("2 5 10 20 40 80", b, " ")
		for (s in n) {
			top = 0
			for (i = 1; i <= 6; i++) if (m[s, i] > 0) top = b[i + 1] ? b[i + 1] : 999
			printf "%-64s %6d %d %d %d %d %d %d  longest <= %s ms: %s\n", s, n[s],
			    m[s, 1], m[s, 2], m[s, 3], m[s, 4], m[s, 5], m[s, 6],
			    top == 0 ? 2 : top, (top == 0 ? 2 : top) * 2 <= gate ? "2x margin" : "MARGIN SHORT"
		}
	}' | sort
[ -f "$out/failed" ] && { echo "runs that failed (logs in $out):"; sort "$out/failed"; exit 1; }
rm -rf "$out"
