#!/bin/sh
# The daemon never opens a path for a client, and no file a client passes
# can stall it.  As a read_group member (nobody): `roce lint --file
# /etc/shadow` and a root-only copy the test makes are refused without a
# byte of their content; the same request crafted on the socket with a
# path is refused alike for a path that exists and one that does not (no
# hint of existence); a file nobody owns still lints.  A FIFO, a 5 MB
# file, 100,000 levels of nesting and an alias bomb, passed by fabricctl
# and by a raw client (tools/ctl_probe), and given to `fabricd -n`, are
# each refused by a counted limit its message names (the timeouts only end
# a client a stalled daemon would never answer); while they are being
# thrown at it in a loop the daemon answers every status of root's, no
# span of its loop takes more CPU than the suite's bound (loop_gate), and
# it handles an Unlink on the simulator: every CA pair routes again
# through the tables dump_fts reads (lftwalk), and an event names the
# link.
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to switch users"
getent group nogroup >/dev/null || skip "no nogroup group"
sim_test_setup setpriv
SM_SWEEP=2s
PROBE="$FABRICD_BUILD/tools/ctl_probe"
unpriv_env="ASAN_OPTIONS=detect_leaks=0 LSAN_OPTIONS="
as_nobody() { env $unpriv_env setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }

sim_fabric_up "-P 8 -k 4 -h 4 -s 4" "control:
  read_group: nogroup"

# ---- nobody cannot read what it could not read itself ----
secret="$T/secret.yaml"
printf 'root:$6$SeCrEtHaSh0123456789:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n' > "$secret"
chmod 600 "$secret"
for f in /etc/shadow "$secret"; do
	[ -e "$f" ] || continue
	out=$(as_nobody "$FABRICCTL" -s "$SOCK" roce lint --file "$f" 2>&1)
	rc=$?
	[ $rc -eq 2 ] || fail "lint of $f as nobody exited $rc: $out"
	printf '%s' "$out" | grep -q 'root:\|SeCrEt\|\$6\$' && fail "content of $f leaked: $out"
	printf '%s' "$out" | grep -q 'Permission denied' || fail "lint of $f: $out"
done
# by hand on the socket: a path is refused, the same for one that exists
# and one that does not; a descriptor index with no descriptor is refused
crafted() { as_nobody "$PROBE" "$SOCK" send "{\"v\":1,\"id\":1,\"cmd\":\"roce.lint\",\"args\":{\"file\":$1}}"; }
a=$(crafted "\"$secret\"")
b=$(crafted "\"$T/no-such-file\"")
printf '%s' "$a" | grep -q '"code":"invalid_argument"' || fail "a path sent straight: $a"
[ "$a" = "$b" ] || fail "replies differ for an existing and a missing path: $a / $b"
c=$(crafted "{\"fd\":0,\"name\":\"$secret\"}")
printf '%s' "$c" | grep -q '"code":"invalid_argument".*no descriptor' || fail "no descriptor: $c"
for r in "$a" "$c"; do
	printf '%s' "$r" | grep -q 'SeCrEt' && fail "content leaked: $r"
done
# a file nobody owns still lints
own="$T/own.yaml"
printf 'log_level: info\n' > "$own"
chown nobody "$own"
chmod 600 "$own"
as_nobody "$FABRICCTL" -s "$SOCK" roce lint --file "$own" >/dev/null || fail "nobody cannot lint its own file"

# ---- inputs meant to stall the loop ----
mkfifo "$T/fifo"
head -c 5000000 /dev/zero | tr '\0' 'a' > "$T/big.yaml"
head -c 100000 /dev/zero | tr '\0' '[' > "$T/deep.yaml"
{
	echo 'a: &a [x, x, x, x, x, x, x, x, x, x]'
	p=a
	for l in b c d e f g h i j; do
		echo "$l: &$l [*$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p]"
		p=$l
	done
} > "$T/bomb.yaml"
check_refused() {	# file expected-message
	# refused by a counted limit (its message names it), never by a
	# wait: the timeouts only end a client a stalled daemon never answers
	out=$(timeout 30 "$FABRICCTL" -s "$SOCK" roce lint --file "$1" 2>&1)
	rc=$?
	[ $rc = 124 ] && fail "$1 via fabricctl: no answer in 30 s"
	[ $rc = 0 ] && fail "$1 was accepted"
	printf '%s' "$out" | grep -q "$2" || fail "$1 via fabricctl: $out"
	out=$(timeout 30 "$PROBE" "$SOCK" send \
	    "{\"v\":1,\"id\":1,\"cmd\":\"roce.lint\",\"args\":{\"file\":{\"fd\":0,\"name\":\"x\"}}}" "$1")
	printf '%s' "$out" | grep -q "\"ok\":false.*$2" || fail "$1 via a raw client: $out"
	out=$(timeout 30 "$FABRICD" -n -c "$1" 2>&1)
	rc=$?
	[ $rc = 124 ] && fail "fabricd -n $1: not done in 30 s"
	[ $rc = 0 ] && fail "fabricd -n accepted $1"
	printf '%s' "$out" | grep -q "$2" || fail "fabricd -n $1: $out"
	echo "refused $(basename "$1"): $(printf '%s' "$out" | head -1)"
}
check_refused "$T/fifo" "not a regular file"
check_refused "$T/big.yaml" "larger than 1048576 bytes"
check_refused "$T/deep.yaml" "nested deeper than 64 levels"
check_refused "$T/bomb.yaml" "aliases expand the document past 100000 nodes"

# ---- and the daemon keeps working while they keep coming ----
attack() {
	end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		for f in fifo big.yaml deep.yaml bomb.yaml; do
			"$FABRICCTL" -s "$SOCK" roce lint --file "$T/$f" >/dev/null 2>&1
		done
	done
}
# at nice 19, as in core_conn_limits: the daemon's queueing is measured,
# not a 2-core machine's scheduler
attack 12 &
attacker=$!
renice -n 19 -p $attacker >/dev/null 2>&1
fd_on_exit "kill $attacker 2>/dev/null"
loop_gate_start
out=$("$PROBE" "$SOCK" latency 50) || fail "status failed under attack"
echo "root status during the attack: $out (not gated)"
loop_gate "the stalling files' attack"

lft_dump || fail "dump_fts"
lft_check_all_pairs >/dev/null || fail "routes before Unlink"
sim_console 'Unlink "sw-l2"[5]' || fail console
end=$(( $(date +%s) + 60 ))	# only ends the wait
until lft_dump && lft_check_all_pairs >/dev/null 2>&1; do
	[ "$(date +%s)" -ge "$end" ] && fail "routes not repaired a minute after the Unlink during the attack"
	sleep 0.3
done
awk '/^Unicast lids/ { on = /sw-l2/ } on && $2 == "005" { bad = 1 } END { exit bad }' \
    "$SIM_DIR/fts.txt" || fail "sw-l2 still routes out of its dead port 5"
ctl --json events | jq -e '[.events[] | select(.object == "sw-l2:5" and (.message | test("^link to .* down$")))] | length > 0' >/dev/null ||
    fail "no event names the link"
out=$("$PROBE" "$SOCK" latency 20) || fail "status failed after the Unlink"
echo "root status after the Unlink, attack still on: $out"
wait $attacker
fd_stop
pass
