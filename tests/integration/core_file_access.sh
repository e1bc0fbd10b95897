#!/bin/sh
# run.sh: alone (it gates how fast status answers; a neighbour on the same cores would be measured)
# The daemon never opens a path for a client, and no file a client passes
# can stall it.  As a read_group member (nobody): `roce lint --file
# /etc/shadow` and a root-only copy the test makes are refused without a
# byte of their content; the same request crafted on the socket with a
# path is refused alike for a path that exists and one that does not (no
# hint of existence); a file nobody owns still lints.  A FIFO, a 5 MB
# file, 100,000 levels of nesting and an alias bomb, passed by fabricctl
# and by a raw client (tools/ctl_probe), and given to `fabricd -n`, are
# each refused within a second; while they are being thrown at it in a
# loop the daemon answers root's status within 50 ms and handles an
# Unlink on the simulator: every CA pair routes again through the tables
# dump_fts reads (lftwalk), and an event names the link.
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
	t0=$(ms_now)
	out=$(timeout 5 "$FABRICCTL" -s "$SOCK" roce lint --file "$1" 2>&1) && fail "$1 was accepted"
	took=$(( $(ms_now) - t0 ))
	printf '%s' "$out" | grep -q "$2" || fail "$1 via fabricctl: $out"
	[ $took -lt 1000 ] || fail "$1 via fabricctl took $took ms"
	out=$(timeout 5 "$PROBE" "$SOCK" send \
	    "{\"v\":1,\"id\":1,\"cmd\":\"roce.lint\",\"args\":{\"file\":{\"fd\":0,\"name\":\"x\"}}}" "$1")
	printf '%s' "$out" | grep -q "\"ok\":false.*$2" || fail "$1 via a raw client: $out"
	t0=$(ms_now)
	out=$(timeout 5 "$FABRICD" -n -c "$1" 2>&1) && fail "fabricd -n accepted $1"
	took=$(( $(ms_now) - t0 ))
	printf '%s' "$out" | grep -q "$2" || fail "fabricd -n $1: $out"
	[ $took -lt 1000 ] || fail "fabricd -n $1 took $took ms"
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
out=$("$PROBE" "$SOCK" latency 50) || fail "status failed under attack"
echo "root status during the attack: $out"
max=$(echo "$out" | awk '{ print $2 }')
awk -v m="$max" 'BEGIN { exit !(m < 50) }' || fail "status took $max ms during the attack"

lft_dump || fail "dump_fts"
lft_check_all_pairs >/dev/null || fail "routes before Unlink"
sim_console 'Unlink "sw-l2"[5]' || fail console
end=$(( $(date +%s) + 6 ))
until lft_dump && lft_check_all_pairs >/dev/null 2>&1; do
	[ "$(date +%s)" -ge "$end" ] && fail "routes not repaired within 6 s of the Unlink during the attack"
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
