# ibsim harness for integration tests (sourced, POSIX sh).
#
#   . "$FABRICD_SRC/tests/lib/ibsim.sh"
#   sim_topology -k 2 -h 4 -s 2          # topogen args -> $SIM_DIR/topo.net
#   sim_start                            # or: sim_start FILE.net
#   trap sim_stop EXIT
#   sim_diag ibnetdiscover               # infiniband-diags tool, attached to host1
#   sim_diag -H host3 -t 30 ibroute 5    # other host, other timeout
#   sim_console 'Unlink "sw-l1"[20]'
#   sim_start_second B.net               # a second simulator, its own socket
#   sim_stop                             # (both)
#
# Each simulator gets its own IBSIM_SOCKNAME (exported, so that fabricd or
# opensm started by the test join the same one) and its own directory
# SIM_DIR, where ibsim and every client run: umad2sim writes its fake
# sysfs into ./sys-<pid> of the client's working directory.  The console
# is a FIFO with a writer held open (an EOF on ibsim's stdin makes it spin);
# every write is wrapped in timeout, because writing to the FIFO of a dead
# ibsim blocks forever, and so is every client, because a client whose
# simulator is gone retries its attach forever.  At most 10 clients may be
# attached at once, diag tools included.

# umad2sim: where the installed package put it (its file list; the path
# holds the architecture), unless SIM_PRELOAD names one.
sim_find_preload() {
	for _p in libumad2sim0 ibsim-utils; do
		dpkg -L "$_p" 2>/dev/null
	done | grep -m1 '/libumad2sim\.so$'
}
SIM_PRELOAD=${SIM_PRELOAD:-$(sim_find_preload)}
SIM_PID=
SIM_HOLDER=
SIM_OWN_DIR=
SIM2_PID=
SIM2_HOLDER=

sim_fail() {
	echo "ibsim.sh: $*" >&2
	return 1
}

# sim_available: 0 when ibsim and the preload library exist.
sim_available() {
	command -v ibsim >/dev/null 2>&1 && [ -n "$SIM_PRELOAD" ] && [ -r "$SIM_PRELOAD" ]
}

# sim_require: `make deps` installs ibsim and umad2sim, so a test that
# cannot find them fails (common.sh's fail) instead of skipping.
sim_require() {
	sim_available || fail "ibsim or umad2sim (package ibsim-utils) not installed (make deps installs it)"
}

sim_init_dir() {
	if [ -z "${SIM_DIR:-}" ]; then
		SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fabricd-sim.XXXXXX") || return 1
		SIM_OWN_DIR=1
	fi
	mkdir -p "$SIM_DIR/run" || return 1
	export SIM_DIR
}

# sim_topology TOPOGEN-ARGS...: write $SIM_DIR/topo.net with tools/topogen.
sim_topology() {
	sim_init_dir || return 1
	"${FABRICD_BUILD:?FABRICD_BUILD not set}/tools/topogen" -o "$SIM_DIR/topo.net" "$@"
}

# ibsim's limits sized from the "ibsim needs" line topogen writes; raise
# only what the defaults (2048 nodes, 256 switches, 13312 ports) cannot hold.
sim_flags_for() {
	sed -n 's/^# ibsim needs -N >= \([0-9]*\), -S >= \([0-9]*\), -P >= \([0-9]*\).*/\1 \2 \3/p' "$1" |
	    while read -r n s p; do
		[ "$n" -gt 2048 ] && printf -- '-N %d ' $((n + 16))
		[ "$s" -gt 256 ] && printf -- '-S %d ' $((s + 8))
		[ "$p" -gt 13312 ] && printf -- '-P %d ' $((p + 64))
		:
	done
}

# Abstract unix sockets show in /proc/net/unix as "@name".
sim_socket_up() {
	grep -Eq "@$IBSIM_SOCKNAME:ctl@*$" /proc/net/unix 2>/dev/null
}

# sim_start [NETFILE] [EXTRA IBSIM FLAGS...]: start ibsim, wait until it
# serves clients.  Sets SIM_PID and exports IBSIM_SOCKNAME.
sim_start() {
	sim_init_dir || return 1
	net=${1:-$SIM_DIR/topo.net}
	[ $# -gt 0 ] && shift
	[ -r "$net" ] || { sim_fail "no net file $net"; return 1; }
	case $net in /*) ;; *) net=$PWD/$net ;; esac
	IBSIM_SOCKNAME=${IBSIM_SOCKNAME_PREFIX:-fd}$$-$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
	export IBSIM_SOCKNAME
	rm -f "$SIM_DIR/console" && mkfifo "$SIM_DIR/console" || return 1
	# shellcheck disable=SC2046
	(cd "$SIM_DIR/run" && exec ibsim -s $(sim_flags_for "$net") "$@" "$net" \
	    < "$SIM_DIR/console" > "$SIM_DIR/ibsim.out" 2>&1) &
	SIM_PID=$!
	sleep 2147483647 > "$SIM_DIR/console" &
	SIM_HOLDER=$!
	i=0
	until sim_socket_up && grep -q 'sim>' "$SIM_DIR/ibsim.out" 2>/dev/null; do
		if ! kill -0 "$SIM_PID" 2>/dev/null || [ $i -ge 300 ]; then
			sim_fail "ibsim did not start; its output:"
			tail -5 "$SIM_DIR/ibsim.out" >&2
			sim_stop
			return 1
		fi
		i=$((i + 1))
		sleep 0.1
	done
}

# sim_start_second NETFILE [EXTRA IBSIM FLAGS...]: one more simulator
# beside sim_start's (a process on two subnets: tests/fixtures/mad/
# multisim.c), in $SIM_DIR/second with its own console and socket name:
# SIM2_DIR, SIM2_PID, SIM2_SOCKNAME.  IBSIM_SOCKNAME and the rest stay
# the first one's; sim_stop stops both.
sim_start_second() {
	_s1_dir=$SIM_DIR _s1_pid=$SIM_PID _s1_holder=$SIM_HOLDER _s1_own=$SIM_OWN_DIR
	_s1_sock=${IBSIM_SOCKNAME:-}
	SIM_DIR=$SIM_DIR/second SIM_OWN_DIR='' SIM_PID='' SIM_HOLDER=''
	sim_start "$@"
	_rc=$?
	SIM2_DIR=$SIM_DIR SIM2_PID=$SIM_PID SIM2_HOLDER=$SIM_HOLDER SIM2_SOCKNAME=$IBSIM_SOCKNAME
	SIM_DIR=$_s1_dir SIM_PID=$_s1_pid SIM_HOLDER=$_s1_holder SIM_OWN_DIR=$_s1_own
	IBSIM_SOCKNAME=$_s1_sock
	export IBSIM_SOCKNAME
	return $_rc
}

# sim_second_console COMMAND: sim_console on the second simulator.
sim_second_console() {
	_s1_dir=$SIM_DIR _s1_pid=$SIM_PID
	SIM_DIR=$SIM2_DIR SIM_PID=$SIM2_PID
	sim_console "$1"
	_rc=$?
	SIM_DIR=$_s1_dir SIM_PID=$_s1_pid
	return $_rc
}

# sim_console COMMAND: one console line (see `Help` in ibsim).  Waits until
# ibsim has read it and printed its next prompt.
sim_console() {
	[ -n "$SIM_PID" ] || { sim_fail "sim_console: no simulator"; return 1; }
	before=$(grep -o 'sim>' "$SIM_DIR/ibsim.out" | wc -l)
	timeout 5 sh -c 'printf "%s\n" "$1" > "$2"' _ "$1" "$SIM_DIR/console" ||
	    { sim_fail "ibsim is not reading its console"; return 1; }
	i=0
	while [ "$(grep -o 'sim>' "$SIM_DIR/ibsim.out" | wc -l)" -le "$before" ]; do
		[ $i -ge 50 ] && { sim_fail "no prompt after: $1"; return 1; }
		i=$((i + 1))
		sleep 0.1
	done
}

# sim_drop_client PID: disconnect the client of a process that died
# without closing (kill -9): ibsim keeps it attached, and at most 10
# clients may be.
sim_drop_client() {
	sim_console Attached || return 1
	n=$(sed -n "s/.*Client \([0-9]*\): pid $1 connected.*/\1/p" "$SIM_DIR/ibsim.out" | tail -1)
	[ -z "$n" ] || sim_console "X $n"
}

# sim_run [-H HOST] [-t SECS] CMD ARGS...: run any libibumad program as a
# client of this simulator, attached to HOST (default $SIM_HOST or host1),
# killed after SECS (default 30).  Its working directory is $SIM_DIR/run.
sim_run() {
	host=${SIM_HOST:-host1}
	secs=30
	while :; do
		case $1 in
		-H) host=$2; shift 2 ;;
		-t) secs=$2; shift 2 ;;
		*) break ;;
		esac
	done
	(cd "$SIM_DIR/run" && SIM_HOST=$host LD_PRELOAD=$SIM_PRELOAD \
	    exec timeout -k 2 "$secs" "$@")
}

# sim_diag [-H HOST] [-t SECS] TOOL ARGS...: an infiniband-diags tool;
# stderr chatter of the preload is dropped unless SIM_DIAG_STDERR is set.
sim_diag() {
	if [ -n "${SIM_DIAG_STDERR:-}" ]; then
		sim_run "$@"
	else
		sim_run "$@" 2>/dev/null
	fi
}

# sim_port_guid HOST: the port GUID of HOST's port 1, read from the net
# file (CA port GUID = node GUID + 1; no client needed).
sim_port_guid() {
	awk -v h="$1" '/^caguid=/ { g = substr($0, 8) }
	    $1 == "Hca" && $3 == "\"" h "\"" { print g; exit }' "$SIM_DIR/topo.net" |
	    { read -r g; [ -n "$g" ] && printf '0x%016x\n' $((g + 1)); }
}

# sim_opensm [HOST] [SECS]: run OpenSM (the reference SM) attached to HOST
# (default host1) with its caches in $SIM_DIR/osm, and wait up to SECS
# (default 60; 0: do not wait) for SUBNET UP.  Sets OSM_PID; sim_stop stops
# it.  Extra OpenSM options (a priority: -p 15) in OSM_ARGS.
OSM_PID=
sim_opensm() {
	h=${1:-host1}
	g=$(sim_port_guid "$h") || return 1
	mkdir -p "$SIM_DIR/osm"
	rm -f "$SIM_DIR/osm.log"
	# shellcheck disable=SC2086
	(cd "$SIM_DIR/run" && SIM_HOST=$h OSM_CACHE_DIR=$SIM_DIR/osm OSM_TMP_DIR=$SIM_DIR/osm \
	    LD_PRELOAD=$SIM_PRELOAD exec opensm -d2 -f "$SIM_DIR/osm.log" -g "$g" ${OSM_ARGS:-} \
	    > "$SIM_DIR/osm.out" 2>&1) &
	OSM_PID=$!
	[ "${2:-60}" = 0 ] && return 0
	i=0
	until grep -q 'SUBNET UP' "$SIM_DIR/osm.log" 2>/dev/null; do
		if ! kill -0 "$OSM_PID" 2>/dev/null || [ $i -ge $(( ${2:-60} * 20 )) ]; then
			sim_fail "OpenSM did not bring the subnet up"
			return 1
		fi
		i=$((i + 1))
		sleep 0.05
	done
}

# sim_opensm_another HOST NAME [OPENSM-ARGS...]: one more OpenSM (a
# standby, say -p 5) attached to HOST, its cache in $SIM_DIR/NAME and its
# log in $SIM_DIR/NAME.log, not waited for; its PID in OSM2_PID (the
# caller stops it).
sim_opensm_another() {
	_oh=$1 _on=$2
	shift 2
	_og=$(sim_port_guid "$_oh") || return 1
	mkdir -p "$SIM_DIR/$_on"
	(cd "$SIM_DIR/run" && SIM_HOST=$_oh OSM_CACHE_DIR=$SIM_DIR/$_on OSM_TMP_DIR=$SIM_DIR/$_on \
	    LD_PRELOAD=$SIM_PRELOAD exec opensm -d2 -f "$SIM_DIR/$_on.log" -g "$_og" "$@" \
	    > "$SIM_DIR/$_on.out" 2>&1) &
	OSM2_PID=$!
}

# sim_stop_opensm: stop the OpenSM sim_opensm started, leaving ibsim (and
# the LIDs OpenSM gave) as they are.
sim_stop_opensm() {
	[ -n "$OSM_PID" ] || return 0
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
	OSM_PID=
}

# sim_stop: stop ibsim (both, after sim_start_second) and the FIFO
# writers, remove fake-sysfs leftovers of clients that died, and the
# directory if sim_start made it.  Idempotent.
sim_stop() {
	if [ -n "$OSM_PID" ]; then
		kill "$OSM_PID" 2>/dev/null
		wait "$OSM_PID" 2>/dev/null
		OSM_PID=
	fi
	for p in $SIM_PID $SIM_HOLDER $SIM2_PID $SIM2_HOLDER; do
		kill "$p" 2>/dev/null
	done
	for p in $SIM_PID $SIM_HOLDER $SIM2_PID $SIM2_HOLDER; do
		wait "$p" 2>/dev/null
	done
	SIM_PID=
	SIM_HOLDER=
	SIM2_PID=
	SIM2_HOLDER=
	if [ -n "${SIM_DIR:-}" ]; then
		rm -rf "$SIM_DIR"/run/sys-* 2>/dev/null
		if [ -n "$SIM_OWN_DIR" ] && [ -z "${SIM_KEEP:-}" ]; then
			rm -rf "$SIM_DIR"
			SIM_DIR=
			SIM_OWN_DIR=
		fi
	fi
	return 0
}
