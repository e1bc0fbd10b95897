#!/bin/sh
# Crash-safe partition changes: fabricd is killed (SIGKILL) at a random
# point of each of 20 changes (member add of a new partition to every
# host, or delete of one).  Before each killed command the test reads the
# P_Key tables of the hosts' ports and the switch ports around them with
# smpquery; after the restart they must equal, by smpquery again, either
# that state or the state the command makes (the before state with the
# partition's key added where the clean change at the start added it, or
# with the deleted partition's key gone): never fabricd's own record.
# An interrupted change is undone at the restart's first sweep, with an
# event; the test counts how many kills landed mid-change.
#
# The kill needs a change that lasts: the madlog double below fabricd's
# umad calls (tests/fixtures/mad/madlog.c) delays each SubnSet(P_KeyTable)
# by MADLOG_PKEY_SET_DELAY_MS, as a slow fabric would.  fabricd has no
# test knob for it.
#
#   sw-s1 (spine) -- sw-l1: host1 (SM, [1]), host2 ([2])
#                 -- sw-l2: host3 ([1]), host4 ([2])
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery jq
CHANGES=${CRASH_CHANGES:-20}
DELAY=25	# ms per P_KeyTable Set: a change writes 8 blocks

# label (NODE:PORT, as partitions write it) -> directed route [port] from host1
route_of() {
	case $1 in
	host1:1) echo 0 ;; host2:1) echo 0,1,2 ;; host3:1) echo 0,1,3,19,1 ;; host4:1) echo 0,1,3,19,2 ;;
	sw-l1:*) echo "0,1 ${1#*:}" ;; sw-l2:*) echo "0,1,3,19 ${1#*:}" ;; sw-s1:*) echo "0,1,3 ${1#*:}" ;;
	*) echo "?" ;;
	esac
}
# pk ROUTE [PORT]: non-zero entries "index=key ..." as smpquery reads them.
pk() {
	sim_diag -t 10 smpquery -D pkeys "$@" | awk '/^ *[0-9]+:/ {
	    b = $1 + 0; for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%d=%s ", b + i - 2, $i }'
	echo
}
# The ports whose tables are read: every host port, the switch ports
# facing them, and an inter-switch link's two ends.
PORTS="host1:1 host2:1 host3:1 host4:1 sw-l1:1 sw-l1:2 sw-l2:1 sw-l2:2 sw-l1:3 sw-s1:1"
# snapshot: "label index=key ..." for each of PORTS, read in one process
# by tools/pkeys_read (libibmad's directed-route SubnGets, as smpquery -D
# pkeys reads them one process a port: 400 start-ups made most of this
# test's time); a host port with no key at all is a failed read (it holds
# 0x7fff at least).  The first snapshot is also read with smpquery and
# must be the same (check_reader).
snapshot() {
	_args=""
	for l in $PORTS; do
		# shellcheck disable=SC2046
		set -- $(route_of "$l")
		_args="$_args $1:${2:-0}"
	done
	# shellcheck disable=SC2086
	sim_diag -t 20 "$FABRICD_BUILD/tools/pkeys_read" $_args > "$T/pk.lines" 2> "$T/pk.err"
	printf '%s\n' $PORTS | paste -d' ' - "$T/pk.lines" | sed 's/ *$//'
}
snapshot_smpquery() {
	for l in $PORTS; do
		# shellcheck disable=SC2086
		echo "$l $(pk $(route_of "$l"))" | sed 's/ *$//'
	done
}
check_reader() {	# FILE: the snapshot in FILE equals smpquery's reads
	capture "$T/smpq" snapshot_smpquery
	cmp -s "$1" "$T/smpq" || fail "pkeys_read and smpquery disagree: $(diff "$1" "$T/smpq")"
}
take() {	# FILE: a snapshot into FILE, every host port read
	capture "$1" snapshot
	awk '$1 ~ /^host/ && NF < 2 { print; bad = 1 } END { exit bad }' "$1" ||
	    fail "smpquery read no P_Key of a host: $(cat "$1")"
}
# keys FILE: the snapshot as "label key key ..." with the keys sorted (the
# index each key sits at is fabricd's choice; the set is the state); FILE
# may hold "index=key" or bare keys
keys() {
	awk '{ printf "%s", $1; n = 0
	    for (i = 2; i <= NF; i++) { m = split($i, a, "="); k[++n] = a[m] }
	    for (i = 2; i <= n; i++) for (j = i; j > 1 && k[j - 1] > k[j]; j--) { t = k[j]; k[j] = k[j - 1]; k[j - 1] = t }
	    for (i = 1; i <= n; i++) printf " %s", k[i]; print "" }' "$1"
}
# footprint BEFORE AFTER: "label fullbit" for each key a clean member add gave a port
footprint() {
	keys "$1" > "$T/fp.b"
	keys "$2" > "$T/fp.a"
	awk 'NR == FNR { for (i = 2; i <= NF; i++) had[$1, $i] = 1; next }
	    { for (i = 2; i <= NF; i++) if (!(($1, $i) in had)) print $1, (substr($i, 3, 1) ~ /[89a-f]/) ? 1 : 0 }' \
	    "$T/fp.b" "$T/fp.a"
}
# added BEFORE KEY: the keys of BEFORE with KEY (0xNNNN) given to the
# footprint's ports, full or limited as the clean change gave it
added() {
	keys "$1" | awk -v key="$2" 'function hex(x,  i, n) { x = tolower(x); sub(/^0x/, "", x); n = 0
	    for (i = 1; i <= length(x); i++) n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return n }
	    NR == FNR { fp[$1] = $2; next }
	    { line = $0; if ($1 in fp) { k = sprintf("0x%04x", (fp[$1] ? 32768 : 0) + (hex(key) % 32768)); line = line " " k }
	      print line }' "$T/footprint" - | keys /dev/stdin
}
# removed BEFORE KEY: the keys of BEFORE without KEY, full or limited
removed() {
	keys "$1" | awk -v key="$2" 'function hex(x,  i, n) { x = tolower(x); sub(/^0x/, "", x); n = 0
	    for (i = 1; i <= length(x); i++) n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return n }
	    { printf "%s", $1
	    for (i = 2; i <= NF; i++) if (hex($i) % 32768 != hex(key) % 32768) printf " %s", $i
	    print "" }'
}
start_fd() {
	fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
	    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_PKEY_SET_DELAY_MS=$DELAY
	end=$(( $(date +%s) + 30 ))
	until ctl --json status 2>/dev/null | jq -e '.. | objects | select(.state? == "running") |
	    select(.busy? == false)' >/dev/null 2>&1 && [ "$(db 'SELECT count(*) FROM pt_intent')" = 0 ]; do
		[ "$(date +%s)" -gt "$end" ] && fail "not settled 30 s after a restart: intent $(db 'SELECT count(*) FROM pt_intent')"
		sleep 0.1
	done
}
sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
partitions:
  enabled: true
  default_membership: limited"
start_fd

# The footprint of a member add, from a clean change (no kill), and its
# delete back to the state before it.
take "$T/s0"
check_reader "$T/s0"
ctl partition create p0 --pkey 0x0100 >/dev/null || fail "create p0"
ctl partition member add p0 all-cas --limited >/dev/null || fail "member add p0"
take "$T/s1"
check_reader "$T/s1"
footprint "$T/s0" "$T/s1" > "$T/footprint"
for h in host1 host2 host3 host4; do
	grep -q "^$h:1 0$" "$T/footprint" || fail "the clean member add gave $h no limited key: $(cat "$T/footprint")"
done
echo "a member add writes: $(tr '\n' ' ' < "$T/footprint")"
ctl partition delete p0 >/dev/null || fail "delete p0"
take "$T/s2"
keys "$T/s0" > "$T/k0"
keys "$T/s2" > "$T/k2"
cmp -s "$T/k0" "$T/k2" || fail "a clean delete did not restore the tables: $(diff "$T/k0" "$T/k2")"

recovered=0 mid=0 chg=1 undone=0 done_=0
while [ $chg -le "$CHANGES" ]; do
	n=$(db "SELECT count(*) FROM pt_partitions")
	if [ $((chg % 2)) = 1 ] || [ "$n" = 0 ]; then
		key=$(printf 0x%04x $((0x100 + chg)))
		ctl partition create "p$chg" --pkey "$key" >/dev/null || fail "create p$chg"
		set -- partition member add "p$chg" all-cas --limited
		op=added
	else
		victim=$(db "SELECT name FROM pt_partitions ORDER BY position LIMIT 1")
		case $victim in p[0-9]*) ;; *) fail "no partition to delete: '$victim'" ;; esac
		key=$(printf 0x%04x $((0x100 + ${victim#p})))	# this test made pN with 0x100 + N
		set -- partition delete "$victim"
		op=removed
	fi
	take "$T/before"
	keys "$T/before" > "$T/k.before"
	$op "$T/before" "$key" > "$T/k.after"
	ctl "$@" >/dev/null 2>&1 &
	cpid=$!
	sleep "0.$(( $(od -An -N2 -tu2 /dev/urandom) % 250 + 20 ))"
	kill -KILL "$FD_PID"
	wait "$FD_PID" 2>/dev/null
	wait "$cpid" 2>/dev/null
	sim_drop_client "$FD_PID" || fail "ibsim console"
	FD_PID=
	[ "$(db 'SELECT count(*) FROM pt_intent')" != 0 ] && mid=$((mid + 1))
	before=$(db "SELECT count(*) FROM pt_history WHERE action = 'recover'")
	start_fd
	after=$(db "SELECT count(*) FROM pt_history WHERE action = 'recover' AND result = 'ok'")
	[ "$after" -gt "$before" ] && recovered=$((recovered + 1))
	take "$T/now"
	keys "$T/now" > "$T/k.now"
	if cmp -s "$T/k.now" "$T/k.before"; then
		undone=$((undone + 1))
	elif cmp -s "$T/k.now" "$T/k.after"; then
		done_=$((done_ + 1))
	else
		fail "change $chg ($*): the tables are neither the state before it nor after it:
before -> now:
$(diff "$T/k.before" "$T/k.now")
after -> now:
$(diff "$T/k.after" "$T/k.now")"
	fi
	chg=$((chg + 1))
done
echo "$CHANGES kills: $mid mid-change (intent left), $recovered undone at restart; smpquery: $undone times the state before, $done_ the state after"
[ "$mid" -ge 3 ] || fail "only $mid of $CHANGES kills landed mid-change: the test proves little"
[ "$recovered" = "$mid" ] || fail "$mid interrupted changes, $recovered recoveries"
db "SELECT message FROM events WHERE source = 'partitions' AND message LIKE 'recovery:%'" |
    grep -q "was undone" || fail "no recovery event"
pass
