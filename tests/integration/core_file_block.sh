#!/bin/sh
# A passed file whose read blocks costs its caller, not the daemon.  A
# double below pread/read (tests/fixtures/core/fileblock.c, LD_PRELOAD into
# fabricd) holds every read of *.slow.yaml until the test creates a release
# file, as a FUSE file that answers late or a hung NFS mount would; its log
# says when a read is held and when it is let go.  While a read_group
# member (nobody) runs `roce lint --file` on such a file, on the SM's
# defaults, and before the test lets the read go: root's `status` answers
# 20 times (tools/ctl_probe, a fresh connection each), a sweep root asks
# for completes (the sweep count goes up), and saquery, a client of the
# simulator of its own, gets its NodeRecords from fabricd's SA; the read
# is still held after all that (no release in the double's log, no answer
# to the lint yet), and the lint answers with its verdict once let go.  A
# second slow file passed by `topology diff` and one by `partition import
# --dry-run` (every command that takes a FILE) leave status answering the
# same way.  Nothing is timed: a slow machine makes it slower, never
# failing; the timeouts (60 s) only end a wait that a loop blocked by the
# read would make endless.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_require
need setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root to switch users"
getent group nogroup >/dev/null || skip "no nogroup group"
SHIM=$FABRICD_BUILD/tests/libfileblock.so
[ -r "$SHIM" ] || fail "$SHIM not built"
fd_setup
fd_on_exit sim_stop
SIM_DIR=$T/sim
PROBE=$FABRICD_BUILD/tools/ctl_probe
as_nobody() { env ASAN_OPTIONS=detect_leaks=0 LSAN_OPTIONS= setpriv --reuid=nobody \
    --regid=nogroup --clear-groups "$@"; }

REL=$T/release
: > "$T/block.log"

sim_topology -k 4 -h 4 -s 2 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
control:
  read_group: nogroup"
fd_start SIM_HOST=host1 LD_PRELOAD="$SHIM $SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    FILEBLOCK_SUFFIX=.slow.yaml FILEBLOCK_SECS=300 FILEBLOCK_RELEASE="$REL" \
    FILEBLOCK_LOG="$T/block.log"
sm_wait_up 30 || fail "subnet not up"
sweeps() { ctl --json status | jq -r '.sm.subnet.sweeps // .result.sm.subnet.sweeps // empty'; }
s0=$(sweeps)
[ -n "$s0" ] || fail "no sweep count in status: $(ctl --json status)"

# held_fail MSG: fail, letting the held reads go first (a daemon whose loop
# waits on one would otherwise not stop until the double's 300 s)
held_fail() { : > "$REL"; fail "$@"; }
# lines WORD: how many lines of the double's log start with WORD
lines() { grep -c "^$1 " "$T/block.log"; }
# wait_lines WORD N: until the double's log has N lines of WORD
wait_lines() {
	for _ in $(seq 1 600); do
		[ "$(lines "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	held_fail "the double's log never had $2 \"$1\" lines in 60 s: $(cat "$T/block.log")"
}
# still_held N WHAT: the N reads held so far are all still held
still_held() {
	[ "$(lines release)" = 0 ] || held_fail "$2: a read was let go before the test released it"
	[ "$(lines block)" = "$1" ] || held_fail "$2: $(lines block) reads held, expected $1"
}
# status_answers WHAT: 20 statuses, each on a fresh connection, all answered
# (the figures are printed, not judged: a busy machine stretches them)
status_answers() {
	out=$(timeout 60 "$PROBE" "$SOCK" latency 20); prc=$?
	[ $prc = 0 ] || held_fail "status got no answer with $1 held (ctl_probe exit $prc${out:+: $out})"
	echo "status answered 20 times with $1 held ($out)"
}

# ---- roce lint --file by nobody ----
f=$T/profile.slow.yaml
printf 'log_level: info\n' > "$f"
chown nobody "$f"
(as_nobody "$FABRICCTL" -s "$SOCK" roce lint --file "$f" > "$T/lint.out" 2>&1; echo $? > "$T/lint.rc") &
lint=$!
wait_lines block 1
status_answers "the lint's file"
# a sweep root asks for now, and the SA, both need the loop
timeout 60 "$FABRICCTL" -s "$SOCK" sweep --heavy > "$T/sweep.out" 2>&1 ||
    held_fail "the sweep asked for during the blocked read failed: $(cat "$T/sweep.out")"
for _ in $(seq 1 600); do
	s1=$(sweeps)
	[ -n "$s1" ] && [ "$s1" -gt "$s0" ] && break
	sleep 0.1
done
[ -n "$s1" ] && [ "$s1" -gt "$s0" ] || held_fail "no sweep ran during the blocked read ($s0 -> $s1)"
sim_diag -H host3 -t 60 saquery -N > "$T/saquery.out" ||
    held_fail "saquery got no answer from the SA during the blocked read"
grep -q 'NodeRecord' "$T/saquery.out" || held_fail "saquery: $(head -5 "$T/saquery.out")"
still_held 1 "after status, a sweep and saquery"
[ -e "$T/lint.rc" ] && held_fail "the lint answered while its file was held: $(cat "$T/lint.out")"
grep -q 'main=1' "$T/block.log" && held_fail "the passed file was read on the event loop's thread"
: > "$REL"
wait "$lint"
[ "$(cat "$T/lint.rc")" = 0 ] || fail "lint after the blocked read: exit $(cat "$T/lint.rc"): $(cat "$T/lint.out")"
[ "$(lines release)" = 1 ] || fail "the lint answered, but the double let go of $(lines release) reads"

# ---- the other commands that take a FILE ----
rm -f "$REL"
printf 'partitions:\n  - name: p1\n    pkey: 0x0101\n' > "$T/parts.slow.yaml"
sim_diag ibnetdiscover > "$T/topo.slow.yaml" || fail ibnetdiscover
ctl partition import "$T/parts.slow.yaml" --dry-run > "$T/import.out" 2>&1 &
imp=$!
ctl topology diff "$T/topo.slow.yaml" > "$T/diff.out" 2>&1 &
dif=$!
wait_lines block 3
status_answers "the import's and the diff's files"
[ "$(lines release)" = 1 ] || held_fail "import and diff: a read was let go before the test released it"
kill -0 "$imp" 2>/dev/null && kill -0 "$dif" 2>/dev/null ||
    held_fail "import or diff answered while its file was held: $(cat "$T/import.out" "$T/diff.out")"
grep -q 'main=1' "$T/block.log" && held_fail "a passed file was read on the event loop's thread"
: > "$REL"
wait "$imp"; rc_imp=$?
wait "$dif"; rc_dif=$?
# both answered (whatever their verdict): no hang, no transport error
grep -q 'cannot connect\|connection' "$T/import.out" "$T/diff.out" && fail "$(cat "$T/import.out" "$T/diff.out")"
[ $rc_imp -le 2 ] && [ $rc_dif -le 2 ] || fail "import exit $rc_imp, diff exit $rc_dif"
echo "import: exit $rc_imp ($(head -1 "$T/import.out")), diff: exit $rc_dif"
pass
