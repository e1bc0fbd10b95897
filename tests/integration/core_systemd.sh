# fabricd as the installed service: `make install` into a DESTDIR, then the
# installed unit's ExecStartPre and ExecStart run the way systemd runs them:
# the RuntimeDirectory pre-made root:root 0750, NOTIFY_SOCKET a datagram
# socket read by tools/notify_listen, WATCHDOG_USEC set, and stderr the
# "journal" (JOURNAL_STREAM names the log file's device and inode).
# Checked: READY=1 and WATCHDOG=1 arrive, pings stop while the loop is
# stopped (SIGSTOP) and come back after; reload and stop are announced; each
# log line carries the sd-daemon priority of its level; members of
# read_group and of admin_group only both connect under the 0750 directory
# and get what their group allows; the installed default config passes
# `fabricd -n`; binaries are stripped; `systemd-analyze security` scores the
# installed unit below 4 and `systemd-analyze verify` accepts it.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root to switch users and own the socket directory"
getent group nogroup >/dev/null || skip "no nogroup group"
admin_group=
for g in staff users adm; do
	getent group "$g" >/dev/null && { admin_group=$g; break; }
done
[ -n "$admin_group" ] || skip "no staff, users or adm group to act as admin_group"
admin_gid=$(getent group "$admin_group" | cut -d: -f3)

D="$T/root"
make -s -C "$FABRICD_SRC" O="$FABRICD_BUILD" DESTDIR="$D" PREFIX=/usr/local \
    FABRICD_NO_DEPS=1 install >"$T/install.log" 2>&1 || fail "make install: $(tail -5 "$T/install.log")"
unit="$D/usr/local/lib/systemd/system/fabricd.service"
for f in "$unit" "$D/usr/local/sbin/fabricd" "$D/usr/local/bin/fabricctl" \
    "$D/etc/fabricd/fabricd.yaml" "$D/usr/local/lib/sysusers.d/fabricd.conf" \
    "$D/usr/local/lib/tmpfiles.d/fabricd.conf" "$D/usr/local/share/man/man5/fabricd.yaml.5"; do
	[ -f "$f" ] || fail "make install did not install $f"
done
for b in sbin/fabricd bin/fabricctl; do
	# readelf, not our word: a stripped binary has no .symtab
	if command -v readelf >/dev/null && readelf -S "$D/usr/local/$b" | grep -q '\.symtab'; then
		fail "$b is installed unstripped"
	fi
done
grep -q '^g fabric-admin' "$D/usr/local/lib/sysusers.d/fabricd.conf" &&
    grep -q '^g fabric-read' "$D/usr/local/lib/sysusers.d/fabricd.conf" ||
    fail "sysusers.d file lacks the two groups"
grep -q '^Type=notify' "$unit" || fail "the unit is not Type=notify"
out=$("$D/usr/local/sbin/fabricd" -n -c "$D/etc/fabricd/fabricd.yaml" 2>&1) ||
    fail "the installed default configuration fails fabricd -n: $out"

if command -v systemd-analyze >/dev/null; then
	score=$(systemd-analyze security --offline=true "$unit" 2>/dev/null |
	    sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
	[ -n "$score" ] || fail "systemd-analyze security gave no score"
	awk -v s="$score" 'BEGIN { exit !(s < 4) }' || fail "security exposure $score, want < 4"
	# verify checks that ExecStart exists: point it into the DESTDIR copy.
	sed "s|/usr/local/|$D/usr/local/|g" "$unit" > "$T/fabricd.service"
	out=$(systemd-analyze verify --man=no "$T/fabricd.service" 2>&1) ||
	    fail "systemd-analyze verify: $out"
	echo "systemd-analyze security: $score"
fi

# The installed default config, pointed at this test's paths and groups.
sed -e "s|^socket:.*|socket: $SOCK|" -e "s|^state_dir:.*|state_dir: $STATE|" \
    -e "s|admin_group:.*|admin_group: $admin_group|" -e "s|read_group:.*|read_group: nogroup|" \
    -e "s|^log_level:.*|log_level: debug|" "$D/etc/fabricd/fabricd.yaml" > "$CONF"
# systemd's RuntimeDirectory= and StateDirectory=: root:root 0750, made first
mkdir -p "$(dirname "$SOCK")" "$STATE"
chmod 0750 "$(dirname "$SOCK")" "$STATE"

"$FABRICD_BUILD/tools/notify_listen" "$T/notify" > "$T/notify.log" 2>&1 &
nl_pid=$!
fd_on_exit "kill $nl_pid 2>/dev/null"
for _ in $(seq 1 50); do [ -S "$T/notify" ] && break; sleep 0.1; done
[ -S "$T/notify" ] || fail "notify_listen did not bind"

# ExecStartPre and ExecStart as the unit has them, on this test's file.
pre=$(sed -n 's/^ExecStartPre=//p' "$unit" | sed "s|/etc/fabricd/fabricd.yaml|$CONF|; s|/usr/local/|$D/usr/local/|")
start=$(sed -n 's/^ExecStart=//p' "$unit" | sed "s|/etc/fabricd/fabricd.yaml|$CONF|; s|/usr/local/|$D/usr/local/|")
$pre >/dev/null || fail "ExecStartPre failed"
: > "$T/fabricd.log"
js="$(stat -c %d:%i "$T/fabricd.log")"
(cd "$T" && exec env NOTIFY_SOCKET="$T/notify" WATCHDOG_USEC=1000000 JOURNAL_STREAM="$js" \
    $start >>"$T/fabricd.log" 2>&1) &
FD_PID=$!

# wait_for PATTERN SECS: a line of the notify log matching PATTERN
wait_for() {
	for _ in $(seq 1 $(($2 * 10))); do
		grep -q "$1" "$T/notify.log" && return 0
		sleep 0.1
	done
	return 1
}
pings() { grep -c ' WATCHDOG=1$' "$T/notify.log"; }
wait_for ' READY=1$' 15 || fail "no READY=1: $(cat "$T/notify.log")"
# STATUS= follows the modules (what `systemctl status` shows).
wait_for ' STATUS=ha disabled, sm disabled, partitions disabled, roce_qos disabled, health [a-z ]*, validation disabled$' 10 ||
    fail "no STATUS= line with the modules' states: $(grep STATUS "$T/notify.log")"
for _ in $(seq 1 100); do [ "$(pings)" -ge 3 ] && break; sleep 0.1; done
[ "$(pings)" -ge 3 ] || fail "fewer than 3 watchdog pings in 10 s at WATCHDOG_USEC=1s"

# A stopped loop pings no more; it pings again once it runs.
kill -STOP "$FD_PID"
sleep 1		# what was sent before the stop is read
before=$(pings)
sleep 2.5	# five ping intervals
after=$(pings)
kill -CONT "$FD_PID"
[ "$before" = "$after" ] || fail "watchdog pinged while the loop was stopped ($before -> $after)"
for _ in $(seq 1 100); do [ "$(pings)" -gt "$after" ] && break; sleep 0.1; done
[ "$(pings)" -gt "$after" ] || fail "no watchdog ping after SIGCONT"

# The socket directory systemd made root:root 0750 is 0711 now: every
# member reaches the socket and the kernel's credentials decide.
mode=$(stat -c %a "$(dirname "$SOCK")")
[ "$mode" = 711 ] || fail "socket directory left at mode $mode"
unpriv_env="ASAN_OPTIONS=detect_leaks=0 LSAN_OPTIONS="
as() {
	u=$1 g=$2
	shift 2
	env $unpriv_env setpriv --reuid="$u" --regid="$g" --clear-groups \
	    "$D/usr/local/bin/fabricctl" -s "$SOCK" "$@"
}
out=$(as nobody nogroup --json status) || fail "read_group member cannot read: $out"
printf '%s' "$out" | jq -e '.protocol == 1' >/dev/null || fail "status: $out"
out=$(as nobody nogroup --json reload 2>/dev/null)
[ $? -eq 2 ] || fail "read_group member could reload"
printf '%s' "$out" | jq -e '.error.code == "permission_denied"' >/dev/null ||
    fail "read_group reload: $out"
as 4243 "$admin_gid" --json status >/dev/null || fail "admin_group-only member cannot read"
as 4243 "$admin_gid" reload >/dev/null || fail "admin_group-only member cannot reload"
wait_for ' RELOADING=1$' 10 || fail "reload not announced (RELOADING=1)"
wait_for 'STATUS=running; configuration reloaded' 10 || fail "no READY/STATUS after the reload"
[ "$(grep -c ' READY=1$' "$T/notify.log")" -ge 2 ] || fail "no READY=1 after the reload"

# A rejected reload is a warning in the journal.
cp "$CONF" "$T/good.yaml"
printf 'bogus_key: 1\n' >> "$CONF"
kill -HUP "$FD_PID"
wait_for 'last reload was rejected' 10 || fail "no STATUS for the rejected reload"

kill -TERM "$FD_PID"
wait "$FD_PID" || fail "fabricd exited with status $?"
FD_PID=
grep -q ' STOPPING=1$' "$T/notify.log" || fail "no STOPPING=1"

# Every line went to the "journal" with the priority of its level
# (sd-daemon(3): <3> error, <4> warning, <5> notice, <6> info, <7> debug).
grep -q '^<5>notice: fabricd .* running' "$T/fabricd.log" || fail "no <5>notice line"
grep -q '^<6>info: ' "$T/fabricd.log" || fail "no <6>info line"
grep -q '^<4>warning: reload: .*bogus_key' "$T/fabricd.log" || fail "no <4>warning line"
bad=$(grep -v -e '^<3>error: ' -e '^<4>warning: ' -e '^<5>notice: ' -e '^<6>info: ' \
    -e '^<7>debug: ' -e '^<2>fabricd: fatal: ' "$T/fabricd.log" | head -3)
[ -z "$bad" ] || fail "log lines without their priority: $bad"
# ... and plain when stderr is not the journal's stream.
printf 'sm:\n  enabled: maybe\n' > "$T/bad.yaml"
out=$(JOURNAL_STREAM="$js" "$D/usr/local/sbin/fabricd" -n -c "$T/bad.yaml" 2>&1)
case $out in "$T/bad.yaml:2:12: expected a boolean"*) ;; *) fail "plain error expected: $out" ;; esac
pass
