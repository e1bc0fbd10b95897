#!/bin/sh
# `ports --degraded` on the storm fabric must not hold the loop (issue 22).
# health_storm's fabric: a 1,296-host 3-level tree (topogen -p 4) on
# ibsim's default cabling (no w=/s=: every link 4X SDR where both ends
# could do 12X QDR, so all 7,776 cabled ports are degraded), fabricd on its
# defaults (socket, state_dir and the SM switched on, on host1).  One reply
# of 7,776 rows held the loop 70 ms or more; `ports` now answers in pages
# (a `next` cursor) that fabricctl follows.  Checked from outside:
#  - after the first health round, `ports --degraded` lists every port
#    iblinkinfo says "Could be" faster, each once, and nothing else (an
#    iblinkinfo line is one port: its node's description and its number);
#    `ports` alone every port iblinkinfo lists, NODE one switch's ports,
#    --state active --degraded the same as --degraded;
#  - while `ports --degraded` runs five times, no span of the loop goes
#    over the suite's CPU bound (loop_gate, tests/lib/common.sh; plain
#    build only);
#  - on the socket itself (tools/ctl_probe): a request without a cursor
#    gets at most 256 rows and a `next`, the page after it shares no row
#    with it, and a malformed cursor is invalid_argument.
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq
PROBE=$FABRICD_BUILD/tools/ctl_probe

sim_default_cabling_start -p 4
# the daemon's defaults: nothing but the paths and the SM (off by default)
printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\n' "$SOCK" "$STATE" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 120 || fail "subnet not up"

# The oracle: "NODE:PORT" for every port iblinkinfo lists (the line's own
# port is the first number before "["), " slow" after the ones it says
# could be faster; the node is the description of the "CA:"/"Switch:"
# heading above.
sim_diag -t 120 iblinkinfo > "$T/iblinkinfo" || fail "iblinkinfo"
awk '/^(CA|Switch): / { node = $NF; sub(/:$/, "", node); next }
    node != "" && match($0, /[0-9]+\[/) {
	print node ":" substr($0, RSTART, RLENGTH - 1) (/Could be/ ? " slow" : "") }' \
    "$T/iblinkinfo" | sort > "$T/oracle"
sed -n 's/ slow$//p' "$T/oracle" | sort > "$T/oracle.slow"
sed 's/ slow$//' "$T/oracle" | sort > "$T/oracle.all"
slow=$(wc -l < "$T/oracle.slow")
echo "iblinkinfo: $(wc -l < "$T/oracle.all") ports, $slow 'Could be' faster"
[ "$slow" -ge 7776 ] || fail "only $slow ports below their best: not the storm fabric"

# the first health round done (`rounds` counts finished ones)
health_wait_rounds 1 60
loop_gate_start

# five listings of the storm's ports, one after the other
t0=$(date +%s%N)
for i in 1 2 3 4 5; do
	capture "$T/degraded.$i.json" ctl --json ports --degraded
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "5 x ports --degraded in $ms ms"
# The gate (a step of the bring-up before them may have been longer:
# health_storm gates those)
loop_gate "5 x ports --degraded"

# every listing: the slow ports, each once ("object" is NODE:PORT)
for i in 1 5; do
	jq -r '.ports[].object' "$T/degraded.$i.json" | sort > "$T/fd.slow"
	dups=$(uniq -d "$T/fd.slow" | wc -l)
	[ "$dups" -eq 0 ] || fail "listing $i: $dups ports twice: $(uniq -d "$T/fd.slow" | head -3)"
	cmp -s "$T/fd.slow" "$T/oracle.slow" || { diff "$T/oracle.slow" "$T/fd.slow" | head -5
		fail "listing $i: $(wc -l < "$T/fd.slow") degraded ports, not iblinkinfo's $slow"; }
done
for i in 2 3 4; do
	cmp -s "$T/degraded.$i.json" "$T/degraded.1.json" || fail "listing $i differs from the first"
done
# the human table: a heading, a header and one line a port
ctl ports --degraded > "$T/degraded.txt" || fail "ports --degraded (table)"
[ "$(sed -n 1p "$T/degraded.txt")" = "ports:" ] || fail "table heading: $(head -1 "$T/degraded.txt")"
[ "$(wc -l < "$T/degraded.txt")" -eq $((slow + 2)) ] || fail "table: $(wc -l < "$T/degraded.txt") lines"

# the other filters, paged the same way
capture "$T/all.json" ctl --json ports
jq -r '.ports[].object' "$T/all.json" | sort > "$T/fd.all"
cmp -s "$T/fd.all" "$T/oracle.all" || fail "ports: $(wc -l < "$T/fd.all") ports, iblinkinfo $(wc -l < "$T/oracle.all")"
capture "$T/active.json" ctl --json ports --state active --degraded
jq -r '.ports[].object' "$T/active.json" | sort > "$T/fd.active"
cmp -s "$T/fd.active" "$T/oracle.slow" || fail "--state active --degraded: $(wc -l < "$T/fd.active") ports"
capture "$T/node.json" ctl --json ports sw-p2-l7
jq -r '.ports[].object' "$T/node.json" | sort > "$T/fd.node"
grep '^sw-p2-l7:' "$T/oracle.all" > "$T/oracle.node"
[ -s "$T/oracle.node" ] && cmp -s "$T/fd.node" "$T/oracle.node" ||
    fail "ports sw-p2-l7: $(wc -l < "$T/fd.node") ports, iblinkinfo $(wc -l < "$T/oracle.node")"
capture -e "$T/down.txt" ctl ports --state down
[ "$(cat "$T/down.txt")" = "ports: (none)" ] || fail "--state down: $(head -3 "$T/down.txt")"

# the pages on the socket: a raw client that sends no cursor
capture "$T/page1" "$PROBE" "$SOCK" send '{"v":1,"id":1,"cmd":"ports","args":{"degraded":true}}'
jq -e '.ok and (.result.ports | length) >= 1 and (.result.ports | length) <= 256 and
    (.result.next | type) == "string"' "$T/page1" >/dev/null || fail "first page: $(head -c 300 "$T/page1")"
next=$(jq -r '.result.next' "$T/page1")
capture "$T/page2" "$PROBE" "$SOCK" send \
    "{\"v\":1,\"id\":2,\"cmd\":\"ports\",\"args\":{\"degraded\":true,\"after\":\"$next\"}}"
jq -r '.result.ports[].object' "$T/page1" "$T/page2" | sort > "$T/pages"
[ "$(jq '.result.ports | length' "$T/page2")" -ge 1 ] && [ -z "$(uniq -d "$T/pages")" ] ||
    fail "second page: $(head -c 300 "$T/page2")"
for bad in 'zz' '0x1:256' '0x1:1 ' ''; do
	capture "$T/bad" "$PROBE" "$SOCK" send \
	    "{\"v\":1,\"id\":3,\"cmd\":\"ports\",\"args\":{\"after\":\"$bad\"}}"
	jq -e '.ok == false and .error.code == "invalid_argument"' "$T/bad" >/dev/null ||
	    fail "cursor \"$bad\": $(cat "$T/bad")"
done
ctl ports --after nonsense > /dev/null 2> "$T/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'invalid_argument' "$T/bad.err" || fail "ports --after nonsense: exit $rc, $(cat "$T/bad.err")"

fd_stop
pass
