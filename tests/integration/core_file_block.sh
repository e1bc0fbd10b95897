#!/bin/sh
# run.sh: alone (it gates how fast status answers; a neighbour on the same cores would be measured)
# A passed file whose read blocks costs its caller, not the daemon.  A
# double below pread/read (tests/fixtures/core/fileblock.c, LD_PRELOAD into
# fabricd) holds every read of *.slow.yaml for 10 s, as a FUSE file that
# answers late or a hung NFS mount would.  While a read_group member
# (nobody) runs `roce lint --file` on such a file, on the SM's defaults:
# root's `status` answers within 100 ms at every 100 ms poll (timed by
# tools/ctl_probe, a fresh connection each); a sweep root
# asks for meanwhile completes (the sweep count goes up) and saquery, a
# client of the simulator of its own, gets its NodeRecords from fabricd's
# SA; and the lint still answers, after the 10 s, with its verdict.  A
# second slow file passed by `topology diff` and one by `partition import
# --dry-run` (every command that takes a FILE) leave status as quick.
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
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }

sim_topology -k 4 -h 4 -s 2 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
control:
  read_group: nogroup"
fd_start SIM_HOST=host1 LD_PRELOAD="$SHIM $SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    FILEBLOCK_SUFFIX=.slow.yaml FILEBLOCK_SECS=10 FILEBLOCK_LOG="$T/block.log"
sm_wait_up 30 || fail "subnet not up"
sweeps() { ctl --json status | jq -r '.sm.subnet.sweeps // .result.sm.subnet.sweeps // empty'; }
s0=$(sweeps)
[ -n "$s0" ] || fail "no sweep count in status: $(ctl --json status)"

# poll_status SECS: root's status every 100 ms, each on a fresh connection
# timed by tools/ctl_probe itself (the answer, not a client's start-up);
# prints the slowest in ms and the number of polls
poll_status() {
	end=$(( $(ms_now) + $1 * 1000 )); worst=0; polls=0
	while [ "$(ms_now)" -lt "$end" ]; do
		out=$("$PROBE" "$SOCK" latency 1) || fail "status failed during the blocked read: $out"
		dt=$(printf '%s' "$out" | awk '{ printf "%d", $2 + 0.999 }')
		[ -n "$dt" ] || fail "ctl_probe latency: $out"
		[ "$dt" -gt "$worst" ] && worst=$dt
		echo "$dt" >> "$T/polls"
		polls=$((polls + 1))
		sleep 0.1
	done
	echo "$worst $polls"
}
# wait_block N: until the double has held N reads
wait_block() {
	for _ in $(seq 1 50); do
		[ "$(grep -c '^block' "$T/block.log" 2>/dev/null)" -ge "$1" ] && return 0
		sleep 0.1
	done
	fail "the double never held read $1 of a slow file"
}

: > "$T/polls"
# ---- roce lint --file by nobody ----
f=$T/profile.slow.yaml
printf 'log_level: info\n' > "$f"
chown nobody "$f"
t0=$(ms_now)
(as_nobody "$FABRICCTL" -s "$SOCK" roce lint --file "$f" > "$T/lint.out" 2>&1; echo $? > "$T/lint.rc") &
lint=$!
wait_block 1
# a sweep root asks for now, and the SA, both need the loop
ctl sweep --heavy > "$T/sweep.out" 2>&1 &
sweep=$!
sim_diag -H host3 -t 5 saquery -N > "$T/saquery.out" || fail "saquery got no answer from the SA during the blocked read"
grep -q 'NodeRecord' "$T/saquery.out" || fail "saquery: $(head -5 "$T/saquery.out")"
set -- $(poll_status 7)
echo "lint: $2 status polls during the blocked read, slowest ${1} ms (timings inflated by the shared machine)"
[ "$1" -le 100 ] || fail "polls $(tr "\n" " " < "$T/polls"): status took $1 ms while a passed file's read was blocked"
[ "$2" -ge 15 ] || fail "only $2 status polls in 7 s"
wait "$sweep" || fail "the sweep asked for during the blocked read failed: $(cat "$T/sweep.out")"
s1=$(sweeps)
[ "$s1" -gt "$s0" ] || fail "no sweep ran during the blocked read ($s0 -> $s1)"
wait "$lint"
dt=$(( $(ms_now) - t0 ))
[ "$(cat "$T/lint.rc")" = 0 ] || fail "lint after the blocked read: exit $(cat "$T/lint.rc"): $(cat "$T/lint.out")"
[ "$dt" -ge 9500 ] || fail "lint answered after $dt ms: the read was not held"
grep -q 'main=1' "$T/block.log" && fail "the passed file was read on the event loop's thread"

# ---- the other commands that take a FILE ----
printf 'partitions:\n  - name: p1\n    pkey: 0x0101\n' > "$T/parts.slow.yaml"
sim_diag ibnetdiscover > "$T/topo.slow.yaml" || fail ibnetdiscover
ctl partition import "$T/parts.slow.yaml" --dry-run > "$T/import.out" 2>&1 &
imp=$!
ctl topology diff "$T/topo.slow.yaml" > "$T/diff.out" 2>&1 &
dif=$!
wait_block 3
set -- $(poll_status 5)
echo "import + diff: $2 polls, slowest ${1} ms"
[ "$1" -le 100 ] || fail "status took $1 ms while import and diff files were blocked"
wait "$imp"; rc_imp=$?
wait "$dif"; rc_dif=$?
# both answered (whatever their verdict): no hang, no transport error
grep -q 'cannot connect\|connection' "$T/import.out" "$T/diff.out" && fail "$(cat "$T/import.out" "$T/diff.out")"
[ $rc_imp -le 2 ] && [ $rc_dif -le 2 ] || fail "import exit $rc_imp, diff exit $rc_dif"
echo "import: exit $rc_imp ($(head -1 "$T/import.out")), diff: exit $rc_dif"
pass
