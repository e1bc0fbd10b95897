#!/bin/sh
# `jobs` must not hold the loop (issue 22): `--limit 10000` was one reply
# built in one step.  It now answers in pages of 16 (result {"jobs": [...],
# "next": cursor}) that fabricctl follows.  10,000 finished jobs of 64
# hosts each are put in the table with the sqlite3 shell while fabricd is
# stopped; checked from outside:
#  - `jobs --limit 10000` lists exactly the ids sqlite3 lists, newest first;
#    `--limit 5` the newest five, the default the newest 50;
#  - on the socket (tools/ctl_probe): a first page of 16 and a cursor, the
#    page after it goes on below it, malformed cursors are invalid_argument;
#  - no span of the loop over the suite's CPU bound while the 10,000 are
#    listed three times (loop_gate, tests/lib/common.sh; plain build only).
. "$FABRICD_SRC/tests/lib/common.sh"
need jq
need sqlite3
fd_setup
fd_config "validation:
  mpirun: $T/not-installed/mpirun
  nccl_tests_dir: $T/not-installed"
fd_start
fd_stop
N=10000
hosts=$(seq 1 64 | sed 's/^/"gpu-node-/; s/$/"/' | paste -sd, -)
sqlite3 "$STATE/fabricd.db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < $N) INSERT INTO validation_jobs (kind, test, launcher, hosts, state, created_ms,
    verdict) SELECT 'nccl', 'all_reduce_perf', 'mpirun', '[$hosts]', 'done',
    1700000000000 + i, 'pass' FROM n" || fail "cannot fill the jobs table"
fd_start
PROBE=$FABRICD_BUILD/tools/ctl_probe

loop_gate_start
for i in 1 2 3; do
	capture "$T/all.$i.json" ctl --json jobs --limit $N
done
loop_gate "3 x jobs --limit $N"

db "SELECT id FROM validation_jobs ORDER BY id DESC LIMIT $N" > "$T/oracle.ids"
jq -r '.jobs[].id' "$T/all.3.json" > "$T/fd.ids"
cmp -s "$T/oracle.ids" "$T/fd.ids" || { diff "$T/oracle.ids" "$T/fd.ids" | head -5
	fail "jobs --limit $N: $(wc -l < "$T/fd.ids") ids, sqlite3 $(wc -l < "$T/oracle.ids")"; }
jq -e '.jobs[0].hosts | length == 64' "$T/all.3.json" >/dev/null || fail "a job's hosts: $(jq -c '.jobs[0]' "$T/all.3.json" | head -c 300)"
db "SELECT id FROM validation_jobs ORDER BY id DESC LIMIT 5" > "$T/oracle.5"
ctl --json jobs --limit 5 | jq -r '.jobs[].id' > "$T/fd.5"
cmp -s "$T/oracle.5" "$T/fd.5" || fail "--limit 5: $(tr '\n' ' ' < "$T/fd.5")"
[ "$(ctl --json jobs | jq '.jobs | length')" = 50 ] || fail "jobs: not the default 50"

capture "$T/p1" "$PROBE" "$SOCK" send '{"v":1,"id":1,"cmd":"jobs","args":{"limit":10000}}'
jq -e '.ok and (.result.jobs | length) == 16 and (.result.next | type) == "string"' "$T/p1" \
    >/dev/null || fail "first page: $(head -c 300 "$T/p1")"
next=$(jq -r '.result.next' "$T/p1")
capture "$T/p2" "$PROBE" "$SOCK" send "{\"v\":1,\"id\":2,\"cmd\":\"jobs\",\"args\":{\"after\":\"$next\"}}"
[ "$(jq '.result.jobs[0].id' "$T/p2")" -lt "$(jq '.result.jobs[-1].id' "$T/p1")" ] ||
    fail "second page: $(head -c 300 "$T/p2")"
for bad in 'zz' '12:3' "${next}0" "$(echo "$next" | tr ':' '-')" ''; do
	capture "$T/bad" "$PROBE" "$SOCK" send "{\"v\":1,\"id\":3,\"cmd\":\"jobs\",\"args\":{\"after\":\"$bad\"}}"
	jq -e '.ok == false and .error.code == "invalid_argument"' "$T/bad" >/dev/null ||
	    fail "cursor \"$bad\": $(cat "$T/bad")"
done
fd_stop
pass
