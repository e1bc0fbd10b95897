#!/bin/sh
# run.sh: long (a private Slurm's start: about 30 s)
# Job partitions through a real Slurm (issue 26): slurmctld, three slurmd
# on this host (host3, host4, host5: Debian's build has multiple-slurmd)
# and a fourth node gpu9 that is not on the fabric, munged, all on
# loopback (tests/lib/slurm.sh); fabricd the SM of a simulated fat tree on
# its defaults, reached by the hooks over its remote TLS channel, as a
# site runs it: contrib/slurm's scripts as PrologSlurmctld and
# EpilogSlurmctld with a jobs certificate, as Prolog, Epilog and
# TaskProlog with a read one.  The reconcile interval is lowered to 5 s
# (default 60 s: partitions_jobs proves the reconcile's rule, this test
# its timing against slurmctld).  Judged from outside fabricd: the P_Key
# tables with smpquery (from inside each job's task too), Slurm's own
# state with squeue, the stored history with sqlite3.
#   1. job A on host3+host4 and job B on host5 at once: each task, when it
#      runs, already sees its node hold its job's key (smpquery from the
#      task) at the index its NCCL_IB_PKEY says, and the training QoS
#      class's SL as NCCL_IB_SL (sm.qos.classes); neither job's key is on
#      the other's hosts; both gone once the jobs end, by the epilog;
#   2. job D on gpu9 (not on the fabric): the prolog fails, Slurm does not
#      run it (requeued, pending), no key is written;
#   3. slurmctld killed while job C runs: its partition stays while
#      squeue fails; slurmctld back without the job (its state lost, so
#      no EpilogSlurmctld runs for it): the reconcile removes the
#      partition within one interval.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/slurm.sh"
sim_test_setup smpquery jq sqlite3 openssl
. "$FABRICD_SRC/tests/lib/tls.sh"
H=$T/hooks
mkdir -p "$H" "$T/out"

# ---- fabricd's remote channel, and the client files the hooks use ----
tls_ca ca
tls_cert server ca fabricd "IP:127.0.0.1"
tls_cert jobs ca slurmctld
tls_cert read ca nodes
port_block
PORT=$PORT_BASE
for who in jobs read; do
	printf 'remote: 127.0.0.1:%s\ncert: %s\nkey: %s\nca: %s\n' "$PORT" "$C/$who.pem" \
	    "$C/$who.key" "$C/ca.pem" > "$T/$who.conf"
done
# What /etc/default/fabricd-slurm holds on the controller and on a node.
# Slurm gives the hooks an environment of its own: each hook below is a
# wrapper naming the test's file (and the sanitizers' options) in place
# of /etc/default/fabricd-slurm, then the installed script itself.
printf 'FABRICCTL=%s\nFABRICCTL_ARGS="--client-config %s"\n' "$FABRICCTL" "$T/jobs.conf" > "$T/ctld.env"
printf 'FABRICCTL=%s\nFABRICCTL_ARGS="--client-config %s"\nFABRICD_SLURM_SPOOL=%s\n' \
    "$FABRICCTL" "$T/read.conf" "$T/spool" > "$T/node.env"
hook() {	# NAME SCRIPT ENV
	cat > "$H/$1" <<EOF
#!/bin/sh
export FABRICD_SLURM_CONF=$3 ASAN_OPTIONS='${ASAN_OPTIONS:-}' LSAN_OPTIONS='${LSAN_OPTIONS:-}'
exec "$FABRICD_SRC/contrib/slurm/$2"
EOF
	chmod 755 "$H/$1"
}
hook ctld-prolog prolog-slurmctld "$T/ctld.env"
hook ctld-epilog epilog-slurmctld "$T/ctld.env"
hook prolog prolog "$T/node.env"
hook epilog epilog "$T/node.env"
hook task-prolog task-prolog "$T/node.env"

# ---- the fabric and fabricd ----
sim_topology -k 2 -h 4 -s 1 || fail topogen
sim_start || fail ibsim
fd_config "sm:
  enabled: true
  qos:
    classes:
      training:   { sl: 1, vl: 1, share: 60 }
      management: { sl: 0, vl: 0, share: 40 }
partitions:
  enabled: true
  jobs:
    reconcile_interval: 5s
control:
  listen: 127.0.0.1:$PORT
  tls: { cert: $C/server.pem, key: $C/server.key, ca: $C/ca.pem }
  clients:
    - { cn: slurmctld, role: jobs }
    - { cn: nodes, role: read }"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    SLURM_CONF="$T/slurm/slurm.conf"
sm_wait_up 30 || fail "subnet not up"

slurm_start "$T/slurm" "host3 host4 host5 gpu9" \
    PrologSlurmctld="$H/ctld-prolog" EpilogSlurmctld="$H/ctld-epilog" \
    Prolog="$H/prolog" Epilog="$H/epilog" TaskProlog="$H/task-prolog"

pk() {	# HOST: its port's P_Key table, "index=key ..."
	sim_diag -H "$1" -t 10 smpquery -D pkeys 0 | awk '/^ *[0-9]+:/ {
	    b = $1 + 0; for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%d=%s ", b + i - 2, $i }'
}
key_of() {	# JOB: its partition's P_Key as stored ("0x1000"), or nothing
	db "SELECT printf('0x%04x', p.pkey) FROM pt_jobs j JOIN pt_partitions p ON p.name = j.partition
	    WHERE j.job_id = '$1'"
}
full() { printf '0x%04x' $(( $1 | 0x8000 )); }
# The task: what its node's port holds, read by the task itself with
# smpquery as it runs, and the NCCL_IB_PKEY it was given.
cat > "$T/task.sh" <<EOF
#!/bin/sh
f=$T/out/\$SLURM_JOB_ID.\$SLURMD_NODENAME
{ echo "NCCL_IB_PKEY=\${NCCL_IB_PKEY:-none}"
  echo "NCCL_IB_SL=\${NCCL_IB_SL:-none}"
  SIM_HOST=\$SLURMD_NODENAME LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \\
      timeout 10 smpquery -D pkeys 0 2>/dev/null; } > "\$f.tmp"
mv "\$f.tmp" "\$f"
sleep "\${1:-0}"
EOF
chmod 755 "$T/task.sh"
# index_in FILE KEY: the index the task's smpquery found KEY at
index_in() {
	awk -v k="$2" '/^ *[0-9]+:/ { b = $1 + 0; for (i = 2; i <= NF; i++) if ($i == k) print b + i - 2 }' "$1"
}
wait_file() {
	i=0
	until [ -s "$1" ]; do
		[ $i -ge 300 ] && fail "no $1 after 30 s: $(ls "$T/out"); $(squeue 2>&1)"
		i=$((i + 1)); sleep 0.1
	done
}

# ---- 1. two jobs at once ----
a=$(sbatch --parsable -N2 -w host3,host4 -o "$T/out/%j.log" --wrap "srun $T/task.sh 3") || fail "sbatch A"
b=$(sbatch --parsable -N1 -w host5 -o "$T/out/%j.log" --wrap "srun $T/task.sh 3") || fail "sbatch B"
for f in "$a.host3" "$a.host4" "$b.host5"; do wait_file "$T/out/$f"; done
ka=$(key_of "$a") kb=$(key_of "$b")
if [ -z "$ka" ] || [ -z "$kb" ] || [ "$ka" = "$kb" ]; then fail "job keys: A '$ka', B '$kb'"; fi
for f in "$a.host3:$ka" "$a.host4:$ka" "$b.host5:$kb"; do
	file=$T/out/${f%%:*} key=${f#*:}
	idx=$(index_in "$file" "$(full "$key")")
	[ -n "$idx" ] || fail "${f%%:*}: the task's node did not hold $key when the task ran: $(cat "$file")"
	grep -qx "NCCL_IB_PKEY=$idx" "$file" ||
	    fail "${f%%:*}: the task's $(head -1 "$file"), smpquery has $key at index $idx"
	grep -qx "NCCL_IB_SL=1" "$file" || fail "${f%%:*}: the task's $(sed -n 2p "$file"), the training class's SL is 1"
	echo "${f%%:*}: P_Key $key at index $idx, the task's NCCL_IB_PKEY=$idx, NCCL_IB_SL=1"
done
case "$(pk host5)" in *"$(full "$ka")"*|*"=$ka "*) fail "host5 (job B) holds job A's key $ka: $(pk host5)" ;; esac
for h in host3 host4; do
	case "$(pk $h)" in *"$(full "$kb")"*|*"=$kb "*) fail "$h (job A) holds job B's key $kb: $(pk $h)" ;; esac
done
slurm_wait_job_state "$a" COMPLETED 60
slurm_wait_job_state "$b" COMPLETED 60
for h in host3 host4 host5; do
	case "$(pk $h)" in *"$(full "$ka")"*|*"$(full "$kb")"*) fail "$h still holds a job's key after the jobs: $(pk $h)" ;; esac
done
[ "$(db "SELECT count(*) FROM pt_jobs")" = 0 ] || fail "job partitions left: $(db 'SELECT * FROM pt_jobs')"
[ "$(db "SELECT count(*) FROM pt_history WHERE action = 'job delete' AND result = 'ok'")" = 2 ] ||
    fail "the epilog did not delete both: $(db "SELECT action, result, detail FROM pt_history")"
ls "$T/spool"/job-* >/dev/null 2>&1 && fail "the node epilog left $(ls "$T/spool")"

# ---- 2. a node not on the fabric: the job does not run ----
before=$(pk host3)
d=$(sbatch --parsable -N1 -w gpu9 -o "$T/out/%j.log" --wrap "srun $T/task.sh 0") || fail "sbatch D"
i=0
until [ "$(db "SELECT count(*) FROM pt_history WHERE action = 'job create' AND result = 'rejected'
    AND detail LIKE '%\"$d\"%'")" -ge 1 ]; do
	[ $i -ge 100 ] && fail "job D's prolog never asked fabricd: $(db 'SELECT action, result, message FROM pt_history')"
	i=$((i + 1)); sleep 0.1
done
sleep 2
[ -e "$T/out/$d.gpu9" ] && fail "job D ran without its partition"
st=$(slurm_job_state "$d")
[ "$st" = PENDING ] || fail "job D after its prolog failed: $st (requeued: PENDING)"
db "SELECT message FROM pt_history WHERE action = 'job create' AND detail LIKE '%\"$d\"%'" |
    grep -q gpu9 || fail "fabricd's refusal does not name gpu9"
[ "$(db "SELECT count(*) FROM pt_jobs")" = 0 ] || fail "job D got a partition"
[ "$(pk host3)" = "$before" ] || fail "a table moved for job D"
scancel "$d"

# ---- 3. slurmctld killed while job C runs ----
c=$(sbatch --parsable -N1 -w host3 -o "$T/out/%j.log" --wrap "srun $T/task.sh 300") || fail "sbatch C"
wait_file "$T/out/$c.host3"
kc=$(key_of "$c")
[ -n "$kc" ] && pk host3 | grep -q "$(full "$kc")" || fail "job C's key '$kc' not on host3: $(pk host3)"
reconcile() { ctl --json partition job list | jq -r ".reconcile.$1"; }
f0=$(reconcile failures)
slurm_kill_ctld
# two reconciles that fail (counted; the minute only ends the wait):
# nothing is removed
i=0
until [ "$(reconcile failures)" -ge $((f0 + 2)) ]; do
	[ $i -ge 600 ] && fail "no two failed reconciles a minute after slurmctld died: $(ctl --json partition job list | jq -c .reconcile)"
	i=$((i + 1)); sleep 0.1
done
pk host3 | grep -q "$(full "$kc")" || fail "job C lost its key while slurmctld was down: $(pk host3)"
ctl --json partition job list |
    jq -e '.reconcile.failures >= 1 and (.reconcile.error | test("exited 1"))' >/dev/null ||
    fail "reconcile with slurmctld down: $(ctl --json partition job list | jq -c .reconcile)"
slurm_restart_ctld -c	# back without its state: job C is gone, no EpilogSlurmctld for it
# removed by the first reconcile that runs wholly after the restart: the
# one under way may have asked the old slurmctld, so two runs (read before
# the key) with the key still there fail; counted in runs, not seconds
t0=$(date +%s)
r0=$(reconcile runs)
i=0
while runs=$(reconcile runs); pk host3 | grep -q "$(full "$kc")"; do
	[ "$runs" -ge $((r0 + 2)) ] &&
	    fail "job C's key still on host3 after $((runs - r0)) reconciles since slurmctld forgot the job"
	[ $i -ge 600 ] && fail "job C's key still on host3 a minute after slurmctld forgot the job"
	i=$((i + 1)); sleep 0.1
done
echo "job C's partition removed $(( $(date +%s) - t0 ))s after slurmctld came back without it (interval 5 s; not gated)"
[ "$(db "SELECT count(*) FROM pt_history WHERE action = 'job reconcile' AND result = 'ok'
    AND detail LIKE '%\"$c\"%'")" = 1 ] || fail "not removed by the reconcile: $(db 'SELECT action, detail FROM pt_history')"
[ "$(db "SELECT count(*) FROM pt_history WHERE action = 'job delete' AND detail LIKE '%\"$c\"%'")" = 0 ] ||
    fail "an epilog ran for job C after all"
slurm_stop
fd_stop
pass
