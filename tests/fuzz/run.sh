#!/bin/sh
# tests/fuzz/run.sh BUILD RUNS|SECONDS[s]: every libFuzzer target in
# BUILD/fuzz/ (make fuzz-build), each first over its seed corpus and every
# input that once failed (tests/fuzz/corpus/TARGET/: any crash, leak or
# sanitizer report fails), then fuzzed from it: RUNS inputs with a fixed
# seed (counted work: the same inputs on any machine, however loaded), or
# SECONDS seconds ("600s", make fuzz).  New inputs and crash artifacts go to
# a scratch folder (kept and named on failure); a crash found is added to
# the corpus by hand, with its fix.  Exit 0 when every target came
# through.  The corpus of fuzz_config also takes tests/fuzz/corpus/roce_profile/.
set -u
build=$(cd "${1:?usage: run.sh BUILD RUNS|SECONDSs}" && pwd) || exit 2
amount=${2:?usage: run.sh BUILD RUNS|SECONDSs}
src=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$src/tests/fuzz/corpus
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-fuzz.XXXXXX") || exit 2
case $amount in
*s) limit="-max_total_time=${amount%s}" ;;
*) limit="-runs=$amount" ;;
esac
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
n=0
for t in "$build"/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	dirs="$corpus/${name#fuzz_}"
	[ "$name" = fuzz_config ] && dirs="$dirs $corpus/roce_profile"
	for d in $dirs; do
		[ -d "$d" ] && [ -n "$(ls "$d")" ] || { echo "FAIL $name: no seed corpus in $d"; failed=1; continue 2; }
	done
	n=$((n + 1))
	out=$scratch/$name
	mkdir -p "$out/new"
	# shellcheck disable=SC2086
	if ! "$t" -runs=0 -artifact_prefix="$out/" $dirs > "$out/replay.log" 2>&1; then
		echo "FAIL $name: the corpus does not replay clean ($out/replay.log):"
		grep -m5 -E 'ERROR|runtime error|SUMMARY' "$out/replay.log"
		failed=1
		continue
	fi
	# shellcheck disable=SC2086
	if ! "$t" -seed=1 $limit -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
	    -artifact_prefix="$out/" "$out/new" $dirs > "$out/fuzz.log" 2>&1; then
		echo "FAIL $name: a finding ($out/fuzz.log, inputs in $out/):"
		grep -m5 -E 'ERROR|runtime error|SUMMARY|Test unit written' "$out/fuzz.log"
		failed=1
		continue
	fi
	echo "ok   $name: $(grep -m1 -o 'Done [0-9]* runs in [0-9]* second(s)' "$out/fuzz.log")"
done
[ "$n" -gt 0 ] || { echo "FAIL: no fuzz target in $build/fuzz (make fuzz-build)"; failed=1; }
if [ "$failed" = 0 ]; then
	rm -rf "$scratch"
else
	echo "kept: $scratch"
fi
exit "$failed"
