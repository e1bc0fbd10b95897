#!/bin/sh
# A node whose reads go unanswered in a heavy sweep is taken from its last
# known state (sm/core/recover.c, sm_recover_node and sm_recover_port,
# called from discover.c): it answers its NodeInfo, so it is met, but not
# its NodeDescription, SwitchInfo or PortInfo, and must neither vanish from
# the model nor lose its routes.
#
# A double below fabricd's umad calls (tests/fixtures/mad/madlog.c:
# MADLOG_SWALLOW with MADLOG_SWALLOW_GET, _ATTR and _PATH) swallows, during
# one heavy sweep, every NodeDescription, SwitchInfo and PortInfo MAD along
# each route to the leaf sw-l2 (the discovery takes whichever answers
# first), each retry and each ask-again included.  Then, judged against
# ibnetdiscover, ibroute, smpquery and dump_fts (other clients of the
# simulator), not against fabricd:
#   - `nodes` lists every node ibnetdiscover finds, sw-l2 by its GUID and
#     its description; `links` every cable; `status` the switch and CA
#     counts;
#   - sw-l2's LinearFDBTop (smpquery switchinfo) and its table (ibroute)
#     are what they were before the sweep, and every CA pair walks the
#     dump_fts tables (tests/lib/lftwalk.sh);
#   - `route` takes, for sample pairs through sw-l2, the switches ibtracert
#     walks.
# Seen failing: with sm_recover_node() finding no old node, `nodes` listed
# sw-l2 without its description; that check left out, `route host5 host1`
# stopped at sw-l2 (its LinearFDBTop lost from the model).
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
. "$FABRICD_SRC/tests/lib/observer.sh"
sim_test_setup dump_fts ibnetdiscover ibroute smpquery ibtracert jq
MADLOG=$T/mads.log
SWALLOW=$T/swallow

sim_topology -P 8 -k 6 -h 4 -s 3 || fail topogen
sim_start || fail "ibsim"
# sw-l2 hangs off the three spines' port 2, each reached from host1's leaf
# sw-l1 (ports 5-7): its routes are 0,1,5,2 0,1,6,2 0,1,7,2
routes="0,1,5,2 0,1,6,2 0,1,7,2"
for r in $routes; do
	d=$(sim_diag smpquery -D nodedesc "$r" | sed -n 's/^Node Description:\.*//p')
	[ "$d" = sw-l2 ] || fail "route $r reaches \"$d\", not sw-l2"
done
fd_config "sm:
  enabled: true
  sweep_interval: 2s"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$MADLOG" MADLOG_MARK=1 \
    MADLOG_SWALLOW="$SWALLOW" MADLOG_SWALLOW_GET=1 MADLOG_SWALLOW_ATTR=0x0010,0x0012,0x0015 \
    MADLOG_SWALLOW_PATH="$routes"
sm_wait_up 30 || fail "subnet not up within 30 s"

# the nodes and cables, read by ibnetdiscover (observer.sh's same: fabricd's
# `nodes` and `links` as octl, here the SM itself, answers them)
octl() { ctl "$@"; }
capture -e "$T/same.out" same "before the loss"
l2=$(awk '$4 == "sw-l2" { print $1 }' "$T/want.nodes")
[ -n "$l2" ] || fail "ibnetdiscover: no sw-l2: $(cat "$T/want.nodes")"
l2lid=$(sed -n 's/^Switch.*"sw-l2".* port 0 lid \([0-9]*\) .*/\1/p' "$T/disc.txt")
top() { sim_diag smpquery switchinfo "$l2lid" | sed -n 's/^LinearFdbTop:\.*//p'; }
top0=$(top)
sim_diag ibroute "$l2lid" > "$T/ibroute.before" || fail "ibroute $l2lid"
lft_dump || fail dump_fts
lft_check_all_pairs > "$T/walk" || { tail -5 "$T/walk"; fail "routes before the loss"; }
[ -n "$top0" ] && [ "$top0" -gt 0 ] || fail "sw-l2 LinearFDBTop before the loss: [$top0]"

l0=$(wc -l < "$MADLOG")
touch "$SWALLOW"
ctl sweep --heavy > /dev/null || fail "sweep refused"
rm -f "$SWALLOW"
l1=$(wc -l < "$MADLOG")
awk -v n="$l0" -v m="$l1" 'NR > n && NR <= m && $NF == "swallowed" { print $3 }' "$MADLOG" | sort | uniq -c > "$T/lost"
for a in 0x0010 0x0012 0x0015; do
	grep -q " $a\$" "$T/lost" || fail "no $a MAD of sw-l2 swallowed in the sweep: $(cat "$T/lost")"
done
awk -v n="$l0" -v m="$l1" -v r=" $routes " 'NR > n && NR <= m && $1 == "0x81" && $3 == "0x0011" &&
    index(r, " " $7 " ") && $NF != "swallowed"' "$MADLOG" | grep -q . ||
    fail "sw-l2's NodeInfo was not let through: the sweep did not meet it"
echo "swallowed in the sweep (count attr): $(tr -s ' \n' ' ' < "$T/lost")"

# in the model: the nodes and cables ibnetdiscover finds
capture -e "$T/same.out" same "after the sweep"
ctl --json status > "$T/status.json" || fail status
want="$(grep -c ' switch ' "$T/want.nodes") $(grep -c ' ca ' "$T/want.nodes")"
got=$(jq -r '.sm.subnet | "\(.switches) \(.cas)"' "$T/status.json")
[ "$got" = "$want" ] || fail "status: switches and CAs \"$got\", ibnetdiscover \"$want\""
echo "nodes, links and status as ibnetdiscover: sw-l2 ($l2) kept by its description"

# its routes: in sw-l2 as before, and every pair through the fabric
top1=$(top)
[ "$top1" = "$top0" ] || fail "sw-l2's LinearFdbTop is $top1 after the sweep, was $top0"
sim_diag ibroute "$l2lid" > "$T/ibroute.after" || fail "ibroute $l2lid after the sweep"
diff "$T/ibroute.before" "$T/ibroute.after" > "$T/diff" ||
    fail "sw-l2's table changed in the sweep: $(head -10 "$T/diff")"
lft_dump || fail "dump_fts after the sweep"
lft_check_all_pairs > "$T/walk" || { tail -5 "$T/walk"; fail "CA pairs unroutable after the sweep"; }
# fabricctl route, over sw-l2, as ibtracert walks it
for pair in "host5 host1" "host1 host6" "host7 host12"; do
	set -- $pair
	capture -e "$T/agree.out" agree "$1" "$2"
done
echo "sw-l2's table as before (LinearFdbTop $top1), every CA pair walks, route as ibtracert"
fd_stop
pass
