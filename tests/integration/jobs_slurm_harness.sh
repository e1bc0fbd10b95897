#!/bin/sh
# The Slurm cluster the job-partition tests run on (tests/lib/slurm.sh):
# real slurmctld, two slurmd on one host (host3, host4) and munged on
# loopback, with hooks that only write down when they ran and their
# environment.  Judged by what the hooks and the job's task wrote to the
# file system, and by squeue/sinfo (Slurm's own view), never by fabricd:
#   a job on each node runs; its PrologSlurmctld saw SLURM_JOB_ID,
#   SLURM_JOB_NODELIST and SLURM_JOB_USER and had finished before the
#   task started; the TaskProlog's "export NCCL_IB_PKEY=..." is in the
#   task's environment; EpilogSlurmctld ran after the task ended
#   slurmctld killed while a job runs: squeue fails (status 1, "Unable to
#   contact slurm controller"; `squeue --json` exits 0 but names the
#   error), scancel fails; slurmctld started again without its state
#   (-c): squeue succeeds without the job, slurmctld has the job's task
#   killed on its node, and EpilogSlurmctld never runs for it (what
#   fabricd's reconcile has to make up for)
. "$FABRICD_SRC/tests/lib/common.sh"
. "$FABRICD_SRC/tests/lib/slurm.sh"
need jq
fd_setup
H="$T/hooks"
mkdir -p "$H"

# hook NAME: $T/NAME.sh writes "start TIME", its uid and environment to
# $H/NAME.JOBID, then "end TIME"; the PrologSlurmctld takes 1 s, so
# that a task started before its end would show; the TaskProlog
# prints the export.
hook() {
	cat > "$T/$1.sh" <<EOF
#!/bin/sh
f=$H/$1.\$SLURM_JOB_ID
{ echo "start \$(date +%s.%N) uid \$(id -u)"; env; } > "\$f"
case $1 in
PrologSlurmctld) sleep 1 ;;
TaskProlog) echo "export NCCL_IB_PKEY=0x8123" ;;
esac
echo "end \$(date +%s.%N)" >> "\$f"
EOF
	chmod 755 "$T/$1.sh"
}
for h in PrologSlurmctld EpilogSlurmctld Prolog Epilog TaskProlog; do hook $h; done

slurm_start "$T/slurm" "host3 host4" \
    PrologSlurmctld="$T/PrologSlurmctld.sh" EpilogSlurmctld="$T/EpilogSlurmctld.sh" \
    Prolog="$T/Prolog.sh" Epilog="$T/Epilog.sh" TaskProlog="$T/TaskProlog.sh"

# each node its own slurmd on its own port (the build has multiple-slurmd)
for n in host3 host4; do
	p=$(sed -n "s/^NodeName=$n .* Port=\([0-9]*\) .*/\1/p" "$SLURM_CONF")
	[ -n "$p" ] || fail "no port of $n in slurm.conf"
	ss -Htlnp "sport = :$p" | grep -q slurmd || fail "no slurmd listens on $n's port $p: $(ss -Htlnp "sport = :$p")"
done

# the task: when it started and ended, its environment
cat > "$T/job.sh" <<EOF
#!/bin/sh
{ echo "start \$(date +%s.%N)"; env; } > $H/task.\$SLURM_JOB_ID
sleep 1
echo "end \$(date +%s.%N)" >> $H/task.\$SLURM_JOB_ID
EOF
chmod 755 "$T/job.sh"

# time_of FILE start|end: the time the file's line says
time_of() { sed -n "s/^$2 \([0-9.]*\).*/\1/p" "$1" | head -1; }
# before A B: time A is earlier than time B
before() {
	if [ -z "$1" ] || [ -z "$2" ]; then fail "a time is missing: [$1] [$2]"; fi
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'
}

j3=$(sbatch --parsable -N1 -w host3 -o "$H/out.%j" "$T/job.sh") || fail "sbatch on host3"
j4=$(sbatch --parsable -N1 -w host4 -o "$H/out.%j" "$T/job.sh") || fail "sbatch on host4"
if [ -z "$j3" ] || [ -z "$j4" ]; then fail "no job ids: [$j3] [$j4]"; fi
for j in $j3 $j4; do
	slurm_wait_job_state "$j" COMPLETED 30
	for f in PrologSlurmctld EpilogSlurmctld Prolog Epilog TaskProlog; do
		[ -s "$H/$f.$j" ] || fail "job $j: no $f ran: $(ls "$H")"
	done
	[ -s "$H/task.$j" ] || fail "job $j: its task did not run: $(cat "$H/out.$j")"
	grep -qx "SLURM_JOB_ID=$j" "$H/PrologSlurmctld.$j" || fail "job $j: PrologSlurmctld without SLURM_JOB_ID"
	grep -qx "SLURM_JOB_USER=root" "$H/PrologSlurmctld.$j" || fail "job $j: PrologSlurmctld without SLURM_JOB_USER"
	before "$(time_of "$H/PrologSlurmctld.$j" end)" "$(time_of "$H/task.$j" start)" ||
	    fail "job $j: the task started before PrologSlurmctld ended"
	grep -qx 'NCCL_IB_PKEY=0x8123' "$H/task.$j" || fail "job $j: the TaskProlog's export is not in the task's environment"
	before "$(time_of "$H/task.$j" end)" "$(time_of "$H/EpilogSlurmctld.$j" start)" ||
	    fail "job $j: EpilogSlurmctld started before the task ended"
done
grep -qx 'SLURM_JOB_NODELIST=host3' "$H/PrologSlurmctld.$j3" || fail "job $j3: SLURM_JOB_NODELIST is not host3"
grep -qx 'SLURM_JOB_NODELIST=host4' "$H/PrologSlurmctld.$j4" || fail "job $j4: SLURM_JOB_NODELIST is not host4"
grep -qx 'SLURMD_NODENAME=host4' "$H/TaskProlog.$j4" || fail "job $j4: the TaskProlog ran on no host4"

# slurmctld killed while a job runs
cat > "$T/long.sh" <<EOF
#!/bin/sh
echo \$\$ > $H/pid.\$SLURM_JOB_ID
exec sleep 120
EOF
chmod 755 "$T/long.sh"
j=$(sbatch --parsable -N1 -w host3 -o "$H/out.%j" "$T/long.sh") || fail "sbatch long"
slurm_wait_job_state "$j" RUNNING 30
i=0
until [ -s "$H/pid.$j" ]; do
	[ $i -ge 50 ] && fail "job $j: its task never wrote its pid"
	i=$((i + 1)); sleep 0.1
done
task=$(cat "$H/pid.$j")
kill -0 "$task" 2>/dev/null || fail "job $j: its task $task does not run"
# the query fabricd's reconcile makes, its complaint kept in $T/sq.err
live_jobs() { squeue -h -o %i -t PD,R,CG,CF,S 2> "$T/sq.err"; }
slurm_kill_ctld
capture -e -r "$T/sq" live_jobs
[ "$CAPTURE_RC" -eq 1 ] || fail "squeue with slurmctld down: exit $CAPTURE_RC, not 1: $(cat "$T/sq")"
grep -q 'Unable to contact slurm controller' "$T/sq.err" || fail "squeue with slurmctld down does not say so: $(cat "$T/sq.err")"
sq_json() { squeue --json 2>/dev/null; }
capture -r "$T/sq.json" sq_json
[ "$(jq '.errors | length' "$T/sq.json")" -ge 1 ] || fail "squeue --json with slurmctld down names no error: $(head -c 300 "$T/sq.json")"
scancel "$j" 2>/dev/null && fail "scancel succeeded with slurmctld down"
slurm_restart_ctld -c
slurm_wait_job_state "$j" GONE 5
capture -e "$T/sq" live_jobs
grep -qx "$j" "$T/sq" && fail "squeue still lists job $j"
i=0
while kill -0 "$task" 2>/dev/null; do
	[ $i -ge 300 ] && fail "job $j: its task $task still runs 30 s after slurmctld forgot it"
	i=$((i + 1)); sleep 0.1
done
sleep 2	# an EpilogSlurmctld, if one were coming, has had its time
[ -e "$H/EpilogSlurmctld.$j" ] && fail "EpilogSlurmctld ran for job $j: $(cat "$H/EpilogSlurmctld.$j")"
slurm_stop
pass
