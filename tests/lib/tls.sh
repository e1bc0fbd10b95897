# Certificates for the tests of the remote control channel, made with the
# openssl command line in $T/pki (C): a CA, and certificates it signs.
#   tls_ca NAME                 a self-signed CA: $C/NAME.pem, $C/NAME.key
#   tls_cert NAME CA CN [SAN]   a certificate CA signs for CN, with an
#                               optional subjectAltName ("IP:127.0.0.1")
C=$T/pki
mkdir -p "$C"
tls_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.pem" -days 2 \
	    -subj "/CN=$1" 2>>"$C/log" || fail "openssl: CA $1: $(tail -3 "$C/log")"
}
tls_cert() {
	openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "/CN=$3" \
	    2>>"$C/log" || fail "openssl: request $1"
	if [ -n "${4:-}" ]; then echo "subjectAltName=$4" > "$C/$1.ext"; else : > "$C/$1.ext"; fi
	openssl x509 -req -in "$C/$1.csr" -CA "$C/$2.pem" -CAkey "$C/$2.key" -CAcreateserial \
	    -out "$C/$1.pem" -days 2 -extfile "$C/$1.ext" 2>>"$C/log" || fail "openssl: sign $1"
}
