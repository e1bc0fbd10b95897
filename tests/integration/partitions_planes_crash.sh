#!/bin/sh
# A partition change over a plane group survives a crash at its worst
# point (issue 43 with the standard's "multi-MAD changes survive a crash
# at any point"): two planes of the 16-host tree, each its own ibsim,
# fabricd on host1 of both (the multisim double), one plane group,
# partitions on.  `partition member add red host4` is started, and the
# double stops fabricd (SIGSTOP) right after the change's first
# P_KeyTable Set has left through plane 1's device: plane 1 half written,
# plane 2 untouched.  fabricd is then killed (SIGKILL) and started again
# on the same state.  Judged by smpquery on each plane's simulator:
#  - an intent was left (the kill landed mid-change), and after the
#    restart none is, with a "recover" entry in the history;
#  - host4's port and the leaf port facing it hold, on both planes, the
#    keys they held before the change, or both planes the keys after it:
#    never one plane with the key and the other without;
#  - host2, a member from before, keeps red's key on both planes;
#  - the same change afterwards lands on both planes.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery jq sqlite3
sm_two_planes

fd_config "sm:
  enabled: true
$SM_TWO_PLANES_GROUP
partitions:
  enabled: true
  jobs:
    squeue: /bin/false"
start_both() {
	fd_start LD_PRELOAD="$MS" MULTISIM_DEVICES="ibp0=$SOCK_1:host1,ibp1=$SOCK_2:host1" \
	    MULTISIM_STOP_FILE="$T/stop"
	sm_wait_subnets_up 30 plane1 plane2
}
start_both

# keys N LID [PORT]: the non-zero P_Keys of a port on plane N, "index=key"
keys() {
	plane_sim "$1" sim_diag -H host2 -t 10 smpquery pkeys "$2" ${3:+"$3"} | awk '/^ *[0-9]+:/ {
	    b = $1 + 0; for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%d=%s ", b + i - 2, $i }'
}
lid_on() { plane_sim "$1" sm_lid_of "$2"; }
# snap: host4's port and the leaf port facing it, on each plane
snap() {
	for n in 1 2; do
		echo "plane$n host4: $(keys $n "$(lid_on $n host4)")"
		echo "plane$n leaf: $(keys $n "$(lid_on $n "$leaf")" "$lport")"
	done
}
# drop_clients PID: ibsim keeps a killed process's clients attached (at
# most 10 may be); the double's client ids are PID + k * 2^24
drop_clients() {
	for n in 1 2; do
		if [ $n = 1 ]; then con=sim_console out=$SIM_DIR/ibsim.out
		else con=sim_second_console out=$SIM2_DIR/ibsim.out; fi
		$con Attached || fail "plane $n: ibsim console"
		for c in $(sed -n 's/.*Client \([0-9]*\): pid \([0-9]*\) connected.*/\1 \2/p' "$out" |
		    sort -u | awk -v p="$1" '$2 % 16777216 == p { print $1 }'); do
			$con "X $c" || fail "plane $n: ibsim console"
		done
	done
}

ctl partition create red --pkey 0x0a01 > /dev/null || fail "create red"
ctl partition member add red host2 > "$T/add.out" 2>&1 || fail "member add host2: $(cat "$T/add.out")"
leaf=$(sim_diag ibnetdiscover | awk '/^Switch/ { split($0, q, "\""); sw = q[4] }
    /^\[/ && /"host4"/ { print sw; exit }')
lport=$(sim_diag ibnetdiscover | awk -v s="$leaf" '/^Switch/ { split($0, q, "\""); cur = q[4] }
    cur == s && /"host4"/ { sub(/^\[/, ""); sub(/\].*/, ""); print; exit }')
[ -n "$leaf" ] && [ -n "$lport" ] || fail "no leaf port facing host4 in ibnetdiscover"
snap > "$T/before"
echo "before: $(tr '\n' ';' < "$T/before")"

# ---- the crash: fabricd stopped by the double after plane 1's first Set, then killed
echo "ibp0 $FD_PID" > "$T/stop"
ctl partition member add red host4 > "$T/crash.out" 2>&1 &
cpid=$!
i=0
until [ "$(awk '{ print $3 }' "/proc/$FD_PID/stat" 2>/dev/null)" = T ]; do
	[ $i -ge 300 ] && fail "the double never stopped fabricd (no P_KeyTable Set through ibp0)"
	i=$((i + 1))
	sleep 0.1
done
killed=$FD_PID
kill -KILL "$FD_PID"
fd_killed
wait "$cpid" 2>/dev/null
intents=$(db 'SELECT count(*) FROM pt_intent')
[ "$intents" -gt 0 ] || fail "no intent left: the kill did not land mid-change"
recover0=$(db "SELECT count(*) FROM pt_history WHERE action = 'recover'")
echo "killed mid-change: $intents intent rows left"
drop_clients "$killed"

start_both
i=0
until [ "$(db 'SELECT count(*) FROM pt_intent')" = 0 ]; do
	[ $i -ge 300 ] && fail "an intent is left 30 s after the restart: $(db 'SELECT subnet, label FROM pt_intent')"
	i=$((i + 1))
	sleep 0.1
done
[ "$(db "SELECT count(*) FROM pt_history WHERE action = 'recover' AND result = 'ok'")" -gt "$recover0" ] ||
    fail "no recover entry: $(db "SELECT action, result FROM pt_history")"
snap > "$T/now"
echo "after the restart: $(tr '\n' ';' < "$T/now")"
if cmp -s "$T/now" "$T/before"; then
	echo "undone on both planes"
elif grep -q 'plane1 host4: .*0x8a01' "$T/now" && grep -q 'plane2 host4: .*0x8a01' "$T/now"; then
	echo "completed on both planes"
else
	fail "host4 after the restart is neither as before on both planes nor keyed on both:
$(diff "$T/before" "$T/now")"
fi
for n in 1 2; do
	keys $n "$(lid_on $n host2)" | grep -q '=0x8a01' || fail "plane $n: host2 lost red's key: $(keys $n "$(lid_on $n host2)")"
done

# ---- the same change lands on both planes
i=0
until out=$(ctl partition member add red host4 2>&1); do
	printf '%s\n' "$out" | grep -q "try again\|not undone yet\|already" || fail "member add host4: $out"
	printf '%s\n' "$out" | grep -q "already" && break
	[ $i -ge 60 ] && fail "member add host4 still refused: $out"
	i=$((i + 1))
	sleep 0.5
done
for n in 1 2; do
	keys $n "$(lid_on $n host4)" | grep -q '=0x8a01' || fail "plane $n: host4 lacks red's key: $(keys $n "$(lid_on $n host4)")"
done
echo "member add host4 afterwards: red's key on host4 of both planes"
fd_stop
pass
