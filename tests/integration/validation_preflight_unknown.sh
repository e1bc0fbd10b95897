#!/bin/sh
# Hosts a pre-flight is given that the fabric does not know (issue 42
# point 3), on an ibsim fabric run by fabricd's SM (host1..host4, 2
# leaves, 1 spine).  The rule, the same in every output format (human,
# --json, --format slurm, both): a name the fabric has never had a CA of
# is an argument error, invalid_argument and exit 2, naming those hosts,
# with no drain line and no hint of `fabricctl ports`; a known host whose
# port is gone is a fault, exit 1, that drains it.
#   host[1-13]        -> 9 hosts not in the fabric: host[5-13]
#   host[01-04]       -> 4 hosts not in the fabric: host[01-04] (the
#                        fabric's names are not zero-padded)
#   host1,nosuch      -> 1 host not in the fabric: nosuch
#   host[1-9999]      -> the size limit named: 9999 hosts; at most 4096
#   host[1-4096]      -> within the limit: refused for its 4092 unknown
#                        hosts, not for its size
#   host2 unlinked    -> exit 1, IBPortDown naming host2; slurm drains it
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_fabric_up "-k 2 -h 2 -s 1"
need jq
for h in host5 host01 nosuch; do
	sim_diag ibnetdiscover | grep -q "\"$h[ \"]" && fail "the fabric has a $h"
done

# refused HOSTS REASON: every format answers invalid_argument, exit 2,
# with REASON in the message, no scontrol line and no fabricctl ports hint
refused() {
	for fmt in "" "--format slurm"; do
		# shellcheck disable=SC2086
		ctl preflight --hosts "$1" $fmt > "$T/out" 2> "$T/err"; rc=$?
		[ $rc -eq 2 ] || fail "--hosts '$1' $fmt: exit $rc, want 2: $(cat "$T/out" "$T/err")"
		grep -q "^fabricctl: invalid_argument: " "$T/err" ||
			fail "--hosts '$1' $fmt: not invalid_argument: $(cat "$T/err")"
		grep -qF -- "$2" "$T/err" || fail "--hosts '$1' $fmt: no \"$2\" in: $(cat "$T/err")"
		# shellcheck disable=SC2086
		ctl --json preflight --hosts "$1" $fmt > "$T/out" 2> /dev/null; rc=$?
		[ $rc -eq 2 ] && [ "$(jq -r .error.code "$T/out")" = invalid_argument ] ||
			fail "--json --hosts '$1' $fmt: exit $rc: $(cat "$T/out")"
		jq -r .error.message "$T/out" | grep -qF -- "$2" ||
			fail "--json --hosts '$1' $fmt: no \"$2\" in: $(cat "$T/out")"
		grep -q 'scontrol' "$T/out" "$T/err" && fail "--hosts '$1' $fmt drains: $(cat "$T/out")"
		grep -q 'fabricctl ports' "$T/out" "$T/err" &&
			fail "--hosts '$1' $fmt: a hint that cannot help: $(cat "$T/out" "$T/err")"
	done
	return 0
}

refused 'host[1-13]' '--hosts: 9 hosts not in the fabric: host[5-13] ('
grep -qF 'fabricctl nodes' "$T/out" || fail "no pointer to fabricctl nodes: $(cat "$T/out")"
refused 'host[01-04]' '4 hosts not in the fabric: host[01-04] ('
refused 'host1,nosuch' '1 host not in the fabric: nosuch ('
refused 'host[1-9999]' '--hosts: range "1-9999" expands to 9999 hosts; at most 4096'
refused 'host[1-4096]' '4092 hosts not in the fabric: host[5-4096] ('

# the hosts the fabric has pass
ctl preflight --hosts 'host[1-4]' > "$T/out" 2>&1 || fail "host[1-4]: exit $?: $(cat "$T/out")"

# a known host whose cable is pulled is the fabric's fault: exit 1, drained
sim_console 'Unlink "host2"[1]' || fail console
sim_diag iblinkinfo 2>/dev/null | grep -q '"host2' && fail "host2 still cabled after Unlink"
i=0
while :; do
	ctl --json preflight --hosts host1,host2 > "$T/out" 2>&1; rc=$?
	[ $rc -eq 1 ] && break
	[ $i -ge 60 ] && fail "Unlink not seen by preflight within 30 s: exit $rc: $(cat "$T/out")"
	i=$((i + 1)); sleep 0.5
done
[ "$(jq '[.faults[] | select(.code == "IBPortDown" and .host == "host2")] | length' "$T/out")" -ge 1 ] ||
	fail "no IBPortDown naming host2: $(jq -c .faults "$T/out")"
ctl preflight --hosts host1,host2 --format slurm > "$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q '^scontrol update nodename=host2 state=drain reason="fabricd: IBPortDown' "$T/out" ||
	fail "--format slurm, host2 unlinked: exit $rc: $(cat "$T/out")"
# and with it, a name never seen is still the request's error
refused 'host[1-2],nosuch' '1 host not in the fabric: nosuch ('
fd_stop
pass
