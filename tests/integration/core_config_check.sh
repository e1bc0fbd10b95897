# fabricd -n: a good file says "configuration OK"; a broken one lists every
# error as FILE:LINE:COLUMN and exits 1; a YAML syntax error is located too.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup

fd_config
# (stdout only: warnings about missing validation tools go to stderr,
# see validation_jobs.sh)
out=$("$FABRICD" -n -c "$CONF" 2>/dev/null) || fail "good config rejected: $out"
# (the SM is off in it: the observer's note follows, checked below)
[ "$(printf '%s\n' "$out" | head -1)" = "configuration OK" ] || fail "unexpected output: $out"

"$FABRICD" -n -c "$FABRICD_SRC/examples/fabricd.yaml" >/dev/null 2>&1 ||
	fail "the shipped example does not parse: $("$FABRICD" -n -c "$FABRICD_SRC/examples/fabricd.yaml" 2>&1)"

cat > "$T/bad.yaml" <<YAML
socket: relative/path
log_levl: debug
control:
  admin_grp: wheel
sm:
  enabled: maybe
  priority: 99
log_level: chatty
YAML
out=$("$FABRICD" -n -c "$T/bad.yaml" 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "broken config exited $rc, expected 1"
# Every error, each at its own line:column (checked against the file above).
for want in "bad.yaml:1:9: expected an absolute path" \
	    "bad.yaml:2:1: unknown key \"log_levl\"" "did you mean \"log_level\"" \
	    "bad.yaml:4:3: unknown key \"admin_grp\" in control" \
	    "bad.yaml:6:12: expected a boolean" \
	    "bad.yaml:8:12: invalid log_level \"chatty\""; do
	printf '%s\n' "$out" | grep -qF "$want" || fail "missing error: $want; got: $out"
done
n=$(printf '%s\n' "$out" | grep -c "bad.yaml:[0-9]*:[0-9]*: ")
[ "$n" -ge 5 ] || fail "expected at least 5 located errors, got $n: $out"

# A key given twice, at the top or in a section, is an error at the second
# one (libyaml keeps both; before, the last silently won).
cat > "$T/dup.yaml" <<YAML
sm:
  priority: 3
  priority: 5
health:
  interval: 10s
sm:
  enabled: true
YAML
out=$("$FABRICD" -n -c "$T/dup.yaml" 2>&1) && fail "duplicate keys accepted: $out"
for want in 'dup.yaml:3:3: duplicate key "priority" (first given at line 2)' \
	    'dup.yaml:6:1: duplicate key "sm" (first given at line 1)'; do
	printf '%s\n' "$out" | grep -qF "$want" || fail "missing error: $want; got: $out"
done

# sm.subnets (issue 43): every wrong item at its own place
cat > "$T/subnets.yaml" <<YAML
sm:
  enabled: true
  port_guid: 0x1
  subnets:
    - name: plane1
      port: mlx5_0:1
    - name: plane1
      port: mlx5_1:1
    - name: "bad name"
      port: mlx5_2:0
    - name: p4
      port: mlx5_0:1
    - port: 0x2
    - name: p6
      port: nonsense
      speed: fast
    - name: p7
      port: mlx5_3:1
      group: "gpu plane"
YAML
out=$("$FABRICD" -n -c "$T/subnets.yaml" 2>&1) && fail "bad sm.subnets accepted: $out"
for want in 'subnets.yaml:7:7: subnet "plane1" is named twice' \
	    "subnets.yaml:9:13: a subnet name is 1-31 letters" \
	    'subnets.yaml:10:13: expected DEVICE:PORT with a device name of at most 19 characters and a port 1-254 (mlx5_0:1), found "mlx5_2:0"' \
	    'subnets.yaml:11:7: subnets "plane1" and "p4" name the same port' \
	    'subnets.yaml:13:7: a subnet needs a name and a port' \
	    'subnets.yaml:15:13: expected DEVICE:PORT (mlx5_0:1) or a port GUID' \
	    'subnets.yaml:16:7: unknown key "speed" in a subnet (name, port, group)' \
	    "subnets.yaml:19:14: a plane group's name is 1-31 letters" \
	    'subnets.yaml:2:3: port_guid and subnets both name ports'; do
	printf '%s\n' "$out" | grep -qF "$want" || fail "missing error: $want; got: $out"
done
printf 'sm:\n  observer:\n    enabled: false\n  subnets:\n    - name: a\n      port: ibp0:1\n' > "$T/subnets_off.yaml"
out=$("$FABRICD" -n -c "$T/subnets_off.yaml" 2>&1) && fail "sm.subnets with the SM and the observer off accepted"
printf '%s\n' "$out" | grep -qF 'subnets_off.yaml:2:3: subnets needs enabled: true, or an observer' || fail "subnets off: $out"
printf 'sm:\n  subnets:\n    - name: a\n      port: ibp0:1\n' > "$T/subnets_obs.yaml"
out=$("$FABRICD" -n -c "$T/subnets_obs.yaml" 2>&1) || fail "sm.subnets with an observer a subnet refused: $out"
printf 'sm:\n  enabled: true\n  subnets:\n    - name: a\n      port: ibp0:1\n    - name: b\n      port: 0x0002c90300000a02\n' \
    > "$T/subnets_ok.yaml"
out=$("$FABRICD" -n -c "$T/subnets_ok.yaml" 2>/dev/null) || fail "good sm.subnets rejected: $out"

printf 'metrics:\n  listen: 9683\n' > "$T/listen.yaml"
out=$("$FABRICD" -n -c "$T/listen.yaml" 2>&1) && fail "metrics.listen without a host accepted"
printf '%s\n' "$out" | grep -qF 'listen.yaml:2:11: expected ADDRESS:PORT' || fail "metrics.listen: $out"
printf 'metrics:\n  listen: "[::1]:9683"\n' > "$T/listen6.yaml"
"$FABRICD" -n -c "$T/listen6.yaml" >/dev/null 2>&1 || fail "an IPv6 metrics.listen refused"

printf 'socket: /x\nlist: [1, 2\n' > "$T/syntax.yaml"
out=$("$FABRICD" -n -c "$T/syntax.yaml" 2>&1) && fail "syntax error accepted"
printf '%s\n' "$out" | grep -q "syntax.yaml:[0-9]*:[0-9]*: " || fail "syntax error not located: $out"

# what the modules add (config_notes): the SM's routing on stdout, a
# launcher the jobs will not find on stderr, and still exit 0
printf 'sm:\n  enabled: true\nvalidation:\n  enabled: true\n  mpirun: %s\n' "$T/no-mpirun" > "$T/notes.yaml"
"$FABRICD" -n -c "$T/notes.yaml" > "$T/notes.out" 2> "$T/notes.err" || fail "notes.yaml rejected: $(cat "$T/notes.err")"
grep -q '^sm: routing auto: ' "$T/notes.out" || fail "fabricd -n: no routing note: $(cat "$T/notes.out")"
grep -qF "warning: validation: launcher mpirun: $T/no-mpirun is not executable" "$T/notes.err" ||
    fail "fabricd -n: no warning of the missing launcher: $(cat "$T/notes.err")"

# the SM off and the observer on: said with its period, 4 h by default;
# turned off, nothing; the installed configuration gives observer mode
printf 'sm:\n  enabled: false\n  observer:\n    enabled: true\n    refresh: 45s\n' > "$T/observer.yaml"
"$FABRICD" -n -c "$T/observer.yaml" > "$T/observer.out" 2>&1 || fail "observer.yaml rejected: $(cat "$T/observer.out")"
grep -q "^sm: off; observer mode: .* every 45 s" "$T/observer.out" ||
    fail "fabricd -n: no observer note: $(cat "$T/observer.out")"
printf 'sm:\n  enabled: false\n' > "$T/observer.yaml"
"$FABRICD" -n -c "$T/observer.yaml" > "$T/observer.out" 2>&1 || fail "the SM off rejected"
grep -q "^sm: off; observer mode: .* every 14400 s" "$T/observer.out" ||
    fail "fabricd -n: the SM off does not observe every 4 h by default: $(cat "$T/observer.out")"
printf 'sm:\n  observer:\n    enabled: false\n' > "$T/observer.yaml"
"$FABRICD" -n -c "$T/observer.yaml" > "$T/observer.out" 2>&1 || fail "observer off rejected"
grep -q "observer" "$T/observer.out" && fail "fabricd -n: an observer note with the observer off: $(cat "$T/observer.out")"
out=$("$FABRICD" -n -c "$FABRICD_SRC/systemd/fabricd.yaml" 2>&1) ||
    fail "the installed configuration does not pass fabricd -n: $out"
printf '%s\n' "$out" | grep -q "^sm: off; observer mode: .* every 14400 s" ||
    fail "the installed configuration does not say observer mode: $out"
printf 'sm:\n  observer:\n    refresh: 10ms\n    bogus: 1\n' > "$T/observer.yaml"
out=$("$FABRICD" -n -c "$T/observer.yaml" 2>&1) && fail "a 10 ms observer refresh accepted: $out"
printf '%s\n' "$out" | grep -q "observer.yaml:3:[0-9]*: " || fail "bad refresh not located: $out"
printf '%s\n' "$out" | grep -q "observer.yaml:4:[0-9]*: " || fail "unknown observer key not located: $out"

# sm.rebalance_window: a good one passes; a bad time, a bad day and a
# non-string are each located at their value
printf 'sm:\n  rebalance_window: "Sat,Sun 02:00-04:00"\n' > "$T/window.yaml"
out=$("$FABRICD" -n -c "$T/window.yaml" 2>&1) || fail "a good rebalance_window refused: $out"
printf 'sm:\n  rebalance_window: "02:00-25:00"\n' > "$T/window.yaml"
out=$("$FABRICD" -n -c "$T/window.yaml" 2>&1) && fail "rebalance_window 02:00-25:00 accepted: $out"
printf '%s\n' "$out" | grep -q 'window.yaml:2:21: rebalance_window "02:00-25:00": expected' ||
    fail "bad rebalance_window time not located: $out"
printf 'sm:\n  enabled: false\n  rebalance_window: Sat,Sunday 02:00-04:00\n' > "$T/window.yaml"
out=$("$FABRICD" -n -c "$T/window.yaml" 2>&1) && fail "rebalance_window day Sunday accepted: $out"
printf '%s\n' "$out" | grep -q 'window.yaml:3:21: .*expected days' ||
    fail "bad rebalance_window day not located: $out"
printf 'sm:\n  rebalance_window: [1, 2]\n' > "$T/window.yaml"
out=$("$FABRICD" -n -c "$T/window.yaml" 2>&1) && fail "rebalance_window as a list accepted: $out"
printf '%s\n' "$out" | grep -q 'window.yaml:2:21: ' || fail "rebalance_window list not located: $out"

out=$("$FABRICD" -n -c "$T/missing.yaml" 2>&1) && fail "missing file accepted"
printf '%s\n' "$out" | grep -q "missing.yaml: cannot open" || fail "missing file: $out"
pass
