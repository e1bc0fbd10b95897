# A 3-member etcd cluster on loopback for the HA tests (make deps installs
# etcd-server).  The ports are a block the test holds alone (port_block,
# tests/lib/common.sh): client ports BASE+1..3, peer ports BASE+11..13.
#   etcd_cluster_start [N]     N members (3), waits for a leader
#   ETCD_ENDPOINTS             "http://127.0.0.1:P1","http://..." for YAML
#   etcd_kill I / etcd_restart I   member I (1-based)
#   etcdq ARGS                 etcdctl against every member
#   ha_yaml                    the ha section for it, with partitions on
# The cluster is stopped at exit (fd_on_exit).

etcd_cluster_start() {
	_n=${1:-3}
	need etcd etcdctl
	ETCD_N=$_n
	fd_on_exit etcd_cluster_stop
	for _try in 0 1 2 3; do
		etcd_cluster_try "$_try" && return 0
		etcd_cluster_stop
		rm -rf "$T"/etcd[0-9]
	done
	fail "etcd: no healthy cluster of $_n: $(tail -3 "$T/etcd1.log")"
}

# etcd_cluster_try K: the cluster on a new block of ports of its own
# (port_block, tests/lib/common.sh); 1 when a member could not bind or no
# leader came.
etcd_cluster_try() {
	port_block
	ETCD_BASE=$PORT_BASE
	_cl=""
	ETCD_ENDPOINTS=""
	ETCD_URLS=""
	for _i in $(seq 1 "$_n"); do
		_cl="${_cl:+$_cl,}m$_i=http://127.0.0.1:$((ETCD_BASE + 10 + _i))"
		ETCD_ENDPOINTS="${ETCD_ENDPOINTS:+$ETCD_ENDPOINTS, }\"http://127.0.0.1:$((ETCD_BASE + _i))\""
		ETCD_URLS="${ETCD_URLS:+$ETCD_URLS,}http://127.0.0.1:$((ETCD_BASE + _i))"
	done
	ETCD_CLUSTER=$_cl
	for _i in $(seq 1 "$_n"); do
		etcd_run "$_i" new
	done
	for _w in $(seq 1 100); do
		for _i in $(seq 1 "$_n"); do	# one that could not bind has exited
			eval "_p=\${ETCD_PID_$_i:-}"
			kill -0 "$_p" 2>/dev/null || return 1
		done
		ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URLS" --command-timeout=1s \
		    endpoint health >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# etcd_run I STATE: one member, in the background; its PID in ETCD_PID_I.
etcd_run() {
	etcd --name "m$1" --data-dir "$T/etcd$1" \
	    --listen-peer-urls "http://127.0.0.1:$((ETCD_BASE + 10 + $1))" \
	    --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_BASE + 10 + $1))" \
	    --listen-client-urls "http://127.0.0.1:$((ETCD_BASE + $1))" \
	    --advertise-client-urls "http://127.0.0.1:$((ETCD_BASE + $1))" \
	    --initial-cluster "$ETCD_CLUSTER" --initial-cluster-state "$2" \
	    --initial-cluster-token "fabricd-test-$$" \
	    --heartbeat-interval 50 --election-timeout 500 >> "$T/etcd$1.log" 2>&1 &
	eval "ETCD_PID_$1=$!"
}

etcd_kill() {
	eval "_p=\${ETCD_PID_$1:-}"
	[ -n "$_p" ] && kill -9 "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	eval "ETCD_PID_$1="
}

etcd_restart() { etcd_run "$1" existing; }

etcd_cluster_stop() {
	for _i in $(seq 1 "${ETCD_N:-0}"); do
		etcd_kill "$_i"
	done
}

ha_yaml() {
	printf 'ha:\n  etcd:\n    endpoints: [ %s ]\npartitions:\n  enabled: true\n' "$ETCD_ENDPOINTS"
}

etcdq() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URLS" --command-timeout=3s "$@"; }

# ha_start_b HOST PRIORITY YAML: the second fabricd of an HA test ("B"),
# the SM on HOST with PRIORITY, sweeping every second, its standby poll
# on the default (with ha the master's lease, not missed polls, makes it
# take over), YAML (its ha section...) appended; its folder $T/b, its PID
# in B_PID, judged at exit as the first (fd_second); bctl talks to it.
# B_PRELOAD: a double to load before umad2sim, B_ENV: its settings;
# B_SWEEP: the sweep interval (1s; empty: the default).
ha_start_b() {
	mkdir -p "$T/b/run" "$T/b/state"
	{
		printf 'socket: %s\nstate_dir: %s\nlog_level: debug\n' "$T/b/run/fabricd.sock" "$T/b/state"
		printf 'sm:\n  enabled: true\n  priority: %s\n' "$2"
		[ -z "${B_SWEEP-1s}" ] || printf '  sweep_interval: %s\n' "${B_SWEEP-1s}"
		printf '%s\n' "$3"
	} > "$T/b/fabricd.yaml"
	# shellcheck disable=SC2086
	(cd "$T/b" && exec env ${B_ENV:-} SIM_HOST="$1" LD_PRELOAD="${B_PRELOAD:+$B_PRELOAD }$SIM_PRELOAD" \
	    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" "$FABRICD" -c "$T/b/fabricd.yaml" >> "$T/b/fabricd.log" 2>&1) &
	B_PID=$!
	fd_second "$B_PID" "$T/b/fabricd.log"
}
bctl() { "$FABRICCTL" -s "$T/b/run/fabricd.sock" "$@"; }

# ha_writable CTL...: until that daemon's status says its partitions may be
# written (it holds the lease, has read the intent, its SM's Sets would
# pass), at most 30 s.
ha_writable() {
	for _ in $(seq 1 300); do
		[ "$("$@" --json status 2>/dev/null | jq -r '.partitions.intent.ready')" = true ] &&
		    return 0
		sleep 0.1
	done
	return 1
}
