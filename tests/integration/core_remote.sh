#!/bin/sh
# run.sh: long (TLS handshakes and their timeouts: about 30 s)
# The remote control channel (control.listen over TLS), judged from
# outside fabricd: certificates made here with the openssl command line,
# the Sets fabricd sends counted below umad (tests/fixtures/mad/madlog.c),
# the P_Key tables read with smpquery, raw answers read with openssl
# s_client.
#   1. no client certificate, or one another CA signed: the handshake
#      fails, no protocol line comes back, no Set goes out;
#   2. a jobs certificate: status, sweep, partition create refused with
#      permission_denied, no Set; an unknown certificate (our CA, in no
#      entry) refused;
#   3. a read certificate reads status and is refused partition create;
#      three connections of it with max_connections_per_user 2: busy;
#   4. an admin certificate creates a partition: its key is on the member;
#      a jobs certificate makes, lists and deletes a job partition, a read
#      one reads its NCCL_IB_PKEY (smpquery's index) and may not make one;
#   5. a standby (a second fabricd, SM on host2) answers not_master naming
#      the master's address from control.peers; fabricctl --remote
#      STANDBY,MASTER and --remote STANDBY both land on the master.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup smpquery sminfo openssl jq

# ---- certificates ----
. "$FABRICD_SRC/tests/lib/tls.sh"
tls_ca ca
tls_ca otherca
tls_cert server ca fabricd "IP:127.0.0.1"
tls_cert admin ca alice
tls_cert read ca monitor
tls_cert jobs ca slurmctld
tls_cert stranger ca stranger
tls_cert foreign otherca alice	# alice's name, another CA's signature

port_block
PORT_A=$PORT_BASE
PORT_B=$((PORT_A + 1))
A=127.0.0.1:$PORT_A
B=127.0.0.1:$PORT_B
# rctl WHO ARGS...: fabricctl over TLS with WHO's certificate
rctl() {
	_who=$1
	shift
	"$FABRICCTL" --remote "$RADDR" --cert "$C/$_who.pem" --key "$C/$_who.key" --ca "$C/ca.pem" "$@"
}
rctl_said() { rctl "$@" 2>&1; }	# with what fabricctl says on stderr
# raw ADDR REQUEST [CERT]: the first line fabricd answers over TLS, as
# openssl s_client reads it (nothing when the handshake failed)
raw() {
	{ printf '%s\n' "$2"; sleep 2; } | timeout 6 openssl s_client -quiet -connect "$1" \
	    -CAfile "$C/ca.pem" ${3:+-cert "$C/$3.pem" -key "$C/$3.key"} 2>>"$T/s_client.log" | head -1
}
control_yaml() {	# PORT PEER-ADDR PEER-GUID
	cat <<EOY
control:
  listen: 127.0.0.1:$1
  max_connections_per_user: 2
  tls: { cert: $C/server.pem, key: $C/server.key, ca: $C/ca.pem }
  clients:
    - { cn: alice, role: admin }
    - { cn: monitor, role: read }
    - { cn: slurmctld, role: jobs }
  peers:
    - { address: "$2", guid: 0x$3 }
EOY
}
H2=0,1,2
pk() {	# ROUTE: the non-zero entries of a P_Key table, "index=key ..."
	sim_diag -t 10 smpquery -D pkeys "$@" | awk '/^ *[0-9]+:/ {
	    b = $1 + 0; for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%d=%s ", b + i - 2, $i }'
	echo
}
MADLOG=$T/mads.log
sets_logged() { awk '($1 == "0x81" || $1 == "0x01") && $2 == "0x02" { n++ } END { print n + 0 }' "$MADLOG"; }

sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail "ibsim"
A_GUID=$(sm_guid_of host1)
B_GUID=$(sm_guid_of host2)
[ -n "$A_GUID" ] && [ -n "$B_GUID" ] || fail "no port GUIDs for host1, host2"
fd_config "sm:
  enabled: true
  priority: 5
  sweep_interval: 1h
partitions:
  enabled: true
  tenants:
    acme:
      acme-base: { pkey: 0x0a01, full: [ host1 ] }
$(control_yaml "$PORT_A" "$B" "$B_GUID")"
fd_start SIM_HOST=host1 LD_PRELOAD="$FABRICD_BUILD/tests/libmadlog.so $SIM_PRELOAD" \
    IBSIM_SOCKNAME="$IBSIM_SOCKNAME" MADLOG_FILE="$MADLOG"
sm_wait_up 30 || fail "subnet not up"
sm_wait_sminfo 10 "$A_GUID 5 MASTER" || fail "A is not master: '$(sm_sminfo_at)'"
RADDR=$A
tables0=$(pk $H2)
: > "$MADLOG"

# ---- 1. no certificate, another CA's: nothing answered ----
req='{"v":1,"id":1,"cmd":"partition.create","args":{"name":"nocert","pkey":"0x0c02"}}'
got=$(raw "$A" "$req")
[ -z "$got" ] || fail "a peer without a certificate was answered: $got"
got=$(raw "$A" "$req" foreign)
[ -z "$got" ] || fail "a certificate of another CA was answered: $got"
# and fabricctl says why
capture -r "$T/foreign.out" rctl_said foreign status
[ "$CAPTURE_RC" = 2 ] || fail "foreign certificate: exit $CAPTURE_RC"
grep -q "refused" "$T/foreign.out" || fail "foreign certificate: $(cat "$T/foreign.out")"

# ---- 2. jobs: JOBS commands only; a stranger: nothing ----
for cmd in status sweep "partition create jobpart --pkey 0x0c03 --tenant acme"; do
	# shellcheck disable=SC2086
	capture -r "$T/jobs.out" rctl jobs --json $cmd
	[ "$CAPTURE_RC" = 2 ] || fail "jobs: $cmd: exit $CAPTURE_RC: $(cat "$T/jobs.out")"
	[ "$(jq -r .error.code "$T/jobs.out" 2>/dev/null | head -1)" = permission_denied ] ||
	    fail "jobs: $cmd: $(cat "$T/jobs.out")"
done
got=$(raw "$A" '{"v":1,"id":7,"cmd":"sweep","args":{}}' jobs)
[ "$(printf '%s' "$got" | jq -r .error.code)" = permission_denied ] || fail "raw jobs sweep: $got"
got=$(raw "$A" '{"v":1,"id":8,"cmd":"status","args":{}}' stranger)
[ "$(printf '%s' "$got" | jq -r .error.code)" = permission_denied ] ||
    fail "a certificate in no entry: $got"
printf '%s' "$got" | grep -q '"result"' && fail "a stranger got a result: $got"

# ---- 3. read: status yes, partition create no; the per-certificate cap ----
capture "$T/read.json" rctl read --json status
[ "$(jq -r .version "$T/read.json")" = "$(ctl --json version | jq -r .version)" ] ||
    fail "read: status: $(head -5 "$T/read.json")"
capture -r "$T/readc.out" rctl read --json partition create readpart --pkey 0x0c04 --tenant acme
[ "$(jq -r .error.code "$T/readc.out" 2>/dev/null | head -1)" = permission_denied ] ||
    fail "read: partition create: $(cat "$T/readc.out")"
# nothing changed: no Set went out, no table moved, nothing stored
[ "$(sets_logged)" = 0 ] || fail "$(sets_logged) SubnSets after refused requests: $(awk '$2 == "0x02"' "$MADLOG" | head -3)"
[ "$(pk $H2)" = "$tables0" ] || fail "host2's P_Keys moved: $(pk $H2), was $tables0"
[ "$(db "SELECT count(*) FROM pt_history WHERE detail LIKE '%jobpart%' OR detail LIKE '%readpart%'
    OR detail LIKE '%nocert%'")" = 0 ] || fail "a refused request reached the partitions' history"
# fabricctl itself in the background (not a function's subshell): its
# pid is what kill must reach
follow="--remote $A --cert $C/read.pem --key $C/read.key --ca $C/ca.pem events --follow"
# shellcheck disable=SC2086
"$FABRICCTL" $follow > "$T/f1.out" 2>&1 &
f1=$!
# shellcheck disable=SC2086
"$FABRICCTL" $follow > "$T/f2.out" 2>&1 &
f2=$!
# both follow live (status counts them) before the third connection
i=0
until [ "$(ctl --json status | jq -r '.events.followers')" = 2 ]; do
	i=$((i + 1)); [ $i -le 600 ] || fail "the two followers never followed: $(cat "$T/f1.out" "$T/f2.out")"
	sleep 0.1
done
capture -r "$T/cap.out" rctl read --json version
kill "$f1" "$f2" 2>/dev/null
wait "$f1" "$f2" 2>/dev/null
[ "$(jq -r .error.code "$T/cap.out" 2>/dev/null | head -1)" = busy ] ||
    fail "a third connection of one read certificate: $(cat "$T/cap.out"); $(cat "$T/f1.out" "$T/f2.out")"
i=0	# the slots are free again once fabricd has seen both go
until rctl read version >/dev/null 2>&1; do
	[ $i -ge 30 ] && fail "the read certificate's slots never came back"
	i=$((i + 1))
	sleep 0.1
done

# ---- 4. admin: a partition with a member, on the fabric ----
capture "$T/create.out" rctl admin partition create gamma --pkey 0x0c01 --tenant acme
capture "$T/member.out" rctl admin partition member add gamma host2
i=0
until pk $H2 | grep -q '=0x8c01 '; do
	[ $i -ge 50 ] && fail "host2 does not hold 0x8c01: $(pk $H2)"
	i=$((i + 1))
	sleep 0.2
done

# ---- 4b. jobs: a job partition made, listed and deleted; read: its env ----
capture -r "$T/rjob.out" rctl read --json partition job create 77 --hosts host2
[ "$(jq -r .error.code "$T/rjob.out" 2>/dev/null | head -1)" = permission_denied ] ||
    fail "read: partition job create: $(cat "$T/rjob.out")"
capture "$T/job.out" rctl jobs --json partition job create 77 --hosts host2 --user carol
i77=$(pk $H2 | tr ' ' '\n' | sed -n 's/^\([0-9]*\)=0x9000$/\1/p')
[ -n "$i77" ] || fail "the jobs certificate's job partition is not on host2: $(pk $H2)"
[ "$(db "SELECT count(*) FROM pt_history WHERE action = 'job create' AND result = 'ok'
    AND uid IS NULL AND detail LIKE '%\"by\":\"cert slurmctld\"%'")" = 1 ] ||
    fail "the history does not name the jobs certificate: $(db "SELECT uid, detail FROM pt_history WHERE action = 'job create'")"
capture "$T/jlist.out" rctl jobs --json partition job list
[ "$(jq -r '.jobs[0].user' "$T/jlist.out")" = carol ] || fail "jobs: list: $(cat "$T/jlist.out")"
capture "$T/jenv.out" rctl read partition job env 77 --host host2
grep -qx "export NCCL_IB_PKEY=$i77" "$T/jenv.out" || fail "read: job env '$(cat "$T/jenv.out")', index $i77"
capture "$T/jdel.out" rctl jobs partition job delete 77
pk $H2 | grep -q '=0x9000 ' && fail "job 77's key stayed on host2 after the delete: $(pk $H2)"

# ---- 5. a standby sends clients to the master ----
mkdir -p "$T/b/run" "$T/b/state"
cat > "$T/b/fabricd.yaml" <<EOY
socket: $T/b/run/fabricd.sock
state_dir: $T/b/state
log_level: debug
sm:
  enabled: true
  priority: 3
  sweep_interval: 1s
  standby_poll: 1s
$(control_yaml "$PORT_B" "$A" "$A_GUID")
EOY
(cd "$T/b" && exec env SIM_HOST=host2 LD_PRELOAD="$SIM_PRELOAD" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
    "$FABRICD" -c "$T/b/fabricd.yaml" >> "$T/b/fabricd.log" 2>&1) &
B_PID=$!
fd_second "$B_PID" "$T/b/fabricd.log"
b_lid=$(sm_lid_of host2)
sm_wait_sminfo 20 "$B_GUID 3 STANDBY" "$b_lid" ||
    fail "B (LID $b_lid): '$(sm_sminfo_at "$b_lid")', want STANDBY; $(sim_diag -H host4 -t 10 sminfo "$b_lid" 2>&1); B's log: $(tail -20 "$T/b/fabricd.log")"
i=0
while :; do
	got=$(raw "$B" '{"v":1,"id":9,"cmd":"partition.list","args":{}}' read)
	[ "$(printf '%s' "$got" | jq -r .error.code 2>/dev/null)" = not_master ] && break
	[ $i -ge 20 ] && fail "the standby did not answer not_master: $got; $(tail -5 "$T/b/fabricd.log")"
	i=$((i + 1))
	sleep 0.5
done
[ "$(printf '%s' "$got" | jq -r .error.master)" = "$A" ] || fail "not_master names no master address: $got"
# status and version a standby still answers itself
got=$(raw "$B" '{"v":1,"id":10,"cmd":"status","args":{}}' read)
[ "$(printf '%s' "$got" | jq -r .ok)" = true ] || fail "the standby's status: $got"

RADDR=$B,$A
capture "$T/c2.out" rctl admin partition create delta --pkey 0x0c05 --tenant acme
capture "$T/m2.out" rctl admin partition member add delta host2
RADDR=$B
capture "$T/c3.out" rctl admin partition create epsilon --pkey 0x0c06 --tenant acme
capture "$T/m3.out" rctl admin partition member add epsilon host2
i=0
until pk $H2 | grep -q '=0x8c05 ' && pk $H2 | grep -q '=0x8c06 '; do
	[ $i -ge 50 ] && fail "host2 lacks the partitions made through the standby: $(pk $H2)"
	i=$((i + 1))
	sleep 0.2
done
# the standby stored none of them: the master did the work
[ "$(db "SELECT count(*) FROM pt_history WHERE detail LIKE '%epsilon%' AND result = 'ok'")" -ge 1 ] ||
    fail "the master's history lacks epsilon"
pass
