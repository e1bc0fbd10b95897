# Peer credentials decide access, as the kernel reports them for the
# connecting process (SO_PEERCRED, SO_PEERGROUPS), never /etc/group: a
# read_group member can read but not change (permission_denied, exit 2: not a fault
# of the fabric);
# root can change; a stranger is refused and disconnected; admin_group
# through a supplementary group works, and stops working once the process
# drops it; an admin outside read_group can reach the socket.  The
# database files are the daemon's alone (0600).  A second daemon on the
# same socket refuses to start.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root to switch users"
getent group nogroup >/dev/null || skip "no nogroup group"
admin_group=
for g in staff users adm; do
	getent group "$g" >/dev/null && { admin_group=$g; break; }
done
[ -n "$admin_group" ] || skip "no staff, users or adm group to act as admin_group"
admin_gid=$(getent group "$admin_group" | cut -d: -f3)

fd_config "control:
  read_group: nogroup
  admin_group: $admin_group"
fd_start
# Other users may not be able to read the suppression files inside this
# checkout; fabricctl loads no simulator shim, so it needs none.
unpriv_env="ASAN_OPTIONS=detect_leaks=0 LSAN_OPTIONS="
# as UID GID [setpriv group option] -- fabricctl arguments
as() {
	u=$1 g=$2 grp=$3
	shift 3
	env $unpriv_env setpriv --reuid="$u" --regid="$g" $grp "$FABRICCTL" -s "$SOCK" "$@"
}
as_nobody() { as nobody nogroup --clear-groups "$@"; }

out=$(as_nobody --json status) || fail "read_group member cannot read status"
printf '%s' "$out" | grep -q '"protocol": 1' || fail "status lacks protocol: $out"

out=$(as_nobody --json reload 2>/dev/null)
rc=$?
[ $rc -eq 2 ] || fail "unprivileged reload exited $rc, expected 2"
printf '%s' "$out" | grep -q '"code": "permission_denied"' || fail "no permission_denied code: $out"

# The directory is searchable by all (0711): admin_group and read_group
# cannot both be its group, so the daemon's own check is what refuses.
mode=$(stat -c %a "$(dirname "$SOCK")")
[ "$mode" = 711 ] || fail "socket directory mode $mode, expected 711"
out=$(as daemon daemon --clear-groups --json status 2>/dev/null)
[ $? -eq 2 ] || fail "a user in neither group could read"
printf '%s' "$out" | grep -q permission_denied || fail "stranger: $out"
# ... and is disconnected after that one answer (it has nothing to gain):
# two requests on one connection get one reply and EOF.
two='{"v":1,"id":1,"cmd":"status"}
{"v":1,"id":2,"cmd":"status"}'
out=$(setpriv --reuid=daemon --regid=daemon --clear-groups "$FABRICD_BUILD/tools/ctl_probe" \
    "$SOCK" lines "$two")
[ "$(printf '%s\n' "$out" | grep -c permission_denied)" = 1 ] &&
    [ "$(printf '%s\n' "$out" | tail -1)" = eof ] ||
    fail "stranger connection not closed after its refusal: $out"

# A uid that /etc/passwd and /etc/group have never heard of, admin through
# a supplementary group the kernel reports ...
as 4242 nogroup --groups="$admin_gid" reload >/dev/null ||
    fail "supplementary admin_group member refused a reload"
# ... and refused once the process dropped it (still read_group by gid).
out=$(as 4242 nogroup --clear-groups --json reload 2>/dev/null)
[ $? -eq 2 ] || fail "a process that dropped admin_group could still reload"
printf '%s' "$out" | grep -q permission_denied || fail "dropped admin_group: $out"
# An admin in admin_group only, outside read_group, connects and changes.
as 4243 "$admin_gid" --clear-groups status >/dev/null ||
    fail "an admin outside read_group cannot reach the socket"
as 4243 "$admin_gid" --clear-groups reload >/dev/null ||
    fail "an admin outside read_group cannot reload"

ctl reload >/dev/null || fail "root reload refused"

# The refusals are the daemon's, recorded nowhere as a change: the events
# table (read with sqlite3) shows exactly the three accepted reloads.
n=$(db "SELECT count(*) FROM events WHERE message = 'configuration reloaded'")
[ "$n" = 3 ] || fail "expected 3 reload events, found $n"

for f in "$STATE"/fabricd.db*; do
	m=$(stat -c %a "$f")
	[ "$m" = 600 ] || fail "$f has mode $m, expected 600"
done

# A second daemon must refuse the live socket and leave it working.
out=$("$FABRICD" -c "$CONF" 2>&1) && fail "second daemon started on a live socket"
printf '%s' "$out" | grep -q "already in use" || fail "second daemon: $out"
ctl version >/dev/null || fail "first daemon lost its socket"

fd_stop
[ ! -e "$SOCK" ] || fail "socket left behind after SIGTERM"
pass
