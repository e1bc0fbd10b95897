#!/bin/sh
# Run the whole suite against one or more build folders and print one
# total.  Usage: tests/run.sh BUILD [BUILD...]   (e.g. build build-san)
# Environment: TESTS=pattern runs only matching tests (a shell glob on the
# test's name, e.g. TESTS='sm_*'); TEST_TIMES=FILE keeps every script's
# wall time there, slowest first; TEST_JOBS=N runs N integration scripts
# side by side (default: two more than the CPUs, at most 6: the scripts
# wait on simulators, etcd and timers more than they compute; at three on
# two CPUs the CPUs were idle half the time).
# The last line is always `N passed, N failed, N skipped`; before it, the
# ten slowest scripts.  A skip counts
# as a failure too unless tests/skip-allow.txt lists it with its reason:
# a test that did not run must not look green.
#
# Order: the unit programs of every build, TEST_JOBS at a time; then the
# integration scripts of all builds, TEST_JOBS at a time, those that say
# `# run.sh: long` (a minute or more: they wait on the defaults' own
# periods) first, so that none of them starts last and keeps the run
# waiting alone at its end.  No script runs alone: each must pass beside
# any other work (issue 39), so none measures its neighbours' load.
src=$(cd "$(dirname "$0")/.." && pwd)
allow="$src/tests/skip-allow.txt"

# ASan must tolerate umad2sim being preloaded ahead of it; leaks inside the
# simulator's shim are not ours, nor is its read() over-read (tests/asan.supp).
export ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=1:abort_on_error=0:exitcode=66:suppressions=$src/tests/asan.supp"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=67"

# run_unit BUILD PROGRAM RESULTS: one cmocka program; its counts go to
# RESULTS/<n>.rec as "BUILD/NAME pass|fail|skip COUNT" lines.
run_unit() {
	name=$(basename "$2")
	rec="$3/u.$(basename "$1").$name.rec"
	out=$(cd "$src" && timeout 300 "$2" 2>&1)
	rc=$?
	np=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	nf=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	ns=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
	np=${np:-0}; nf=${nf:-0}; ns=${ns:-0}
	if [ $rc -ne 0 ] && [ "$nf" -eq 0 ]; then nf=1; fi
	# a program that ran no test (one that says "skip:" and returns
	# 0, say) skipped all of them: it proved nothing
	if [ $rc -eq 0 ] && [ $((np + nf + ns)) -eq 0 ]; then
		ns=1
	fi
	b=$(basename "$1")
	: > "$rec"
	if [ "$ns" -gt 0 ]; then
		echo "skip $b/$name: $ns test(s): $(printf '%s\n' "$out" | grep -m1 -e '^skip' -e '^\[  SKIPPED \] [^0-9]' || echo 'ran no test')"
		echo "$b/$name skip $ns" >> "$rec"
	fi
	if [ "$nf" -gt 0 ]; then
		# cmocka's own words first: a sanitizer's report after them
		# (a leak of what the failed test left) fills any tail
		printf '%s\n' "$out" | grep -E '^\[  (ERROR|FAILED) \]|: error: |Failure!' | head -20
		printf '%s\n' "$out" | tail -40
		echo "FAIL $b/$name ($np passed, $nf failed)"
		echo "$b/$name fail $nf" >> "$rec"
		echo "$b/$name pass $np" >> "$rec"
	elif [ "$np" -gt 0 ] || [ "$ns" -eq 0 ]; then
		echo "ok   $b/$name ($np tests)"
		echo "$b/$name pass $np" >> "$rec"
	fi
}

# run_script BUILD SCRIPT RESULTS: one integration script.  Its one-line
# verdict goes to stdout at once (lines from side-by-side scripts do not
# mix); a failure's output is kept in RESULTS and shown at the end.
run_script() {
	build=$1
	b=$(basename "$build")
	name=$(basename "$2" .sh)
	rec="$3/i.$b.$name.rec"
	start=$(date +%s)
	out=$(cd "$src" && FABRICD_BUILD="$build" FABRICD_SRC="$src" timeout 600 sh "$2" 2>&1)
	rc=$?
	secs=$(( $(date +%s) - start ))
	echo "$secs $b/$name" > "$3/t.$b.$name.time"
	if [ $rc -eq 0 ]; then
		echo "ok   $b/$name (${secs}s)"
		echo "$b/$name pass 1" > "$rec"
	elif [ $rc -eq 77 ]; then
		echo "skip $b/$name: $(printf '%s\n' "$out" | tail -1)"
		echo "$b/$name skip 1" > "$rec"
	else
		{ echo "--- $b/$name (exit $rc, ${secs}s)"; printf '%s\n' "$out" | tail -60; } > "$3/$b.$name.out"
		echo "FAIL $b/$name (exit $rc, ${secs}s)"
		echo "$b/$name fail 1" > "$rec"
	fi
}

# `run.sh --script BUILD SCRIPT RESULTS`: how the side-by-side phase
# (xargs -P) calls back into this file for one script.
if [ "${1:-}" = --script ]; then
	run_script "$2" "$3" "$4"
	exit 0
fi
# `run.sh --unit BUILD PROGRAM RESULTS`: one unit program of the unit
# phase, its lines kept for the phase to print in order.
if [ "${1:-}" = --unit ]; then
	run_unit "$2" "$3" "$4" > "$4/uo.$(basename "$2").$(basename "$3")"
	exit 0
fi

# skip_allowed BUILD/NAME: a glob of tests/skip-allow.txt matches it.
skip_allowed() {
	[ -r "$allow" ] || return 1
	while read -r glob reason; do
		case $glob in ''|'#'*) continue ;; esac
		[ -n "$reason" ] || continue	# an entry without its reason allows nothing
		# shellcheck disable=SC2254
		case $1 in $glob) return 0 ;; esac
	done < "$allow"
	return 1
}

# is_long SCRIPT: it says `# run.sh: long`
is_long() { grep -q '^# run.sh: long' "$1"; }

default_jobs() {
	n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
	[ "$n" -ge 1 ] 2>/dev/null || n=1
	n=$((n + 2))
	[ "$n" -gt 6 ] && n=6
	echo "$n"
}

pattern=${TESTS:-*}
jobs=${TEST_JOBS:-$(default_jobs)}
results=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-run.XXXXXX") || exit 1
trap 'rm -rf "$results"' EXIT
builds=""
missing=0
for b in "$@"; do
	build=$(cd "$src/$b" 2>/dev/null && pwd) || { echo "no build folder $b"; missing=$((missing + 1)); continue; }
	builds="$builds $build"
done

# the unit programs, TEST_JOBS at a time (each is one process that
# computes), their lines printed build by build in order
: > "$results/units"
for build in $builds; do
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] || continue
		case $(basename "$t") in $pattern) ;; *) continue ;; esac
		echo "$build $t $results" >> "$results/units"
	done
done
xargs -r -P "$jobs" -L 1 sh "$src/tests/run.sh" --unit < "$results/units"
for build in $builds; do
	echo "=== unit programs of $(basename "$build")"
	while read -r b t r; do
		[ "$b" = "$build" ] && cat "$results/uo.$(basename "$b").$(basename "$t")"
	done < "$results/units"
done

# the integration scripts, as "BUILD SCRIPT RESULTS" lines for xargs:
# the long ones of every build first
: > "$results/long"
: > "$results/side"
for build in $builds; do
	for t in "$src"/tests/integration/*.sh; do
		[ -f "$t" ] || continue
		case $(basename "$t" .sh) in $pattern) ;; *) continue ;; esac
		if is_long "$t"; then
			echo "$build $t $results" >> "$results/long"
		else
			echo "$build $t $results" >> "$results/side"
		fi
	done
done
echo "=== integration scripts, $jobs side by side"
# each line's three words become run_script's BUILD SCRIPT RESULTS
cat "$results/long" "$results/side" |
    xargs -r -P "$jobs" -L 1 sh "$src/tests/run.sh" --script

passed=0
failed=$missing
skipped=0
failures=""
for rec in "$results"/*.rec; do
	[ -f "$rec" ] || continue
	while read -r name status count; do
		case $status in
		pass) passed=$((passed + count)) ;;
		fail) failed=$((failed + count)); failures="$failures $name" ;;
		skip) skipped=$((skipped + count))
			if ! skip_allowed "$name"; then
				echo "FAIL $name: $count skipped, not in tests/skip-allow.txt"
				failed=$((failed + count)); failures="$failures $name"
			fi ;;
		esac
	done < "$rec"
done
for out in "$results"/*.out; do
	[ -f "$out" ] && cat "$out"
done
# where the time goes: the slowest scripts (wall time, side by side)
if ls "$results"/t.*.time >/dev/null 2>&1; then
	echo "=== the ten slowest scripts (s)"
	cat "$results"/t.*.time | sort -rn | head -10 | awk '{ printf "%5d  %s\n", $1, $2 }'
	echo "all scripts: $(cat "$results"/t.*.time | awk '{ s += $1 } END { print s + 0 }') s of wall time added up"
	# TEST_TIMES=FILE keeps every script's time, slowest first
	[ -n "${TEST_TIMES:-}" ] && cat "$results"/t.*.time | sort -rn > "$TEST_TIMES"
fi
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
