# Every request is checked against its command's argument spec in the
# daemon, not only in fabricctl: for every command of common/commands.def
# (read here with sed), a request sent straight to the socket with an
# unknown argument, with each declared argument of the wrong type or one
# past either end of its declared range, or without a required positional
# gets invalid_argument naming the argument.
# And error messages survive any length and any UTF-8: a 10,000-byte
# message of two-byte characters arrives whole, a 30,000-byte one is cut on
# a character boundary (iconv checks the bytes), both with ok false and an
# error object.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
PROBE="$FABRICD_BUILD/tools/ctl_probe"
fd_config ""
fd_start

send() { "$PROBE" "$SOCK" send "{\"v\":1,\"id\":1,\"cmd\":\"$1\",\"args\":$2}"; }
expect_invalid() {	# wire args message-prefix argument
	out=$(send "$1" "$2")
	printf '%s' "$out" | grep -q '"ok":false,"error":{"code":"invalid_argument"' ||
	    fail "$1 $2: not invalid_argument: $out"
	# the name in quotes, as JSON escapes them: \"name\"
	printf '%s' "$out" | grep -qF "$3\\\"$4\\\"" || fail "$1 $2: message does not name $4: $out"
}

# wire<TAB>spec for each command
sed -n 's/^CMD([a-z_]*,[[:space:]]*"\([^"]*\)",[[:space:]]*[A-Z]*,[[:space:]]*"[^"]*",[[:space:]]*"\([^"]*\)".*/\1\t\2/p' \
    "$FABRICD_SRC/common/commands.def" > "$T/cmds"
ncmd=$(grep -c '^CMD(' "$FABRICD_SRC/common/commands.def")
[ "$(wc -l < "$T/cmds")" = "$ncmd" ] || fail "parsed $(wc -l < "$T/cmds") of $ncmd commands"
checked=0
ranged=0
tab=$(printf '\t')
while IFS="$tab" read -r wire spec; do
	expect_invalid "$wire" '{"zz_unknown":1}' 'unknown argument ' zz_unknown
	named=
	for w in $spec; do
		case $w in
		--*=INT*) k=${w%%=*}; bad='"x"'
			case $w in *=INT:*)	# one past each end of its range
				r=${w#*=INT:}; lo=$((${r%-*} - 1)); hi=$((${r#*-} + 1))
				k2=$(printf '%s' "${k#--}" | tr 'A-Z-' 'a-z_')
				expect_invalid "$wire" "{\"$k2\":$lo}" 'argument ' "$k2"
				expect_invalid "$wire" "{\"$k2\":$hi}" 'argument ' "$k2"
				ranged=$((ranged + 1)) ;;
			esac ;;
		--*=STR) k=${w%%=*}; bad='5' ;;
		--*=LIST) k=${w%%=*}; bad='"a,b"' ;;
		--*=FILE) k=${w%%=*}; bad='"/etc/passwd"' ;;
		--*) k=$w; bad='"yes"' ;;
		*) k=$(printf '%s' "$w" | tr -d '[].'); bad='7' ;;
		esac
		k=$(printf '%s' "${k#--}" | tr 'A-Z-' 'a-z_')
		expect_invalid "$wire" "{\"$k\":$bad}" 'argument ' "$k"
		case $w in
		[A-Z]*)	# with nothing sent, the first required positional is named
			[ -n "$named" ] || expect_invalid "$wire" '{}' 'missing argument ' "$k"
			named=1 ;;
		esac
		checked=$((checked + 1))
	done
done < "$T/cmds"
echo "checked $ncmd commands, $checked declared arguments, $ranged ranges"
[ "$ranged" -gt 0 ] || fail "no ranged argument found in commands.def"

# 10,000 bytes of "é" in a message: whole
e=$(head -c 5000 /dev/zero | tr '\0' 'e' | sed 's/e/\xc3\xa9/g')
out=$(ctl --json events --since "$e" 2>/dev/null)
[ $? -eq 2 ] || fail "events --since <10000 bytes>: exit status"
msg=$(printf '%s' "$out" | jq -r '.error.message')
printf '%s' "$msg" | grep -qF "$e" || fail "the 10,000-byte message did not arrive whole"
# 30,000 bytes: cut on a character boundary, still an error object
e3="$e$e$e"
out=$("$PROBE" "$SOCK" send "{\"v\":1,\"id\":1,\"cmd\":\"events\",\"args\":{\"since\":\"$e3\"}}")
printf '%s' "$out" | grep -q '"ok":false,"error":{"code":"invalid_argument","message":' ||
    fail "long message: no error object"
msg=$(printf '%s' "$out" | jq -r '.error.message')
n=$(printf '%s' "$msg" | wc -c)
[ "$n" -le 16384 ] && [ "$n" -gt 16000 ] || fail "long message is $n bytes"
printf '%s' "$msg" | iconv -f UTF-8 -t UTF-8 >/dev/null || fail "long message is not valid UTF-8"
printf '%s' "$out" | iconv -f UTF-8 -t UTF-8 >/dev/null || fail "reply is not valid UTF-8"
case $msg in *...) ;; *) fail "cut message does not end in ...";; esac
# and an unknown command name cut at 64 bytes stays whole characters
out=$(send "$e" '{}')
printf '%s' "$out" | iconv -f UTF-8 -t UTF-8 >/dev/null || fail "unknown-command reply not UTF-8"
printf '%s' "$out" | grep -q '"code":"unknown_command"' || fail "unknown command: $out"
fd_stop
pass
