# Helpers for the SM's integration tests.  Everything checked here comes
# from infiniband-diags run as other clients of the simulator, never from
# fabricd's own answers.  A test on the simulator needs only this line:
#   . "$FABRICD_SRC/tests/lib/sm.sh"
# (it brings common.sh and ibsim.sh unless they are already sourced).
command -v fd_setup >/dev/null 2>&1 || . "${FABRICD_SRC:?FABRICD_SRC not set}/tests/lib/common.sh"
command -v sim_start >/dev/null 2>&1 || . "$FABRICD_SRC/tests/lib/ibsim.sh"

# sim_test_setup [TOOL...]: the start of a test on the simulator: ibsim,
# umad2sim and the named tools present (else the test fails: make deps
# installs them all), the scratch folder (fd_setup), SIM_DIR=$T/sim, and
# the simulator stopped at exit, after fabricd (fd_cleanup).
sim_test_setup() {
	sim_require
	need "$@"
	fd_setup
	fd_on_exit sim_stop
	SIM_DIR=$T/sim
}

# sim_fabric_up [-H HOST] [-w SECS] "TOPOGEN-ARGS" [YAML-EXTRA]: the usual
# preamble in one call: sim_test_setup (unless done), topogen, ibsim,
# fabricd as the SM on HOST (host1; sm_start_fabricd, SM_SWEEP), and the
# subnet up within SECS (30); any step that fails fails the test.
sim_fabric_up() {
	_host=host1
	_wait=30
	while :; do
		case $1 in
		-H) _host=$2; shift 2 ;;
		-w) _wait=$2; shift 2 ;;
		*) break ;;
		esac
	done
	[ -n "${T:-}" ] || sim_test_setup
	# shellcheck disable=SC2086
	sim_topology $1 || fail "topogen $1"
	sim_start || fail "ibsim"
	sm_start_fabricd "$_host" "${2:-}"
	sm_wait_up "$_wait" || fail "subnet not up within ${_wait}s"
}

# make_sim_up: `make sim`'s own simulation (tools/sim.sh: its
# configuration, doubles and all) in $T/sim, on a tree smaller than its
# 324 hosts (4 leaves x 8 hosts, 2 spines), stopped at exit; then SIM_DIR,
# SIM_PID (for sim_console), IBSIM_SOCKNAME and SOCK (exported as
# FABRICD_SOCKET) as sim_start and fd_setup would set them, and what make
# sim printed in $T/sim.out.
make_sim_up() {
	SIM_TOPO="-k 4 -h 8 -s 2" sh "$FABRICD_SRC/tools/sim.sh" start "$FABRICD_BUILD" "$T/sim" \
	    > "$T/sim.out" 2>&1 || fail "tools/sim.sh start: $(tail -20 "$T/sim.out")"
	fd_on_exit "sh '$FABRICD_SRC/tools/sim.sh' stop '$FABRICD_BUILD' '$T/sim' > /dev/null 2>&1"
	SIM_DIR=$T/sim
	SIM_PID=$(cat "$SIM_DIR/ibsim.pid")
	SOCK=$SIM_DIR/fabricd.sock
	export FABRICD_SOCKET="$SOCK"
	IBSIM_SOCKNAME=$(sed -n 's/^export IBSIM_SOCKNAME="\([^"]*\)".*/\1/p' "$SIM_DIR/sim.env")
	export IBSIM_SOCKNAME
}

# sm_start_fabricd HOST [YAML-EXTRA]: fabricd as the SM attached to HOST.
# The one setting it lowers is sweep_interval, 2 s (SM_SWEEP) against the
# default 10 s, so that a test which waits for a sweep to see a change
# waits 2 s, not 10.  Everything else is the default, and the tests that
# change no setting at all prove the same features on the defaults:
# sm_defaults (audit repair beside the light sweeps, loss recovery,
# osmtest, status under load), sm_cost_gate, health_storm, sm_qos_rss.
sm_start_fabricd() {
	fd_config "sm:
  enabled: true
  sweep_interval: ${SM_SWEEP:-2s}${2:+
$2}"
	fd_start SIM_HOST="$1" LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME"
}

# sm_wait_up [SECS]: until `status` says the subnet is up (1: not within
# SECS, or the fabricd fd_start started has died).
sm_wait_up() {
	i=0
	until ctl status 2>/dev/null | grep -q '^    state: up'; do
		[ $i -ge $((${1:-20} * 10)) ] && return 1
		[ -z "${FD_PID:-}" ] || kill -0 "$FD_PID" 2>/dev/null || return 1
		i=$((i + 1))
		sleep 0.1
	done
}

# The sm.subnets lines of two planes on the double's ibp0 and ibp1.
SM_TWO_SUBNETS="  subnets:
    - name: plane1
      port: ibp0:1
    - name: plane2
      port: ibp1:1"

# sm_two_planes: two planes of the 16-host tree (4 leaves x 4 hosts, 2
# spines; the same net file, so the same GUIDs), each its own ibsim:
# SOCK_1 and SOCK_2 their sockets, MS the multisim double that joins a
# process to both (tests/fixtures/mad/multisim.c).
sm_two_planes() {
	MS=$FABRICD_BUILD/tests/libmultisim.so
	[ -r "$MS" ] || fail "no $MS (make builds it)"
	sim_topology -k 4 -h 4 -s 2 -P 6 || fail "topogen"
	sim_start || fail "ibsim plane 1"
	sim_start_second "$SIM_DIR/topo.net" || fail "ibsim plane 2"
	SOCK_1=$IBSIM_SOCKNAME
	SOCK_2=$SIM2_SOCKNAME
}

# The same two planes as one plane group (gpu): partitions serve both.
SM_TWO_PLANES_GROUP="  subnets:
    - name: plane1
      port: ibp0:1
      group: gpu
    - name: plane2
      port: ibp1:1
      group: gpu"

# plane_sim N CMD...: CMD against plane N's simulator of sm_two_planes
# (SIM_DIR and IBSIM_SOCKNAME of that plane, in a subshell).
plane_sim() (
	if [ "$1" = 2 ]; then SIM_DIR=$SIM2_DIR IBSIM_SOCKNAME=$SOCK_2; else IBSIM_SOCKNAME=$SOCK_1; fi
	export IBSIM_SOCKNAME
	shift
	"$@"
)

# planes_daemon DIR HOST SM_LINES: fabricd on HOST of both planes of
# sm_two_planes (the multisim double), its files in DIR, MULTISIM_LOG
# DIR/ms.log; its sm section SM_LINES ("  enabled: false", two spaces in)
# and SM_TWO_SUBNETS.  Its PID in PLANES_PID, killed when the test ends.
planes_daemon() {
	mkdir -p "$1/run" "$1/state"
	printf 'socket: %s\nstate_dir: %s\nlog_level: debug\nsm:\n%s\n%s\n' "$1/run/fabricd.sock" \
	    "$1/state" "$3" "$SM_TWO_SUBNETS" > "$1/fabricd.yaml"
	(cd "$1" && exec env LD_PRELOAD="$MS" MULTISIM_DEVICES="ibp0=$SOCK_1:$2,ibp1=$SOCK_2:$2" \
	    MULTISIM_LOG="$1/ms.log" "$FABRICD" -c "$1/fabricd.yaml" >> "$1/fabricd.log" 2>&1) &
	PLANES_PID=$!
	fd_on_exit "kill -KILL $PLANES_PID 2>/dev/null"
}

# sm_wait_subnets_up SECS NAME...: until status lists exactly these
# subnets of sm.subnets, in order, each up (else the test fails, naming
# each one's state).
sm_wait_subnets_up() {
	_secs=$1
	shift
	_want=$(printf '"%s up",' "$@")
	_want="[${_want%,}]"
	_i=0
	until [ "$(ctl --json status 2>/dev/null |
	    jq -c '[.sm.subnets[]? | "\(.name) \(.subnet_state)"]')" = "$_want" ]; do
		[ $_i -ge $((_secs * 10)) ] && fail "subnets $* not all up within $_secs s: $(ctl --json status |
		    jq -c '[.sm.subnets[]? | {name, state: .subnet_state}]')"
		_i=$((_i + 1))
		sleep 0.1
	done
}

# sm_lids: "GUID LID" for every LID-carrying port ibnetdiscover sees
# (switches by node GUID, CA ports by port GUID), sorted.
sm_lids() {
	sim_diag ibnetdiscover | awk '
	/^switchguid=/ { split($1, a, "[=(]"); sw = a[2] }
	/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") print sw, $(i + 1); inca = 0; next }
	/^(Ca|Hca)/ { inca = 1; next }
	inca && /^\[[0-9]+\]\(/ {
		match($0, /\([0-9a-f]+\)/); g = substr($0, RSTART + 1, RLENGTH - 2)
		for (i = 1; i <= NF; i++) if ($i == "lid") { print "0x" g, $(i + 1); break }
	}' | sort
}

# sm_lid_of HOST: the LID of a host's port 1 as ibnetdiscover shows it.
sm_lid_of() {
	sim_diag ibnetdiscover | sed -n "s/.*\"$1\" lid \([0-9]*\) .*/\1/p" | head -1
}

# sm_lft_dump: every switch's LFT as ibroute prints it, switch by switch.
sm_lft_dump() {
	for lid in $(sim_diag ibnetdiscover 2>/dev/null | sed -n 's/^Switch.* lid \([0-9]*\) .*/\1/p' | sort -n); do
		echo "== $lid"
		sim_diag ibroute "$lid" 2>/dev/null | grep -v '^Unicast lids'
	done
}

# sm_sminfo_at [LID]: sminfo from host4 (a host that runs no SM), at LID or
# at the SM LID its port holds.  Prints "GUID PRIORITY STATE" (GUID without
# leading zeros, STATE as sminfo names it: MASTER, STANDBY, NOTACT...).
sm_sminfo_at() {
	sim_diag -H host4 -t 10 sminfo ${1:+"$1"} |
	    sed -n 's/.*sm guid 0x0*\([0-9a-f]*\),.* priority \([0-9]*\) state [0-9]* SMINFO_\([A-Z]*\).*/\1 \2 \3/p'
}

# sm_wait_sminfo SECS WANT [LID]: until sm_sminfo_at prints WANT.
sm_wait_sminfo() {
	i=0
	while [ "$(sm_sminfo_at "$3")" != "$2" ]; do
		[ $i -ge $(($1 * 5)) ] && return 1
		i=$((i + 1))
		sleep 0.2
	done
}

# sm_guid_of HOST: the port GUID of HOST without 0x and leading zeros, as
# sm_sminfo_at prints GUIDs.
sm_guid_of() { sim_port_guid "$1" | sed 's/^0x0*//'; }

# sm_all_smlids_are LID MIN: every switch's port 0 and every CA port (at
# least MIN of them) holds LID as its MasterSMLID, as smpquery reads each
# port's PortInfo; the readings are left in $T/smlids.txt.
sm_all_smlids_are() {
	sim_diag -t 30 ibnetdiscover | awk '
	/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") print $(i + 1), 0; next }
	/^(Ca|Hca)/ { ca = 1; next }
	/^$/ { ca = 0 }
	ca && /^\[[0-9]+\]\(/ { p = substr($1, 2, index($1, "]") - 2)
		for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1), p; break } }' |
	while read -r lid port; do
		printf '%s %s\n' "$lid" "$(sim_diag smpquery portinfo "$lid" "$port" |
		    sed -n 's/^SMLid:\.*\([0-9]*\)/\1/p')"
	done > "$T/smlids.txt"
	[ "$(wc -l < "$T/smlids.txt")" -ge "$2" ] || { cat "$T/smlids.txt"; return 1; }
	awk -v want="$1" '$2 != want { print "port LID " $1 ": MasterSMLID " $2 ", want " want; bad = 1 }
	    END { exit bad }' "$T/smlids.txt"
}

# sim_default_cabling_start TOPOGEN-ARGS...: ibsim on the fabric topogen
# writes, without its width/speed masks: ibsim's default cabling, where
# every link runs 4X SDR although both ends could do better (on -p 4,
# 7,776 ports degraded at once: a health storm).
sim_default_cabling_start() {
	sim_init_dir || fail "sim dir"
	"$FABRICD_BUILD/tools/topogen" "$@" -o "$SIM_DIR/cabled.net" || fail topogen
	sed 's/ w=[0-9]* s=[0-9]*$//' "$SIM_DIR/cabled.net" > "$SIM_DIR/topo.net"
	grep -q ' w=' "$SIM_DIR/topo.net" && fail "masks left in the net file"
	# shellcheck disable=SC2046
	sim_start "$SIM_DIR/topo.net" $(sim_flags_for "$SIM_DIR/topo.net") || fail ibsim
}

# health_wait_rounds N SECS: until the health module has finished N
# polling rounds (status health.rounds), or fail after SECS.
health_wait_rounds() {
	_end=$(( $(date +%s) + $2 ))
	until [ "$(ctl --json status | jq -r '.health.rounds // empty')" -ge "$1" ] 2>/dev/null; do
		[ "$(date +%s)" -ge "$_end" ] && fail "fewer than $1 health rounds within $2 s"
		sleep 0.5
	done
}

# madlog_sets_after FILE N: SubnSets (class 0x01 or 0x81, method Set) a
# madlog file (tests/fixtures/mad/madlog.c) holds after its line N.
madlog_sets_after() {
	awk -v n="$2" 'NR > n && $2 == "0x02" && ($1 == "0x81" || $1 == "0x01")' "$1" | wc -l
}

# sm_stop_mid_set LOG SWALLOW PORT: stop the fabricd of $FD_PID (SIGSTOP)
# with a Set still to retry: its madlog double (MADLOG_FILE=LOG,
# MADLOG_SWALLOW=SWALLOW) swallows its Sets while SWALLOW exists, so the
# PortInfo Set of `port disable PORT` goes unanswered and is tried again
# every mad_timeout; the stop comes between two tries, so that it wakes
# with one due.  The command runs on in the background: its PID in
# MID_SET_PID.
sm_stop_mid_set() {
	touch "$2"
	_l0=$(wc -l < "$1")
	"$FABRICCTL" -s "$SOCK" port disable "$3" >/dev/null 2>&1 &
	MID_SET_PID=$!
	for _ in $(seq 1 500); do
		[ "$(madlog_sets_after "$1" "$_l0")" -gt 0 ] && break
		sleep 0.01
	done
	[ "$(madlog_sets_after "$1" "$_l0")" -gt 0 ] || fail "port disable $3 sent no Set"
	kill -STOP "$FD_PID"
	rm -f "$2"
}

# sm_within_sweeps S0 N WHAT CMD...: until CMD succeeds; fail when N
# sweeps recorded after sweep S0 (an sm_sweeps id read before the change)
# have ended with CMD still failing: "within N sweeps", counted, not timed
# (issue 39).  The count is read before each try, so a sweep that ends
# between the two is not held against it.  Two minutes of wall clock only
# end a wait for sweeps that never come.
sm_within_sweeps() {
	_s0=$1 _n=$2 _what=$3
	shift 3
	_end=$(( $(date +%s) + 120 ))
	while :; do
		_done=$(db "SELECT count(*) FROM sm_sweeps WHERE id > $_s0")
		"$@" && return 0
		[ "$_done" -ge "$_n" ] && fail "$_what: not so after the $_done sweeps since"
		[ "$(date +%s)" -ge "$_end" ] && fail "$_what: not so two minutes on ($_done sweeps since)"
		sleep 0.3
	done
}
