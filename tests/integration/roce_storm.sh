# roce_qos PFC storm prevention (ethtool tunable) end to end on a fake host:
# fabricd's SIOCETHTOOL and ethtool(8)'s go to the same mlx5 double
# (LD_PRELOAD).  Checked against ethtool --get-tunable under that double,
# the double's own state file and request log, and the sqlite3 shell.
. "$FABRICD_SRC/tests/lib/common.sh"
ETHTOOL=$(command -v ethtool || echo /usr/sbin/ethtool)
[ -x "$ETHTOOL" ] || fail "ethtool not installed (make deps installs it)"
SHIM="$FABRICD_BUILD/tests/libroce_nlfake.so"
[ -f "$SHIM" ] || fail "no $SHIM"
fd_setup
ROOT="$T/root"
sh "$FABRICD_SRC/tests/fixtures/roce/mktree.sh" "$ROOT" mlx0 mlx5_0 0000:08:00.0 || fail "fake tree"
NIC="$T/nic.state"
ETLOG="$T/ethtool.log"
: > "$ETLOG"

config() {	# remediate
	fd_config "roce_qos:
  enabled: true
  root: $ROOT
  interfaces: [mlx0]
  poll_interval: 500ms
  remediate: $1
  profile:
    base: nvidia-lossless
    pfc_storm_prevention: 500"
}
et() { env LD_PRELOAD="$SHIM" NLFAKE_STATE="$NIC" "$ETHTOOL" "$@"; }
tout() { et --get-tunable mlx0 pfc-prevention-tout | sed -n 's/^pfc-prevention-tout: //p'; }
nic() { sed -n "s/^$1=//p" "$NIC" | tail -1; }
stunables() { grep -c '^mlx0 49000000' "$ETLOG"; }
compact() { tr -d ' \n'; }
wait_for() {	# seconds command...
	n=$(( $1 * 10 )); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
	return 1
}

config false
fd_start LD_PRELOAD="$SHIM" NLFAKE_STATE="$NIC" NLFAKE_ETHTOOL_LOG="$ETLOG"

# show decodes what ethtool reads (the mlx5 default, 8000 ms)
want=$(tout)
[ "$want" = 8000 ] || fail "ethtool reads \"$want\" before any apply"
ctl --json roce show | compact | grep -q "\"pfc_storm_prevention\":{\"timeout_ms\":$want" ||
	fail "roce show vs ethtool $want: $(ctl --json roce show)"

# plan names it and writes nothing
ctl --json roce plan > "$T/plan.json" || fail "plan failed"
compact < "$T/plan.json" | grep -q '"setting":"pfc_storm_prevention","expected":"500","found":"8000"' ||
	fail "plan: $(cat "$T/plan.json")"
[ "$(stunables)" = 0 ] || fail "plan sent a set-tunable"

# apply: ethtool reads 500; once more: no second set-tunable
ctl roce apply >/dev/null || fail "apply failed"
[ "$(tout)" = 500 ] || fail "after apply ethtool reads $(tout)"
[ "$(stunables)" = 1 ] && [ "$(nic tunable_writes)" = 1 ] || fail "apply: $(stunables) set-tunables"
ctl roce apply >/dev/null || fail "second apply failed"
[ "$(stunables)" = 1 ] && [ "$(nic tunable_writes)" = 1 ] || fail "second apply sent a set-tunable"
n=$(db "SELECT count(*) FROM roce_writes WHERE interface = 'mlx0' AND setting = 'pfc_storm_prevention' AND expected = '500' AND found = '8000'")
[ "$n" = 1 ] || fail "roce_writes: $n storm rows"

# drift behind fabricd's back (ethtool under the same double): one event
# within one poll interval (+ scheduling slack), no write without remediate
sleep 0.6
mark=$(db "SELECT coalesce(max(id), 0) FROM events")
et --set-tunable mlx0 pfc-prevention-tout 200 || fail "ethtool --set-tunable"
has_event() { [ "$(db "SELECT count(*) FROM events WHERE id > $mark AND source = 'roce_qos' AND object = 'mlx0' AND message LIKE '$1'")" -ge 1 ]; }
wait_for 1 has_event 'drift: pfc_storm_prevention expected 500, found 200' ||
	fail "no drift event within 1 s: $(db "SELECT message FROM events WHERE id > $mark")"
sleep 0.6
[ "$(tout)" = 200 ] || fail "remediated without remediate: true"
n=$(db "SELECT count(*) FROM events WHERE id > $mark AND message LIKE 'drift: pfc_storm%'")
[ "$n" = 1 ] || fail "persisting drift reported $n times"

# remediate: true puts it back
config true
ctl reload >/dev/null || fail "reload"
restored() { [ "$(tout)" = 500 ]; }
wait_for 2 restored || fail "not remediated: ethtool reads $(tout)"
n=$(db "SELECT count(*) FROM roce_writes WHERE reason = 'remediate' AND setting = 'pfc_storm_prevention' AND found = '200'")
[ "$n" = 1 ] || fail "remediation not recorded ($n rows)"

# no stall detection in the NIC: EOPNOTSUPP is reported, never silent
config false
ctl reload >/dev/null || fail "reload"
mark=$(db "SELECT coalesce(max(id), 0) FROM events")
printf 'stall_detect=0\n' >> "$NIC"
et --get-tunable mlx0 pfc-prevention-tout >/dev/null 2>&1 && fail "ethtool still reads the tunable"
out=$(ctl roce apply 2>&1); rc=$?
[ $rc = 1 ] || fail "apply without stall detection exited $rc: $out"
printf '%s' "$out" | grep -q "mlx0: pfc_storm_prevention: .*Operation not supported" || fail "EOPNOTSUPP text: $out"
ctl --json roce show | compact | grep -q '"pfc_storm_prevention":{"error":"[^"]*Operationnotsupported' ||
	fail "show hides EOPNOTSUPP: $(ctl --json roce show)"
wait_for 2 has_event 'pfc_storm_prevention expected 500, cannot be read:%Operation not supported%' ||
	fail "no error event for EOPNOTSUPP"

# without CAP_NET_ADMIN: EPERM on the set, the NIC untouched
printf 'stall_detect=1\nstorm_tout=300\nunprivileged=1\n' >> "$NIC"
out=$(ctl roce apply 2>&1); rc=$?
[ $rc = 1 ] || fail "apply unprivileged exited $rc"
printf '%s' "$out" | grep -q "pfc_storm_prevention: ethtool set-tunable.*Operation not permitted" || fail "EPERM text: $out"
[ "$(tout)" = 300 ] || fail "unprivileged apply changed the NIC"
fd_stop
pass
