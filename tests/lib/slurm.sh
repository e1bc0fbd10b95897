# A private Slurm cluster on loopback for the job-partition tests (make
# deps installs slurmctld, slurmd, slurm-client and munge).  Sourced after
# tests/lib/common.sh; everything lives in the folder the test names
# (inside $T) and runs as root: a munge key made there, its own munged
# (socket, pid, log, seed), a slurm.conf there that SLURM_CONF names
# (exported: every Slurm command, and a daemon the test starts after
# slurm_start, finds it), slurmctld and one slurmd per node.  Ports are
# chosen from the test's PID below the kernel's ephemeral range (10000 up:
# tests/lib/etcd.sh and the others take 20000 up), so that tests side by
# side, two runs of one test included, do not meet.  Facts about Slurm
# 22.05 these functions rely on: tests/lib/slurm-notes.md.
#
#   slurm_start DIR "NODE..." [KEY=VALUE...]
#        the cluster in DIR (made; $T/slurm, say), one slurmd per NODE
#        (each NodeHostname=localhost NodeAddr=127.0.0.1, its own Port),
#        one partition "test" (Default) holding them; each KEY=VALUE is a
#        slurm.conf line and replaces the default of that KEY: the hooks
#        PrologSlurmctld= EpilogSlurmctld= Prolog= Epilog= TaskProlog=
#        (program paths), MinJobAge=, anything else.  Waits (30 s at
#        most) until every node is idle; fails the test otherwise, with
#        the logs.  The EXIT trap stops it all (fd_on_exit).
#   slurm_stop          kill everything slurm_start started: munged,
#                       slurmctld, the slurmd, their slurmstepd and jobs
#   slurm_kill_ctld     SIGKILL slurmctld (its state stays in DIR)
#   slurm_restart_ctld [-c]
#                       start it again on its saved state (-c: on none,
#                       every job forgotten, as after a lost
#                       StateSaveLocation), wait until it answers (30 s)
#   slurm_wait_job_state JOBID STATE SECS
#                       wait until squeue reports the job in STATE (its
#                       long name: PENDING RUNNING COMPLETING COMPLETED
#                       CANCELLED FAILED...; GONE: squeue no longer knows
#                       it), fail the test after SECS
#   slurm_job_state JOBID   print the job's state (GONE when unknown);
#                       status 1 when squeue itself failed
#   SLURM_DIR SLURM_CONF SLURM_PARTITION SLURM_CTLD_PORT SLURM_CTLD_PID
#   SLURM_MUNGE_SOCKET  what the tests may use

SLURM_PARTITION="test"
SLURM_CTLD_PID=""
SLURM_MUNGED_PID=""
SLURMD_PIDS=""
SLURM_ON_EXIT=""

slurm_start() {
	need munged mungekey munge unmunge slurmctld slurmd sbatch squeue scontrol scancel sinfo ss
	[ $# -ge 2 ] || fail "slurm_start DIR \"NODE...\" [KEY=VALUE...]"
	SLURM_DIR=$1
	SLURM_NODES=$2
	shift 2
	[ -n "$SLURM_NODES" ] || fail "slurm_start: no node"
	mkdir -p "$SLURM_DIR" || fail "slurm_start: cannot make $SLURM_DIR"
	SLURM_DIR=$(cd "$SLURM_DIR" && pwd)
	if [ -z "$SLURM_ON_EXIT" ]; then
		fd_on_exit slurm_stop
		SLURM_ON_EXIT=1
	fi
	SLURM_CONF="$SLURM_DIR/slurm.conf"
	export SLURM_CONF
	slurm_munge_start
	for _try in 0 1 2 3; do
		slurm_try "$_try" "$@" && return 0
		slurm_stop_slurm
	done
	slurm_show_logs
	fail "slurm: no cluster of $SLURM_NODES came up (4 blocks of ports)"
}

# slurm_munge_start: a key made in DIR/munge, munged on its own socket.
# --force: as root munged refuses a key or folders it deems unsafe that
# another user could reach; here only the test's folder is involved.
slurm_munge_start() {
	_m="$SLURM_DIR/munge"
	mkdir -p "$_m" || fail "slurm: cannot make $_m"
	chmod 755 "$_m"
	SLURM_MUNGE_SOCKET="$_m/munge.socket"
	if [ ! -f "$_m/munge.key" ]; then
		mungekey -c -k "$_m/munge.key" > "$_m/mungekey.log" 2>&1 ||
		    fail "slurm: mungekey: $(cat "$_m/mungekey.log")"
	fi
	env FABRICD_SLURM_DIR="$SLURM_DIR" munged -F --force \
	    --socket="$SLURM_MUNGE_SOCKET" --key-file="$_m/munge.key" \
	    --pid-file="$_m/munged.pid" --log-file="$_m/munged.log" \
	    --seed-file="$_m/munged.seed" >> "$_m/munged.out" 2>&1 &
	SLURM_MUNGED_PID=$!
	for _ in $(seq 1 100); do
		if munge --socket="$SLURM_MUNGE_SOCKET" -n 2>/dev/null |
		    unmunge --socket="$SLURM_MUNGE_SOCKET" >/dev/null 2>&1; then
			return 0
		fi
		if ! kill -0 "$SLURM_MUNGED_PID" 2>/dev/null; then
			wait "$SLURM_MUNGED_PID"
			SLURM_MUNGED_PID=""
			break
		fi
		sleep 0.1
	done
	echo "--- munged's output and log:" >&2
	cat "$_m/munged.out" "$_m/munged.log" >&2 2>/dev/null
	fail "slurm: munged on $SLURM_MUNGE_SOCKET does not answer (10 s)"
}

# slurm_try K ARGS: the cluster on a block of ports of its own
# (port_block, tests/lib/common.sh: slurmctld's, then one per slurmd); 1
# when a daemon died (the caller stops what is left and tries the next
# block), the test fails on anything else.
slurm_try() {
	_n=0
	for _node in $SLURM_NODES; do _n=$((_n + 1)); done
	[ $((_n + 2)) -le 20 ] || fail "slurm: $_n nodes need more ports than a block of 20"
	port_block
	SLURM_CTLD_PORT=$PORT_BASE
	shift
	slurm_write_conf "$@"
	mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/log" "$SLURM_DIR/run"
	slurm_ctld_run
	_i=0
	for _node in $SLURM_NODES; do
		_i=$((_i + 1))
		mkdir -p "$SLURM_DIR/spool/$_node"
		env FABRICD_SLURM_DIR="$SLURM_DIR" slurmd -D -N "$_node" \
		    >> "$SLURM_DIR/log/slurmd-$_node.out" 2>&1 &
		SLURMD_PIDS="$SLURMD_PIDS $!"
	done
	_w=0
	while [ $_w -lt 300 ]; do
		kill -0 "$SLURM_CTLD_PID" 2>/dev/null || { slurm_died slurmctld; return 1; }
		for _p in $SLURMD_PIDS; do
			kill -0 "$_p" 2>/dev/null || { slurm_died slurmd; return 1; }
		done
		_idle=$(sinfo -h -N -p "$SLURM_PARTITION" -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l)
		[ "$_idle" -eq "$_n" ] && return 0
		_w=$((_w + 1))
		sleep 0.1
	done
	slurm_show_logs
	fail "slurm: the nodes are not all idle after 30 s: $(sinfo -h -N -o '%N %t %E' 2>&1)"
}

# slurm_died WHAT: a daemon exited during start-up; a port someone took
# meanwhile is worth another try, anything else fails the test.
slurm_died() {
	if grep -qs 'Address already in use' "$SLURM_DIR"/log/*; then
		echo "slurm: a port of $SLURM_CTLD_PORT.. was taken, next block" >&2
		return 0
	fi
	slurm_show_logs
	fail "slurm: $1 exited during start-up"
}

slurm_show_logs() {
	for _f in "$SLURM_DIR"/log/*; do
		[ -s "$_f" ] || continue
		echo "--- $_f (last lines):" >&2
		tail -15 "$_f" >&2
	done
}

# slurm_write_conf [KEY=VALUE...]: slurm.conf in DIR; a key the caller
# gives replaces the default line of that key.
slurm_write_conf() {
	_d=$SLURM_DIR
	_multi=""
	_n=0
	for _node in $SLURM_NODES; do _n=$((_n + 1)); done
	{
		slurm_conf_line ClusterName "fabricd$$" "$@"
		slurm_conf_line SlurmctldHost "localhost(127.0.0.1)" "$@"
		slurm_conf_line SlurmctldPort "$SLURM_CTLD_PORT" "$@"
		slurm_conf_line SlurmdPort "$((SLURM_CTLD_PORT + 1))" "$@"
		slurm_conf_line SlurmUser root "$@"
		slurm_conf_line SlurmdUser root "$@"
		slurm_conf_line AuthType auth/munge "$@"
		slurm_conf_line CredType cred/munge "$@"
		slurm_conf_line AuthInfo "socket=$SLURM_MUNGE_SOCKET" "$@"
		slurm_conf_line StateSaveLocation "$_d/state" "$@"
		slurm_conf_line SlurmdSpoolDir "$_d/spool/%n" "$@"
		slurm_conf_line SlurmctldPidFile "$_d/run/slurmctld.pid" "$@"
		slurm_conf_line SlurmdPidFile "$_d/run/slurmd-%n.pid" "$@"
		slurm_conf_line SlurmctldLogFile "$_d/log/slurmctld.log" "$@"
		slurm_conf_line SlurmdLogFile "$_d/log/slurmd-%n.log" "$@"
		slurm_conf_line SlurmctldDebug debug "$@"
		slurm_conf_line SlurmdDebug debug "$@"
		slurm_conf_line SelectType select/cons_tres "$@"
		slurm_conf_line SelectTypeParameters CR_Core "$@"
		slurm_conf_line SchedulerType sched/builtin "$@"
		slurm_conf_line ProctrackType proctrack/linuxproc "$@"
		slurm_conf_line TaskPlugin task/none "$@"
		slurm_conf_line JobAcctGatherType jobacct_gather/none "$@"
		slurm_conf_line AccountingStorageType accounting_storage/none "$@"
		slurm_conf_line JobCompType jobcomp/none "$@"
		slurm_conf_line SwitchType switch/none "$@"
		slurm_conf_line MpiDefault none "$@"
		slurm_conf_line MailProg /bin/true "$@"
		slurm_conf_line ReturnToService 2 "$@"
		slurm_conf_line MessageTimeout 3 "$@"
		slurm_conf_line SlurmdTimeout 10 "$@"
		slurm_conf_line SlurmctldTimeout 10 "$@"
		slurm_conf_line InactiveLimit 0 "$@"
		slurm_conf_line KillWait 2 "$@"
		slurm_conf_line MinJobAge 30 "$@"
		slurm_conf_line PrologEpilogTimeout 30 "$@"
		for _kv in "$@"; do
			printf '%s\n' "$_kv"
		done
		_p=$((SLURM_CTLD_PORT + 1))
		for _node in $SLURM_NODES; do
			echo "NodeName=$_node NodeHostname=localhost NodeAddr=127.0.0.1 Port=$_p CPUs=1 State=UNKNOWN"
			_p=$((_p + 1))
		done
		echo "PartitionName=$SLURM_PARTITION Nodes=$(echo "$SLURM_NODES" | tr -s ' ' ,) Default=YES MaxTime=INFINITE State=UP"
	} > "$SLURM_CONF"
}

# slurm_conf_line KEY VALUE [KEY=VALUE...]: "KEY=VALUE" unless the
# caller's arguments set KEY.
slurm_conf_line() {
	_k=$1
	_v=$2
	shift 2
	for _kv in "$@"; do
		case $_kv in "$_k="*) return 0 ;; esac
	done
	printf '%s=%s\n' "$_k" "$_v"
}

# slurm_ctld_run: slurmctld in the foreground of a background job, on the
# state saved in DIR (-i: what it cannot recover is dropped, not fatal).
slurm_ctld_run() {
	env FABRICD_SLURM_DIR="$SLURM_DIR" slurmctld -D -i "$@" \
	    >> "$SLURM_DIR/log/slurmctld.out" 2>&1 &
	SLURM_CTLD_PID=$!
}

slurm_kill_ctld() {
	[ -n "$SLURM_CTLD_PID" ] || fail "slurm_kill_ctld: no slurmctld"
	kill -KILL "$SLURM_CTLD_PID" 2>/dev/null
	wait "$SLURM_CTLD_PID" 2>/dev/null
	SLURM_CTLD_PID=""
}

slurm_restart_ctld() {
	[ -z "$SLURM_CTLD_PID" ] || fail "slurm_restart_ctld: slurmctld still runs ($SLURM_CTLD_PID)"
	slurm_ctld_run "$@"
	for _ in $(seq 1 300); do
		scontrol ping 2>/dev/null | grep -q 'is UP' && return 0
		if ! kill -0 "$SLURM_CTLD_PID" 2>/dev/null; then
			slurm_show_logs
			fail "slurm: slurmctld exited on restart"
		fi
		sleep 0.1
	done
	slurm_show_logs
	fail "slurm: slurmctld does not answer 30 s after its restart"
}

# slurm_job_state JOBID: the job's long state as squeue prints it, GONE
# when squeue answers without it; status 1 (nothing printed) when squeue
# itself failed (slurmctld down, say).
slurm_job_state() {
	_out=$(squeue -h -j "$1" -t all -o '%T' 2>&1)
	_rc=$?
	if [ $_rc -ne 0 ]; then
		case $_out in
		*"Invalid job id"*) echo GONE; return 0 ;;
		esac
		return 1
	fi
	[ -n "$_out" ] || _out=GONE
	printf '%s\n' "$_out"
}

slurm_wait_job_state() {
	_j=$1 _want=$2 _secs=$3
	if [ -z "$_j" ] || [ -z "$_want" ] || [ -z "$_secs" ]; then
		fail "slurm_wait_job_state JOBID STATE SECS: [$_j] [$_want] [$_secs]"
	fi
	_end=$(( $(date +%s) + _secs ))
	_st=""
	while :; do
		_st=$(slurm_job_state "$_j") || _st="(squeue failed)"
		[ "$_st" = "$_want" ] && return 0
		[ "$(date +%s)" -ge "$_end" ] && break
		sleep 0.2
	done
	fail "slurm: job $_j is $_st, not $_want, after ${_secs}s"
}

# slurm_pids: every process of this cluster: those started with
# FABRICD_SLURM_DIR=DIR in their environment (munged, the daemons, the
# slurmstepd that slurmd starts), those of a job of this cluster (its
# SLURM_CONF and a SLURM_JOB_ID: a task or hook whose parent is gone) and
# all their descendants (the tasks, the hooks, which slurmd and slurmctld
# give an environment of their own).  Not the test's own processes, nor a
# daemon the test started with SLURM_CONF (no SLURM_JOB_ID).
slurm_pids() {
	_roots=""
	for _e in /proc/[0-9]*/environ; do
		_pid=${_e#/proc/}
		_pid=${_pid%/environ}
		[ "$_pid" = "$$" ] && continue
		tr '\0' '\n' 2>/dev/null < "$_e" | awk -v d="FABRICD_SLURM_DIR=$SLURM_DIR" \
		    -v c="SLURM_CONF=$SLURM_CONF" '
			$0 == d { mine = 1 } $0 == c { conf = 1 } /^SLURM_JOB_ID=/ { job = 1 }
			END { exit !(mine || (conf && job)) }' && _roots="$_roots $_pid"
	done
	[ -n "$_roots" ] || return 0
	ps -e -o pid=,ppid= | awk -v roots="$_roots" '
		{ parent[$1] = $2 }
		END {
			n = split(roots, r, " ")
			for (i = 1; i <= n; i++) mark[r[i]] = 1
			do {
				more = 0
				for (p in parent)
					if (!(p in mark) && (parent[p] in mark)) { mark[p] = 1; more = 1 }
			} while (more)
			for (p in mark) if (p in parent) print p
		}'
}

# slurm_stop_slurm: the daemons and their jobs, munged kept.
slurm_stop_slurm() {
	for _p in $SLURM_CTLD_PID $SLURMD_PIDS; do
		kill -KILL "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
	SLURM_CTLD_PID=""
	SLURMD_PIDS=""
	_mp=$SLURM_MUNGED_PID
	for _round in 1 2 3; do
		_left=""
		for _p in $(slurm_pids); do
			[ "$_p" = "$_mp" ] && continue
			_left="$_left $_p"
		done
		[ -n "$_left" ] || break
		# shellcheck disable=SC2086
		kill -KILL $_left 2>/dev/null
		sleep 0.1
	done
}

slurm_stop() {
	[ -n "${SLURM_DIR:-}" ] || return 0
	slurm_stop_slurm
	if [ -n "$SLURM_MUNGED_PID" ]; then
		kill -KILL "$SLURM_MUNGED_PID" 2>/dev/null
		wait "$SLURM_MUNGED_PID" 2>/dev/null
		SLURM_MUNGED_PID=""
	fi
	for _p in $(slurm_pids); do
		kill -KILL "$_p" 2>/dev/null
	done
	return 0
}
