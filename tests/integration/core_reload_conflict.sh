#!/bin/sh
# A reload that cannot apply a change says so: exit 1, error code
# conflict, the keys named, and nothing of the file applied.  Checked with
# curl (which address serves /metrics) and sqlite3 (the stored partitions):
#   metrics.listen moved            -> conflict naming metrics.listen; the
#                                      old address still serves, the new none
#   a partition's P_Key edited      -> conflict naming partitions.tenants;
#                                      the database keeps 0x0a01
#   both at once                    -> one reply naming both
#   the running file back           -> reload exit 0
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need curl sqlite3
port_block
p1=$PORT_BASE
p2=$((p1 + 1))
fd_config "metrics:
  listen: 127.0.0.1:$p1
partitions:
  enabled: true
  tenants:
    blue:
      blue-train: { pkey: 0x0a01, full: [ all-cas ] }"
fd_start
cp "$CONF" "$T/good.yaml"
curl -sf "http://127.0.0.1:$p1/metrics" > /dev/null || fail "metrics not served on $p1"

reload_conflict() {	# KEY...: reload refused as conflict naming each KEY
	ctl --json reload > "$T/out" 2>&1; rc=$?
	[ $rc -eq 1 ] || fail "reload exit $rc, expected 1: $(cat "$T/out")"
	grep -q '"code": "conflict"' "$T/out" || fail "not a conflict: $(cat "$T/out")"
	for k in "$@"; do
		grep -q "$k" "$T/out" || fail "the reply does not name $k: $(cat "$T/out")"
	done
}

sed "s/127.0.0.1:$p1/127.0.0.1:$p2/" "$T/good.yaml" > "$CONF"
reload_conflict metrics.listen
curl -sf "http://127.0.0.1:$p1/metrics" > /dev/null || fail "the old metrics address stopped"
curl -sf "http://127.0.0.1:$p2/metrics" > /dev/null && fail "the new metrics address serves"

sed 's/pkey: 0x0a01/pkey: 0x0a02/' "$T/good.yaml" > "$CONF"
reload_conflict partitions.tenants 'partition import'
[ "$(db "SELECT pkey FROM pt_partitions WHERE name = 'blue-train'")" = $((0x0a01)) ] ||
	fail "stored P_Key: $(db "SELECT name, pkey FROM pt_partitions")"

sed -e "s/127.0.0.1:$p1/127.0.0.1:$p2/" -e 's/pkey: 0x0a01/pkey: 0x0a02/' "$T/good.yaml" > "$CONF"
reload_conflict metrics.listen partitions.tenants

cp "$T/good.yaml" "$CONF"
ctl reload > "$T/out" 2>&1 || fail "reload of the running file: $(cat "$T/out")"
fd_stop
pass
