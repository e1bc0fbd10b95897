# Shared helpers for integration tests (sourced).  Each test gets its own
# scratch folder, socket and database; everything it starts is stopped by
# the EXIT trap.
#   fd_setup            scratch dir in $T, paths $SOCK $STATE $CONF
#   fd_config [YAML]    write $CONF: socket, state_dir, sm disabled unless
#                       YAML (appended verbatim) has an sm: section
#   fd_start [ENV=..]   start fabricd in the background, wait for its socket
#   fd_stop             SIGTERM, wait, fail on a non-zero exit
#   fd_on_exit CMD      run CMD at exit (before the scratch dir is removed)
#   ctl ARGS...         fabricctl against this test's daemon
#   db SQL              the sqlite3 shell on this test's database
#   fail MSG / skip MSG / pass

: "${FABRICD_BUILD:?run through tests/run.sh or set FABRICD_BUILD}"
: "${FABRICD_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
FABRICD="$FABRICD_BUILD/fabricd"
FABRICCTL="$FABRICD_BUILD/fabricctl"
FD_PID=""
FD_CLEANUPS=""

fail() { echo "FAIL: $*"; [ -f "$T/fabricd.log" ] && tail -30 "$T/fabricd.log"; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
pass() { echo "PASS"; exit 0; }

fd_on_exit() { FD_CLEANUPS="$1; $FD_CLEANUPS"; }

fd_cleanup() {
	rc=$?
	if [ -n "$FD_PID" ] && kill -0 "$FD_PID" 2>/dev/null; then
		kill -TERM "$FD_PID" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$FD_PID" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$FD_PID" 2>/dev/null
	fi
	eval "$FD_CLEANUPS"
	[ -n "$T" ] && [ -z "$KEEP_TMP" ] && rm -rf "$T"
	exit $rc
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
	kill -TERM "$FD_PID"
	wait "$FD_PID"
	rc=$?
	FD_PID=""
	[ $rc -eq 0 ] || fail "fabricd exited with status $rc"
}

ctl() { "$FABRICCTL" -s "$SOCK" "$@"; }

db() { sqlite3 -batch -noheader "$STATE/fabricd.db" "$@"; }
