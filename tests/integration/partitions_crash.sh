#!/bin/sh
# Crash-safe partition changes: fabricd is killed (SIGKILL) at a random
# point of each of 20 changes (member add of a new partition to every
# host, or delete of one); after every restart the P_Key tables that
# smpquery reads are exactly the committed ones (pt_port_tables, read with
# sqlite3), and every host holds exactly the committed partitions' keys.
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
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
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
# The committed tables, one line per port: "label index=key ...".
committed() {
	db "SELECT label, hex(entries) FROM pt_port_tables ORDER BY label" | awk -F'|' '{
	    s = ""; for (i = 0; i * 4 < length($2); i++) { k = tolower(substr($2, i * 4 + 1, 4))
	    if (k != "0000") s = s i "=0x" k " " } print $1 " " s }'
}
fabric_tables() {
	committed | while read -r label _; do
		r=$(route_of "$label")
		[ "$r" = "?" ] && { echo "$label unknown"; continue; }
		# shellcheck disable=SC2086
		echo "$label $(pk $r)"
	done | sed 's/ *$//'
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
# Every host port holds exactly the committed partitions' keys.
check_hosts() {
	want=$(db "SELECT printf('%04x', pkey) FROM pt_partitions JOIN pt_members ON partition = name WHERE member = 'all-cas' ORDER BY pkey" | tr '\n' ' ')
	for h in host1 host2 host3 host4; do
		got=$(committed | awk -v l="$h:1" '$1 == l { for (i = 2; i <= NF; i++) {
		    split($i, a, "="); k = substr(a[2], 3); if (k != "7fff" && k != "ffff") print k } }' |
		    sed 's/^8/0/; s/^9/1/; s/^a/2/; s/^b/3/; s/^c/4/; s/^d/5/; s/^e/6/; s/^f/7/' |
		    sort | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "$h holds keys '$got', committed partitions '$want' (change $chg)"
	done
}

sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
  sweep_interval: 1h
  audit: false
health:
  enabled: false
partitions:
  enabled: true
  default_membership: limited"
start_fd

recovered=0 mid=0 chg=1
while [ $chg -le "$CHANGES" ]; do
	n=$(db "SELECT count(*) FROM pt_partitions")
	if [ $((chg % 2)) = 1 ] || [ "$n" = 0 ]; then
		ctl partition create "p$chg" --pkey "$(printf 0x%04x $((0x100 + chg)))" >/dev/null || fail "create p$chg"
		set -- partition member add "p$chg" all-cas --limited
	else
		set -- partition delete "$(db "SELECT name FROM pt_partitions ORDER BY position LIMIT 1")"
	fi
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
	c=$(committed | sed 's/ *$//')
	f=$(fabric_tables)
	[ "$c" = "$f" ] || { printf '%s\n' "$c" > "$T/c"; printf '%s\n' "$f" > "$T/f"
		fail "change $chg ($*): fabric differs from the committed tables: $(diff "$T/c" "$T/f")"; }
	check_hosts
	chg=$((chg + 1))
done
echo "$CHANGES kills: $mid mid-change (intent left), $recovered undone at restart"
[ "$mid" -ge 3 ] || fail "only $mid of $CHANGES kills landed mid-change: the test proves little"
[ "$recovered" = "$mid" ] || fail "$mid interrupted changes, $recovered recoveries"
db "SELECT message FROM events WHERE source = 'partitions' AND message LIKE 'recovery:%'" |
    grep -q "was undone" || fail "no recovery event"
pass
