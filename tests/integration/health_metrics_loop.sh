#!/bin/sh
# run.sh: long (the 1,296-host fabric's bring-up: about 30 s)
# A metrics request must not hold the loop (issue 22).  The 1,296-host
# 3-level tree (topogen -p 4) on ibsim's default cabling (every cabled port
# degraded, as health_storm.sh), fabricd on its defaults (the SM on) plus
# metrics.listen.  The exposition was written in one step of the loop (113
# ms here for one `fabricctl metrics`); it is now built in slices of a few
# ms.  Checked from outside:
#  - promtool accepts the HTTP body (curl);
#  - every HTTP body and every `fabricctl metrics` has the same series;
#  - fabricd_link_state and fabricd_link_health_status have one series per
#    cabled port ibnetdiscover shows, and so has a PerfMgt total;
#  - while 3 HTTP scrapes and 2 `fabricctl metrics` run (one scrape and one
#    fabricctl at the same time), no span of the loop goes over the
#    suite's CPU bound (loop_gate, tests/lib/common.sh: the loop thread's
#    CPU between two heartbeats, counted before and after; plain build
#    only);
#  - a fabricctl stopped for 3 s mid-stream gets all of the exposition
#    when it goes on, and no reader is dropped as slow;
#  - clients that leave mid-request (curl and fabricctl cut short) leave
#    the daemon serving (and, in the sanitizer build, nothing leaked at exit).
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup curl promtool jq
port_block
port=$PORT_BASE
url="http://127.0.0.1:$port/metrics"

sim_default_cabling_start -p 4
printf 'socket: %s\nstate_dir: %s\nsm:\n  enabled: true\nmetrics:\n  listen: 127.0.0.1:%s\n' \
    "$SOCK" "$STATE" "$port" > "$CONF"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"

# The oracle: the cabled ports ibnetdiscover shows ("[p]" lines with a peer).
sim_diag -t 60 ibnetdiscover > "$T/ibnet" || fail ibnetdiscover
ncabled=$(grep -c '^\[[0-9]*\].*"[SH]-[0-9a-f]*"\[[0-9]*\]' "$T/ibnet")
echo "ibnetdiscover: $ncabled cabled ports"
[ "$ncabled" -eq 7776 ] || fail "not the 1,296-host tree: $ncabled cabled ports"

# two finished health rounds (10 s apart by default): the first takes the
# CA ports' baselines and the switches' error counters, the second (paced
# over 8 s) the switch ports' traffic; after it the series stand still
health_wait_rounds 2 45

loop_gate_start
echo "loop before: $(ctl --json status | jq -c .loop)"
t0=$(date +%s%N)
curl -sf -o "$T/http.1" "$url" & c1=$!
ctl metrics > "$T/ctl.1" & c2=$!
wait $c1 || fail "concurrent curl failed"
wait $c2 || fail "concurrent fabricctl metrics failed"
curl -sf -o "$T/http.2" "$url" || fail "curl 2"
ctl metrics > "$T/ctl.2" || fail "fabricctl metrics 2"
curl -sf -o "$T/http.3" "$url" || fail "curl 3"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))

echo "3 scrapes + 2 fabricctl metrics in $ms ms ($(wc -c < "$T/http.1") bytes each);" \
    "the loop's longest CPU span so far: $(ctl --json status | jq .loop.max_beat_cpu_ms) ms of CPU"
loop_gate "3 scrapes + 2 fabricctl metrics"

out=$(promtool check metrics < "$T/http.1" 2>&1) || fail "promtool check metrics: $out"
[ -z "$out" ] || fail "promtool: $out"
series() { grep -v '^#' "$1" | sed 's/ [^ ]*$//' | sort; }
series "$T/http.1" > "$T/series.ref"
[ -s "$T/series.ref" ] || fail "empty exposition"
for f in http.2 http.3 ctl.1 ctl.2; do
	series "$T/$f" > "$T/series.$f"
	cmp -s "$T/series.ref" "$T/series.$f" ||
	    fail "$f differs from the first scrape: $(diff "$T/series.ref" "$T/series.$f" | head -5)"
done
for fam in fabricd_link_state fabricd_link_health_status; do
	n=$(grep -c "^$fam{node_guid=" "$T/http.1")
	[ "$n" -eq "$ncabled" ] || fail "$fam: $n series, ibnetdiscover $ncabled cabled ports"
done
n=$(grep -c '^fabricd_port_xmit_data_words_total{node_guid=' "$T/http.1")
[ "$n" -eq "$ncabled" ] || fail "xmit_data_words_total: $n series, ibnetdiscover $ncabled cabled ports"
[ "$(grep -c '^# TYPE fabricd_link_state ' "$T/http.1")" -eq 1 ] || fail "link_state family twice"

# A reader slower than the loop gets the whole exposition: the stream waits
# for it (CI once saw a loaded sanitized `fabricctl metrics` dropped with
# 4,228,796 bytes unread, the control socket's drop mark being 4 MiB).
# Here fabricctl is stopped for 3 s mid-stream, in which the loop could
# queue all of its 15 MB; the JSON of one reply is over 4 MiB as well.
"$FABRICCTL" -s "$SOCK" --json metrics > "$T/ctl.json" & slow=$!
i=0
until [ "$(ctl --json status | jq .control.connections)" = 2 ]; do	# it and this status
	[ $i -ge 300 ] && fail "fabricctl --json metrics never connected"
	i=$((i + 1))
	sleep 0.01
done
kill -STOP $slow
sleep 3
kill -CONT $slow
wait $slow || fail "a stopped fabricctl --json metrics failed when it went on"
sz=$(wc -c < "$T/ctl.json")
echo "fabricctl --json metrics, stopped for 3 s: $sz bytes"
[ "$sz" -gt 4194304 ] || fail "the JSON reply is $sz bytes, not over 4 MiB: the check proves nothing"
dropped=$(ctl --json status | jq .control.slow_dropped_total)
[ "$dropped" = 0 ] || fail "$dropped readers dropped as slow"

# clients that leave mid-request: the daemon goes on serving
curl -s -m 0.01 -o /dev/null "$url"
timeout 0.05 "$FABRICCTL" -s "$SOCK" metrics > /dev/null 2>&1
sleep 1
curl -sf -o "$T/http.4" "$url" || fail "curl after the clients that left"
series "$T/http.4" | cmp -s "$T/series.ref" - || fail "scrape after the clients that left differs"
fd_stop
pass
