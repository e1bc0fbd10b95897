#!/bin/sh
# A reload never answers "reloaded" for a change it ignores (issue 42,
# point 1).  Turning a module on or off by reload is either applied or
# refused with `conflict` naming the key, whether the module runs or not:
#  - partitions.enabled true on a daemon whose partitions are off (5f2420a:
#    rc 0, "configuration reloaded", `partition list` still unavailable),
#    and validation.enabled false on one whose validation runs (5f2420a:
#    rc 0, the pre-flight's jobs still set up), and ha.timeout (the ha
#    module has no reload: 5f2420a refused it as "ha settings"): each refused
#    with conflict, "KEY changes only at restart", nothing applied;
#  - health.enabled true, which health takes in place: rc 0, and `status`
#    then shows health running;
#  - the keys refused are the ones fabricctl(8) lists (core_docs checks the
#    lists against the tables in the sources).
. "$FABRICD_SRC/tests/lib/common.sh"
need jq
fd_setup
fd_config 'health:
  enabled: false
ha:
  timeout: 5s'
cp "$CONF" "$T/base.yaml"
fd_start

# refused (exit 1, conflict) with "KEY changes only at restart", and the
# running configuration kept (no "configuration reloaded" event)
refused() {
	_key=$1
	ctl --json reload > "$T/reply.json" 2>/dev/null
	_rc=$?
	[ $_rc -eq 1 ] || fail "$_key changed: reload exited $_rc, expected 1 (conflict): $(cat "$T/reply.json")"
	jq -e '.error.code == "conflict"' "$T/reply.json" > /dev/null ||
	    fail "$_key changed: not conflict: $(cat "$T/reply.json")"
	jq -e --arg k "$_key changes only at restart" '.error.message | contains($k)' \
	    "$T/reply.json" > /dev/null || fail "the refusal does not name $_key: $(cat "$T/reply.json")"
	[ "$(db "SELECT count(*) FROM events WHERE message = 'configuration reloaded'")" = 0 ] ||
	    fail "$_key: a refused reload was recorded as applied"
	echo "$_key: refused, $(jq -r .error.message "$T/reply.json")"
}

ctl --json partition list > "$T/pl.json" 2>/dev/null
[ $? -ne 0 ] || fail "partitions are off in the base configuration, yet partition list answered"

{ cat "$T/base.yaml"; printf 'partitions:\n  enabled: true\n'; } > "$CONF"
refused partitions.enabled
ctl --json partition list > /dev/null 2>&1 && fail "partition list answers after a refused reload"

{ cat "$T/base.yaml"; printf 'validation:\n  enabled: false\n'; } > "$CONF"
refused validation.enabled

sed 's/^  timeout: 5s$/  timeout: 9s/' "$T/base.yaml" > "$CONF"
grep -q 'timeout: 9s' "$CONF" || fail "test setup: ha.timeout not written"
refused ha.timeout

# health is taken in place
health_state() { ctl --json status | jq -r '.modules[] | select(.name == "health") | .state'; }
before=$(health_state)
[ "$before" = disabled ] || fail "health is off in the base configuration, yet its state is $before"
sed '0,/^  enabled: false$/s//  enabled: true/' "$T/base.yaml" > "$CONF"
grep -q '^  enabled: true' "$CONF" || fail "test setup: health.enabled not changed"
ctl --json reload > "$T/reply.json" || fail "health.enabled true refused: $(cat "$T/reply.json")"
after=$(health_state)
[ -n "$after" ] && [ "$after" != disabled ] ||
    fail "health.enabled true reloaded, but health is $after"
echo "health.enabled: applied in place (state $before, then $after)"
fd_stop
pass
