#!/bin/sh
# docs/cli.md's output promises, over the human output of every command
# that reads, on make sim's simulation (issue 42, point 8), after a day's
# changes (a port disabled and enabled, counters cleared, a cable pulled,
# the audit putting back a table someone else wrote):
#  - times are ISO 8601 (5f2420a: a pre-flight fault's "2026-12-06
#    18:20:44 UTC"), never raw epoch milliseconds;
#  - durations are for people (5f2420a: "failing since 6128 ms ago");
#  - ports are NODE:PORT (5f2420a: "sw-l1 port 3" in pre-flight faults,
#    audit events and port disable);
#  - an event names its object once (5f2420a: "sw-l2  sw-l2 port 1
#    disabled by an operator");
#  - help fits 100 columns (core_cli.sh checks every command's);
#  - health's worst ports say their rate is the last round's.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq ibportstate
make_sim_up
sm_wait_up 30 || fail "subnet not up"

# ---- a day's changes ----
ctl port disable sw-l2:1 > /dev/null || fail "port disable"
ctl port enable sw-l2:1 > /dev/null || fail "port enable"
ctl port reset-counters sw-l2:2 > /dev/null || fail "port reset-counters"
# someone else enables a port fabricd keeps disabled: the audit puts it back
ctl port disable sw-l3:1 > /dev/null || fail "port disable sw-l3:1"
sim_diag ibportstate "$(sm_lid_of sw-l3)" 1 enable > /dev/null || fail "ibportstate enable"
sim_console 'PerformanceSet "sw-l4"[2] PortCounters.SymbolErrorCounter=3000' || fail console
sim_console 'Unlink "host25"[1]' || fail console
health_wait_rounds 3 60
i=0
until ctl --json events --limit 500 | grep -q '"audit: '; do	# make sim audits every 10 s
	[ $i -ge 60 ] && fail "no audit event 30 s after ibportstate enabled a disabled port"
	i=$((i + 1))
	sleep 0.5
done
ctl port enable sw-l3:1 > /dev/null || fail "port enable sw-l3:1"
ctl validate nccl --hosts host1,host2 --launcher mpirun --follow > /dev/null 2>&1

# ---- what an operator reads: every command that reads ----
# Each READ command of common/commands.def, with the arguments it needs
# here; metrics is Prometheus text, for a scraper, not people.
mkdir -p "$T/out"
sed -n 's/^CMD([^,]*,[^"]*"[^"]*"[^,]*,[[:space:]]*READ,[^"]*"\([^"]*\)".*/\1/p' \
    "$FABRICD_SRC/common/commands.def" > "$T/reads"
[ "$(wc -l < "$T/reads")" -ge 30 ] || fail "only $(wc -l < "$T/reads") READ commands found in commands.def"
while read -r words; do
	case $words in
	metrics) continue ;;
	route) args="host1 host9" ;;
	"topology diff") args="$SIM_DIR/topo.net" ;;
	"partition show") args=blue-train ;;
	"partition nccl-env") args="blue-train --hosts host1,host2" ;;
	"partition job env") args="1 --host host1" ;;
	"roce lint") args="--file $SIM_DIR/fabricd.yaml" ;;
	"health port") args=sw-l4:2 ;;
	"job show"|"job log") args=1 ;;
	nccl-env) args="--hosts host1,host2" ;;
	preflight) args="--hosts host[17-32]" ;;
	"qos show") args=host3:1 ;;
	*) args= ;;
	esac
	# shellcheck disable=SC2086
	ctl $words $args > "$T/out/$(echo "$words" | tr ' ' _)" 2>&1 < /dev/null
done < "$T/reads"
ctl events --limit 500 > "$T/out/events" 2>&1
ctl ports --state down > "$T/out/ports_down" 2>&1
for f in "$T"/out/*; do
	[ -s "$f" ] || fail "$(basename "$f"): no output"
done

bad=0
complain() { echo "$1: $2"; bad=$((bad + 1)); }
for f in "$T"/out/*; do
	n=$(basename "$f")
	# times: ISO 8601, not "YYYY-MM-DD HH:MM:SS UTC", not epoch ms
	l=$(grep -En '[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}(:[0-9]{2})? ?(UTC)?' "$f" | head -1)
	[ -z "$l" ] || complain "$n" "a time not in ISO 8601: $l"
	l=$(grep -En '(^|[^0-9x])1[6-9][0-9]{11}([^0-9]|$)' "$f" | head -1)
	[ -z "$l" ] || complain "$n" "epoch milliseconds: $l"
	# durations: no "NNNN ms" past a second
	l=$(grep -En '(^|[^0-9.])[0-9]{4,} ?ms\b' "$f" | head -1)
	[ -z "$l" ] || complain "$n" "a duration in raw milliseconds: $l"
	# ports: NODE:PORT, not "sw-l1 port 3"
	l=$(grep -En '(^|[^a-z0-9_-])(sw|host)-?[a-z0-9-]*[0-9] port [0-9]' "$f" | head -1)
	[ -z "$l" ] || complain "$n" "a port not written NODE:PORT: $l"
done
# events: the object once, in the object column, not again in the message
ctl --json events --limit 500 | jq -r '.. | objects | select(has("message") and (.object // "") != "") |
    (.object | sub(" \\(0x[0-9a-f]+\\)$"; "")) as $o | ($o | split(":")[0]) as $node |
    select((.message | contains($o)) or (.message | startswith($node + " ")) or
	(.message | startswith($node + ":"))) | "\(.object)  \(.message)"' > "$T/twice"
[ ! -s "$T/twice" ] || complain events "the object named again in the message: $(head -3 "$T/twice")"
# the day's changes are there to be judged
grep -q 'sw-l2:1 .*disabled by an operator' "$T/out/events" || complain events "no port disable event: $(grep -c . "$T/out/events") lines"
grep -q 'audit:' "$T/out/events" || complain events "no audit event"
# health's worst ports: the rate says which window it is (5f2420a: "ERRORS
# PER MIN 0.000" beside an active event saying thousands a minute)
grep -q 'sw-l4:2 ' "$T/out/health" && grep -q 'ERRORS/MIN LAST ROUND' "$T/out/health" ||
    complain health "worst ports without sw-l4:2 or without saying the rate is the last round's: $(cat "$T/out/health")"
[ $bad -eq 0 ] || fail "$bad broken promise(s) of docs/cli.md (above)"
echo "cli_promises: $(ls "$T/out" | wc -l) commands' human output (every READ one): ISO times, durations for people, NODE:PORT, objects named once"
pass
