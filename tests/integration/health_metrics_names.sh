#!/bin/sh
# Every series the shipped dashboard (contrib/grafana/fabricd.json) and
# alert rules (contrib/prometheus/fabricd-rules.yml) name is one fabricd
# exports: each fabricd_* name in either file has samples in `fabricctl
# metrics` of a daemon on a small simulated fabric with every module that
# exports them on: the SM with its audit, health (with a fake RoCE NIC's
# counters), partitions, roce_qos (a fake host tree and the netlink
# double, as roce_apply_drift.sh) and validation (a pre-flight answered, a
# job run by the fake launcher, as validation_jobs.sh).
# A name the daemon does not export (a typo, a series renamed) fails.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup jq
SHIM="$FABRICD_BUILD/tests/libroce_nlfake.so"
[ -f "$SHIM" ] || fail "no $SHIM"
ROOT=$T/root
sh "$FABRICD_SRC/tests/fixtures/roce/mktree.sh" "$ROOT" mlx0 mlx5_0 0000:08:00.0 || fail "fake tree"
N=$ROOT/sys/class/net/mlx0/statistics
mkdir -p "$N"
for prio in 0 1 2 3 4 5 6 7; do
	echo 0 > "$N/rx_prio${prio}_pause"
	echo 0 > "$N/tx_prio${prio}_pause"
done
sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail ibsim
fd_config "sm:
  enabled: true
  sweep_interval: 2s
  audit: true
  audit_interval: 2s
health:
  enabled: true
  interval: 1s
  roce_sysfs_root: $ROOT/sys
  roce_interval: 500ms
partitions:
  enabled: true
roce_qos:
  enabled: true
  root: $ROOT
  interfaces: all
  poll_interval: 300ms
  profile: nvidia-lossless
validation:
  mpirun: $FABRICD_SRC/tests/fakes/mpirun
  nccl_tests_dir: $FABRICD_SRC/tests/fakes
  job_timeout: 10s"
printf '%s\n' mode=replay "fixture=$FABRICD_SRC/tests/fixtures/nccl/v2.17_2node_ring_pass.txt" exit=0 \
    > "$T/nccl.control"
fd_start SIM_HOST=host1 LD_PRELOAD="$SIM_PRELOAD $SHIM" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    NLFAKE_STATE="$T/nic.state" FAKE_NCCL_CONTROL="$T/nccl.control"
sm_wait_up 30 || fail "subnet not up"
health_wait_rounds 2 30
# one pre-flight answered and one validation job run (the fake launcher
# replays a recorded nccl-tests output), whatever their verdicts
ctl preflight host1 > /dev/null 2>&1
ctl validate nccl --hosts host1,host2 --follow > /dev/null 2>&1
i=0
until ctl --json audit | jq -e '.passes >= 1' > /dev/null 2>&1; do
	[ $i -ge 100 ] && fail "no audit pass within 20 s"
	i=$((i + 1))
	sleep 0.2
done

capture "$T/metrics.txt" ctl metrics
grep -ho 'fabricd_[a-z0-9_]*' "$FABRICD_SRC/contrib/grafana/fabricd.json" \
    "$FABRICD_SRC/contrib/prometheus/fabricd-rules.yml" | sort -u > "$T/named"
[ "$(wc -l < "$T/named")" -ge 30 ] || fail "only $(wc -l < "$T/named") names in the dashboard and rules"
# names with samples: "name{" or "name " at the start of a line
sed -n 's/^\(fabricd_[a-z0-9_]*\)[{ ].*/\1/p' "$T/metrics.txt" | sort -u > "$T/exported"
missing=$(comm -23 "$T/named" "$T/exported")
[ -z "$missing" ] || fail "named by the dashboard or rules, without samples in fabricctl metrics: $(echo $missing)"
echo "metrics: $(wc -l < "$T/named") names in the dashboard and rules, all among $(wc -l < "$T/exported") exported"
fd_stop
pass
