# Partitions without a fabric: the file seeds the database once, the
# database wins afterwards, bad input is refused with a position and leaves
# the stored set alone, every change is in the history with the caller's
# uid, and import/export round-trip.  Checked with the sqlite3 shell and
# the file system, not with fabricd's own listing.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
need sqlite3

two_tenants='partitions:
  enabled: true
  default_membership: limited
  tenants:
    acme:
      acme-train:
        pkey: 0x0a01
        full: [ "h1*", "h2*" ]
    beta:
      beta-train:
        pkey: 0x0b01
        full: [ "h3*" ]
        limited: [ "h4*" ]'
fd_config "$two_tenants"
"$FABRICD" -n -c "$CONF" >/dev/null 2>&1 || fail "good partitions section rejected: $("$FABRICD" -n -c "$CONF" 2>&1)"

# A section that would collapse every tenant is refused at load, located.
fd_config 'partitions:
  enabled: true
  tenants: {}'
out=$("$FABRICD" -n -c "$CONF" 2>&1) && fail "empty tenants accepted"
printf '%s\n' "$out" | grep -q "fabricd.yaml:6:12: tenants: expected at least one tenant" ||
	fail "empty tenants not located: $out"
fd_config 'partitions:
  enabled: true
  tenants:
    acme:
      acme-train: { pkey: 0x8a01, fulll: [h1] }'
out=$("$FABRICD" -n -c "$CONF" 2>&1) && fail "bad partition accepted"
printf '%s\n' "$out" | grep -q "fabricd.yaml:8:35: unknown key \"fulll\"" || fail "unknown key not located: $out"

fd_config "$two_tenants"
fd_start
rows() { db "SELECT name, tenant, printf('0x%04x', pkey) FROM pt_partitions ORDER BY name;
	     SELECT partition, member, full FROM pt_members ORDER BY partition, member;"; }
want='acme-train|acme|0x0a01
beta-train|beta|0x0b01
acme-train|h1*|1
acme-train|h2*|1
beta-train|h3*|1
beta-train|h4*|0'
[ "$(rows)" = "$want" ] || fail "seeded rows differ: $(rows)"

# Bad input: each refused with a clear message, nothing stored changes.
before=$(rows)
refuse() {	# expected-text args...
	want=$1; shift
	out=$(ctl "$@" 2>&1) && fail "accepted: $*"
	printf '%s\n' "$out" | grep -q "$want" || fail "'$*' said: $out"
	[ "$(rows)" = "$before" ] || fail "'$*' changed the database"
}
refuse "out of range" partition create zero --pkey 0x0000
refuse "out of range" partition create high --pkey 0x8000
refuse "default partition" partition create dflt --pkey 0x7fff
refuse "already used by partition \"acme-train\"" partition create other --pkey 0x0a01
refuse "already exists" partition create acme-train --pkey 0x0a09
refuse "no partition" partition member add nope h5
refuse "already a full member" partition member add acme-train 'h1*'
refuse "expected 0x" partition create bad --pkey 12

# A good change, with the caller's uid in the history.
ctl partition create gamma --pkey 0x0c01 --tenant gamma >/dev/null || fail "create refused"
ctl partition member add gamma 0x0002c90300000001 --limited >/dev/null || fail "member add refused"
[ "$(db "SELECT member, full FROM pt_members WHERE partition = 'gamma'")" = "0x0002c90300000001|0" ] ||
	fail "member not stored: $(db "SELECT * FROM pt_members WHERE partition = 'gamma'")"
h=$(db "SELECT uid, action, result FROM pt_history WHERE action IN ('create', 'member add') AND result != 'rejected' ORDER BY id")
[ "$h" = "$(id -u)|create|stored
$(id -u)|member add|stored" ] || fail "history: $h"
[ "$(db "SELECT count(*) FROM pt_history WHERE result = 'rejected'")" -ge 8 ] || fail "rejections not in history"

# Restart with a different file: the database wins.
fd_stop
fd_config 'partitions:
  enabled: true
  tenants:
    other:
      other-p: { pkey: 0x0d01, full: [ all-cas ] }'
fd_start
db "SELECT name FROM pt_partitions ORDER BY name" | tr '\n' ' ' | grep -qx "acme-train beta-train gamma " ||
	fail "file overrode the database: $(db "SELECT name FROM pt_partitions")"

# Import: an empty file, a syntax error and an OpenSM file in error are refused.
before=$(rows)
: > "$T/empty.yaml"
refuse "empty" partition import "$T/empty.yaml"
printf 'partitions:\n  tenants:\n    a: [\n' > "$T/syntax.yaml"
refuse "syntax.yaml:[0-9]*:[0-9]*:" partition import "$T/syntax.yaml"
printf '# nothing but comments\n' > "$T/empty.conf"
refuse "no partition besides the default" partition import "$T/empty.conf"
printf 'Default=0x7fff : ALL=full ;\nacme=0x0a01 : 0x0002c90300000001=fulll ;\n' > "$T/bad.conf"
refuse "bad.conf:2:34: membership \"fulll\"" partition import "$T/bad.conf"

# Export, then import it back: the stored rows are the same (invariant).
ctl partition export > "$T/export.yaml" || fail "export failed"
grep -q "acme-train" "$T/export.yaml" || fail "export lacks acme-train"
ctl partition import "$T/export.yaml" >/dev/null || fail "re-import of the export refused"
[ "$(rows)" = "$before" ] || fail "export/import round trip changed rows: $(rows)"

# An OpenSM file replaces the set.
printf 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;\nhpc=0x0e01, defmember=full : 0x0002c90300000001, 0x0002c90300000002=limited ;\n' > "$T/p.conf"
ctl partition import "$T/p.conf" >/dev/null || fail "OpenSM import refused"
[ "$(db "SELECT name, printf('0x%04x', pkey) FROM pt_partitions")" = "hpc|0x0e01" ] ||
	fail "OpenSM import: $(db "SELECT * FROM pt_partitions")"
[ "$(db "SELECT member, full FROM pt_members ORDER BY position")" = "0x0002c90300000001|1
0x0002c90300000002|0" ] || fail "OpenSM members: $(db "SELECT * FROM pt_members")"
fd_stop
pass
