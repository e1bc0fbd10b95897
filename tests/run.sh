#!/bin/sh
# Run the whole suite against one or more build folders and print one
# total.  Usage: tests/run.sh BUILD [BUILD...]   (e.g. build build-san)
# Environment: TESTS=pattern runs only matching tests (a shell glob on the
# test's name, e.g. TESTS='sm_*').
# The last line is always `N passed, N failed, N skipped`.  A skip counts
# as a failure too unless tests/skip-allow.txt lists it with its reason:
# a test that did not run must not look green.
src=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
skipped=0
failures=""
pattern=${TESTS:-*}
allow="$src/tests/skip-allow.txt"

# ASan must tolerate umad2sim being preloaded ahead of it; leaks inside the
# simulator's shim are not ours, nor is its read() over-read (tests/asan.supp).
export ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=1:abort_on_error=0:exitcode=66:suppressions=$src/tests/asan.supp"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=67"

record() {	# name status(pass|fail|skip) count
	case $2 in
	pass) passed=$((passed + $3)) ;;
	fail) failed=$((failed + $3)); failures="$failures $1" ;;
	skip) skipped=$((skipped + $3))
		if ! skip_allowed "$1"; then
			echo "FAIL $1: $3 skipped, not in tests/skip-allow.txt"
			failed=$((failed + $3)); failures="$failures $1"
		fi ;;
	esac
}

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

for b in "$@"; do
	build=$(cd "$src/$b" 2>/dev/null && pwd) || { echo "no build folder $b"; failed=$((failed + 1)); continue; }
	echo "=== suite against $b"
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		case $name in $pattern) ;; *) continue ;; esac
		out=$(cd "$src" && timeout 300 "$t" 2>&1)
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
		if [ "$ns" -gt 0 ]; then
			echo "skip $b/$name: $ns test(s): $(printf '%s\n' "$out" | grep -m1 -e '^skip' -e '^\[  SKIPPED \] [^0-9]' || echo 'ran no test')"
			record "$b/$name" skip "$ns"
		fi
		if [ "$nf" -gt 0 ]; then
			printf '%s\n' "$out" | tail -40
			echo "FAIL $b/$name ($np passed, $nf failed)"
			record "$b/$name" fail "$nf"
			record "$b/$name" pass "$np"
		elif [ "$np" -gt 0 ] || [ "$ns" -eq 0 ]; then
			echo "ok   $b/$name ($np tests)"
			record "$b/$name" pass "$np"
		fi
	done
	for t in "$src"/tests/integration/*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		case $name in $pattern) ;; *) continue ;; esac
		start=$(date +%s)
		out=$(cd "$src" && FABRICD_BUILD="$build" FABRICD_SRC="$src" timeout 600 sh "$t" 2>&1)
		rc=$?
		secs=$(( $(date +%s) - start ))
		if [ $rc -eq 0 ]; then
			echo "ok   $b/$name (${secs}s)"
			record "$b/$name" pass 1
		elif [ $rc -eq 77 ]; then
			echo "skip $b/$name: $(printf '%s\n' "$out" | tail -1)"
			record "$b/$name" skip 1
		else
			printf '%s\n' "$out" | tail -60
			echo "FAIL $b/$name (exit $rc, ${secs}s)"
			record "$b/$name" fail 1
		fi
	done
done
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
