#!/bin/sh
# The double that gives one process several umad devices, each on its own
# ibsim (tests/fixtures/mad/multisim.c, build/tests/libmultisim.so: what
# fabricd's planes, two subnets in one process, are tested on), is on each
# device what umad2sim is on that device's simulator.  Two simulators of
# different fabrics (A: a 2-level tree; B: a ring of three switches, its
# GUIDs moved so that none is A's), the double listing both (ibp0 on A,
# ibp1 on B, each host1), checked from outside with infiniband-diags and
# ibsim's console:
#  1. smpquery -C DEV nodeinfo (directed route 0) through the double says,
#     for each device, word for word what plain umad2sim's says on that
#     device's simulator, and the two differ; with the devices' simulators
#     swapped it does not (the check can fail);
#  2. ibnetdiscover -C DEV through the double prints the same nodes, ports
#     and links as umad2sim's on that simulator (its comments aside); A's
#     and B's node GUIDs differ;
#  3. with MULTISIM_LOG, every line of a tool's run names the device it was
#     told to use, and as many MADs come back as went out;
#  4. a bad MULTISIM_DEVICES (malformed, empty, a device named twice) or a
#     device whose simulator is not running makes smpquery fail, within
#     seconds, and says why;
#  5. fabricd as the SM on ibp1 (sm.port_guid), both devices listed: B's
#     subnet comes up with fabricd's port the master (sminfo from B's
#     host2), ibsim lists its client as an SM (the double's issm path),
#     every MAD it sent went through ibp1, and A is left unconfigured (no
#     LID in A's ibnetdiscover); after fd_stop ibsim lists no client left.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery ibnetdiscover sminfo
MS=$FABRICD_BUILD/tests/libmultisim.so
[ -r "$MS" ] || fail "no $MS (make builds it)"

sim_topology -k 2 -h 2 -s 1 || fail "topogen A"
"$FABRICD_BUILD/tools/topogen" -R 3 -h 1 -o "$T/ring.net" || fail "topogen B"
sed 's/^\(switchguid\|caguid\)=0x00/\1=0x0b/' "$T/ring.net" > "$T/b.net"
sim_start || fail "ibsim A"
sim_start_second "$T/b.net" || fail "ibsim B"
SOCK_A=$IBSIM_SOCKNAME
SOCK_B=$SIM2_SOCKNAME
[ -n "$SOCK_B" ] && [ "$SOCK_A" != "$SOCK_B" ] || fail "the simulators share a socket name"
DEVICES="ibp0=$SOCK_A:host1,ibp1=$SOCK_B:host1"
echo "MULTISIM_DEVICES=$DEVICES"

# plain SIM TOOL ARGS...: umad2sim's TOOL on simulator A or B, from host1
plain() {
	_s=$SOCK_A
	[ "$1" = B ] && _s=$SOCK_B
	shift
	(IBSIM_SOCKNAME=$_s; export IBSIM_SOCKNAME; sim_diag "$@")
}

# double TOOL ARGS...: TOOL through the double (MULTISIM_DEVICES: $DEVICES
# unless set otherwise), stderr kept in $T/double.err
double() {
	(cd "$T" && MULTISIM_DEVICES=${MSD-$DEVICES} LD_PRELOAD=$MS \
	    exec timeout -k 2 60 "$@" 2> "$T/double.err")
}

# ---- 1. NodeInfo of each device ----
for s in A B; do
	capture "$T/ni.plain.$s" plain "$s" smpquery -D nodeinfo 0
done
cmp -s "$T/ni.plain.A" "$T/ni.plain.B" && fail "A's and B's host1 have the same NodeInfo"
for d in 0 1; do
	s=A
	[ $d = 1 ] && s=B
	capture "$T/ni.double.$d" double smpquery -C ibp$d -P 1 -D nodeinfo 0
	cmp -s "$T/ni.double.$d" "$T/ni.plain.$s" ||
	    fail "smpquery -C ibp$d: not simulator $s's NodeInfo: $(diff "$T/ni.plain.$s" "$T/ni.double.$d")"
	grep "^PortGuid" "$T/ni.double.$d" | sed "s/^/ibp$d ($s): /"
done
# can it fail?  The devices' simulators swapped: ibp0 is B's host1.
MSD="ibp0=$SOCK_B:host1,ibp1=$SOCK_A:host1" capture "$T/ni.swapped" double smpquery -C ibp0 -D nodeinfo 0
cmp -s "$T/ni.swapped" "$T/ni.plain.A" && fail "ibp0 on B read as A's NodeInfo: the check cannot fail"
cmp -s "$T/ni.swapped" "$T/ni.plain.B" || fail "ibp0 on B is not B's host1"

# ---- 2. the fabric each device sees ----
# nodes FILE: the node GUIDs of an ibnetdiscover output
nodes() { sed -n 's/^\(switchguid\|caguid\)=\(0x[0-9a-f]*\).*/\2/p' "$1" | sort -u; }
for d in 0 1; do
	s=A
	[ $d = 1 ] && s=B
	capture "$T/net.plain.$s" plain "$s" ibnetdiscover
	MULTISIM_LOG=$T/ms.net.$d capture "$T/net.double.$d" double ibnetdiscover -C ibp$d -P 1
	grep -v '^#' "$T/net.plain.$s" > "$T/net.p"
	grep -v '^#' "$T/net.double.$d" > "$T/net.d"
	cmp -s "$T/net.p" "$T/net.d" ||
	    fail "ibnetdiscover -C ibp$d is not simulator $s's fabric: $(diff "$T/net.p" "$T/net.d" | head -20)"
	nodes "$T/net.double.$d" > "$T/nodes.$s"
	echo "ibp$d ($s): $(wc -l < "$T/nodes.$s") nodes," \
	    "$(grep -c '^\[[0-9]*\].*"[SH]-[0-9a-f]*"\[[0-9]*\]' "$T/net.d") cabled ports"
done
[ "$(wc -l < "$T/nodes.A")" -eq 7 ] && [ "$(wc -l < "$T/nodes.B")" -eq 6 ] ||
    fail "not the fabrics topogen wrote: $(wc -l < "$T/nodes.A") and $(wc -l < "$T/nodes.B") nodes"
[ -z "$(comm -12 "$T/nodes.A" "$T/nodes.B")" ] || fail "A and B share node GUIDs"

# ---- 3. every MAD through the device named ----
# log_only FILE DEV WHO [-a]: FILE's lines all name DEV, and (unless -a: a
# daemon may stop with a MAD in flight, or get a trap) as many MADs came
# back as went out
log_only() {
	_n=$(wc -l < "$1")
	_other=$(grep -vc "^[a-z]* dev=$2 class=0x[0-9a-f]* method=0x[0-9a-f]* attr=0x[0-9a-f]* mod=0x[0-9a-f]* t=[0-9]*\$" "$1")
	_sent=$(grep -c '^send ' "$1")
	_got=$(grep -c '^recv ' "$1")
	echo "MULTISIM_LOG of $3: $_n lines, $_sent sent and $_got received through $2"
	[ "$_n" -ge 2 ] || fail "$3: $_n lines in MULTISIM_LOG"
	[ "$_other" -eq 0 ] || fail "$3: $_other lines not through $2: $(grep -v " dev=$2 " "$1" | head -3)"
	[ "$_sent" -gt 0 ] && [ "$_got" -gt 0 ] || fail "$3: nothing sent or received through $2"
	[ "${4:-}" = -a ] || [ "$_sent" -eq "$_got" ] || fail "$3: $_sent MADs sent through $2, $_got received"
}
for d in 0 1; do
	log_only "$T/ms.net.$d" ibp$d "ibnetdiscover -C ibp$d"
done
MULTISIM_LOG=$T/ms.ni capture "$T/ni.logged" double smpquery -C ibp1 -D nodeinfo 0
log_only "$T/ms.ni" ibp1 "smpquery -C ibp1"

# ---- 4. a bad device list, a simulator not running ----
# refused VALUE WHY: smpquery with MULTISIM_DEVICES=VALUE fails in time, saying WHY
refused() {
	t0=$(date +%s)
	MSD=$1 double smpquery -C ibp0 -D nodeinfo 0 > /dev/null
	rc=$?
	[ $rc -ne 0 ] || fail "MULTISIM_DEVICES=\"$1\": smpquery succeeded"
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "MULTISIM_DEVICES=\"$1\": smpquery hung"
	grep -q "^multisim: .*$2" "$T/double.err" ||
	    fail "MULTISIM_DEVICES=\"$1\": not said why: $(cat "$T/double.err")"
	echo "MULTISIM_DEVICES=\"$1\": exit $rc in $(($(date +%s) - t0)) s: $(grep -m1 '^multisim' "$T/double.err")"
}
refused "ibp0" "not DEV=SOCKNAME:NODE"
refused "ibp0=$SOCK_A" "not DEV=SOCKNAME:NODE"
refused "ibp0=:host1" "empty"
refused "" "not set"
refused "ibp0=$SOCK_A:host1,ibp0=$SOCK_B:host1" "named twice"
refused "ibp0=${SOCK_A}-none:host1" "no simulator"
refused "ibp0=$SOCK_A:nosuchhost" "refused node"

# ---- 5. fabricd on one of the two ----
guid_b1=$(sed -n 's/^PortGuid:\.*//p' "$T/ni.plain.B")
[ -n "$guid_b1" ] || fail "no port GUID in B's NodeInfo"
fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}
  port_guid: $guid_b1"
fd_start LD_PRELOAD="$MS" MULTISIM_DEVICES="$DEVICES" MULTISIM_LOG="$T/ms.fd"
sm_wait_up 30 || fail "fabricd on ibp1: subnet B not up within 30 s"
sminfo_b=$(plain B -H host2 sminfo)
echo "B: $sminfo_b"
case $sminfo_b in
*"sm guid 0x${guid_b1#0x0}"*SMINFO_MASTER*) ;;
*) fail "B's SM is not fabricd's port $guid_b1: $sminfo_b" ;;
esac
sim_second_console Attached || fail "ibsim B's console"
grep -q "connected at \"host1\".* SM" "$SIM2_DIR/ibsim.out" ||
    fail "ibsim B lists no SM client at host1: $(grep 'Client' "$SIM2_DIR/ibsim.out" | tail -3)"
capture "$T/net.after.A" plain A ibnetdiscover
grep -q ' lid [1-9]' "$T/net.after.A" && fail "simulator A got LIDs: $(grep -m3 ' lid [1-9]' "$T/net.after.A")"
capture "$T/net.after.B" plain B ibnetdiscover
grep -q '"host1" lid [1-9]' "$T/net.after.B" || fail "B's host1 has no LID: $(grep host1 "$T/net.after.B")"
fd_stop
log_only "$T/ms.fd" ibp1 fabricd -a
seen=$(wc -l < "$SIM2_DIR/ibsim.out")
sim_second_console Attached || fail "ibsim B's console"
tail -n +"$((seen + 1))" "$SIM2_DIR/ibsim.out" | grep 'Client [0-9]*: pid' > "$T/attached.after"
[ -s "$T/attached.after" ] && fail "clients left on ibsim B after fabricd stopped: $(cat "$T/attached.after")"
pass
