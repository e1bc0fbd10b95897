#!/bin/sh
# One master, whatever happens (issue 38's reproduction): a master that
# stalls and wakes must not fight the new one.  A 3-member etcd cluster on
# loopback; the 64-host 3-level tree (radix 8, 4 pods); fabricd A on host1
# (priority 15) and B on host2 (priority 5), both with ha and partitions,
# every other setting on its default (sweeps every 10 s, standby polls
# every 10 s, lease TTL 3 s).  Judged from outside fabricd: sminfo,
# smpquery, ibnetdiscover + dump_fts (every CA pair walked), etcdctl, and
# each SM's SubnSets counted below its umad calls (tests/fixtures/mad/
# madlog.c).
#   1. `partition create red` on A; A stopped (SIGSTOP): B is master when
#      A's writer lease ends (TTL), not after its missed polls (30 s);
#   2. on B, host5 added to red; an inter-switch cable unlinked while A is
#      stopped; B routes around it;
#   3. A resumed (SIGCONT): it steps down to standby (its lease is gone by
#      its own clock) and sends no SubnSet after it wakes, not even the
#      retry of a Set it had in flight when it stopped, nor later (a
#      heavy sweep of B, which meets A again, does not hand the subnet
#      back: with ha the lease, not the priority, keeps a master);
#   4. host5 still holds red's key, every CA pair is routed (no pair into
#      the dead cable), exactly one master answers sminfo, the writer key
#      names B;
#   5. the fence in etcd: the writer key made another node's behind B's
#      back (as if its lease had ended and A had won it): B's next change
#      is refused and sends no P_Key Set (the etcd transaction compares the
#      writer key: broken, B writes host6's table and this step fails);
#      the key deleted, one SM takes the subnet and a change lands again.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/etcd.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
sim_test_setup smpquery sminfo ibnetdiscover dump_fts jq

pk() {
	sim_diag -H "$1" -t 10 smpquery -D pkeys 0 | awk '/^ *[0-9]+:/ {
	    for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i }'
}
pkey_sets() { awk '$2 == "0x02" && $3 == "0x0016"' "$1" | wc -l; }
sm_state() { "$@" --json status 2>/dev/null | jq -r '.sm.state // empty'; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# walk: every CA pair through the switches' tables (dump_fts), no loop, no
# dead end; fails with lftwalk's words
walk() {
	lft_dump || return 1
	lft_check_all_pairs > "$T/walk.txt" 2>&1
}

etcd_cluster_start 3
sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
sim_start || fail ibsim
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
WA=$(printf '%016x' "0x$A_GUID")
WB=$(printf '%016x' "0x$B_GUID")
WKEY=/fabricd/fe80000000000000/writer

fd_config "sm:
  enabled: true
  priority: 15
$(ha_yaml)"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    MADLOG_FILE="$T/a-mads.log" MADLOG_SWALLOW="$T/swallow" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "A: subnet not up"
sm_wait_sminfo 20 "$A_GUID 15 MASTER" || fail "A is not master: '$(sm_sminfo_at)'"
B_SWEEP='' B_PRELOAD=$FABRICD_BUILD/tests/libmadlog.so B_ENV="MADLOG_FILE=$T/b-mads.log" \
    ha_start_b host2 5 "$(ha_yaml)"
a_lid=$(sm_lid_of host1)
b_lid=$(sm_lid_of host2)
sm_wait_sminfo 30 "$B_GUID 5 STANDBY" "$b_lid" || fail "B: '$(sm_sminfo_at "$b_lid")', want STANDBY"
ha_writable ctl || fail "A never became writable"
ctl partition create red --pkey 0x2101 >/dev/null || fail "partition create on A"

# ---- 1. A stalls, with a Set still to retry ----
# (the double swallows A's Sets while $T/swallow exists: the PortInfo Set
# of a port disable of a core link goes unanswered and is tried
# again every 200 ms; A is stopped between two tries, so that it wakes
# with one due: only the gate keeps it in)
sm_stop_mid_set "$T/a-mads.log" "$T/swallow" sw-c1:8
t0=$(date +%s%N)
# (30 s only ends the wait: missed polls would take 30 s and more)
sm_wait_sminfo 30 "$B_GUID 5 MASTER" "$b_lid" || fail "B did not take over from the stopped A:
$(tail -20 "$T/b/fabricd.log")"
echo "B master $(ms_since "$t0") ms after A stopped"
grep -q "the master's etcd writer lease ended" "$T/b/fabricd.log" ||
    fail "B took over, but not because A's lease ended"
grep -q "did not answer as master" "$T/b/fabricd.log" && fail "B took over by missed polls"
ha_writable bctl || fail "B never became writable"
[ "$(etcdq get --print-value-only $WKEY)" = "$WB" ] || fail "the writer key: '$(etcdq get --print-value-only $WKEY)', not B"

# ---- 2. the fabric changes under the stopped A ----
bctl partition member add red host5 >/dev/null || fail "member add host5 on B"
case "$(pk host5)" in *0xa101*) ;; *) fail "host5 after B's change: '$(pk host5)'" ;; esac
sim_console 'Unlink "sw-p2-l1"[5]' || fail "unlink"
ok=
for _ in $(seq 1 60); do	# B's sweep after the trap, or its next light sweep
	walk && { ok=1; break; }
	sleep 1
done
[ -n "$ok" ] || fail "B did not route around the unlinked cable: $(head -5 "$T/walk.txt")"
echo "B routed around the cable: $(tail -1 "$T/walk.txt")"

# ---- 3. A wakes ----
a_lines=$(wc -l < "$T/a-mads.log")
kill -CONT "$FD_PID"
t0=$(date +%s%N)
for _ in $(seq 1 150); do	# (15 s only ends the wait)
	[ "$(sm_state ctl)" = standby ] && break
	sleep 0.1
done
[ "$(sm_state ctl)" = standby ] || fail "A did not step down: $(sm_state ctl)"
wait "$MID_SET_PID" && fail "A's port disable succeeded after A woke"
echo "A standby $(ms_since "$t0") ms after it woke (lease TTL 3 s)"
grep -q "lost the etcd writer lease" "$T/fabricd.log" || fail "A's log says no lease lost"
# B meets A again in a heavy sweep: no handover to the higher priority
bctl sweep --heavy >/dev/null || fail "sweep on B"
[ "$(sm_state ctl)" = standby ] || fail "A after B's heavy sweep: $(sm_state ctl)"
n=$(madlog_sets_after "$T/a-mads.log" "$a_lines")
[ "$n" = 0 ] || fail "A sent $n SubnSets after it woke:
$(awk -v n="$a_lines" 'NR > n && $2 == "0x02"' "$T/a-mads.log" | head -5)"
echo "A after waking: standby, 0 SubnSets"

# ---- 4. the fabric is B's and right ----
case "$(pk host5)" in *0xa101*) ;; *) fail "host5 lost red after A woke: '$(pk host5)'" ;; esac
walk || fail "a CA pair is not routed after A woke: $(head -5 "$T/walk.txt")"
[ "$(sm_sminfo_at "$b_lid")" = "$B_GUID 5 MASTER" ] || fail "B: '$(sm_sminfo_at "$b_lid")'"
[ "$(sm_sminfo_at "$a_lid")" = "$A_GUID 15 STANDBY" ] || fail "A: '$(sm_sminfo_at "$a_lid")'"
[ "$(etcdq get --print-value-only $WKEY)" = "$WB" ] || fail "the writer key left B"
echo "one master (B), host5 in red, every pair routed"

# ---- 5. the fence in etcd ----
b_pk=$(pkey_sets "$T/b-mads.log")
h6=$(pk host6)
etcdq put $WKEY "$WA" >/dev/null || fail "etcdctl put"
out=$(bctl --json partition member add red host6 2>&1) &&
    fail "B applied a change while etcd named another writer: $out"
echo "refused: $out"
[ "$(pkey_sets "$T/b-mads.log")" = "$b_pk" ] ||
    fail "B sent P_Key Sets while etcd named another writer: $b_pk -> $(pkey_sets "$T/b-mads.log")"
[ "$(pk host6)" = "$h6" ] || fail "host6's table moved: '$h6' -> '$(pk host6)'"
etcdq del $WKEY >/dev/null || fail "etcdctl del"
master=
for _ in $(seq 1 300); do	# (30 s only ends the wait)
	a=$(sm_sminfo_at "$a_lid") b=$(sm_sminfo_at "$b_lid")
	case "$a/$b" in
	*MASTER/*MASTER) fail "two masters: A '$a', B '$b'" ;;
	*MASTER/*) master=a ;;
	*/*MASTER) master=b ;;
	esac
	[ -n "$master" ] && break
	sleep 0.1
done
[ -n "$master" ] || fail "no master after the writer key was deleted"
if [ "$master" = a ]; then mc=ctl; else mc=bctl; fi
ha_writable $mc || fail "the new master ($master) never became writable"
$mc partition member add red host6 >/dev/null || fail "member add host6 on $master"
case "$(pk host6)" in *0xa101*) ;; *) fail "host6 after the change on $master: '$(pk host6)'" ;; esac
echo "after the writer key was deleted: $master master, host6 added"
pass
