# roce_qos lint: each rule has a failing profile; fabricd -n and
# "roce lint --file" reject it at the offending value's file:line:column
# (located here with grep/awk in the file itself), exit 1, and a reload
# with it leaves the NIC untouched (the netlink double saw no write).
# A class without a priority (tests/fuzz/corpus/roce_profile/) is an error
# at the class's name, and linting it leaves the daemon answering.
. "$FABRICD_SRC/tests/lib/common.sh"
SHIM="$FABRICD_BUILD/tests/libroce_nlfake.so"
fd_setup
NIC="$T/nic.state"
LOG="$T/nl.log"
: > "$LOG"

profile_config() {	# file, profile lines (indented 4)
	fd_config "roce_qos:
  enabled: true
  interfaces: [mlx0]
  poll_interval: 1h
  profile:
    base: nvidia-lossless
$2"
	mv "$CONF" "$1"
}

# line:column of the first occurrence of TEXT on the line that has KEY
locate() {	# file key text
	awk -v k="$2" -v t="$3" 'index($0, k) && !done { print NR ":" index($0, t); done = 1 }' "$1"
}

check_rule() {	# rule key text message-part profile-lines
	f="$T/$1.yaml"
	profile_config "$f" "$5"
	want="$f:$(locate "$f" "$2" "$3"): roce_qos profile lint [$1]"
	out=$("$FABRICD" -n -c "$f" 2>&1); rc=$?
	[ $rc = 1 ] || fail "$1: fabricd -n exited $rc: $out"
	printf '%s\n' "$out" | grep -qF "$want" || fail "$1: want \"$want\", got: $out"
	printf '%s\n' "$out" | grep -qF "$4" || fail "$1: message lacks \"$4\": $out"
	out=$(ctl roce lint --file "$f" 2>&1); rc=$?
	[ $rc = 1 ] || fail "$1: roce lint --file exited $rc"
	printf '%s\n' "$out" | grep -qF "$want" || fail "$1: roce lint: $out"
}

# a daemon with a clean profile that never applies on its own
profile_config "$T/good.yaml" ""
cp "$T/good.yaml" "$CONF"
fd_start LD_PRELOAD="$SHIM" NLFAKE_STATE="$NIC" NLFAKE_LOG="$LOG"
ctl roce lint >/dev/null || fail "clean profile fails lint"

check_rule ets-sum "bandwidth:" "[" "sum to 90, expected 100" "    ets:
      prio_tc: [0, 0, 0, 3, 0, 0, 6, 0]
      tsa: [ets, ets, ets, ets, ets, ets, strict, ets]
      bandwidth: [50, 0, 0, 40, 0, 0, 0, 0]"
check_rule tos-lossless "roce_tos:" "96" "DSCP 24" "    roce_tos: 96
    nccl_tc: 96"
check_rule cnp-lossy "cnp_priority:" "6" "CNP priority 6" "    pfc:
      priorities: [3, 6]
    ecn:
      priorities: [3]
      cnp_dscp: 48
      cnp_priority: 6"
check_rule lossless-buffer "prio2buffer:" "prio2buffer" "priority 3 maps to buffer 1" "    buffer:
      prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0]
      sizes: [262144, 0, 0, 0, 0, 0, 0, 0]"
check_rule trust-map "trust:" "pcp" "trust is pcp" "    trust: pcp"
check_rule nccl-tc "nccl_tc:" "104" "differs from the RoCE ToS 106" "    nccl_tc: 104"
check_rule storm-range "pfc_storm_prevention:" "50" "50 ms is out of range" "    pfc_storm_prevention: 50"

# a class without a priority (found by fuzzing: it kept priority -1, which
# indexed the ETS arrays) is an error at the class's name, for fabricd -n
# and for the running daemon, which goes on answering
check_no_priority() {	# file
	want="$1:$(locate "$1" "training" "training"): class training has no priority"
	out=$("$FABRICD" -n -c "$1" 2>&1); rc=$?
	[ $rc = 1 ] || fail "class without priority: fabricd -n exited $rc: $out"
	printf '%s\n' "$out" | grep -qF "$want" || fail "want \"$want\", got: $out"
	out=$(ctl roce lint --file "$1" 2>&1); rc=$?
	[ $rc = 1 ] || fail "class without priority: roce lint --file exited $rc: $out"
	printf '%s\n' "$out" | grep -qF "$want" || fail "roce lint: want \"$want\", got: $out"
	ctl status >/dev/null || fail "no status after linting a class without priority"
}
check_no_priority "$FABRICD_SRC/tests/fuzz/corpus/roce_profile/class_without_priority.yaml"
profile_config "$T/no-priority.yaml" "    classes:
      training: { dscp: [26], lossless: true, ets: 100 }"
check_no_priority "$T/no-priority.yaml"

# nothing applied: reload with a failing profile is refused, no write sent
cp "$T/trust-map.yaml" "$CONF"
ctl reload >/dev/null 2>&1 && fail "reload accepted a profile that fails lint"
out=$(ctl roce apply --dry-run 2>&1) || fail "dry run: $out"
[ "$(cut -c9-12 "$LOG" | grep -c 4f00)" = 0 ] || fail "a write reached the NIC"
fd_stop
# and a daemon never starts on one
"$FABRICD" -c "$T/nccl-tc.yaml" >/dev/null 2>&1 && fail "fabricd started with a profile that fails lint"
[ "$(cut -c9-12 "$LOG" | grep -c 4f00)" = 0 ] || fail "a write reached the NIC"
pass
