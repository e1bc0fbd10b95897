# roce_qos end to end on a fake host: fabricd's netlink goes to the mlx5
# double (LD_PRELOAD), sysfs/configfs to a fake tree.  Checked against
# iproute2 dcb (under the same double), the file system, the double's own
# state file (writes, link toggles) and the sqlite3 shell.
. "$FABRICD_SRC/tests/lib/common.sh"
need dcb
SHIM="$FABRICD_BUILD/tests/libroce_nlfake.so"
[ -f "$SHIM" ] || fail "no $SHIM"
fd_setup
ROOT="$T/root"
sh "$FABRICD_SRC/tests/fixtures/roce/mktree.sh" "$ROOT" mlx0 mlx5_0 0000:08:00.0 || fail "fake tree"
NIC="$T/nic.state"
LOG="$T/nl.log"
: > "$LOG"
ECN="$ROOT/sys/class/net/mlx0/ecn"
TOS="$ROOT/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"

config() {	# remediate
	fd_config "roce_qos:
  enabled: true
  root: $ROOT
  interfaces: all
  poll_interval: 300ms
  remediate: $1
  profile: nvidia-lossless"
}
dcbx() { env LD_PRELOAD="$SHIM" NLFAKE_STATE="$NIC" dcb "$@"; }
nic() { sed -n "s/^$1=//p" "$NIC"; }
sets() { cut -c9-12 "$LOG" | grep -c 4f00; }
compact() { tr -d ' \n'; }
wait_for() {	# seconds command...
	n=$(( $1 * 10 )); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
	return 1
}

# decode cross-check: "roce show" reads what dcb reads
same_as_dcb() {
	d=$(dcbx -j pfc show dev mlx0 | compact | sed 's/.*"prio_pfc":\[\([^]]*\)\].*/\1/' |
	    tr ',' '\n' | grep -n true | cut -d: -f1 | awk '{ printf "%s%d", (NR > 1 ? "," : ""), $1 - 1 }')
	s=$(ctl --json roce show | compact)
	f=$(printf '%s' "$s" | sed 's/.*"pfc":{"priorities":\[\([^]]*\)\].*/\1/')
	[ "$d" = "$f" ] || fail "pfc priorities: dcb [$d], roce show [$f]"
	d=$(dcbx -j ets show dev mlx0 | compact | sed 's/.*"prio_tc":\(\[[^]]*\]\).*/\1/')
	f=$(printf '%s' "$s" | sed 's/.*"prio_tc":\(\[[^]]*\]\).*/\1/')
	[ "$d" = "$f" ] || fail "prio_tc: dcb $d, roce show $f"
	d=$(dcbx -j pfc show dev mlx0 | compact | sed 's/.*"delay":\([0-9]*\).*/\1/')
	f=$(printf '%s' "$s" | sed 's/.*"cable_length":\([0-9]*\).*/\1/')
	[ "$d" = "$f" ] || fail "delay: dcb $d, roce show $f"
}

config false
fd_start LD_PRELOAD="$SHIM" NLFAKE_STATE="$NIC" NLFAKE_LOG="$LOG"
same_as_dcb

# plan shows the differences and writes nothing
ctl --json roce plan > "$T/plan.json" || fail "plan failed"
grep -q '"setting": "pfc.priorities"' "$T/plan.json" || fail "plan lacks pfc: $(cat "$T/plan.json")"
[ "$(sets)" = 0 ] || fail "plan sent $(sets) writes"
ctl roce apply --dry-run >/dev/null || fail "dry run failed"
[ "$(sets)" = 0 ] || fail "dry run sent writes"

# apply: the NIC, as dcb reads it, holds the profile
ctl roce apply >/dev/null || fail "apply failed"
dcbx -j pfc show dev mlx0 | compact | grep -q '"prio_pfc":\[false,false,false,true,false,false,false,false\]' ||
	fail "pfc per dcb: $(dcbx -j pfc show dev mlx0)"
dcbx -j ets show dev mlx0 | compact | grep -q '"prio_tc":\[0,0,0,3,0,0,6,0\]' || fail "ets prio_tc per dcb"
dcbx -j ets show dev mlx0 | compact | grep -q '"tc_tsa":\["ets","ets","ets","ets","ets","ets","strict","ets"\]' ||
	fail "ets tsa per dcb"
dcbx -N app show dev mlx0 | grep -q "dscp-prio 26:3 48:6" || fail "app per dcb: $(dcbx -N app show dev mlx0)"
dcbx dcbx show dev mlx0 | grep -q host || fail "dcbx not host"
[ "$(nic link_toggles)" = 1 ] || fail "link toggled $(nic link_toggles) times"
same_as_dcb
# sysfs/configfs: ECN on priority 3 only, CNP 48/6, RDMA-CM ToS 106
[ "$(cat "$ECN/roce_np/enable/3")" = 1 ] && [ "$(cat "$ECN/roce_rp/enable/3")" = 1 ] || fail "ECN prio 3 not enabled"
[ "$(cat "$ECN/roce_np/enable/0")" = 0 ] || fail "ECN prio 0 enabled"
[ "$(cat "$ECN/roce_np/cnp_dscp")" = 48 ] && [ "$(cat "$ECN/roce_np/cnp_802p_prio")" = 6 ] || fail "CNP"
[ "$(cat "$TOS")" = 106 ] || fail "default_roce_tos is $(cat "$TOS")"
n=$(db "SELECT count(*) FROM roce_writes WHERE interface = 'mlx0' AND reason = 'apply' AND setting = 'pfc.priorities'")
[ "$n" = 1 ] || fail "roce_writes: $n pfc rows"

# apply twice: no write at all, PFC mask written once
before=$(sets); w=$(nic writes)
ctl roce apply >/dev/null || fail "second apply failed"
[ "$(sets)" = "$before" ] || fail "second apply sent $(( $(sets) - before )) writes"
[ "$(nic writes)" = "$w" ] && [ "$(nic link_toggles)" = 1 ] || fail "second apply changed the NIC"
[ "$(cut -c9-12 "$LOG" | grep -c 4f00)" -ge 1 ] || fail "log empty"
pfc_sets=$(grep -c '^b00000004f' "$LOG")
[ "$pfc_sets" = 1 ] || fail "PFC written $pfc_sets times"

# nccl-env, against the file system: the RoCE v2 GID with an IPv4 address
want_gid=""
for f in "$ROOT"/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/*; do
	i=$(basename "$f")
	if [ "$(cat "$f")" = "RoCE v2" ] && grep -q ffff "$ROOT/sys/class/infiniband/mlx5_0/ports/1/gids/$i"; then
		want_gid=$i; break
	fi
done
out=$(ctl roce nccl-env) || fail "nccl-env failed"
printf '%s\n' "$out" | grep -qx "export NCCL_IB_HCA==mlx5_0:1" || fail "nccl-env HCA: $out"
printf '%s\n' "$out" | grep -qx "export NCCL_IB_GID_INDEX=$want_gid" || fail "nccl-env GID (want $want_gid): $out"
printf '%s\n' "$out" | grep -qx "export NCCL_IB_TC=$(cat "$TOS")" || fail "nccl-env TC: $out"

# drift behind fabricd's back: a file and a dcbnl change, each one event
# (the start-up check already reported the unconfigured NIC: count after it)
sleep 0.5
mark=$(db "SELECT coalesce(max(id), 0) FROM events")
echo 0 > "$ECN/roce_np/enable/3"
dcbx pfc set dev mlx0 prio-pfc 3:off || fail "dcb pfc set"
has_event() { [ "$(db "SELECT count(*) FROM events WHERE id > $mark AND source = 'roce_qos' AND object = 'mlx0' AND message LIKE '$1'")" -ge 1 ]; }
wait_for 3 has_event 'drift: ecn.roce_np.enable.3 expected 1, found 0' || fail "no drift event for the ECN file"
wait_for 3 has_event 'drift: pfc.priorities expected 3, found none' || fail "no drift event for PFC"
sleep 1
n=$(db "SELECT count(*) FROM events WHERE id > $mark AND message LIKE 'drift: pfc.priorities%'")
[ "$n" = 1 ] || fail "persisting drift reported $n times"
[ "$(cat "$ECN/roce_np/enable/3")" = 0 ] || fail "remediated without remediate: true"

# remediate: true puts both back within a poll interval
config true
ctl reload >/dev/null || fail "reload"
restored() { [ "$(cat "$ECN/roce_np/enable/3")" = 1 ] && [ "$(nic pfc_en)" = 8 ]; }
wait_for 3 restored || fail "not remediated: ecn $(cat "$ECN/roce_np/enable/3") pfc_en $(nic pfc_en)"
dcbx -j pfc show dev mlx0 | compact | grep -q '"prio_pfc":\[false,false,false,true' || fail "pfc per dcb after remediation"
n=$(db "SELECT count(*) FROM roce_writes WHERE reason = 'remediate'")
[ "$n" -ge 2 ] || fail "remediation not recorded ($n rows)"

# driver errors reach the operator: an ETS failure in the reply status
printf 'fail_attr=1\nfail_errno=22\n' >> "$NIC"
printf 'ets_prio_tc=1,0,2,3,4,5,6,7\n' >> "$NIC"
config false
ctl reload >/dev/null || fail "reload"
out=$(ctl roce apply 2>&1); rc=$?
[ $rc = 1 ] || fail "apply with a driver error exited $rc"
printf '%s' "$out" | grep -q "ets: driver: Invalid argument" || fail "driver error text: $out"
fd_stop
pass
