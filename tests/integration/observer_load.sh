#!/bin/sh
# run.sh: long (the observers' default periods: about a minute)
# Many observers on their defaults against one master (issue 27, "Load"):
# OpenSM 3.3.23 is master on an ibsim fat tree and four fabricd, started
# together on the default configuration (refresh 4h), observe from the
# four hosts (other than OpenSM's) with the lowest LIDs.  Judged from the
# MADs each sent, logged with a clock below umad (madlog, MADLOG_TIME),
# never from fabricd's own counters:
#  - the first reads are spread over the first 30 s: each observer's
#    first SA query comes at most 30 s (and a read's margin) after its own
#    first PortInfo Get, at a point its port GUID's hash picks (issue 41:
#    they once took turns by LID x 4 s, 98 minutes for the last of 1,296);
#  - a read asks exactly the queries docs/sm.md states, counted from
#    ibnetdiscover and smpquery's SwitchInfo: per switch 3 + 2 x ports +
#    LinearFDBTop / 64 + 1, per CA port 3 (the MAD count is deterministic,
#    so it is gated);
#  - every view equals ibnetdiscover; each observer sent Gets only.
# bench/observer_load.sh runs the same pattern on the 1,296-host tree
# with observers reading at once (the SA's rate) for the README's figure.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq

opensm_tree_up

# the expected queries of one read, from ibnetdiscover and smpquery
want=0
for lid in $(sed -n 's/^Switch.* port 0 lid \([0-9]*\) .*/\1/p' "$T/disc.txt"); do
	n=$(awk -v l="$lid" '/^Switch/ && $0 ~ " port 0 lid " l " " { print $2; exit }' "$T/disc.txt")
	top=$(sim_diag smpquery switchinfo "$lid" | sed -n "s/^LinearFdbTop:\\.*\\([0-9]*\\)$/\\1/p")
	[ -n "$n" ] && [ -n "$top" ] || fail "switch at LID $lid: ports [$n], LinearFDBTop [$top]"
	want=$((want + 3 + 2 * n + top / 64 + 1))
done
cas=$(grep -c '^Ca' "$T/disc.txt")
want=$((want + 3 * cas))

# the four hosts other than host1 with the lowest LIDs, on the defaults
hosts=$(for h in $(sed -n 's/^Ca.*"\(host[0-9]*\)"$/\1/p' "$T/disc.txt" | grep -vx host1); do
	echo "$(lid "$h") $h"; done | sort -n | head -4 | awk '{ print $2 }')
[ "$(echo "$hosts" | wc -l)" = 4 ] || fail "four hosts: [$hosts]"
i=0
for h in $hosts; do
	i=$((i + 1))
	d=$T/o$i
	mkdir -p "$d/run" "$d/state"
	printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: false\n' "$d/run/fabricd.sock" "$d/state" \
	    > "$d/fabricd.yaml"
	(cd "$d" && exec env SIM_HOST="$h" LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
	    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$d/madlog" MADLOG_TIME=1 \
	    "$FABRICD" -c "$d/fabricd.yaml" >> "$d/fabricd.log" 2>&1) &
	eval "PID_o$i=$!"
	fd_on_exit "kill -KILL $! 2>/dev/null"
	echo "$h" > "$d/host"
done
for i in 1 2 3 4; do
	use o$i
	h=$(cat "$T/o$i/host")
	# the first read's window, a read, and a margin
	wait_view 120 ||
	    fail "observer on $h (LID $(lid "$h")): no view: $(octl --json status | jq -c .sm.observer)"
	[ "$(octl --json status | jq -r .sm.observer.refresh_ms)" = 14400000 ] || fail "refresh is not the default 4h"
	capture -e "$T/same.out" same "observer on $h"
done
# each observer's first read from its madlog: the start (its own PortInfo
# Get), the first and last SA query of the read, how many
: > "$T/reads"
for i in 1 2 3 4; do
	h=$(cat "$T/o$i/host")
	awk -v h="$h" -v l="$(lid "$h")" '
	    { t = $NF; sub(/^t=/, "", t) }
	    NR == 1 { t0 = t }
	    $1 == "0x03" && $2 == "0x01" { if (!first) first = t; last = t; n++ }
	    END { print h, l, t0, first, last, n }' "$T/o$i/madlog" >> "$T/reads"
done
sort -k2 -n "$T/reads" > "$T/reads.sorted"
cat "$T/reads.sorted" | while read -r h l t0 first last n; do
	echo "$h (LID $l): first SA query $((first - t0)) ms after its start, read $((last - first)) ms, $n queries (stated: $want)"
done
awk -v want="$want" '
    { wait = $4 - $3
      if (wait > 33000) { print $1 ": its read began " wait " ms after its start, past the 30 s window"; bad = 1 }
      if ($6 != want) { print $1 ": " $6 " SA queries, stated " want; bad = 1 }
    }
    END { exit bad }' "$T/reads.sorted" || fail "the observers' first reads"
echo "4 observers on the defaults: first reads within the 30 s window, $want SA queries each, as stated"
for i in 1 2 3 4; do
	eval "fd_reap_pid \$PID_o$i \"$T/o$i/fabricd.log\"" || fail "observer o$i exited with status $?"
	capture "$T/gets.out" gets_only "$T/o$i/madlog"
done
pass
