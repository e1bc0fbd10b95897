#!/bin/sh
# A three-class RoCE profile (training, storage, kv) on a fake host, as
# roce_apply_drift does for one class: applied, read back by iproute2 dcb
# under the netlink double, watched for drift (one event) and left alone
# until remediate.  The DCB bytes themselves are compared with dcb's in
# test_roce_oracle.
. "$FABRICD_SRC/tests/lib/common.sh"
need dcb
SHIM="$FABRICD_BUILD/tests/libroce_nlfake.so"
[ -f "$SHIM" ] || fail "no $SHIM"
fd_setup
ROOT="$T/root"
sh "$FABRICD_SRC/tests/fixtures/roce/mktree.sh" "$ROOT" mlx0 mlx5_0 0000:08:00.0 || fail "fake tree"
NIC="$T/nic.state"
ECN="$ROOT/sys/class/net/mlx0/ecn"
fd_config "roce_qos:
  enabled: true
  root: $ROOT
  interfaces: all
  poll_interval: 300ms
  remediate: false
  profile:
    base: nvidia-lossless
    classes:
      training: { priority: 3, dscp: [26], lossless: true, ets: 50, ecn: true }
      storage:  { priority: 4, dscp: [28], lossless: true, ets: 30, ecn: true }
      kv:       { priority: 5, dscp: [34], ets: 15, ecn: true }"
dcbx() { env LD_PRELOAD="$SHIM" NLFAKE_STATE="$NIC" dcb "$@"; }
compact() { tr -d ' \n'; }
wait_for() {	# seconds command...
	n=$(( $1 * 10 )); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
	return 1
}
fd_start LD_PRELOAD="$SHIM" NLFAKE_STATE="$NIC"
ctl roce apply > /dev/null || fail "apply"
dcbx -j pfc show dev mlx0 | compact | grep -q '"prio_pfc":\[false,false,false,true,true,false,false,false\]' ||
    fail "pfc per dcb: $(dcbx -j pfc show dev mlx0)"
dcbx -j ets show dev mlx0 | compact | grep -q '"prio_tc":\[0,0,0,3,4,5,6,0\]' || fail "prio_tc per dcb"
dcbx -j ets show dev mlx0 | compact | grep -q '"tc_bw":\[5,0,0,50,30,15,' ||
    fail "tc_bw per dcb: $(dcbx -j ets show dev mlx0)"
dcbx -N app show dev mlx0 | grep -q "dscp-prio 26:3 28:4 34:5 48:6" || fail "app per dcb: $(dcbx -N app show dev mlx0)"
for p in 3 4 5; do
	[ "$(cat "$ECN/roce_np/enable/$p")" = 1 ] || fail "ECN not on priority $p"
done
[ "$(cat "$ECN/roce_np/enable/0")" = 0 ] || fail "ECN on priority 0"
out=$(ctl --json roce plan) || fail "plan"
printf '%s' "$out" | jq -e '[.. | objects | select(has("setting"))] | length == 0' > /dev/null ||
    fail "plan after apply not empty: $out"

# jobs: the traffic classes nccl-env and qos env give land, per dcb, on the
# class's priority, lossless where the class is
tc_prio() { dcbx -N app show dev mlx0 | tr ' ' '\n' | sed -n "s/^$(( $1 >> 2 )):\([0-7]\)$/\1/p"; }
pfc_on() { dcbx -j pfc show dev mlx0 | jq -e ".prio_pfc[$1]" > /dev/null; }
sto=$(ctl --json qos env --class storage | jq -r '.roce.nvme_connect') || fail "qos env"
[ "$(tc_prio "${sto#--tos }")" = 4 ] && pfc_on 4 || fail "qos env storage: $sto is not lossless priority 4"
env=$(ctl --json nccl-env --hosts h1)
tc=$(printf '%s' "$env" | jq -r '.env.NCCL_IB_TC')
[ "$(tc_prio "$tc")" = 3 ] && pfc_on 3 || fail "NCCL_IB_TC $tc is not lossless priority 3"
tc=$(printf '%s' "$env" | jq -r '.env.UCX_IB_TRAFFIC_CLASS')
[ "$(tc_prio "$tc")" = 5 ] || fail "UCX_IB_TRAFFIC_CLASS $tc is not kv's priority 5"

# storage's PFC turned off behind fabricd's back: one drift event
sleep 0.5
mark=$(db "SELECT coalesce(max(id), 0) FROM events")
dcbx pfc set dev mlx0 prio-pfc 4:off || fail "dcb pfc set"
drift() { [ "$(db "SELECT count(*) FROM events WHERE id > $mark AND source = 'roce_qos' AND message LIKE 'drift: pfc.priorities%'")" -ge 1 ]; }
wait_for 5 drift || fail "no drift event for storage's PFC"
dcbx -j pfc show dev mlx0 | compact | grep -q '"prio_pfc":\[false,false,false,true,false' ||
    fail "remediated without remediate: true"
fd_stop
pass
