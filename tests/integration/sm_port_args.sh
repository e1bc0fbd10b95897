#!/bin/sh
# A NODE:PORT argument that cannot name a port (issue 42 point 4) is a
# usage error for every command that takes one: invalid_argument, exit 2,
# and the message says what is wrong with it.  A well-formed port the
# fabric does not have stays not_found, exit 1.  On an ibsim fabric run by
# fabricd's SM with health on (4 hosts, 2 leaves, 1 spine); nothing here
# may change the fabric: every port a writing command is given is refused.
#   ::  :1  sw-l1:  sw-l1:-1  sw-l1:x  sw-l1:300  -> invalid_argument, 2
#   sw-l2 (no port), nosuch (no port)             -> invalid_argument, 2
#   nosuch:1                                      -> not_found, 1
#   health port sw-l1:1, host1[1]                 -> answered, 0
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_fabric_up "-k 2 -h 2 -s 1" "health:
  enabled: true
  interval: 1s"
need jq smpquery sqlite3
health_wait_rounds 1 30

code() { jq -r '.error.code // empty' "$T/out" 2>/dev/null; }
# expect CODE EXIT REASON CMD...: --json and human, the same code and exit
# status; the human message (stderr) holds REASON
expect() {
	_code=$1 _rc=$2 _why=$3
	shift 3
	ctl --json "$@" > "$T/out" 2>/dev/null; rc=$?
	[ $rc -eq "$_rc" ] && [ "$(code)" = "$_code" ] ||
		fail "--json $*: exit $rc, code '$(code)', want $_rc $_code: $(cat "$T/out")"
	ctl "$@" > "$T/out" 2> "$T/err"; rc=$?
	[ $rc -eq "$_rc" ] && grep -q "^fabricctl: $_code: " "$T/err" ||
		fail "$*: exit $rc, want $_rc $_code: $(cat "$T/out" "$T/err")"
	grep -qF -- "$_why" "$T/err" || fail "$*: the message does not say \"$_why\": $(cat "$T/err")"
}

for cmd in "health port" "health unisolate" "port disable" "port enable" \
    "port reset-counters" "qos show"; do
	# shellcheck disable=SC2086
	set -- $cmd
	expect invalid_argument 2 'no port number after the colon' "$@" '::'
	expect invalid_argument 2 'no node before the colon' "$@" ':1'
	expect invalid_argument 2 'no port number after the colon' "$@" 'sw-l1:'
	expect invalid_argument 2 'port -1 is negative' "$@" 'sw-l1:-1'
	expect invalid_argument 2 '"x" after the colon is not a port number' "$@" 'sw-l1:x'
	expect invalid_argument 2 'port 300 is out of range' "$@" 'sw-l1:300'
	expect not_found 1 'nosuch' "$@" 'nosuch:1'
	# qos show takes a node alone (all its ports)
	[ "$cmd" = "qos show" ] && continue
	expect invalid_argument 2 'expected NODE:PORT' "$@" 'sw-l2'
	expect invalid_argument 2 'expected NODE:PORT' "$@" 'nosuch'
done

# nothing was written: no disabled port stored, every host still cabled
# and sw-l1's ports up as smpquery reads them
[ "$(db "SELECT count(*) FROM sm_disabled_ports")" = 0 ] ||
	fail "a refused argument disabled a port: $(db "SELECT * FROM sm_disabled_ports")"
sim_diag ibnetdiscover > "$T/net" 2>&1 || fail "ibnetdiscover: $(cat "$T/net")"
for h in host1 host2 host3 host4; do
	grep -q "\"$h[ \"]" "$T/net" || fail "$h is gone from the fabric: $(cat "$T/net")"
done
L1=$(sed -n 's/^Switch.*"sw-l1" .* lid \([0-9]*\) .*/\1/p' "$T/net" | head -1)
[ -n "$L1" ] || fail "no LID for sw-l1: $(cat "$T/net")"
for p in 1 2 3; do
	sim_diag smpquery portinfo "$L1" $p | grep -q 'LinkState:\.*Active' ||
		fail "sw-l1 port $p not Active: $(sim_diag smpquery portinfo "$L1" $p)"
done

# the well-formed port is found, in both spellings health port takes
ctl --json health port sw-l1:1 > "$T/out" 2>&1 || fail "health port sw-l1:1: $(cat "$T/out")"
ctl --json health port 'host1[1]' > "$T/out" 2>&1 || fail "health port host1[1]: $(cat "$T/out")"
expect invalid_argument 2 'port -1 is negative' health port 'host1[-1]'
fd_stop
pass
