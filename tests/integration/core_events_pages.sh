#!/bin/sh
# `events` must not hold the loop (issue 22): 100,000 events were one
# reply built in one step.  The daemon now answers in pages of 512 with a
# `next` cursor that fabricctl follows, and `--follow` starts now (issue
# 29), sending a history only when --since or --limit asks for one, a page
# a turn.  100,000 rows are put in the table with the sqlite3 shell while
# fabricd is stopped; checked from outside:
#  - `events --limit 100000` lists exactly the ids sqlite3 lists, in order;
#    `--limit 5` the newest five; `--severity error` the rows sqlite3 counts;
#  - on the socket (tools/ctl_probe): a first page of 512 rows and a 20-digit
#    `next`, the page after it starts after it, and malformed cursors are
#    invalid_argument;
#  - no span of the loop over the suite's CPU bound while the 100,000 are
#    listed three times (loop_gate, tests/lib/common.sh; plain build only);
#  - `events --follow` prints none of the stored rows, and the event a
#    reload posts; `--follow --limit 3` the newest three stored rows first.
. "$FABRICD_SRC/tests/lib/common.sh"
need jq
need sqlite3
fd_setup
fd_config
fd_start
fd_stop
N=100000
sqlite3 "$STATE/fabricd.db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < $N) INSERT INTO events (time_ms, severity, source, object, message)
    SELECT 1700000000000 + i, i % 4, 'test', 'sw-' || (i % 97) || ':' || (i % 36),
    'a stored event number ' || i FROM n" || fail "cannot fill the events table"
fd_start
PROBE=$FABRICD_BUILD/tools/ctl_probe

loop_gate_start
for i in 1 2 3; do
	capture "$T/all.$i.json" ctl --json events --limit $N
done
loop_gate "3 x events --limit $N"

# the newest N ids, as sqlite3 lists them (the daemon's own start-up
# events come after the stored ones)
db "SELECT id FROM (SELECT id FROM events ORDER BY id DESC LIMIT $N) ORDER BY id" > "$T/oracle.ids"
jq -r '.events[].id' "$T/all.3.json" > "$T/fd.ids"
cmp -s "$T/oracle.ids" "$T/fd.ids" || { diff "$T/oracle.ids" "$T/fd.ids" | head -5
	fail "events --limit $N: $(wc -l < "$T/fd.ids") ids, sqlite3 $(wc -l < "$T/oracle.ids")"; }
db "SELECT id FROM (SELECT id FROM events ORDER BY id DESC LIMIT 5) ORDER BY id" > "$T/oracle.5"
ctl --json events --limit 5 | jq -r '.events[].id' > "$T/fd.5"
cmp -s "$T/oracle.5" "$T/fd.5" || fail "--limit 5: $(tr '\n' ' ' < "$T/fd.5")"
want=$(db "SELECT count(*) FROM (SELECT id FROM events WHERE severity >= 2 ORDER BY id DESC LIMIT $N)")
got=$(ctl --json events --severity error --limit $N | jq '.events | length')
[ "$got" = "$want" ] || fail "--severity error: $got rows, sqlite3 $want"

# the pages on the socket
capture "$T/p1" "$PROBE" "$SOCK" send '{"v":1,"id":1,"cmd":"events","args":{"limit":100000}}'
jq -e '.ok and (.result.events | length) == 512 and (.result.next | test("^[0-9]{20}$"))' "$T/p1" \
    >/dev/null || fail "first page: $(head -c 300 "$T/p1")"
next=$(jq -r '.result.next' "$T/p1")
capture "$T/p2" "$PROBE" "$SOCK" send "{\"v\":1,\"id\":2,\"cmd\":\"events\",\"args\":{\"after\":\"$next\"}}"
[ "$(jq '.result.events[0].id' "$T/p2")" -gt "$(jq '.result.events[-1].id' "$T/p1")" ] ||
    fail "second page: $(head -c 300 "$T/p2")"
for bad in 'zz' '12' '-0000000000000000001' '000000000000000000001' ''; do
	capture "$T/bad" "$PROBE" "$SOCK" send "{\"v\":1,\"id\":3,\"cmd\":\"events\",\"args\":{\"after\":\"$bad\"}}"
	jq -e '.ok == false and .error.code == "invalid_argument"' "$T/bad" >/dev/null ||
	    fail "cursor \"$bad\": $(cat "$T/bad")"
done

# --follow starts now; --limit 3 asks for the newest three first
# (fabricctl itself in the background, not ctl's subshell: its pid is
# what kill must reach)
"$FABRICCTL" -s "$SOCK" events --follow > "$T/follow.now" 2>&1 &
p1=$!
"$FABRICCTL" -s "$SOCK" events --follow --limit 3 > "$T/follow.3" 2>&1 &
p2=$!
fd_on_exit "kill $p1 $p2 2>/dev/null"
# both follow live (status counts them) before the event they must see
followers() { ctl --json status | jq -r '.events.followers'; }
i=0
until [ "$(followers)" = 2 ]; do
	i=$((i + 1)); [ $i -le 600 ] || fail "the two --follow clients never followed: $(followers)"
	sleep 0.1
done
ctl reload > /dev/null || fail reload
i=0
until grep -q "configuration reloaded" "$T/follow.now" && grep -q "configuration reloaded" "$T/follow.3"; do
	i=$((i + 1)); [ $i -le 600 ] || break	# ends the wait; the checks below say what is missing
	sleep 0.1
done
kill $p1 $p2 2>/dev/null
wait $p1 $p2 2>/dev/null
i=0
until [ "$(followers)" = 0 ]; do
	i=$((i + 1)); [ $i -le 600 ] || fail "the followers are gone, status still counts $(followers)"
	sleep 0.1
done
grep -q "configuration reloaded" "$T/follow.now" || fail "--follow: no live event: $(head -3 "$T/follow.now")"
! grep -q "a stored event" "$T/follow.now" || fail "--follow printed history: $(head -3 "$T/follow.now")"
grep -q "configuration reloaded" "$T/follow.3" || fail "--follow --limit 3: no live event"
[ "$(grep -c 'configuration reloaded' "$T/follow.3")" = 1 ] || fail "--follow --limit 3: the live event twice"
newest=$(db "SELECT max(id) FROM events WHERE message = 'configuration reloaded'")
[ "$(grep -vc 'configuration reloaded' "$T/follow.3")" = 3 ] ||
    fail "--follow --limit 3: $(cat "$T/follow.3")"
[ -n "$newest" ] || fail "the reload's event is not stored"
fd_stop
pass
