#!/bin/sh
# make sim / make sim-stop: a simulated fabric to try fabricctl on, kept
# running in the background until stopped.
#   tools/sim.sh start BUILD_DIR SIM_DIR   ibsim on a generated fat tree,
#                                          fabricd as its SM with every
#                                          module the docs' examples use,
#                                          then print the lines to use them
#   tools/sim.sh stop BUILD_DIR SIM_DIR    stop both, remove SIM_DIR
#   tools/sim.sh env BUILD_DIR SIM_DIR     print the lines again
# SIM_TOPO: topogen's arguments (default: 18 leaves x 18 hosts, 18 spines,
# as make demo).  Everything lives in SIM_DIR: the net file, the console
# FIFO, the logs, the daemon's socket and database, the pids.  Nothing is
# started twice: a running simulation is reused, a dead one cleaned first.
set -u
cmd=${1:?usage: tools/sim.sh start|stop|env BUILD_DIR SIM_DIR}
build=$(cd "${2:?no BUILD_DIR}" && pwd) || exit 2
mkdir -p "${3:?no SIM_DIR}" || exit 2
dir=$(cd "$3" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
export FABRICD_BUILD=$build FABRICD_SRC=$src
. "$src/tests/lib/ibsim.sh"

# A folder is ours (and may be removed) only when it holds our marker, or
# nothing at all.
own() {
	[ -e "$dir/sim.env" ] || [ -z "$(ls -A "$dir")" ]
}

# alive NAME COMM: the pid in NAME.pid, when that process still runs and is
# COMM (a recycled pid of another program is not ours to signal).
alive() {
	_p=$(cat "$dir/$1.pid" 2>/dev/null) || return 1
	[ -n "$_p" ] && [ "$(cat "/proc/$_p/comm" 2>/dev/null)" = "$2" ] && echo "$_p"
}

# stop_one NAME COMM: SIGTERM, then SIGKILL after 10 s.
stop_one() {
	_p=$(alive "$1" "$2") || return 0
	kill -TERM "$_p" 2>/dev/null
	for _ in $(seq 1 100); do
		[ -d "/proc/$_p" ] || return 0
		sleep 0.1
	done
	echo "sim: $1 (pid $_p) ignored SIGTERM; killed"
	kill -KILL "$_p" 2>/dev/null
}

print_env() {
	cat "$dir/sim.env"
	echo "# or: . $dir/sim.env     then e.g.: fabricctl status; simdiag ibnetdiscover"
}

do_stop() {
	own || { echo "sim: $dir is not a simulation folder; not touched"; exit 1; }
	stop_one fabricd fabricd	# first: it is a client of ibsim
	stop_one ibsim ibsim
	stop_one holder sleep
	rm -rf "$dir"
}

# What the simulator cannot be, played by the doubles of the tests: host1's
# RoCE NIC (a sysfs tree, and the dcbnl netlink double preloaded into
# fabricd: tests/fixtures/roce/), and the launchers of NCCL and perftest
# jobs (tests/fakes/: they replay a recorded passing run).
doubles() {
	[ -f "$build/tests/libroce_nlfake.so" ] ||
	    { echo "sim: no $build/tests/libroce_nlfake.so (make builds it)"; return 1; }
	sh "$src/tests/fixtures/roce/mktree.sh" "$dir/root" mlx0 mlx5_0 0000:08:00.0 || return 1
	mkdir -p "$dir/root/sys/class/net/mlx0/statistics"
	for prio in 0 1 2 3 4 5 6 7; do
		echo 0 > "$dir/root/sys/class/net/mlx0/statistics/rx_prio${prio}_pause"
		echo 0 > "$dir/root/sys/class/net/mlx0/statistics/tx_prio${prio}_pause"
	done
	printf '%s\n' mode=replay "fixture=$src/tests/fixtures/nccl/v2.17_2node_ring_pass.txt" \
	    exit=0 "perftest_fixture=$src/tests/fixtures/nccl/perftest_write_bw_pass.txt" \
	    perftest_exit=0 perftest_sleep=30 > "$dir/nccl.control"
}

# The configuration: what the docs' examples use (the QoS classes of
# docs/qos.md, blue-train of docs/partitions.md, the RoCE profile of
# docs/roce.md, the h100-ring profile of docs/validation.md), with
# intervals short enough that what you try shows within seconds.
# tests/integration/core_docs_examples.sh runs the docs on this one.
write_config() {
	fk=$src/tests/fakes
	cat > "$dir/fabricd.yaml" <<EOF
socket: $dir/fabricd.sock
state_dir: $dir/state
log_level: info
sm:
  enabled: true
  sweep_interval: 2s
  audit_interval: 10s
  qos:
    classes:
      training:   { sl: 1, vl: 1, share: 50, priority: high, pkeys: [0x0a01] }
      storage:    { sl: 2, vl: 2, share: 30, services: [nvme-of, nfs-rdma] }
      kv:         { sl: 3, vl: 3, share: 15 }
      management: { sl: 0, vl: 0, share: 5 }
health:
  enabled: true
  interval: 10s
  roce_sysfs_root: $dir/root/sys
  roce_interval: 500ms
partitions:
  enabled: true
  default_membership: limited
  tenants:
    blue:
      blue-train: { pkey: 0x0a01, full: [ "host[1-8]" ], limited: [ switches ] }
roce_qos:
  enabled: true
  root: $dir/root
  interfaces: all
  poll_interval: 300ms
  remediate: true
  profile:
    base: nvidia-lossless
    classes:
      training: { priority: 3, dscp: [26], lossless: true, ets: 50, ecn: true }
      storage:  { priority: 4, dscp: [28], lossless: true, ets: 30, ecn: true }
      kv:       { priority: 5, dscp: [34], ets: 15, ecn: true }
validation:
  mpirun: $fk/mpirun
  srun: $fk/srun
  nccl_tests_dir: $fk
  perftest_dir: $fk
  job_timeout: 60s
  profiles:
    h100-ring: { min_busbw: 300, warn_busbw: 340, rdma_min_gbps: 380 }
EOF
}

do_start() {
	own || { echo "sim: $dir is not a simulation folder; not touched"; exit 1; }
	if alive fabricd fabricd >/dev/null && alive ibsim ibsim >/dev/null; then
		echo "sim: already running (make sim-stop ends it)"
		print_env
		return 0
	fi
	do_stop		# whatever a dead simulation left
	sim_available || { echo "sim: ibsim (ibsim-utils) is not installed; run make deps"; exit 1; }
	SIM_DIR=$dir
	mkdir -p "$dir" && : > "$dir/sim.env"
	# shellcheck disable=SC2086
	sim_topology ${SIM_TOPO:--k 18 -h 18 -s 18} > "$dir/topogen.out" 2>&1 ||
	    { cat "$dir/topogen.out"; exit 1; }
	# Every descriptor of what stays running points into the folder, so
	# that whoever reads make's output ($(make sim)) sees it end.
	sim_start < /dev/null > "$dir/start.log" 2>&1 || { cat "$dir/start.log"; do_stop; exit 1; }
	echo "$SIM_PID" > "$dir/ibsim.pid"
	echo "$SIM_HOLDER" > "$dir/holder.pid"
	doubles || { do_stop; exit 1; }
	write_config
	(cd "$dir/run" && SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD $build/tests/libroce_nlfake.so" \
	    NLFAKE_STATE="$dir/nic.state" FAKE_NCCL_CONTROL="$dir/nccl.control" \
	    exec "$build/fabricd" -c "$dir/fabricd.yaml" < /dev/null > "$dir/fabricd.log" 2>&1) &
	echo $! > "$dir/fabricd.pid"
	ctl() { "$build/fabricctl" -s "$dir/fabricd.sock" "$@"; }
	i=0
	until [ "$(ctl --json status 2>/dev/null | jq -r '.sm.subnet.state // empty')" = up ]; do
		if ! alive fabricd fabricd >/dev/null || [ $i -ge 1200 ]; then
			echo "sim: the subnet did not come up within 120 s; fabricd's log:"
			tail -20 "$dir/fabricd.log"
			do_stop
			exit 1
		fi
		i=$((i + 1))
		sleep 0.1
	done
	# The lines an operator pastes: fabricctl through FABRICD_SOCKET;
	# infiniband-diags as clients of the simulator through umad2sim, which
	# is preloaded only into the command simdiag runs (never the shell).
	cat > "$dir/sim.env" <<EOF
export PATH="$build:\$PATH" FABRICD_SOCKET="$dir/fabricd.sock"
export IBSIM_SOCKNAME="$IBSIM_SOCKNAME" SIM_HOST=host2
simdiag() { LD_PRELOAD="$SIM_PRELOAD" "\$@"; }
EOF
	echo "sim: $(sed -n "1s/.*topogen: //p" "$dir/topo.net") up; fabricd pid $(cat "$dir/fabricd.pid"), ibsim pid $SIM_PID"
	echo "sim: paste these lines into your shell (make sim-stop ends it):"
	print_env
}

case $cmd in
start) do_start ;;
stop) do_stop; echo "sim: stopped; $dir removed" ;;
env) own && [ -s "$dir/sim.env" ] || { echo "sim: no simulation in $dir"; exit 1; }; print_env ;;
*) echo "usage: tools/sim.sh start|stop|env BUILD_DIR SIM_DIR"; exit 2 ;;
esac
