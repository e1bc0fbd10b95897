#!/bin/sh
# Every element of a list argument is one name: a request sent straight to
# the socket with hosts ["a,b"] is refused as invalid_argument for every
# command of commands.def that takes a --hosts=LIST (read here with sed),
# and no job is launched for it: the sqlite3 shell shows no validation job
# and the fake mpirun's log shows no launch.  The same hosts sent as two
# elements ["a", "b"] are taken by validate.nccl and launched as two hosts
# (-H a:8,b:8 in the job's recorded command), so the refusal is about the
# element, not the names.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need sqlite3
PROBE="$FABRICD_BUILD/tools/ctl_probe"
FK=$FABRICD_SRC/tests/fakes
F=$FABRICD_SRC/tests/fixtures/nccl
fd_config "validation:
  mpirun: $FK/mpirun
  nccl_tests_dir: $FK
  perftest_dir: $FK
  job_timeout: 5s
  kill_grace: 1s"
C=$T/control
printf '%s\n' mode=replay "fixture=$F/v2.17_2node_ring_pass.txt" exit=0 > "$C"
: > "$C.log"
fd_start FAKE_NCCL_CONTROL="$C"
send() { "$PROBE" "$SOCK" send "{\"v\":1,\"id\":1,\"cmd\":\"$1\",\"args\":$2}"; }
jobs() { db "SELECT count(*) FROM validation_jobs"; }

# wire name of every command whose spec has --hosts=LIST
sed -n 's/^CMD([a-z_]*,[[:space:]]*"\([^"]*\)",[[:space:]]*[A-Z]*,[[:space:]]*"[^"]*",[[:space:]]*"[^"]*--hosts=LIST.*/\1/p' \
    "$FABRICD_SRC/common/commands.def" > "$T/cmds"
[ "$(wc -l < "$T/cmds")" -ge 5 ] || fail "only $(wc -l < "$T/cmds") commands with --hosts=LIST found"
n=0
while read -r wire; do
	case $wire in partition.nccl-env) extra='"name":"p1",' ;; *) extra= ;; esac
	for bad in '["a,b"]' '["a","b,c"]' '["gpu[1-2],x"]' '[""]'; do
		out=$(send "$wire" "{$extra\"hosts\":$bad}")
		printf '%s' "$out" | grep -q '"ok":false,"error":{"code":"invalid_argument"' ||
		    fail "$wire hosts $bad: not invalid_argument: $out"
		printf '%s' "$out" | grep -qF 'argument \"hosts\": element' ||
		    fail "$wire hosts $bad: the message does not name the element: $out"
		n=$((n + 1))
	done
done < "$T/cmds"
echo "refused $n malformed host lists over $(wc -l < "$T/cmds") commands"
# a host named twice, once inside a range, is refused too
for twice in '["a","b","a"]' '["gpu[1-3]","gpu2"]'; do
	out=$(send validate.nccl "{\"hosts\":$twice}")
	printf '%s' "$out" | grep -q '"code":"invalid_argument".*given twice' ||
	    fail "hosts $twice: not refused as given twice: $out"
done
sleep 0.5
[ "$(jobs)" = 0 ] || fail "a job was recorded for a refused request: $(db 'SELECT command FROM validation_jobs')"
[ -s "$C.log" ] && fail "the launcher ran for a refused request: $(cat "$C.log")"

# a bracketed hostlist keeps its commas and is taken: gpu[1-2] is 2 hosts
out=$(send validate.nccl '{"hosts":["a","b"]}')
printf '%s' "$out" | grep -q '"ok":true' || fail "hosts [\"a\",\"b\"] refused: $out"
out=$(send validate.nccl '{"hosts":["gpu[1,2]"]}')
printf '%s' "$out" | grep -q '"ok":true' || fail "hosts [\"gpu[1,2]\"] refused: $out"
for _ in $(seq 1 50); do
	[ "$(db "SELECT count(*) FROM validation_jobs WHERE state NOT IN ('queued','running')")" = 2 ] && break
	sleep 0.1
done
db "SELECT command FROM validation_jobs ORDER BY id" > "$T/cmdlines"
grep -q '"-H","a:[0-9]*,b:[0-9]*"' "$T/cmdlines" || fail "[\"a\",\"b\"] not launched on a and b: $(cat "$T/cmdlines")"
grep -q '"-H","gpu1:[0-9]*,gpu2:[0-9]*"' "$T/cmdlines" || fail "gpu[1,2] not launched on gpu1, gpu2: $(cat "$T/cmdlines")"
pass
