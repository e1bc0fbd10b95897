# GET /metrics over HTTP (metrics.listen, libevent's evhttp) on a simulated
# fabric with the SM and health running, checked with independent tools:
#  - promtool (Prometheus's own linter) accepts the exposition, curl-fetched;
#  - the HTTP body has the same series as `fabricctl metrics`;
#  - fabricd_sm_sweeps_total is the sweep count status shows;
#  - SM state, MAD, SA, partition and validation families are there;
#  - the link series name both ends as ibnetdiscover reports the cable;
#  - per port: one total per PerfMgt counter and two link series, no raw
#    readings (bounded cardinality);
#  - other paths are 404 and other methods refused.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup curl promtool

port_block
port=$PORT_BASE
sim_fabric_up "-k 2 -h 2 -s 1" "health:
  interval: 1s
partitions:
  enabled: true
  tenants:
    blue:
      blue-train: { pkey: 0x0a01, full: [ all-cas ] }
metrics:
  listen: 127.0.0.1:$port"
url="http://127.0.0.1:$port/metrics"
grep -q "metrics: serving $url" "$T/fabricd.log" || fail "metrics endpoint not started"

rounds() { ctl --json health | jq '.rounds'; }
for _ in $(seq 1 100); do [ "$(rounds)" -ge 2 ] && break; sleep 0.1; done
[ "$(rounds)" -ge 2 ] || fail "health rounds do not advance"

curl -sf -D "$T/headers" "$url" > "$T/http.txt" || fail "curl $url failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$T/headers" || fail "content type: $(cat "$T/headers")"
out=$(promtool check metrics < "$T/http.txt" 2>&1) || fail "promtool check metrics: $out"
[ -z "$out" ] || fail "promtool: $out"

# The same exposition over the socket: the same series (values move).
ctl metrics > "$T/ctl.txt" || fail "fabricctl metrics"
series() { grep -v '^#' "$1" | sed 's/ [^ ]*$//' | sort; }
series "$T/http.txt" > "$T/http.series"
series "$T/ctl.txt" > "$T/ctl.series"
cmp -s "$T/http.series" "$T/ctl.series" ||
    fail "HTTP and fabricctl differ: $(diff "$T/http.series" "$T/ctl.series" | head -5)"

# --json metrics is JSON Lines: every line one object (jq parses each alone).
ctl --json metrics > "$T/metrics.jsonl" || fail "fabricctl --json metrics"
jq -R -e 'fromjson | type == "object"' "$T/metrics.jsonl" >/dev/null ||
    fail "--json metrics has a line that is not one JSON object: $(tail -3 "$T/metrics.jsonl")"

# Sweeps: the metric is status's count (read between two equal readings).
ok=
for _ in $(seq 1 20); do
	s1=$(ctl --json status | jq '.sm.subnet.sweeps')
	m=$(curl -sf "$url" | sed -n 's/^fabricd_sm_sweeps_total \([0-9]*\)$/\1/p')
	s2=$(ctl --json status | jq '.sm.subnet.sweeps')
	[ "$s1" = "$s2" ] && { [ "$m" = "$s1" ] || fail "sweeps_total $m, status says $s1"; ok=1; break; }
done
[ -n "$ok" ] || fail "status sweeps never stood still for a scrape"
mads=$(ctl --json status | jq '.sm.mads.sent')
m=$(curl -sf "$url" | sed -n 's/^fabricd_mad_sent_total \([0-9]*\)$/\1/p')
[ -n "$m" ] && [ "$m" -ge "$mads" ] || fail "mad_sent_total $m below status's $mads"

for fam in fabricd_sm_state fabricd_sm_subnet_state fabricd_sa_requests_total \
    fabricd_partitions fabricd_partition_pkey_sets_total fabricd_validation_jobs \
    fabricd_module_up fabricd_link_state fabricd_port_xmit_data_words_total; do
	grep -q "^# TYPE $fam " "$T/http.txt" || fail "no $fam family"
done
grep -q '^fabricd_sm_state{state="master"} 1$' "$T/http.txt" || fail "SM not master in the metrics"
grep -q '^fabricd_module_up{module="sm"} 1$' "$T/http.txt" &&
    grep -q '^fabricd_module_up{module="roce_qos"} 0$' "$T/http.txt" ||
    fail "module_up: $(grep module_up "$T/http.txt")"
[ "$(sed -n 's/^fabricd_partitions \(.*\)$/\1/p' "$T/http.txt")" = \
    "$(ctl --json status | jq '.partitions.partitions')" ] || fail "partitions gauge differs from status"
grep -q 'counter_reading' "$T/http.txt" && fail "raw counter readings are still exported"

# Both ends of a cable as ibnetdiscover reports it: sw-l1's port to host1.
line=$(sim_diag ibnetdiscover -p | grep "'sw-l1' - 'host1'" | head -1)
[ -n "$line" ] || fail "ibnetdiscover shows no sw-l1 - host1 link"
swport=$(printf '%s\n' "$line" | awk '{ print $3 }')
caport=$(printf '%s\n' "$line" | awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { print $(i + 3); exit } }')
grep -q "^fabricd_link_state{node_guid=\"0x[0-9a-f]*\",node=\"sw-l1\",port=\"$swport\",remote_guid=\"0x[0-9a-f]*\",remote_node=\"host1\",remote_port=\"$caport\"} 4$" \
    "$T/http.txt" || fail "no link series sw-l1:$swport - host1:$caport: $(grep 'link_state.*sw-l1' "$T/http.txt" | head -3)"

# Bounded: per monitored port, 17 counter totals and 2 link series at most.
nports=$(ctl --json health | jq '.ports')
nport_series=$(grep -c '^fabricd_\(port\|link\)_.*{node_guid=' "$T/http.txt")
[ "$nport_series" -le $((nports * 19)) ] || fail "$nport_series port series for $nports ports"
echo "scrape: $(wc -c < "$T/http.txt") bytes, $(grep -vc '^#' "$T/http.txt") series, $nports ports"

code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")
[ "$code" = 404 ] || fail "GET /other answered $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url")
[ "$code" = 405 ] || [ "$code" = 501 ] || fail "POST answered $code"
ctl version >/dev/null || fail "daemon gone after the HTTP checks"
pass
