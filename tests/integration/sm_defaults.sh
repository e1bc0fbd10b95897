#!/bin/sh
# run.sh: long (the default 60 s audit and 10 s sweeps: about 100 s)
# The whole daemon on its defaults: every module on, nothing lowered but
# the socket and state paths (fd_config), on the 3-level tree where the
# defaults were seen to fight (radix 8, 4 pods of 4 leaves and 4
# aggregation switches, 8 cores: 40 switches, 64 hosts).  The SM keeps its default sweep (10 s), audit (60 s), MAD
# window, timeouts and retries, QoS with no policy, the IPoIB broadcast
# group; partitions carry one tenant; health polls; validation has the
# stand-in launchers.  Everything is judged from outside fabricd:
#   - bring-up cost: packets host1's port sent (perfquery from host2, the
#     same measure for OpenSM on the same fabric) and peak RSS (VmHWM);
#   - `status` answers every 100 ms poll of the first 30 s (the answers'
#     times printed, not gated: a busy machine's clock decides them), and
#     no span of the loop from the start to then takes more CPU than the
#     suite's bound (loop_gate, tests/lib/common.sh);
#   - an LFT entry and a P_Key entry changed from another host are put
#     back by the audit pass that starts after the change at the latest
#     (counted in audit passes: status audit.passes, not in seconds),
#     light sweeps running beside it (ibroute, smpquery pkeys), and the
#     audit's record of a pass under
#     way has no end (no negative duration);
#   - after 10 %, then 30 % loss on every aggregation and core switch,
#     every CA pair routable and loop-free within two light sweeps (walk
#     over dump_fts), and `route` naming the switches that walk takes (the
#     10 % round before the tampering on the plain build, after its repair
#     under the sanitizers, the 30 % round last);
#   - osmtest -f c then -f q pass with a switch at LID 1 (ibportstate gives
#     sw-p1-l1's port 0 LID 1 before any SM runs; fabricd keeps it);
#   - fabricd exits 0 on SIGTERM (the ASan build reports leaks there).
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/lftwalk.sh"
fd_setup
fd_on_exit sim_stop
SIM_DIR=$T/sim
FK=$FABRICD_SRC/tests/fakes
# Ceilings: fabricd sends 3,111 packets here to OpenSM's 3,171, with
# 10.7 MB peak RSS; before QoS was cut to its cost it sent about four
# times OpenSM's packets.
MAD_CEILING=3800	# packets from host1's port at subnet up
RSS_CEILING_KB=14336

sim_topology -P 8 -p 4 -k 4 -h 4 -a 4 -c 8 || fail topogen
NHOSTS=64

# xmit_pkts: PortXmitPkts of host1's port, asked from host2 (LID routed).
xmit_pkts() {
	lid=$(sim_diag -H host2 smpquery -D portinfo 0,1,1 1 2>/dev/null |
	    sed -n 's/^Lid:\.*\([0-9]*\)/\1/p' | head -1)
	[ -n "$lid" ] && sim_diag -H host2 perfquery -x "$lid" 1 |
	    sed -n 's/^PortXmitPkts:\.*\([0-9]*\)/\1/p'
}

# OpenSM on a simulator of its own: the reference figure.
sim_start || fail ibsim
sim_opensm host1 || fail "OpenSM"
osm_pkts=$(xmit_pkts)
[ -n "$osm_pkts" ] || fail "no PortXmitPkts for OpenSM"
sim_stop

SIM_DIR=$T/sim
sim_start || fail ibsim
sim_diag -H host2 ibportstate -D 0,1 0 lid 1 > /dev/null || fail "ibportstate lid 1"
fd_config "sm:
  enabled: true
partitions:
  enabled: true
  tenants:
    acme:
      acme-train: { pkey: 0x0a01, full: [ host1, host2, host3, host4 ] }
validation:
  mpirun: $FK/mpirun
  nccl_tests_dir: $FK
  perftest_dir: $FK"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
# the loop's CPU spans are gated from the start (a new daemon has none;
# its start-up before the loop turns is not a span)
LOOP_GATE_BOUND=$LOOP_CPU_GATE_MS
LOOP_GATE_OVER=0
LOOP_GATE_BUCKETS="0 0 0 0 0 0"

# The poller: one `status` every 100 ms for 30 s, each answer's time in ms
# as tools/ctl_probe takes it (a fresh connection each; the time of the
# answer, not of a client's start-up, which an ASan build makes slow): one
# process, so that a loaded machine's process start-ups do not thin out
# the polls; "MS ok|fail START_MS" a line.
"$FABRICD_BUILD/tools/ctl_probe" "$SOCK" poll 100 "$T/poll.stop" > "$T/polls" 2>&1 &
POLLER=$!
(sleep 30; touch "$T/poll.stop") &
fd_on_exit "kill $POLLER 2>/dev/null"

sm_wait_up 30 || fail "subnet not up within 30 s"
fd_pkts=$(xmit_pkts)
[ -n "$fd_pkts" ] || fail "no PortXmitPkts for fabricd"
echo "bring-up packets from the SM port: fabricd $fd_pkts, OpenSM $osm_pkts (ceiling $MAD_CEILING)"
[ "$fd_pkts" -le "$MAD_CEILING" ] || fail "bring-up sent $fd_pkts packets, ceiling $MAD_CEILING"

for h in host2 host3; do
	out=$(sim_run -H $h -t 15 "$FABRICD_BUILD/tools/mcast_join" -p 0xffff 2>&1) || fail "$h join: $out"
done

# route_switches SRC DST: the switch GUIDs `route --json` lists, in order.
route_switches() {
	ctl --json route "$1" "$2" | jq -r '.hops[] | select(.type == "switch") | .guid'
}
# check_routes WHEN: every pair walks, loop-free; `route` follows the walk
# for 12 pairs spread over the hosts.
check_routes() {
	lft_dump || fail "dump_fts ($1)"
	lft_check_all_pairs > "$T/walk" || { tail -5 "$T/walk"; fail "CA pairs unroutable $1"; }
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		s=host$(( (i * 7) % NHOSTS + 1 )) d=host$(( (i * 29 + NHOSTS / 2) % NHOSTS + 1 ))
		[ "$s" = "$d" ] && continue
		want=$(awk -v path="$(sm_lid_of $s),$(sm_lid_of $d)" -f "$LFTWALK_AWK" "$SIM_DIR/disc.txt" "$SIM_DIR/fts.txt")
		got=$(route_switches "$s" "$d" | tr 'A-F' 'a-f' | tr '\n' ' ')
		want=$(printf '%s\n' $want | tr 'A-F' 'a-f' | tr '\n' ' ')
		[ -n "$want" ] && [ "$got" = "$want" ] || fail "route $s $d: [$got], the switches hold [$want] ($1)"
	done
}
light_sweeps_after() {	# ID N: until N light sweeps after sweep ID (default interval: 10 s)
	end=$(( $(date +%s) + 30 * $2 + 60 ))	# only ends the wait: the sweeps are counted
	until [ "$(db "SELECT count(*) FROM sm_sweeps WHERE id > $1 AND kind = 'light'")" -ge "$2" ]; do
		[ "$(date +%s)" -gt "$end" ] && fail "no $2 light sweeps after sweep $1"
		sleep 0.5
	done
}
# loss_round RATE: RATE % loss on every aggregation and core switch through
# three heavy sweeps; every pair routes two light sweeps after.
loss_round() {
	for s in $lossy; do sim_console "Error \"$s\" $1" || fail console; done
	for _ in 1 2 3; do ctl sweep --heavy > /dev/null || fail "sweep refused"; done
	for s in $lossy; do sim_console "Error \"$s\" 0" || fail console; done
	last=$(db "SELECT max(id) FROM sm_sweeps")
	light_sweeps_after "$last" 2
	check_routes "two light sweeps after $1 % loss"
	echo "$1 % loss: every pair routes loop-free two light sweeps after"
}
first_loss_round() {
	check_routes "before the loss"
	lossy=$(sim_diag ibnetdiscover | sed -n 's/^Switch.*"\(sw-p[0-9]*-a[0-9]*\|sw-c[0-9]*\)".*/\1/p')
	[ "$(echo $lossy | wc -w)" = 24 ] || fail "aggregation and core switches: $lossy"
	loss_round 10
}
# The tampering waits for the first audit pass, one interval (60 s) after
# the start, and no heavy sweep may run meanwhile (a block a lost Set left
# unknown is rewritten by any sweep, which would hide whether the audit put
# the tampering back), nor can the routes be walked while it holds.  On
# the plain build the 10 % round goes before it, inside the poller's 30 s
# (which then sees heavy sweeps under loss too), so that the wait for the
# audit is not idle; under ASan+UBSan every heavy sweep costs two to three
# times as much, the poller's window keeps the bring-up alone, and the
# round follows the repair.
sanitized=
ldd "$FABRICD" 2>/dev/null | grep -q libasan && sanitized=1
[ -n "$sanitized" ] || first_loss_round

# The tampering, from host40 (no SM): sw-p1-l2 sends host1's LID to one
# of its host ports, and acme's key is taken off host3's P_Key table.
# (ibroute reads from host40 too: host1 cannot hear sw-p1-l2 meanwhile.)
tamper() { out=$(sim_diag -H host40 -t 10 "$FABRICD_BUILD/tools/smi_set" "$@" 2>&1)
	printf '%s\n' "$out" | grep -q "^status 0x0000" || fail "tampering refused: $* ($out)"; }
swlid() { sim_diag ibnetdiscover | sed -n "s/^Switch.*\"$1\".* lid \([0-9]*\) .*/\1/p"; }
l2=$(swlid sw-p1-l2) h1=$(sm_lid_of host1) h3=$(sm_lid_of host3)
[ -n "$l2" ] && [ -n "$h1" ] && [ -n "$h3" ] || fail "LIDs: sw-p1-l2 $l2 host1 $h1 host3 $h3"
lft_entry() { sim_diag -H host40 ibroute "$l2" | awk -v lid="$(printf '0x%04x' "$h1")" '$1 == lid { print $2 + 0 }'; }
want_port=$(lft_entry)
[ -n "$want_port" ] || fail "sw-p1-l2 has no entry for host1"
bad_port=1; [ "$want_port" = 1 ] && bad_port=2
# the block of host3's P_Key table that holds acme (0x8a01, full)
pk_index() { sim_diag -t 10 smpquery pkeys "$h3" 1 | awk '/^ *[0-9]+:/ {
	for (i = 2; i <= NF; i++) if ($i == "0x8a01") { print $1 + i - 2; exit } }'; }
idx=$(pk_index)
[ -n "$idx" ] || fail "host3 holds no 0x8a01: $(sim_diag smpquery pkeys "$h3" 1)"
[ "$idx" -lt 32 ] || fail "acme at index $idx, beyond the first block"
t0=$(date +%s)
passes0=$(ctl --json audit | jq -r '.passes')
[ -n "$passes0" ] && [ "$passes0" != null ] || fail "no audit passes in status"
tamper -A 0x19 -M $((h1 / 64)) -d "$l2" -b "$((h1 % 64))=$bad_port"
tamper -A 0x16 -M 0 -d "$h3" -b "$((2 * idx))=0,$((2 * idx + 1))=0"
[ "$(lft_entry)" = "$bad_port" ] || fail "the LFT tampering did not take: $(lft_entry)"
[ -z "$(pk_index)" ] || fail "the P_Key tampering did not take"
negative=
# The pass under way when the entries were changed may have read them
# already; the one after it must put them back: passes (read before the
# entries) at passes0 + 2 with an entry still wrong fail.  The wall clock
# only ends the wait (an audit that never runs).
until passes=$(ctl --json audit | jq -r '.passes')
    [ "$(lft_entry)" = "$want_port" ] && [ "$(pk_index)" = "$idx" ]; do
	[ "$passes" -ge $((passes0 + 2)) ] &&
	    fail "not put back by the audit pass after the change ($((passes - passes0)) passes since): LFT port $(lft_entry) (want $want_port), acme at index [$(pk_index)] (want $idx)"
	# a pass under way has no end: no negative duration, in JSON or in the table
	cur=$(ctl --json audit | jq -c '.current_pass')
	if [ "$cur" != null ] && [ -z "$negative" ]; then
		d=$(printf '%s\n' "$cur" | jq -r '.duration_ms // 0')
		[ "$d" -ge 0 ] || negative="a pass under way with duration $d: $cur"
		ctl audit > "$T/audit.txt" || negative="fabricctl audit failed: $(cat "$T/audit.txt")"
		grep -Eq '(duration|end)[a-z_]*: *-[0-9]' "$T/audit.txt" &&
		    negative="fabricctl audit prints a negative time: $(cat "$T/audit.txt")"
	fi
	[ $(( $(date +%s) - t0 )) -gt 400 ] &&
	    fail "no audit pass put them back in 400 s: LFT port $(lft_entry) (want $want_port), acme at index [$(pk_index)] (want $idx)"
	sleep 1
done
echo "tampered LFT and P_Key entries put back after $(( $(date +%s) - t0 )) s ($((passes - passes0)) audit passes ended since)"
[ -z "$negative" ] || fail "$negative"

wait "$POLLER"
[ -s "$T/polls" ] || fail "the poller recorded nothing"
n=$(wc -l < "$T/polls")
worst=$(sort -n "$T/polls" | tail -1)
errs=$(grep -vc '^[0-9]* ok ' "$T/polls")
echo "status over the first 30 s: $n polls, worst ${worst%% *} ms, $errs errors"
[ "$n" -ge 10 ] || fail "only $n polls in 30 s"
[ "$errs" = 0 ] || fail "$errs status polls failed"
loop_gate "the first 30 s: bring-up, sweeps, the first health rounds"
rss=$(awk '/^VmHWM/ { print $2 }' "/proc/$FD_PID/status")
echo "peak RSS ${rss} kB (ceiling $RSS_CEILING_KB kB)"
[ -n "$rss" ] || fail "no VmHWM for fabricd"
if [ -n "$sanitized" ]; then
	echo "(sanitizer build: its shadow memory is in the RSS; the plain build's run asserts it)"
else
	[ "$rss" -le "$RSS_CEILING_KB" ] || fail "peak RSS $rss kB, ceiling $RSS_CEILING_KB kB"
fi

[ -z "$sanitized" ] || first_loss_round
loss_round 30

# osmtest from host2: the inventory, then the QoS records, a switch at LID 1.
[ "$(swlid sw-p1-l1)" = 1 ] || fail "sw-p1-l1 holds LID $(swlid sw-p1-l1), not 1"
for f in c q; do
	(cd "$SIM_DIR/run" && SIM_HOST=host2 LD_PRELOAD=$SIM_PRELOAD timeout -k 2 60 \
	    osmtest -f $f -i "$T/osmtest.dat" -l "$T/osmtest.$f.log" > "$T/osmtest.$f.out" 2>&1)
	rc=$?
	# osmtest can exit 0 on a failed flow: its verdict line is the judge
	verdict=$(sed -n 's/^OSMTEST: TEST ".*" \(PASS\|FAIL\)$/\1/p' "$T/osmtest.$f.out")
	[ $rc = 0 ] && [ "$verdict" = PASS ] ||
	    fail "osmtest -f $f: rc $rc, verdict [$verdict]: $(grep ERR "$T/osmtest.$f.log" | tail -3)"
done
echo "osmtest -f c and -f q pass with sw-p1-l1 at LID 1"
fd_stop || fail "fabricd did not exit cleanly"
pass
