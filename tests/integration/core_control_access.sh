# Peer credentials decide access: a read_group member can read but not
# change (permission_denied, exit 2: not a fault of the fabric); root can change; a stranger is
# refused even reads.  A second daemon on the same socket refuses to start.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
[ "$(id -u)" -eq 0 ] || skip "needs root to switch users"
getent group nogroup >/dev/null || skip "no nogroup group"

fd_config "control:
  read_group: nogroup"
fd_start
# Other users may not be able to read the suppression files inside this
# checkout; fabricctl loads no simulator shim, so it needs none.
unpriv_env="ASAN_OPTIONS=detect_leaks=0 LSAN_OPTIONS="
as_nobody() { env $unpriv_env setpriv --reuid=nobody --regid=nogroup --clear-groups "$FABRICCTL" -s "$SOCK" "$@"; }
as_stranger() { env $unpriv_env setpriv --reuid=daemon --regid=daemon --clear-groups "$FABRICCTL" -s "$SOCK" "$@"; }

out=$(as_nobody --json status) || fail "read_group member cannot read status"
printf '%s' "$out" | grep -q '"protocol": 1' || fail "status lacks protocol: $out"

out=$(as_nobody --json reload 2>/dev/null)
rc=$?
[ $rc -eq 2 ] || fail "unprivileged reload exited $rc, expected 2"
printf '%s' "$out" | grep -q '"code": "permission_denied"' || fail "no permission_denied code: $out"

# The directory (0750, group read_group) already keeps strangers out; open
# it up to show the daemon refuses them on its own too.
mode=$(stat -c %a "$(dirname "$SOCK")")
[ "$mode" = 750 ] || fail "socket directory mode $mode, expected 750"
as_stranger status 2>/dev/null; [ $? -eq 2 ] || fail "stranger passed the 0750 directory"
chmod 755 "$(dirname "$SOCK")"
out=$(as_stranger --json status 2>/dev/null)
[ $? -eq 2 ] || fail "a user in neither group could read"
printf '%s' "$out" | grep -q permission_denied || fail "stranger: $out"

ctl reload >/dev/null || fail "root reload refused"

# The refusal is the daemon's, recorded nowhere as a change: the events
# table (read with sqlite3) shows exactly one reload, root's.
n=$(db "SELECT count(*) FROM events WHERE message = 'configuration reloaded'")
[ "$n" = 1 ] || fail "expected 1 reload event, found $n"

# A second daemon must refuse the live socket and leave it working.
out=$("$FABRICD" -c "$CONF" 2>&1) && fail "second daemon started on a live socket"
printf '%s' "$out" | grep -q "already in use" || fail "second daemon: $out"
ctl version >/dev/null || fail "first daemon lost its socket"

fd_stop
[ ! -e "$SOCK" ] || fail "socket left behind after SIGTERM"
pass
