# Shared helpers for integration tests (sourced).  Each test gets its own
# scratch folder, socket and database; everything it starts is stopped by
# the EXIT trap.
#   fd_setup            scratch dir in $T, paths $SOCK $STATE $CONF
#   fd_config [YAML]    write $CONF: socket, state_dir, sm disabled unless
#                       YAML (appended verbatim) has an sm: section
#   fd_start [ENV=..]   start fabricd in the background, wait for its socket
#   fd_stop             SIGTERM, wait, fail on a non-zero exit (the EXIT
#                       trap does the same for a daemon still running:
#                       a sanitizer's report at exit, 66/67, fails the test)
#   fd_on_exit CMD      run CMD at exit (before the scratch dir is removed)
#   ctl ARGS...         fabricctl against this test's daemon
#   db SQL              the sqlite3 shell on this test's database
#   need TOOL...        fail (not skip) when a tool `make deps` installs is
#                       missing: a test that cannot run has not passed
#   capture [-e] [-r] FILE CMD...
#                       run CMD (a shell function that may call fail) in
#                       this shell with its stdout in FILE, so that its
#                       fail ends the test (`x=$(f)` drops f's fail: the
#                       subshell exits, the test goes on); fails too when
#                       CMD exits non-zero (-r: its status in CAPTURE_RC
#                       instead) or prints nothing (-e: empty is an answer)
#   fail MSG / skip MSG / pass

: "${FABRICD_BUILD:?run through tests/run.sh or set FABRICD_BUILD}"
: "${FABRICD_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
FABRICD="$FABRICD_BUILD/fabricd"
FABRICCTL="$FABRICD_BUILD/fabricctl"
FD_PID=""
FD_CLEANUPS=""

# fail writes to stderr: inside capture (stdout in a file) it must still be seen.
fail() { { echo "FAIL: $*"; [ -f "$T/fabricd.log" ] && tail -30 "$T/fabricd.log"; } >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
pass() { echo "PASS"; exit 0; }

need() {
	for _t in "$@"; do
		command -v "$_t" >/dev/null 2>&1 || fail "$_t not installed (make deps installs it)"
	done
}

capture() {
	_empty=""
	_keeprc=""
	while :; do
		case $1 in
		-e) _empty=1; shift ;;
		-r) _keeprc=1; shift ;;
		*) break ;;
		esac
	done
	_f=$1
	shift
	"$@" > "$_f"
	CAPTURE_RC=$?
	[ -n "$_keeprc" ] || [ $CAPTURE_RC -eq 0 ] || fail "$* exited $CAPTURE_RC: $(head -5 "$_f")"
	[ -n "$_empty" ] || [ -s "$_f" ] || fail "$* printed nothing"
	return 0
}

fd_on_exit() { FD_CLEANUPS="$1; $FD_CLEANUPS"; }

# fd_reap_pid PID LOG: SIGTERM a daemon (if it still runs), give a
# sanitized build time to write its report at exit, and return its exit
# status (137 when it had to be killed); a sanitizer's report in LOG is
# printed.
fd_reap_pid() {
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
	_rc=$?
	if [ $_rc -ne 0 ] && [ -f "$2" ]; then
		grep -A40 -m1 -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' \
		    -e 'runtime error:' "$2"
	fi
	return $_rc
}

# fd_reap: the same for this test's daemon.
fd_reap() {
	_pid=$FD_PID
	FD_PID=""
	fd_reap_pid "$_pid" "$T/fabricd.log"
}

# fd_second PID LOG: a second fabricd the test started itself (a standby
# pair): the EXIT trap stops it and judges its status as fd_stop does.
# fd_second with no argument: it was stopped or killed on purpose.
FD2_PID=""
FD2_LOG=""
fd_second() { FD2_PID=${1:-}; FD2_LOG=${2:-}; }

fd_cleanup() {
	rc=$?
	for _which in 1 2; do
		if [ $_which = 1 ] && [ -n "$FD_PID" ]; then
			fd_reap
		elif [ $_which = 2 ] && [ -n "$FD2_PID" ]; then
			fd_reap_pid "$FD2_PID" "$FD2_LOG"
		else
			continue
		fi
		frc=$?
		if [ $frc -ne 0 ]; then
			echo "FAIL: fabricd exited with status $frc at the end of the test"
			[ $rc -eq 0 ] && rc=1
		fi
	done
	eval "$FD_CLEANUPS"
	[ -n "$T" ] && [ -z "$KEEP_TMP" ] && rm -rf "$T"
	exit $rc
}

# port_block: PORT_BASE, the first of 20 loopback TCP ports this test
# holds alone: below the kernel's ephemeral range (20000-31999, where no
# client's own connection lands), none listened on now, and no other test
# on this machine (this run's or another clone's beside it) given it
# while this one runs: a lock directory per block under /tmp/fabricd-ports,
# holding the test's pid, removed at exit (and taken over once that pid is
# gone).  Each call gives a new block: a caller whose daemon could not
# bind one asks again.  Tests side by side once picked ports from their
# pids by separate rules, and two of them met (issue 39).
PORT_LOCKS=/tmp/fabricd-ports
port_block() {
	mkdir -p "$PORT_LOCKS" 2>/dev/null && chmod 1777 "$PORT_LOCKS" 2>/dev/null
	_pb_first=$(( ($$ * 7 + ${_pb_calls:-0} * 131) % 600 ))
	_pb_calls=$(( ${_pb_calls:-0} + 1 ))
	for _pb_k in $(seq 0 599); do
		_pb=$((20000 + ((_pb_first + _pb_k) % 600) * 20))
		_pb_lock=$PORT_LOCKS/$_pb
		if ! mkdir "$_pb_lock" 2>/dev/null; then
			_pb_pid=$(cat "$_pb_lock/pid" 2>/dev/null)
			[ -n "$_pb_pid" ] && ! kill -0 "$_pb_pid" 2>/dev/null || continue
			rm -rf "$_pb_lock"	# its test is gone
			mkdir "$_pb_lock" 2>/dev/null || continue
		fi
		echo $$ > "$_pb_lock/pid"
		if [ -z "$(ss -Htan "sport >= :$_pb and sport <= :$((_pb + 19))" 2>/dev/null)" ]; then
			fd_on_exit "rm -rf $_pb_lock"
			PORT_BASE=$_pb
			return 0
		fi
		rm -rf "$_pb_lock"
	done
	fail "no block of 20 free loopback ports in 20000-31999"
}

fd_setup() {
	T=$(mktemp -d /tmp/fabricd-test.XXXXXX)
	chmod 755 "$T"
	SOCK="$T/run/fabricd.sock"
	STATE="$T/state"
	CONF="$T/fabricd.yaml"
	export FABRICD_SOCKET="$SOCK"
	trap fd_cleanup EXIT
	trap 'exit 1' INT TERM
}

fd_config() {
	{
		echo "socket: $SOCK"
		echo "state_dir: $STATE"
		echo "log_level: debug"
		if [ -n "$1" ]; then printf '%s\n' "$1"; fi
		case "$1" in *"sm:"*) ;; *) printf 'sm:\n  enabled: false\n' ;; esac
	} > "$CONF"
}

# fd_start [VAR=value ...]: environment for the daemon (SIM_HOST, LD_PRELOAD...).
fd_start() {
	(cd "$T" && exec env "$@" "$FABRICD" -c "$CONF" >>"$T/fabricd.log" 2>&1) &
	FD_PID=$!
	for _ in $(seq 1 150); do
		"$FABRICCTL" -s "$SOCK" version >/dev/null 2>&1 && return 0
		kill -0 "$FD_PID" 2>/dev/null || fail "fabricd exited during start-up"
		sleep 0.1
	done
	fail "fabricd did not answer on $SOCK within 15 s"
}

fd_stop() {
	[ -n "$FD_PID" ] || return 0
	fd_reap || fail "fabricd exited with status $_rc"
}

# fd_killed: the test killed fabricd on purpose (SIGKILL, a crash test):
# reap it so that neither fd_stop nor the EXIT trap judges its status.
fd_killed() {
	[ -n "$FD_PID" ] || return 0
	wait "$FD_PID" 2>/dev/null
	FD_PID=""
}

ctl() { "$FABRICCTL" -s "$SOCK" "$@"; }

# rss_settled PID: RSS= the process's peak resident memory (VmHWM, kB) once
# it has stopped moving (the same for 3 s); fails the test when it still
# grows 60 s on.  Read at one instant (subnet up, say) the peak would miss
# what the daemon does just after and vary from run to run.
rss_settled() {
	_last= _same=0 _i=0
	while [ $_same -lt 6 ]; do
		[ $_i -ge 120 ] && fail "peak RSS of $1 still growing after 60 s"
		RSS=$(awk '/^VmHWM/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -n "$RSS" ] || fail "no VmHWM for process $1"
		if [ "$RSS" = "$_last" ]; then _same=$((_same + 1)); else _same=0; _last=$RSS; fi
		_i=$((_i + 1))
		sleep 0.5
	done
}

# db SQL...: a query on fabricd's database.  The events are written by the
# store's writer thread a moment after they happen, so while fabricd runs
# db first waits (5 s at most) until status says none is unwritten: the
# row of what the test just did is then there.
db() {
	if [ -n "$FD_PID" ] && kill -0 "$FD_PID" 2>/dev/null; then
		_w=0
		while [ $_w -lt 50 ] && [ "$(ctl --json status 2>/dev/null |
		    grep -Eo '"unwritten_total": *[0-9]+' | grep -Eo '[0-9]+$')" != 0 ]; do
			sleep 0.1
			_w=$((_w + 1))
		done
	fi
	sqlite3 -batch -noheader "$STATE/fabricd.db" "$@"
}

# The loop's fairness, gated on CPU time, not on a lag (issue 39): at each
# 10 ms beat of its heartbeat fabricd reads its loop thread's CPU clock
# (daemon/loopstat.c), so a span between two beats is the CPU its
# callbacks ran, however loaded the machine (a loop busy with short
# callbacks reads 10-11 ms; one callback of D ms up to D + 10); status
# counts the spans over 2, 5, 10, 20, 40 and 80 ms.  A gate counts the
# spans over the bound before and after what it gates: none may be added.
# The bound, LOOP_CPU_GATE_MS, is 40 ms: twice the longest span loaded runs
# showed for the steps gated (bench/loop_spans.sh; the figures in
# docs/metrics.md "The loop's CPU spans"); a step whose loaded runs went
# past 20 ms names its own bound, twice what they showed (loop_gate_start
# BOUND; one of 2, 5, 10, 20, 40, 80).  A sanitizer build pays two to
# three times for every step: it is not gated (the plain build's run is).
LOOP_CPU_GATE_MS=40

# loop_spans_over [BOUND]: spans between two beats so far that took more
# than BOUND (LOOP_CPU_GATE_MS) ms of the loop's CPU.
loop_spans_over() {
	ctl --json status | jq -r --arg b "${1:-$LOOP_CPU_GATE_MS}" '.loop.beats_cpu_over_ms[$b]'
}

# loop_span_buckets: the spans so far over 2, 5, 10, 20, 40, 80 ms of CPU,
# as "n2 n5 n10 n20 n40 n80".
loop_span_buckets() {
	ctl --json status | jq -r '.loop.beats_cpu_over_ms | [.["2"], .["5"], .["10"], .["20"],
	    .["40"], .["80"]] | map(tostring) | join(" ")'
}

# loop_gate_start [BOUND]: before what a gate measures: the spans over the
# bound (LOOP_CPU_GATE_MS unless named) and the buckets, kept for loop_gate.
loop_gate_start() {
	LOOP_GATE_BOUND=${1:-$LOOP_CPU_GATE_MS}
	LOOP_GATE_OVER=$(loop_spans_over "$LOOP_GATE_BOUND")
	LOOP_GATE_BUCKETS=$(loop_span_buckets)
	case "$LOOP_GATE_OVER $LOOP_GATE_BUCKETS" in
	*null*|*[!0-9\ ]*|" "*) fail "no loop figures: [$LOOP_GATE_OVER] [$LOOP_GATE_BUCKETS]" ;;
	esac
}

# loop_gate WHAT: after it, fail when a span of the loop over the bound
# of loop_gate_start came since.  Prints the spans
# WHAT added to each bucket (for tests/tools/loop_spans.sh).
loop_gate() {
	_over=$(loop_spans_over "${LOOP_GATE_BOUND:-$LOOP_CPU_GATE_MS}")
	_after=$(loop_span_buckets)
	[ -n "$_over" ] && [ "$_over" != null ] || fail "no loop figures after $1"
	# shellcheck disable=SC2086
	set -- "$1" $LOOP_GATE_BUCKETS $_after
	echo "loop spans: $1: over 2/5/10/20/40/80 ms of CPU while it ran:" \
	    "$(($8 - $2)) $(($9 - $3)) $((${10} - $4)) $((${11} - $5)) $((${12} - $6)) $((${13} - $7))"
	if ldd "$FABRICD" 2>/dev/null | grep -q libasan; then
		echo "(sanitizer build: the loop's CPU spans are not gated; the plain build's run gates them)"
	elif [ "$_over" -gt "$LOOP_GATE_OVER" ]; then
		fail "$1: $((_over - LOOP_GATE_OVER)) spans of the loop over ${LOOP_GATE_BOUND:-$LOOP_CPU_GATE_MS} ms of CPU while it ran"
	fi
}
