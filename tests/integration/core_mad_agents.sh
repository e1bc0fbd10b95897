#!/bin/sh
# Which requests fabricd's agents take: the method masks of its agent
# registrations.  A kernel hands a request only to the agent whose mask
# names its method (an agent registered without one hears only the
# answers to its own MADs: an SM no SMInfo and no trap, an SA no query);
# umad2sim ignores masks (shared notes 7.5), so they are read below the
# API, where fabricd hands them to libibumad
# (tests/fixtures/mad/sendspy.c), and compared with the IBA's method
# numbers:
#  1. the SM: SubnGet, SubnSet and Trap on both SMP classes (0x01,
#     0x81), the SA's query methods (Get, Set, GetTable, GetTraceTable,
#     GetMulti, Delete), nothing on the other classes;
#  2. an observer (the SM off): only the SA's Report, no SMP request
#     (another SM may share its port);
#  3. where another agent holds those methods (the double refuses every
#     masked registration, as the kernel does then): fabricd registers
#     again for answers only, says what will not reach it, and still
#     brings the subnet up.
. "$FABRICD_SRC/tests/lib/sm.sh"
SPY=$FABRICD_BUILD/tests/libumad_sendspy.so
[ -r "$SPY" ] || fail "no $SPY (make all builds it)"
sim_test_setup
sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail ibsim

# the IBA's method numbers (Vol 1, 13.4.5 and 15.2.2), bit N for method N
GET=1 SET=2 TRAP=5 REPORT=6 GETTABLE=18 GETTRACETABLE=19 GETMULTI=20 DELETE=21
bits() { _m=0; for _b in "$@"; do _m=$((_m | (1 << _b))); done; printf '0x%032x' "$_m"; }
SMP_WANT=$(bits $GET $SET $TRAP)
SA_WANT=$(bits $GET $SET $GETTABLE $GETTRACETABLE $GETMULTI $DELETE)
NONE=$(bits)

# mask LOG CLASS: the mask of the last successful registration of CLASS
# (the SA's: the one without registration flags, not the RMPP probe)
mask() {
	grep -E "^register2? class=$2 .*rc=0$" "$1" | grep -v 'flags=0x1 ' | tail -1 |
	    sed -n 's/.* mask=\(0x[0-9a-f]*\) .*/\1/p'
}
expect() {	# LOG CLASS WANT WHAT
	_got=$(mask "$1" "$2")
	[ "$_got" = "$3" ] || fail "$4: class $2 registered with mask ${_got:-none}, want $3: $(grep "class=$2 " "$1")"
}

# ---- 1. the SM ----
fd_config "sm:
  enabled: true"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD $SPY" SENDSPY_LOG="$T/spy-sm.log" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up"
expect "$T/spy-sm.log" 0x01 "$SMP_WANT" "SM"
expect "$T/spy-sm.log" 0x81 "$SMP_WANT" "SM"
expect "$T/spy-sm.log" 0x03 "$SA_WANT" "SM"
for c in 0x04 0x07 0x06 0x08; do expect "$T/spy-sm.log" $c "$NONE" "SM"; done
sim_diag -H host2 -t 10 saquery > "$T/nr.txt" 2>&1 || fail "saquery against the SM: $(head -3 "$T/nr.txt")"
fd_stop
echo "SM: SMP classes take Get, Set and Trap; the SA its six query methods; the rest answers only"

# ---- 2. an observer ----
fd_config "sm:
  enabled: false"
fd_start SIM_HOST=host2 LD_PRELOAD="$SIM_PRELOAD $SPY" SENDSPY_LOG="$T/spy-obs.log" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
expect "$T/spy-obs.log" 0x01 "$NONE" "observer"
expect "$T/spy-obs.log" 0x81 "$NONE" "observer"
expect "$T/spy-obs.log" 0x03 "$(bits $REPORT)" "observer"
fd_stop
echo "observer: only the SA's Report"

# ---- 3. the methods held by another agent ----
: > "$T/fabricd.log"
fd_config "sm:
  enabled: true"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD $SPY" SENDSPY_LOG="$T/spy-refused.log" \
    SENDSPY_REFUSE_MASKED=1 IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
sm_wait_up 60 || fail "subnet not up with the masks refused"
for c in 0x01 0x81; do
	grep -q "^register class=$c .* mask=$SMP_WANT rc=-" "$T/spy-refused.log" ||
	    fail "class $c: no refused masked registration: $(grep "class=$c " "$T/spy-refused.log")"
	expect "$T/spy-refused.log" $c "$NONE" "refused"
	grep -q "class $c: another agent on this port takes SMInfo and traps" "$T/fabricd.log" ||
	    fail "class $c: the log does not say what will not arrive"
done
expect "$T/spy-refused.log" 0x03 "$NONE" "refused"
grep -q "class 0x03: another agent on this port takes the SA's queries" "$T/fabricd.log" ||
    fail "class 0x03: the log does not say what will not arrive"
fd_stop
echo "refused: registered again for answers only, the log says what will not arrive, the subnet came up"
