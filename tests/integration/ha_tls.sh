#!/bin/sh
# ha over https: one etcd member that requires client certificates
# (--client-cert-auth), its certificates made here with the openssl tool.
#   1. fabricd with the CA, a client certificate and key: status says the
#      store runs; a partition made on it is in etcd (etcdctl, with its own
#      client certificate, reads it);
#   2. without a client certificate, with one from another CA, or trusting
#      another CA: status says unavailable and why, nothing is written.
. "$FABRICD_SRC/tests/lib/sm.sh"
. "$FABRICD_SRC/tests/lib/etcd.sh"
sim_test_setup openssl etcd etcdctl jq

cd "$T" || fail "no scratch folder"
ca() {	# NAME: a CA
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 1 \
	    -subj "/CN=$1" 2>/dev/null || fail "openssl: CA $1"
}
cert() {	# NAME CA EXT: a certificate signed by CA
	openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$1" \
	    2>/dev/null || fail "openssl: request $1"
	printf '%s\n' "$3" > "$1.ext"
	openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" \
	    -days 1 -extfile "$1.ext" 2>/dev/null || fail "openssl: sign $1"
}
ca ca
ca other
# clientAuth too: etcd's gateway dials its own gRPC side with this one
cert server ca "subjectAltName=IP:127.0.0.1
extendedKeyUsage=serverAuth,clientAuth"
cert client ca "extendedKeyUsage=clientAuth"
cert stranger other "extendedKeyUsage=clientAuth"

# the member on a block of ports of its own (port_block); a member that
# could not bind has exited, and the next block is tried
tls_member() {
	port_block
	P=$PORT_BASE
	rm -rf "$T/etcd-tls"
	etcd --name m1 --data-dir "$T/etcd-tls" --listen-peer-urls "http://127.0.0.1:$((P + 1))" \
	    --initial-advertise-peer-urls "http://127.0.0.1:$((P + 1))" \
	    --initial-cluster "m1=http://127.0.0.1:$((P + 1))" \
	    --listen-client-urls "https://127.0.0.1:$P" --advertise-client-urls "https://127.0.0.1:$P" \
	    --cert-file "$T/server.pem" --key-file "$T/server.key" --client-cert-auth \
	    --trusted-ca-file "$T/ca.pem" > "$T/etcd-tls.log" 2>&1 &
	ETCD_PID=$!
	for _ in $(seq 1 100); do
		kill -0 $ETCD_PID 2>/dev/null || return 1
		q endpoint health >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
q() {
	ETCDCTL_API=3 etcdctl --endpoints "https://127.0.0.1:$P" --cacert "$T/ca.pem" \
	    --cert "$T/client.pem" --key "$T/client.key" --command-timeout=3s "$@"
}
fd_on_exit 'kill -9 $ETCD_PID 2>/dev/null'
for try in 0 1 2 3; do
	tls_member $try && break
	kill -9 $ETCD_PID 2>/dev/null
	wait $ETCD_PID 2>/dev/null || true
done
q endpoint health >/dev/null 2>&1 || fail "etcd over https did not come up: $(tail -3 "$T/etcd-tls.log")"

# ---- 1. the right files ----
sim_topology -k 2 -h 2 -s 1 || fail topogen
sim_start || fail ibsim
sm_start_fabricd host1 "ha:
  etcd:
    endpoints: [ \"https://127.0.0.1:$P\" ]
    ca: $T/ca.pem
    cert: $T/client.pem
    key: $T/client.key
partitions:
  enabled: true"
sm_wait_up 30 || fail "subnet not up"
for _ in $(seq 1 100); do
	ctl partition create tls-red --pkey 0x0b03 >/dev/null 2>&1 && break
	sleep 0.1
done
q get --print-value-only /fabricd/fe80000000000000/partitions/model | grep -q tls-red ||
    fail "the partition is not in etcd: $(ctl --json status | jq -c .ha)"
[ "$(ctl --json status | jq -r .ha.state)" = running ] || fail "status: $(ctl --json status | jq -c .ha)"
fd_stop

# ---- 2. the wrong files: refused by etcd, or etcd refused ----
# (the stopped daemon's writer lease ends first: its key goes, a revision)
for _ in $(seq 1 100); do
	[ -z "$(q get --print-value-only /fabricd/fe80000000000000/writer)" ] && break
	sleep 0.1
done
rev0=$(q endpoint status -w json | jq '.[0].Status.header.revision')
for bad in "no client certificate|" "a client certificate of another CA|cert: $T/stranger.pem
    key: $T/stranger.key" "trusting another CA|cert: $T/client.pem
    key: $T/client.key"; do
	what=${bad%%|*}
	files=${bad#*|}
	ca=$T/ca.pem
	case $what in trusting*) ca=$T/other.pem ;; esac
	fd_config "ha:
  etcd:
    endpoints: [ \"https://127.0.0.1:$P\" ]
    ca: $ca${files:+
    $files}"
	fd_start
	sleep 2
	st=$(ctl --json status | jq -c .ha)
	[ "$(printf '%s' "$st" | jq -r .state)" = unavailable ] || fail "$what: status $st"
	printf '%s' "$st" | jq -r .why | grep -q unreachable || fail "$what: no why: $st"
	# and the reason is TLS's, not a bare "no answer"
	case $what in
	trusting*) want="does not verify against ha.etcd.ca" ;;
	*) want="client certificate it trusts" ;;
	esac
	printf '%s' "$st" | jq -r .why | grep -q "$want" || fail "$what: the why does not say it: $st"
	echo "$what: $(printf '%s' "$st" | jq -r .why)"
	fd_stop
done
[ "$(q endpoint status -w json | jq '.[0].Status.header.revision')" = "$rev0" ] ||
    fail "etcd's revision moved while fabricd had the wrong files"
# a CA file that is not there: the module says so and does not run
fd_config "ha:
  etcd:
    endpoints: [ \"https://127.0.0.1:$P\" ]
    ca: $T/nonexistent.pem"
fd_start
[ "$(ctl --json status | jq -r '.modules[] | select(.name == "ha") | .state')" = failed ] ||
    fail "ha with a missing CA file: $(ctl --json status | jq -c '.modules')"
grep -q "cannot load the CA" "$T/fabricd.log" || fail "the log does not say why"
pass
