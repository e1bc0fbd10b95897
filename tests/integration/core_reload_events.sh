# SIGHUP with a broken file keeps the running configuration and records why;
# events are stored (read back with the sqlite3 shell) and streamed live.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
fd_config
fd_start

ctl events --follow > "$T/follow.out" 2>&1 &
follow_pid=$!
fd_on_exit "kill $follow_pid 2>/dev/null"
sleep 0.3

cp "$CONF" "$T/good.yaml"
echo "bogus_key: 1" >> "$CONF"
kill -HUP "$FD_PID"
sleep 0.5
ctl status >/dev/null || fail "daemon not serving after a rejected reload"
n=$(db "SELECT count(*) FROM events WHERE severity = 1 AND message LIKE 'configuration reload rejected%'")
[ "$n" = 1 ] || fail "no stored warning for the rejected reload"
grep -q "bogus_key" "$T/fabricd.log" || fail "the error was not logged"

# Through the socket the same rejection comes back as check_failed, exit 1.
out=$(ctl --json reload 2>/dev/null); rc=$?
[ $rc -eq 1 ] || fail "reload of a broken file exited $rc"
printf '%s' "$out" | grep -q '"code": "check_failed"' || fail "reload: $out"

cp "$T/good.yaml" "$CONF"
kill -HUP "$FD_PID"
sleep 0.5
n=$(db "SELECT count(*) FROM events WHERE message = 'configuration reloaded'")
[ "$n" = 1 ] || fail "good reload not recorded"
grep -q "configuration reloaded" "$T/follow.out" || fail "follower did not see the live event"

# --since and --severity filter on the stored rows.
total=$(db "SELECT count(*) FROM events WHERE severity >= 1")
got=$(ctl --json events --severity warning | grep -c '"severity"')
[ "$got" = "$total" ] || fail "--severity warning: $got rows, database has $total"
ctl events --since 1d >/dev/null || fail "--since 1d refused"
ctl events --since "not a time" 2>/dev/null; [ $? -eq 2 ] || fail "bad --since not refused with exit 2 (usage)"

fd_stop
[ "$(db "SELECT count(*) FROM events WHERE message = 'fabricd stopped'")" = 1 ] ||
	fail "shutdown not recorded"
pass
