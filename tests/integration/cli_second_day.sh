#!/bin/sh
# An operator's second day (issue 42, point 7), on make sim's own
# simulation (tools/sim.sh, a smaller tree): what fabricctl prints reads
# right, checked against infiniband-diags where there is a fact to check.
# Each assertion names what 5f2420a printed instead.
#  1. no daemon: the error says what to do next (5f2420a: only "cannot
#     connect ... No such file or directory");
#  2. --json reals have at most 12 significant digits (5f2420a: 17, e.g.
#     8.631862999999997);
#  3. partition history names a file by its path and puts a rejection's
#     second error under the first (5f2420a: file={"fd":0,"name":...}, and
#     the second error at column 0, breaking the table);
#  4. partition list shows the default partition, 0x7fff at the index
#     smpquery pkeys reads on a host (5f2420a: not listed);
#  5. route to a host whose cable is out says it left the fabric, and when
#     (5f2420a: "no node has this name, GUID or LID");
#  6. the pre-flight of that host skips the ports and routes checks, where
#     5f2420a passed them with "0 host ports checked";
#  7. job log of a job that wrote nothing says so on stderr (5f2420a: no
#     output at all, exit 0);
#  8. ports --state down lists the port whose cable was pulled, not the
#     uncabled ones (5f2420a: every uncabled spine port, 40 here).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq smpquery
make_sim_up
sm_wait_up 30 || fail "subnet not up"

# 1. no daemon
"$FABRICCTL" -s "$T/nosuch.sock" status > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 2 ] || fail "status without a daemon: exit $rc, expected 2"
grep -q 'is fabricd running?' "$T/err" && grep -q -- '-s PATH or FABRICD_SOCKET' "$T/err" ||
    fail "status without a daemon says nothing of what to do: $(cat "$T/err")"

# 2. reals: routing's means are fractions (routes per link)
ctl --json routing > "$T/routing.json" || fail "routing"
grep -q '[0-9]\.[0-9]' "$T/routing.json" || fail "routing shows no real to check: $(head -c 300 "$T/routing.json")"
! grep -Eq '[0-9]\.[0-9]{13,}' "$T/routing.json" ||
    fail "a real with more than 12 digits: $(grep -Eo '[0-9]+\.[0-9]{13,}' "$T/routing.json" | head -3)"

# 3. partition history: a rejected import of a file with two errors
printf 'a=0x10 : ALL=full ;\nb : bad ;\nc=zz : x ;\n' > "$T/bad.conf"
ctl partition import "$T/bad.conf" > /dev/null 2>&1 && fail "a bad partitions file was imported"
ctl partition history > "$T/hist.txt" || fail "partition history"
grep -q "file=$T/bad.conf\$" "$T/hist.txt" || fail "history does not name the file by its path: $(cat "$T/hist.txt")"
grep -q '"fd"' "$T/hist.txt" && fail "history shows the descriptor: $(cat "$T/hist.txt")"
col=$(awk 'NR == 1 { print index($0, "MESSAGE") - 1 }' "$T/hist.txt")
awk -v c="$col" -v f="$T/bad.conf:3:" 'index($0, f) { found = 1; if (index($0, f) != c + 1) exit 1 }
    END { exit !found }' "$T/hist.txt" ||
    fail "the second error of the rejection is not under MESSAGE (column $col): $(cat "$T/hist.txt")"

# 4. the default partition, as smpquery reads host3's table
ctl --json partition list > "$T/pl.json" || fail "partition list"
jq -e '.[0] | .name == "default" and .pkey == "0x7fff" and .default == true' "$T/pl.json" \
    > /dev/null || fail "partition list: no default partition first: $(jq -c '.[0]' "$T/pl.json")"
idx=$(jq -r '.[0].index' "$T/pl.json")
sim_diag -H host3 smpquery pkeys -L "$(sm_lid_of host3)" 1 > "$T/pkeys.txt" ||
    fail "smpquery pkeys host3"
at=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+:/) { n = $i; sub(/:.*/, "", n); v = $(i + 1)
    if (v == "0x7fff" || v == "0xffff") { print n; exit } } }' "$T/pkeys.txt")
[ -n "$at" ] && [ "$at" = "$idx" ] ||
    fail "partition list says the default is at index $idx, smpquery reads it at [$at]: $(cat "$T/pkeys.txt")"
ctl partition list | grep -Eq '^default +- +0x7fff +0 +all ' ||
    fail "partition list (human): $(ctl partition list)"

# 5., 6. and 8. host5's cable out; before it, ports --state down lists no
# port, though the spines have uncabled ones
uncabled=$(ctl --json ports | jq '[.ports[] | select(.state == "down")] | length')
[ "$uncabled" -gt 0 ] || fail "the tree has no uncabled port to leave out"
[ "$(ctl --json ports --state down | jq '.ports | length')" = 0 ] ||
    fail "ports --state down lists uncabled ports: $(ctl --json ports --state down | jq -c '[.ports[].object]')"
sim_console 'Unlink "host5"[1]' || fail console
i=0
until ctl --json nodes | jq -e 'all(.nodes[]; .description != "host5")' > /dev/null 2>&1; do
	[ $i -ge 300 ] && fail "host5 still in the fabric 30 s after its cable went"
	i=$((i + 1))
	sleep 0.1
done
leaf=$(ctl --json ports --state down | jq -r '[.ports[].object] | join(",")')
[ "$leaf" = sw-l1:5 ] || fail "ports --state down after host5's cable went: [$leaf], want sw-l1:5 (of $uncabled uncabled)"
ctl route host1 host5 > "$T/route.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "route to host5: exit $rc"
grep -q 'dst: host5 is not in the fabric now: it left at 20[0-9-]*T[0-9:]*Z' "$T/route.out" ||
    fail "route to the unplugged host5: $(cat "$T/route.out")"
ctl --json preflight --hosts host5 > "$T/pf.json"
jq -e '[.checks[] | select(.name == "ports" or .name == "routes") | .status] == ["skipped", "skipped"]' \
    "$T/pf.json" > /dev/null || fail "pre-flight of the unplugged host5: $(jq -c '[.checks[] | {name, status, detail}]' "$T/pf.json")"

# 7. a job whose stdout is empty
sed -i "s|^fixture=.*|fixture=/dev/null|" "$SIM_DIR/nccl.control"
ctl validate nccl --hosts host1,host2 --launcher mpirun --follow > "$T/job.out" 2>&1
id=$(ctl --json jobs --limit 1 | jq -r '.jobs[0] | select(.state == "done") | .id')
[ -n "$id" ] || fail "validate nccl: no job done: $(cat "$T/job.out")"
ctl job log "$id" > "$T/log.out" 2> "$T/log.err" || fail "job log $id: $(cat "$T/log.err")"
[ ! -s "$T/log.out" ] && grep -q "job $id wrote nothing to stdout" "$T/log.err" ||
    fail "job log of an empty log: [$(cat "$T/log.out")] [$(cat "$T/log.err")]"
pass
