#!/bin/sh
# An observer's pre-flight reads its routes' ports live (links_live), and
# silence is not evidence: a port that does not answer one read (every
# try of one PortInfo Get: 1 + sm.mad_retries, 4 on the defaults) is read
# again, up to four reads.  A busy machine showed why: a simulator starved
# of CPU for a second lost every try of one read, and the pre-flight
# failed a healthy pair with RouteLinkUnreadable.
#
# OpenSM is master of an ibsim tree; fabricd observes from host2 on its
# defaults; madlog (below umad_send) swallows LID-routed PortInfo Gets:
#  - the first 4 to host A, on host2's leaf: the pre-flight over host2,A
#    passes, and madlog counts exactly 5 Gets to A (4 swallowed, the
#    second read's first try answered);
#  - every one to host B, on the same leaf: the pre-flight over host2,B
#    fails with RouteLinkUnreadable naming B:1, after exactly 16 Gets
#    (4 reads of 4 tries), every one swallowed; the route's three other
#    ports are read once each.
# Broken on purpose (one read only): the first pre-flight fails.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup opensm jq

opensm_tree_up
leaf=$(leaf_of host2)
set -- $(hosts_on "$leaf" | grep -vx host2 | grep -vx host1)
a=$1 b=$2
[ -n "$a" ] && [ -n "$b" ] || fail "two more hosts on $leaf: $(hosts_on "$leaf" | tr '\n' ' ')"
la=$(lid "$a") lb=$(lid "$b")
obs_on_defaults host2 "$FABRICD_BUILD/tests/libmadlog.so" MADLOG_MARK=1 \
    MADLOG_DROP_GET="0x0015:$la:4,0x0015:$lb:1000"
use o
wait_view 150 || fail "no view within 150 s: $(octl --json status | jq -c .sm.observer)"

# gets_to LID: the LID-routed PortInfo Gets madlog logged to LID; with
# "swallowed", those it swallowed.
gets_to() {
	awk -v l="$(printf '0x%04x' "$1")" -v s="$2" '$1 == "0x01" && $2 == "0x01" &&
	    $3 == "0x0015" && $6 == l && (s == "" || $NF == s)' "$OD/madlog" | wc -l
}

capture -e "$T/pf.out" pf_passes "host2,$a"
[ "$(gets_to "$la")" = 5 ] && [ "$(gets_to "$la" swallowed)" = 4 ] ||
    fail "$a (LID $la): $(gets_to "$la") PortInfo Gets, $(gets_to "$la" swallowed) swallowed; want 5 and 4"
echo "host2,$a passes: $a:1 silent through one read (4 Gets), answered at the second"

before=$(awk '$1 == "0x01" && $2 == "0x01" && $3 == "0x0015"' "$OD/madlog" | wc -l)
capture -e "$T/pf.out" pf_fails RouteLinkUnreadable "$b:1" "host2,$b"
jq -e --arg p "$b:1" '[.faults[] | select(.code == "RouteLinkUnreadable")] |
    length == 1 and (.[0].message | contains($p) and contains("did not answer 4 PortInfo Gets"))' \
    "$T/pf.json" > /dev/null || fail "the faults: $(jq -c .faults "$T/pf.json")"
[ "$(gets_to "$lb")" = 16 ] && [ "$(gets_to "$lb" swallowed)" = 16 ] ||
    fail "$b (LID $lb): $(gets_to "$lb") PortInfo Gets, $(gets_to "$lb" swallowed) swallowed; want 16 and 16"
after=$(awk '$1 == "0x01" && $2 == "0x01" && $3 == "0x0015"' "$OD/madlog" | wc -l)
# the route's other ports, host2:1 and the leaf's two, once each
[ $((after - before)) = $((16 + 3)) ] ||
    fail "$((after - before)) PortInfo Gets for host2,$b, want 16 to $b and 3 to its other ports"
echo "host2,$b fails naming $b:1 after 16 Gets (4 reads), the other ports read once"
pass
