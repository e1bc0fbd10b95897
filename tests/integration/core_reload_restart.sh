#!/bin/sh
# A reload whose settings only a restart can apply (here sm.enabled) is
# refused whole: the reply says restart needed, the event and the log say
# so, and nothing of the file is applied, not even the settings that could
# have been (log_level: a later info line must still reach the log).
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
fd_config
fd_start

cp "$CONF" "$T/good.yaml"
sed -e 's/^log_level: debug/log_level: warning/' -e 's/^  enabled: false/  enabled: true/' \
    "$T/good.yaml" > "$CONF"
grep -q '^  enabled: true' "$CONF" || fail "test setup: sm.enabled not changed"

out=$(ctl --json reload 2>/dev/null); rc=$?
[ $rc -eq 1 ] || fail "reload needing a restart exited $rc, expected 1"
printf '%s' "$out" | grep -q '"code": "conflict"' || fail "reload reply: $out"
printf '%s' "$out" | grep -q 'restart needed: sm.enabled' || fail "reply does not name sm.enabled: $out"
n=$(db "SELECT count(*) FROM events WHERE severity = 1 AND message LIKE 'configuration reload needs a restart (sm.enabled%'")
[ "$n" = 1 ] || fail "no stored warning for the reload needing a restart"
grep -q "reload: sm.enabled changes only at restart; nothing was changed" "$T/fabricd.log" ||
	fail "the refusal was not logged"
[ "$(db "SELECT count(*) FROM events WHERE message = 'configuration reloaded'")" = 0 ] ||
	fail "a refused reload was recorded as applied"

# SIGHUP takes the same path; log_level stayed debug, so its info line shows.
kill -HUP "$FD_PID"
sleep 0.5
[ "$(grep -c "reloading $CONF" "$T/fabricd.log")" = 2 ] ||
	fail "log_level of the refused file was applied (second reload not logged)"
n=$(db "SELECT count(*) FROM events WHERE message LIKE 'configuration reload needs a restart%'")
[ "$n" = 2 ] || fail "SIGHUP: $n restart-needed events, expected 2"

# The running configuration back in the file: an ordinary reload again.
cp "$T/good.yaml" "$CONF"
ctl reload >/dev/null || fail "reload of the running configuration refused"
[ "$(db "SELECT count(*) FROM events WHERE message = 'configuration reloaded'")" = 1 ] ||
	fail "good reload not recorded"
fd_stop
pass
