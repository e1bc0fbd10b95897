#!/bin/sh
# Partitions on a simulated fat tree, judged by smpquery (not fabricd's
# view): two tenants get exactly their keys at one index per key on every
# member and on the facing switch ports; adding a member touches only that
# host and its switch port; bad input changes no table; replies dropped for
# a switch mid-change leave every table as it was and the history says so;
# a restart keeps the partitions and sends no P_Key MAD.
#
#   sw-s1 (spine) -- sw-l1: host1 (SM, [1]), host2 ([2])
#                 -- sw-l2: host3 ([1]), host4 ([2])
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery

# Directed routes from host1, so that queries work whatever the LIDs.
H1=0 H2=0,1,2 H3=0,1,3,19,1 H4=0,1,3,19,2 L1=0,1 L2=0,1,3,19 S1=0,1,3

# pk ROUTE [PORT]: the non-zero entries of a P_Key table, "index=key ...".
pk() {
	sim_diag -t 10 smpquery -D pkeys "$@" | awk '/^ *[0-9]+:/ {
	    b = $1 + 0; for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%d=%s ", b + i - 2, $i }'
	echo
}
# Every table fabricd may touch, one line per port.
snapshot() {
	for r in $H1 $H2 $H3 $H4; do echo "$r: $(pk "$r")"; done
	for p in 0 1 2; do echo "l1/$p: $(pk $L1 $p)"; echo "l2/$p: $(pk $L2 $p)"; done
	echo "s1/0: $(pk $S1 0)"
}
status_num() {	# KEY under pkey_mads
	ctl --json status | tr -d ' \n\t' | sed -n "s/.*\"pkey_mads\":{[^}]*\"$1\":\([0-9]*\).*/\1/p"
}
subnet_up() {
	ctl --json status 2>/dev/null | tr -d ' \n\t' | grep -q '"subnet":{"state":"up"'
}
index_of() {	# PARTITION: the index fabricd planned for it
	ctl --json partition show "$1" | tr -d ' \n\t' | sed -n 's/.*"index":\([0-9-]*\),.*/\1/p' | head -1
}
start_fd() {
	fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
	i=0
	until subnet_up; do
		[ $i -ge 300 ] && fail "subnet not up within 30 s"
		i=$((i + 1))
		sleep 0.1
	done
}

sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail "ibsim"
# No periodic sweep: the failure injection below must meet only our MADs.
# Partition changes with the sweeps and the audit running (the defaults)
# are proven by tests/integration/partitions_crash.sh.
fd_config "sm:
  enabled: true
  sweep_interval: 1h
partitions:
  enabled: true
  default_membership: limited
  tenants:
    acme:
      acme-train: { pkey: 0x0a01, full: [ host1, host2 ] }
    beta:
      beta-train: { pkey: 0x0b01, full: [ host3 ], limited: [ host4 ] }"
# fabricd's own report never decides a skip: an SM that is missing or
# reports itself "stored-only" is a regression: it fails.
start_fd
ctl --json status | grep -q '"stored-only"' && fail "partitions stored only: the SM did not program them"

# 1. Two tenants: exact tables, one index per key, facing switch ports alike.
a=$(index_of acme-train) b=$(index_of beta-train)
[ "$a" -ge 1 ] && [ "$b" -ge 1 ] && [ "$a" != "$b" ] || fail "indices $a $b"
[ "$(pk $H1)" = "0=0xffff $a=0x8a01 " ] || fail "host1 (SM): $(pk $H1)"
[ "$(pk $H2)" = "0=0x7fff $a=0x8a01 " ] || fail "host2: $(pk $H2)"
[ "$(pk $H3)" = "0=0x7fff $b=0x8b01 " ] || fail "host3: $(pk $H3)"
[ "$(pk $H4)" = "0=0x7fff $b=0x0b01 " ] || fail "host4 (limited): $(pk $H4)"
[ "$(pk $L1 1)" = "$(pk $H1)" ] || fail "sw-l1/1 does not enforce host1's keys: $(pk $L1 1)"
[ "$(pk $L1 2)" = "$(pk $H2)" ] || fail "sw-l1/2: $(pk $L1 2)"
[ "$(pk $L2 1)" = "$(pk $H3)" ] || fail "sw-l2/1: $(pk $L2 1)"
[ "$(pk $L2 2)" = "$(pk $H4)" ] || fail "sw-l2/2: $(pk $L2 2)"
[ "$(pk $L1 0)" = "0=0x7fff " ] || fail "sw-l1 port 0: $(pk $L1 0)"
# partition list counts what smpquery shows above: acme-train on host1 and
# host2 (PORTS) and the two switch ports facing them (SWITCH PORTS, which
# `show` lists with them; issue 29: list said 46 where show listed 56)
ctl partition list > "$T/list.txt" || fail "partition list"
head -1 "$T/list.txt" | grep -q 'MEMBERS  *PORTS  *SWITCH PORTS$' || fail "partition list: header $(head -1 "$T/list.txt")"
grep -Eq "^acme-train +acme +0x0a01 +$a +2 +2 +2\$" "$T/list.txt" || fail "partition list: $(cat "$T/list.txt")"
[ "$(ctl --json partition show acme-train | jq '.ports | length')" = 4 ] || fail "partition show: not 4 ports"
env=$(ctl partition nccl-env acme-train --hosts 'host[1-2]') || fail "nccl-env refused"
[ "$env" = "NCCL_IB_PKEY=$a" ] || fail "nccl-env: $env, smpquery index $a"
ctl partition nccl-env acme-train --hosts host1,host3 >/dev/null 2>&1 &&
    fail "nccl-env accepted a host outside the partition"

# The four switch ports facing hosts were asked to enforce (PortInfo; ibsim
# does not keep the bits, so only the request can be counted).
[ "$(status_num enforce_sets)" = 4 ] || fail "enforcement PortInfo Sets: $(status_num enforce_sets), want 4"
# the links stayed up through those PortInfo Sets
links=$(sim_diag iblinkinfo | grep LinkUp)
[ -n "$links" ] || fail "iblinkinfo shows no link"
[ -z "$(printf '%s\n' "$links" | grep -v 'Active/')" ] || fail "a link left Active"

# 2. --dry-run writes nothing; adding host4 to acme writes host4 and sw-l2/2 only.
tables0=$(snapshot)
# the dry run says what it matched: one host (host4) and its leaf port
ctl --json partition member add acme-train host4 --dry-run > "$T/dry.json"
jq -e '[.ports[].port] | index("host4:1") != null' "$T/dry.json" >/dev/null || fail "dry run lacks host4:1"
jq -e '.matched.hosts == 1 and .matched.host_names == "host4" and .matched.switch_ports == 1' "$T/dry.json" >/dev/null ||
    fail "dry run does not say what it matched: $(jq -c .matched "$T/dry.json")"
[ "$(snapshot)" = "$tables0" ] || fail "--dry-run changed a table"
sets=$(status_num sets)
ctl partition member add acme-train host4 >/dev/null || fail "member add refused"
[ $(( $(status_num sets) - sets )) -eq 2 ] ||
    fail "member add sent $(( $(status_num sets) - sets )) PartitionTable Sets, want 2"
[ "$(pk $H4)" = "0=0x7fff $a=0x8a01 $b=0x0b01 " ] || fail "host4 after add: $(pk $H4)"
[ "$(pk $L2 2)" = "$(pk $H4)" ] || fail "sw-l2/2 after add: $(pk $L2 2)"
after=$(snapshot)
changed=$(printf '%s\n' "$tables0" > "$T/b"; printf '%s\n' "$after" > "$T/a"; diff "$T/b" "$T/a" | grep -c '^>')
[ "$changed" -eq 2 ] || fail "$changed tables changed, want 2: $(diff "$T/b" "$T/a")"

# the history: a header, the caller's uid on the change's line, the
# request's arguments as JSON (not a string holding JSON) below it
ctl partition history > "$T/hist.txt" || fail "partition history"
head -1 "$T/hist.txt" | grep -q '^TIME  *BY  *ACTION  *RESULT  *MESSAGE' || fail "history: header $(head -1 "$T/hist.txt")"
grep -q "  uid $(id -u)  *member add" "$T/hist.txt" || fail "history: no member add line by uid $(id -u): $(cat "$T/hist.txt")"
ctl --json partition history | jq -e '[.[] | select(.action == "member add")][-1].detail | type == "object"' >/dev/null ||
    fail "history --json: detail is not an object: $(ctl --json partition history | jq -c '.[-1]')"

# 3. Bad input: refused, clearly, and no table anywhere changes.
tables0=$(snapshot)
sets=$(status_num sets)
refuse() {	# expected-text args...
	want=$1; shift
	out=$(ctl "$@" 2>&1) && fail "accepted: $*"
	printf '%s\n' "$out" | grep -q "$want" || fail "'$*' said: $out"
}
refuse "out of range" partition create zero --pkey 0x0000
refuse "out of range" partition create high --pkey 0x8000
refuse "already exists" partition create acme-train --pkey 0x0a07
refuse "already used" partition create dup --pkey 0x0b01
refuse "matches no port" partition member add beta-train 0x0002c90300000099
refuse "matches no port" partition member add beta-train 'gpu-*'
: > "$T/empty.yaml"
refuse "empty" partition import "$T/empty.yaml"
printf 'partitions:\n  tenants:\n    x: [\n' > "$T/syntax.yaml"
refuse "syntax.yaml:[0-9]*:[0-9]*:" partition import "$T/syntax.yaml"
# switch port 0 holds 8 keys: the default and 8 more cannot fit
{
	echo "partitions:"
	echo "  tenants:"
	echo "    ops:"
	for k in 1 2 3 4 5 6 7 8; do echo "      ops$k: { pkey: 0x010$k, limited: [ switches ] }"; done
} > "$T/toomany.yaml"
refuse "capacity\|room for 8" partition import "$T/toomany.yaml"
# a fabricd.yaml with a syntax error, or with an empty tenants list, is
# refused on reload (and the database would win over it anyway)
cp "$CONF" "$T/good.yaml"
printf 'partitions:\n  enabled: true\n  tenants: [\n' >> "$CONF"
ctl reload >/dev/null 2>&1 && fail "reload accepted a syntax error"
cp "$T/good.yaml" "$CONF"
sed -i 's/^  tenants:$/  tenants: {}/; /^    [a-z]/d; /^      /d' "$CONF"
grep -q 'tenants: {}' "$CONF" || fail "test setup: no empty tenants in $CONF"
out=$(ctl reload 2>&1) && fail "reload accepted an empty tenants list"
printf '%s\n' "$out" | grep -q "tenants: expected at least one tenant" || fail "reload said: $out"
cp "$T/good.yaml" "$CONF"
[ "$(status_num sets)" = "$sets" ] || fail "a refused change sent PartitionTable Sets"
[ "$(snapshot)" = "$tables0" ] || fail "a refused change altered a table"
[ "$(db "SELECT count(*) FROM pt_history WHERE result = 'rejected'")" -ge 9 ] ||
    fail "rejections missing from the history"

# 4. Replies dropped for sw-l2 during a change: every port as it was before.
sim_console 'Error "sw-l2" 100' || fail "console"
out=$(ctl partition create shared --pkey 0x0c01 2>&1) || fail "create (no members) refused: $out"
out=$(ctl partition member add shared all-cas --limited 2>&1) && fail "change accepted with sw-l2 dead"
printf '%s\n' "$out" | grep -q "sw-l2" || fail "failure does not name sw-l2: $out"
sim_console 'Error "sw-l2" 0' || fail "console"
# The ports behind sw-l2 could not be put back for sure: the next sweep
# reads them again (and finds them unchanged: no Set).
sets=$(status_num sets) gets=$(status_num gets)
ctl sweep --heavy >/dev/null || fail "sweep refused"
[ "$(status_num sets)" = "$sets" ] || fail "the sweep after the failure wrote tables"
[ "$(status_num gets)" -gt "$gets" ] || fail "the sweep did not read the unknown ports back"
[ "$(snapshot)" = "$tables0" ] || {
	printf '%s\n' "$tables0" > "$T/b"; snapshot > "$T/a"; fail "tables differ after rollback: $(diff "$T/b" "$T/a")"; }
h=$(db "SELECT result || ' ' || message FROM pt_history WHERE action = 'member add' ORDER BY id DESC LIMIT 1")
printf '%s\n' "$h" | grep -q "^failed .*sw-l2.*restored" || fail "history: $h"
[ "$(db "SELECT count(*) FROM pt_members WHERE partition = 'shared'")" = 0 ] ||
    fail "the failed change reached the database"

# 5. Restart: partitions kept, not one P_Key MAD.
fd_stop
start_fd
sleep 1
[ "$(status_num sets)" = 0 ] && [ "$(status_num gets)" = 0 ] &&
    [ "$(status_num enforce_sets)" = 0 ] && [ "$(status_num enforce_gets)" = 0 ] ||
    fail "restart sent P_Key MADs: $(ctl --json status | tr -d ' \n' | grep -o '"pkey_mads":{[^}]*}')"
[ "$(snapshot)" = "$tables0" ] || fail "tables changed over the restart"
[ "$(db "SELECT group_concat(name) FROM (SELECT name FROM pt_partitions ORDER BY name)")" = \
    "acme-train,beta-train,shared" ] || fail "partitions after restart: $(db "SELECT name FROM pt_partitions")"

# 6. A port that comes back later gets its table at the sweep that finds it.
sim_console 'Unlink "host4"' || fail console
i=0
until ! ctl --json ports host4 2>/dev/null | grep -q '"state": *"active"'; do
	[ $i -ge 100 ] && fail "the SM did not notice host4 going away"
	i=$((i + 1))
	sleep 0.1
done
ctl partition create late --pkey 0x0d01 >/dev/null || fail "create late"
ctl partition member add late all-cas --limited >/dev/null || fail "late: all-cas refused"
[ "$(pk $H3)" = "0=0x7fff $b=0x8b01 3=0x0d01 " ] || fail "host3 lacks late: $(pk $H3)"
sim_console 'ReLink "host4"' || fail console
i=0
until [ "$(pk $H4)" = "0=0x7fff $a=0x8a01 $b=0x0b01 3=0x0d01 " ]; do
	[ $i -ge 100 ] && fail "host4 did not get its table when it came back: $(pk $H4)"
	i=$((i + 1))
	sleep 0.1
done
[ "$(pk $L2 2)" = "$(pk $H4)" ] || fail "sw-l2/2 after relink: $(pk $L2 2)"
fd_stop

# 7. A first start whose partitions cannot fit (switch port 0 holds 8 keys,
# 9 asked): nothing of the set is written, and the ports fabricd does not
# know are quarantined in the default partition instead of keeping what
# they hold (the factory 0xffff would make them full members).
rm -rf "$STATE"
{
	echo "sm:"
	echo "  enabled: true"
	echo "  sweep_interval: 1h"
	echo "partitions:"
	echo "  enabled: true"
	echo "  tenants:"
	echo "    ops:"
	for k in 1 2 3 4 5 6 7 8; do echo "      ops$k: { pkey: 0x010$k, limited: [ switches ] }"; done
} > "$T/cfg"
fd_config "$(cat "$T/cfg")"
start_fd
[ "$(pk $H1)" = "0=0xffff " ] || fail "quarantine: SM port $(pk $H1)"
for r in $H2 $H3 $H4; do [ "$(pk "$r")" = "0=0x7fff " ] || fail "quarantine: $r holds $(pk "$r")"; done
[ "$(pk $L1 0)" = "0=0x7fff " ] && [ "$(pk $L2 2)" = "0=0x7fff " ] || fail "quarantine: switches"
db "SELECT result, message FROM pt_history WHERE action = 'sweep'" | grep -q "^rejected|.*capacity\|^rejected|.*room for 8" ||
    fail "history: $(db "SELECT * FROM pt_history")"
db "SELECT message FROM events WHERE severity = 3" | grep -q "quarantine\|default partition only" ||
    fail "no critical event: $(db "SELECT severity, message FROM events WHERE source = 'partitions'")"
fd_stop
pass
