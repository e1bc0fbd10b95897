#!/bin/sh
# M_Key: with sm.mkey_secret set, activation gives every CA port and every
# switch's port 0 its own M_Key, HMAC-SHA256(secret, port GUID), with
# protection 2 and the configured lease; every SMP fabricd sends carries
# the key of the port it reaches; the secret and keys are never logged.
#
# ibsim keeps no M_Key (smpquery portinfo reads 0 whatever was written:
# docs/audit.md), so what fabricd writes and sends is read below its umad
# calls (tests/fixtures/mad/madlog.c); which port each directed route
# reaches is read with smpquery, and the expected keys are computed with
# the openssl tool, not by fabricd.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery openssl jq
MADLOG=$T/mads.log
SECRET=fabricd-test-secret-0123456789

# expected KEY for a port GUID (0x...): first 8 bytes of the HMAC
expected() {
	bin=
	for b in $(printf '%016x' "$1" | sed 's/../& /g'); do bin="$bin\\$(printf %03o $((0x$b)))"; done
	# shellcheck disable=SC2059
	printf "$bin" | openssl dgst -sha256 -mac HMAC -macopt "key:$SECRET" -hex |
	    sed 's/.*= *//' | cut -c1-16 | sed 's/^/0x/'
}
# the port GUID a directed route reaches (NodeInfo PortGuid: the port
# entered for a CA, port 0 for a switch)
guid_at() {
	sim_diag -t 10 smpquery -D nodeinfo "$1" | sed -n 's/^PortGuid:\.*\(0x[0-9a-f]*\)/\1/p'
}

sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail "ibsim"
fd_config "sm:
  enabled: true
  mkey_secret: $SECRET
  mkey_lease: 60s"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$MADLOG"
i=0
until ctl --json status 2>/dev/null | jq -e '.. | objects | select(.state? == "up")' >/dev/null 2>&1; do
	[ $i -ge 300 ] && fail "subnet not up within 30 s"
	i=$((i + 1))
	sleep 0.1
done

# 1. Activation wrote each port's key, protection 2, lease 60 s.
# (the Sets that protect: a switch's external ports get PortInfo Sets
# too, for their link state, and those only keep the key in the payload)
awk '$3 == "0x0015" && $2 == "0x02" && NF >= 10 && $9 != 0 { print $7, $8, $9, $10 }' \
    "$MADLOG" | sort -u > "$T/set"
awk '$3 == "0x0015" && $2 == "0x02" && $8 == "0x0000000000000000"' "$MADLOG" > "$T/clear"
[ -s "$T/clear" ] && fail "PortInfo Sets writing an M_Key of 0: $(head -3 "$T/clear")"
n=$(cut -d' ' -f1 "$T/set" | sort -u | wc -l)
[ "$n" -eq 7 ] || fail "$n ports given an M_Key, want 7 (4 CA ports, 3 switches): $(cat "$T/set")"
while read -r path key mpb lease; do
	g=$(guid_at "$path")
	[ -n "$g" ] || fail "no node at $path"
	[ "$key" = "$(expected "$g")" ] || fail "port $g (route $path) given $key, HMAC says $(expected "$g")"
	[ "$mpb" = 2 ] && [ "$lease" = 60 ] || fail "port $g: protection $mpb lease $lease, want 2 and 60"
done < "$T/set"

# 2. Every SMP of a heavy sweep carries the key of the port it reaches.
cp "$MADLOG" "$T/mads.activation"
: > "$MADLOG"
ctl sweep --heavy >/dev/null || fail "sweep refused"
[ -s "$MADLOG" ] || fail "the sweep sent nothing"
awk '($1 == "0x81" || $1 == "0x01") && $5 == "0x0000000000000000"' "$MADLOG" > "$T/nokey"
[ -s "$T/nokey" ] && fail "SMPs without an M_Key: $(head -3 "$T/nokey")"
awk '$1 == "0x81" { print $7, $5 }' "$MADLOG" | sort -u > "$T/smp"
[ "$(cut -d' ' -f1 "$T/smp" | sort | uniq -d)" = "" ] || fail "one route, two keys: $(cat "$T/smp")"
while read -r path key; do
	g=$(guid_at "$path")
	[ "$key" = "$(expected "$g")" ] || fail "SMP to $g (route $path) carries $key, its key is $(expected "$g")"
done < "$T/smp"
# LID-routed SubnGet/SubnSet (activation and the sweep): the key of the
# port at their DLID, DLID -> GUID as ibnetdiscover reads it (sm_lids).
# (A TrapRepress, method 0x07, echoes the key of the trap it answers.)
# fabricd sends its Gets and Sets directed today, so this list may be
# empty; what keeps the check from judging nothing is the count below:
# every Get and Set logged is judged by one of the two loops.
sm_lids | while read -r g l; do printf '0x%04x %s\n' "$l" "$g"; done > "$T/lid2guid"
[ -s "$T/lid2guid" ] || fail "ibnetdiscover: no LIDs"
awk '$1 == "0x01" && ($2 == "0x01" || $2 == "0x02") { print $6, $5 }' \
    "$T/mads.activation" "$MADLOG" | sort -u > "$T/lidsmp"
while read -r dlid key; do
	g=$(awk -v l="$dlid" '$1 == l { print $2 }' "$T/lid2guid")
	[ -n "$g" ] || fail "LID-routed SMP to $dlid: no port holds that LID (ibnetdiscover)"
	[ "$key" = "$(expected "$g")" ] || fail "LID-routed SMP to $dlid ($g) carries $key, its key is $(expected "$g")"
done < "$T/lidsmp"
# every SubnGet/SubnSet of the sweep is directed (judged above, route by
# route) or LID routed (judged here, DLID by DLID): none escapes both
all=$(awk '($1 == "0x81" || $1 == "0x01") && ($2 == "0x01" || $2 == "0x02")' "$MADLOG" | wc -l)
dr=$(awk '$1 == "0x81" && ($2 == "0x01" || $2 == "0x02") && $7 != "-"' "$MADLOG" | wc -l)
lr=$(awk '$1 == "0x01" && ($2 == "0x01" || $2 == "0x02") && $6 != ""' "$MADLOG" | wc -l)
[ "$all" -gt 0 ] && [ $((dr + lr)) -eq "$all" ] ||
    fail "$all Gets and Sets in the sweep, $dr directed and $lr LID routed judged"
echo "$all Gets and Sets ($dr directed over $(wc -l < "$T/smp") routes, $lr LID routed to $(wc -l < "$T/lidsmp") DLIDs), each with its port's key"

# 3. Never logged: neither the secret nor a key.
grep -q "$SECRET" "$T/fabricd.log" && fail "the secret is in the log"
k=$(cut -d' ' -f2 "$T/smp" | head -1 | sed 's/^0x//')
grep -qi "$k" "$T/fabricd.log" && fail "a key is in the log"
[ "$(db 'SELECT count(*) FROM sm_mkeys')" = 7 ] || fail "sm_mkeys: $(db 'SELECT count(*) FROM sm_mkeys') rows, want 7"
fd_stop
pass
