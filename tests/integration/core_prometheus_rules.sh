#!/bin/sh
# The shipped Prometheus rules and Grafana dashboard (contrib/), checked by
# Prometheus's own tool:
#  - `promtool check rules` accepts contrib/prometheus/fabricd-rules.yml
#    (the PromQL and the annotation templates);
#  - `promtool test rules` on tests/fixtures/prometheus/: every alert fires
#    on its fault and stays quiet before it, on a healthy neighbour, on a
#    fault too short for its `for` and after its window;
#  - every query of contrib/grafana/fabricd.json parses as PromQL (each
#    made a recording rule of a scratch file that promtool checks, the
#    dashboard's $instance read as any instance), and the dashboard is
#    JSON with a title, a uid and unique panel ids.
# That the series they name exist is health_metrics_names.sh's.
. "$FABRICD_SRC/tests/lib/common.sh"
need promtool jq
fd_setup
rules=$FABRICD_SRC/contrib/prometheus/fabricd-rules.yml
dash=$FABRICD_SRC/contrib/grafana/fabricd.json

out=$(promtool check rules "$rules" 2>&1) || fail "promtool check rules: $out"
n=$(printf '%s\n' "$out" | sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p')
[ "${n:-0}" -ge 10 ] || fail "promtool found ${n:-no} rules: $out"
alerts=$(grep -c '^ *- alert: ' "$rules")
tested=$(sed -n 's/^ *alertname: //p' "$FABRICD_SRC/tests/fixtures/prometheus/fabricd-rules.test.yml" | sort -u | wc -l)
[ "$tested" -eq "$alerts" ] || fail "the fixtures test $tested of the $alerts alerts"
out=$(promtool test rules "$FABRICD_SRC/tests/fixtures/prometheus/fabricd-rules.test.yml" 2>&1) ||
    fail "promtool test rules: $out"

jq -e '.title and .uid and ([.. | objects | select(has("gridPos")) | .id] | length == (unique | length))' \
    "$dash" > /dev/null || fail "the dashboard lacks a title or uid, or repeats a panel id"
jq -r '.. | objects | .expr? // empty' "$dash" > "$T/exprs"
q=$(wc -l < "$T/exprs")
[ "$q" -ge 20 ] || fail "the dashboard has $q queries"
{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	i=0
	sed 's/\$instance/.*/g' "$T/exprs" | while IFS= read -r e; do
		i=$((i + 1))
		printf '      - record: dashboard_query_%d\n        expr: %s\n' "$i" "$(printf '%s' "$e" | jq -Rs .)"
	done
} > "$T/dashboard-rules.yml"
out=$(promtool check rules "$T/dashboard-rules.yml" 2>&1) || fail "a dashboard query is not PromQL: $out"
echo "promtool: $n rules, $alerts alerts each fired and not; $q dashboard queries parse"
pass
