#!/bin/sh
# QoS on switches with OptimizedSLtoVLMappingProgramming (issue 22).
# ibsim 0.10 neither advertises nor honours the bit, so a double below
# fabricd's umad calls stands for the switch firmware
# (tests/fixtures/mad/optsl2vl.c): it sets the bit in SwitchInfo and
# writes an all-ports SL2VL Set as the per-(in, out) Sets ibsim knows.
# On a 2-level radix-36 tree (8 leaves of 18 hosts, 18 spines), each run
# on a freshly started ibsim:
#  1. QoS off: what fabricd sends in its bring-up, counted below it by the
#     madlog double (tests/fixtures/mad/madlog.c), not asked of fabricd
#  2. the four-class policy of docs/qos.md with the double: fabricd sends
#     the all-ports form to every switch, within 2x of QoS off; every
#     switch's SL2VL tables (smpquery, the pairs of used ports) hold the
#     policy and no pair the double wrote failed
#  3. the same policy without the double (the per-pair path): smpquery
#     reads the same tables, and that path costs more than 2x (so the
#     gate of 2 means something on this fabric)
# Seen failing: with sm/core/qos_program.c's optimized() returning false, step 2
# sent 17,101 SMPs, over 2x QoS off's 3,003 (it sends 4,691).
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/ibsim.sh"
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery ibnetdiscover
MADLOG_SO=$FABRICD_BUILD/tests/libmadlog.so
OPT_SO=$FABRICD_BUILD/tests/liboptsl2vl.so
[ -r "$MADLOG_SO" ] && [ -r "$OPT_SO" ] || fail "the MAD doubles are not built"

POLICY='  qos:
    classes:
      training:   { sl: 1, vl: 1, share: 50, priority: high }
      storage:    { sl: 2, vl: 2, share: 30, services: [nvme-of, nfs-rdma] }
      kv:         { sl: 3, vl: 3, share: 15 }
      management: { sl: 0, vl: 0, share: 5 }'
# SL 1-3 on their classes' VLs, every other SL on management's VL 0
WANT='| 0| 1| 2| 3| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0|'

# bring_up NAME YAML-EXTRA PRELOAD...: fabricd on a fresh ibsim with these
# doubles before umad2sim, until the subnet is up; its sends in $T/NAME.log
bring_up() {
	_name=$1 _extra=$2
	shift 2
	sim_stop
	sim_start || fail "ibsim ($_name)"
	fd_config "sm:
  enabled: true
  sweep_interval: 1h
$_extra"
	fd_start SIM_HOST=host1 LD_PRELOAD="$* $SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
	    MADLOG_FILE="$T/$_name.log" OPTSL2VL_COUNT="$T/$_name.count"
	sm_wait_up 60 || fail "$_name: subnet not up"
	# the bring-up's sends: what was logged by now (later ones: health's
	# PMA rounds, the SA's answers)
	[ -s "$T/$_name.log" ] || fail "$_name: madlog logged nothing"
	wc -l < "$T/$_name.log" > "$T/$_name.n"
}
# sent NAME: the SMPs (class 0x81 and 0x01) among the bring-up's sends
sent() { head -n "$(cat "$T/$1.n")" "$T/$1.log" | grep -c '^0x[08]1 '; }
count_of() { sed -n "s/^$2 \([0-9]*\)$/\1/p" "$T/$1.count"; }

# sl2vl_dump FILE: every switch's tables on its last used out port, and on
# out port 0 and its first used port of the first two leaves and spines:
# the rows of used in ports (and 0), keyed by node description (LIDs
# differ between runs), in a fixed order (smpquery reads an out port's
# tables for every in port at once; one call costs ~0.2 s here)
sl2vl_dump() {
	sim_diag -t 30 ibnetdiscover > "$T/disc.txt" || fail "ibnetdiscover"
	: > "$1"
	sed -n 's/^Switch.*"\([^"]*\)".* lid \([0-9]*\) .*/\1 \2/p' "$T/disc.txt" | sort |
	    while read -r sw lid; do
		used=$(awk -v sw="\"$sw\"" '/^Switch/ { on = index($0, "# " sw " ") > 0; next }
		    /^$/ { on = 0 } on && /^\[[0-9]+\]/ { print substr($1, 2, index($1, "]") - 2) }' \
		    "$T/disc.txt" | sort -n | tr '\n' ' ')
		[ -n "$used" ] || { echo "no used ports on $sw"; continue; }
		first=${used%% *}
		last=$(echo $used | awk '{ print $NF }')
		outs=$last
		case $sw in sw-l1 | sw-l2 | sw-s1 | sw-s2) outs="0 $first $last" ;; esac
		for out in $outs; do
			sim_diag smpquery sl2vl "$lid" "$out" | awk -v sw="$sw" -v used="0 $used" '
			    BEGIN { n = split(used, u, " "); for (i = 1; i <= n; i++) ok[u[i]] = 1 }
			    /^ports: in/ { split($0, a, /[ ,:]+/); if (a[3] in ok) print sw, $0 }'
		done
	    done >> "$1"
	grep -q '^no used ports' "$1" && fail "$(grep '^no used ports' "$1" | head -1)"
	# every switch's last used port, and out 0 and the first used of four
	got=$(awk '{ split($0, a, /out +/); split(a[2], b, ":"); print $1, b[1] }' "$1" | sort -u | wc -l)
	[ "$got" = $((26 + 4 * 2)) ] || fail "SL2VL dump: $got (switch, out port) tables, want 34"
	[ "$(grep -c . "$1")" -ge $((8 * 37 + 18 * 9)) ] || fail "short SL2VL dump: $(grep -c . "$1") rows"
}

sim_topology -k 8 -h 18 -s 18 || fail topogen
nsw=$(grep -c '^Switch' "$SIM_DIR/topo.net")
[ "$nsw" = 26 ] || fail "not the 26-switch tree ($nsw)"

# 1. QoS off: the floor
bring_up off '  qos:
    enabled: false' "$MADLOG_SO"
off=$(sent off)
fd_stop

# 2. the policy, every switch optimized
bring_up opt "$POLICY" "$MADLOG_SO" "$OPT_SO"
# the double done: its counts written after the bring-up's last send
# (fabricd_sent counts what madlog logs) with nothing left to write
i=0
until [ -s "$T/opt.count" ] && [ "$(count_of opt fabricd_sent)" -ge "$(cat "$T/opt.n")" ] &&
    [ "$(count_of opt pending)" = 0 ]; do
	[ $i -ge 300 ] && fail "the double did not finish: $(cat "$T/opt.count" 2>/dev/null)"
	i=$((i + 1))
	sleep 0.1
done
opt=$(sent opt)
[ "$opt" -le $((2 * off)) ] || fail "the four-class bring-up sent $opt SMPs, over 2x QoS off ($off)"
# fabricd's own all-ports Sets (bits 17 and 16 of the modifier), per switch path
allp=$(awk '$3 == "0x0017" && $2 == "0x02" && $4 == "0x00030000" { print $6, $7 }' "$T/opt.log" | sort -u | wc -l)
[ "$allp" -ge "$nsw" ] || fail "all-ports SL2VL Sets to $allp switch paths, want $nsw"
[ "$(count_of opt pairs_failed)" = 0 ] || fail "pairs the double wrote failed: $(cat "$T/opt.count")"
[ "$(count_of opt overflow)" = 0 ] || fail "the double passed Sets on unexpanded: $(cat "$T/opt.count")"
pairs=$(count_of opt pairs)
[ -n "$pairs" ] && [ "$pairs" -gt $((nsw * 100)) ] || fail "the double wrote '$pairs' pairs"
sl2vl_dump "$T/opt.txt"
bad=$(grep -vF ": $WANT" "$T/opt.txt" | head -3)
[ -z "$bad" ] || fail "optimized: tables not the policy's: $bad"
fd_stop

# 3. the policy per pair (no double): the same tables, at a higher price
bring_up pair "$POLICY" "$MADLOG_SO"
pair=$(sent pair)
awk '$3 == "0x0017" && $2 == "0x02" && $4 ~ /^0x0000/ { n++ } END { exit n < 1000 }' "$T/pair.log" ||
    fail "without the double: not the per-pair Sets"
grep -Eq '^0x[08]1 0x02 0x0017 0x000[123]' "$T/pair.log" && fail "without the double: an all-ports SL2VL Set"
sl2vl_dump "$T/pair.txt"
diff "$T/opt.txt" "$T/pair.txt" > "$T/diff.txt" || { head -10 "$T/diff.txt"; fail "optimized and per-pair tables differ"; }
fd_stop

echo "bring-up SMPs fabricd sent (madlog): QoS off $off, four classes optimized $opt" \
    "(the switches received $(count_of opt switches_received): $pairs pairs), per pair $pair"
[ "$pair" -gt $((2 * off)) ] || fail "per pair sent $pair, within 2x of $off: this fabric cannot tell"
pass
