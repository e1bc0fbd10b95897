#!/bin/sh
# fabricd on a plane presented as an SMI/GSI pair (Linux 6.11 mlx5
# multi-plane; docs/sm.md "SMI/GSI pairs"): one 16-host tree (4 leaves x
# 4 hosts, 2 spines) in ibsim, fabricd on host1 through the multisim
# double (tests/fixtures/mad/multisim.c) with host1's port shown as two
# devices, smi0 (QP0: SMPs only) and ibp0 (its GSI parent: every other
# class, SMPs refused, IsSMDisabled in its CapabilityMask), sm.port_guid
# naming the port (ibp0 is listed first, so the GSI parent is the device
# found).  fabricd learns the pair from the double's
# umad_get_smi_gsi_pair_by_ca_name() (rdma-core v56's call, found with
# dlsym).  Checked from outside:
#  - the subnet comes up: sminfo from host2 says fabricd's port is the
#    MASTER, and ibnetdiscover from host2 shows a LID on all 22 nodes;
#  - saquery from host3 is answered: a NodeRecord for each LID, and the
#    IsSM port is fabricd's (the SA served through ibp0);
#  - MULTISIM_LOG: every SMP fabricd sent left through smi0 and every
#    other MAD (SA answers among them) through ibp0, none refused, and
#    sminfo's SMInfo Get, given by ibsim to ibp0 (the IsSM client), passed
#    by the double to smi0 and answered there;
#  - a tool that tries SMPs on the GSI device (sminfo -C ibp0
#    through the double) fails, and the double logs it refused: a MAD on
#    the wrong path cannot pass unnoticed.
# Then two planes, each an SMI/GSI pair (the same tree in a second ibsim,
# sm.subnets naming the GSI parents ibp0 and ibp1, as sm_subnets.sh): both
# subnets up with fabricd's port the master on each (sminfo) and its
# SA naming it the IsSM port (saquery -s from host3), every SMP
# through smi0 or smi1, every other MAD through ibp0 or ibp1, each of the
# four used, none refused.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery ibnetdiscover sminfo saquery jq
MS=$FABRICD_BUILD/tests/libmultisim.so
[ -r "$MS" ] || fail "no $MS (make builds it)"
sim_topology -k 4 -h 4 -s 2 -P 6 || fail "topogen"
sim_start || fail "ibsim"
DEVICES="ibp0=$IBSIM_SOCKNAME:host1,smi0=$IBSIM_SOCKNAME:host1"
PAIRS="smi0:ibp0"

guid=$(sim_port_guid host1)
[ -n "$guid" ] || fail "no port GUID for host1"
fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}
  port_guid: $guid"
fd_start LD_PRELOAD="$MS" MULTISIM_DEVICES="$DEVICES" MULTISIM_PAIRS="$PAIRS" \
    MULTISIM_LOG="$T/ms.fd"
sm_wait_up 30 || fail "subnet not up within 30 s: $(tail -5 "$T/fabricd.log")"
grep -q "is an SMI/GSI pair: SMPs through smi0 port 1, the other classes through ibp0 port 1" \
    "$T/fabricd.log" || fail "fabricd did not say it uses the pair: $(grep 'mad:' "$T/fabricd.log")"

# the subnet, from outside
own=$(sm_guid_of host1)
s=$(sim_diag -H host2 sminfo) || fail "sminfo from host2"
echo "sminfo from host2: $s"
case $s in
*"sm guid 0x$own,"*SMINFO_MASTER*) ;;
*) fail "fabricd's port 0x$own is not the master: $s" ;;
esac
lids=$(SIM_HOST=host2 sm_lids | awk '$2 > 0' | wc -l)
echo "ibnetdiscover from host2: $lids nodes with a LID"
[ "$lids" -eq 22 ] || fail "$lids of 22 nodes have a LID: $(SIM_HOST=host2 sm_lids | head -30)"

# the SA, served over the GSI device: a NodeRecord for every LID (one
# record a query: the double, as umad2sim, carries no RMPP), and the
# IsSM port fabricd's, whose issm file is the GSI parent's
field() { sed -n "s/^[[:space:]]*$1[.:]*\(.*\)$/\1/p" | head -1; }
SIM_HOST=host2 sm_lids > "$T/lids"
n=0
while read -r g lid; do
	nr=$(sim_diag -H host3 -t 10 saquery NR "$lid") || fail "saquery NR $lid from host3"
	[ "$(echo "$nr" | grep -c 'NodeRecord dump')" = 1 ] && [ "$(echo "$nr" | field lid)" = "$lid" ] ||
	    fail "saquery NR $lid ($g): $nr"
	n=$((n + 1))
done < "$T/lids"
h1=$(SIM_HOST=host2 sm_lid_of host1)
issm=$(sim_diag -H host3 -t 10 saquery -s | sed -n '/^IsSM ports/,/^IsSMdisabled/p' | field EndPortLid)
echo "saquery from host3: a NodeRecord for each of $n LIDs; IsSM port LID $issm"
[ "$n" -eq 22 ] || fail "$n LIDs asked of the SA"
[ "$issm" = "$h1" ] || fail "saquery -s: IsSM ports '$issm', want fabricd's LID $h1"

fd_stop

# every MAD fabricd sent on its path
smi_smp=$(grep -c '^send dev=smi0 class=0x\(01\|81\) ' "$T/ms.fd")
gsi_other=$(grep '^send dev=ibp0 ' "$T/ms.fd" | grep -vc ' class=0x\(01\|81\) ')
sa=$(grep -c '^send dev=ibp0 class=0x03 ' "$T/ms.fd")
wrong=$(grep '^send ' "$T/ms.fd" | grep -v '^send dev=smi0 class=0x\(01\|81\) ' |
    grep -v '^send dev=ibp0 class=0x\(0[02-9a-f]\|[1-79a-f][0-9a-f]\|8[02-9a-f]\) ' | head -3)
refused=$(grep -c '^refused ' "$T/ms.fd")
echo "MULTISIM_LOG of fabricd: $smi_smp SMPs through smi0, $gsi_other other MADs through" \
    "ibp0 ($sa SA), $refused refused"
[ -z "$wrong" ] || fail "MADs off their path: $wrong"
[ "$refused" -eq 0 ] || fail "the double refused fabricd's MADs: $(grep -m3 '^refused' "$T/ms.fd")"
[ "$smi_smp" -gt 100 ] || fail "only $smi_smp SMPs through smi0"
[ "$sa" -ge 2 ] || fail "only $sa SA answers through ibp0"
# sminfo's SMInfo Get reached the IsSM client, ibp0's, and was passed to
# smi0, where fabricd answered it (as a kernel's QP0 would have taken it)
passed=$(grep -c '^pass dev=ibp0 class=0x01 method=0x01 attr=0x0020' "$T/ms.fd")
[ "$passed" -ge 1 ] || fail "no SMInfo Get passed from ibp0 to smi0: $(grep -m3 '^pass' "$T/ms.fd")"

# SMPs through the GSI device are refused (the check above can fail)
(cd "$T" && MULTISIM_DEVICES=$DEVICES MULTISIM_PAIRS=$PAIRS MULTISIM_LOG="$T/ms.tool" \
    LD_PRELOAD=$MS exec timeout -k 2 30 sminfo -C ibp0 > "$T/tool.out" 2>&1)
rc=$?
[ $rc -ne 0 ] || fail "sminfo -C ibp0 succeeded through the GSI device: $(cat "$T/tool.out")"
[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "sminfo -C ibp0 hung"
grep -q '^refused dev=ibp0 class=0x\(01\|81\) ' "$T/ms.tool" ||
    fail "the double did not log the refused SMP: $(cat "$T/ms.tool" "$T/tool.out")"
echo "sminfo -C ibp0: exit $rc, $(grep -m1 '^refused' "$T/ms.tool")"

# ---- two planes, each an SMI/GSI pair ----
sim_start_second "$SIM_DIR/topo.net" || fail "ibsim plane 2"
SOCK_1=$IBSIM_SOCKNAME
SOCK_2=$SIM2_SOCKNAME
fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}
$SM_TWO_SUBNETS"
fd_start LD_PRELOAD="$MS" MULTISIM_PAIRS="smi0:ibp0,smi1:ibp1" MULTISIM_LOG="$T/ms.planes" \
    MULTISIM_DEVICES="ibp0=$SOCK_1:host1,smi0=$SOCK_1:host1,ibp1=$SOCK_2:host1,smi1=$SOCK_2:host1"
sm_wait_subnets_up 30 plane1 plane2
for n in 1 2; do
	[ $n = 1 ] && sock=$SOCK_1 || sock=$SOCK_2
	s=$(IBSIM_SOCKNAME=$sock sim_diag -H host2 sminfo) || fail "sminfo on plane $n"
	echo "plane $n: $s"
	case $s in
	*"sm guid 0x$own,"*SMINFO_MASTER*) ;;
	*) fail "plane $n: fabricd's port 0x$own is not the master: $s" ;;
	esac
	# each plane's SA, through its own GSI device (health and the rest
	# serve the first subnet only: the SA's answers are plane 2's GSI MADs)
	sm_lid=$(echo "$s" | sed -n 's/.*sm lid \([0-9]*\) .*/\1/p')
	issm=$(IBSIM_SOCKNAME=$sock sim_diag -H host3 -t 10 saquery -s |
	    sed -n '/^IsSM ports/,/^IsSMdisabled/p' | field EndPortLid)
	[ -n "$sm_lid" ] && [ "$issm" = "$sm_lid" ] ||
	    fail "plane $n: saquery -s: IsSM ports '$issm', want the SM's LID $sm_lid"
done
fd_stop
wrong=$(grep '^send ' "$T/ms.planes" | grep -v '^send dev=smi[01] class=0x\(01\|81\) ' |
    grep -v '^send dev=ibp[01] class=0x\(0[02-9a-f]\|[1-79a-f][0-9a-f]\|8[02-9a-f]\) ' | head -3)
[ -z "$wrong" ] || fail "two planes: MADs off their path: $wrong"
grep -q '^refused ' "$T/ms.planes" && fail "two planes: refused: $(grep -m3 '^refused' "$T/ms.planes")"
counts=""
for d in smi0 smi1 ibp0 ibp1; do
	c=$(grep -c "^send dev=$d " "$T/ms.planes")
	[ "$c" -gt 0 ] || fail "two planes: nothing sent through $d"
	counts="$counts $d $c,"
done
echo "two planes: sent through${counts%,}; none off its path, none refused"
pass
