#!/bin/sh
# fabricctl as an operator meets it, checked against common/commands.def
# (read here with sed, as core_docs.sh does) and against date(1):
#  1. every group of commands ("partition", "roce", "job", "partition
#     member"...) answers with exactly its subcommands, exit 2;
#  2. a prefix shared by several names them all ("p": partition, ports,
#     preflight); a typo gets the nearest command ("stauts": status);
#  3. --version prints the version fabricd -V prints;
#  4. every command's --help: each required positional bare, each optional
#     one and each option in [brackets] (unless its description says it is
#     required), and every argument with a description; no line of help,
#     nor of the list of commands, wider than 100 columns (5f2420a: 239);
#  5. the bash completion (make completion's build/fabricctl.bash, and
#     fabricctl completion bash) parses, offers every next word of every
#     command path and every option of every command;
#  6. times: --json keeps time_ms and adds time_iso, the same instant by
#     date -d; the human events line starts with that ISO time and zone;
#     events --since accepts a printed time back; status adds uptime_human.
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
fd_config
fd_start
DEF=$FABRICD_SRC/common/commands.def
# words<TAB>spec per command
sed -n 's/^CMD([^,]*,[^"]*"[^"]*"[^,]*,[[:space:]]*[A-Z]*,[^"]*"\([^"]*\)",[^"]*"\([^"]*\)".*/\1	\2/p' "$DEF" > "$T/cmds"
[ "$(wc -l < "$T/cmds")" -eq "$(grep -c '^CMD(' "$DEF")" ] || fail "could not read every CMD line"
cut -f1 "$T/cmds" > "$T/words"

# 1. groups: every proper prefix of a command's words that is not itself a command
awk '{ p = ""; for (i = 1; i < NF; i++) { p = p (i > 1 ? " " : "") $i; print p } }' "$T/words" |
    sort -u > "$T/prefixes"
groups=0
while read -r g; do
	grep -qx "$g" "$T/words" && continue
	groups=$((groups + 1))
	# shellcheck disable=SC2086
	ctl $g > /dev/null 2> "$T/g.err"
	rc=$?
	[ $rc -eq 2 ] || fail "\"fabricctl $g\": exit $rc, not 2"
	grep -q "unknown command" "$T/g.err" && fail "\"fabricctl $g\" says unknown command"
	want=$(grep "^$g " "$T/words" | sort)
	got=$(sed -n 's/^  \([a-z][a-z -]*[a-z]\)  .*/\1/p' "$T/g.err" | sed 's/ *$//' | sort)
	[ "$want" = "$got" ] || fail "\"fabricctl $g\" lists [$got], commands.def [$want]"
done < "$T/prefixes"
[ $groups -ge 5 ] || fail "only $groups groups found"
echo "$groups command groups list their subcommands"

# 2. prefixes and typos
ctl p > /dev/null 2> "$T/p.err"; [ $? -eq 2 ] || fail "fabricctl p: exit status"
for w in $(cut -d' ' -f1 "$T/words" | grep '^p' | sort -u); do
	grep -q "^  $w\$" "$T/p.err" || fail "fabricctl p does not offer $w: $(cat "$T/p.err")"
done
ctl stauts 2>&1 >/dev/null | grep -q 'did you mean "status"' || fail "no did-you-mean for stauts"
ctl partition lsit 2>&1 >/dev/null | grep -q 'did you mean "partition list"' || fail "no did-you-mean for partition lsit"
ctl topolgy 2>&1 >/dev/null | grep -q 'did you mean "topology"' || fail "no did-you-mean for topolgy"
ctl vers > /dev/null || fail "a unique prefix is not taken"
ctl help part cre | grep -q "^usage: fabricctl \[--json\] partition create NAME" || fail "help with prefixes"

# 3. --version
v=$("$FABRICCTL" --version) || fail "--version: exit $?"
[ "$v" = "$("$FABRICD" -V | sed 's/^fabricd/fabricctl/')" ] || fail "--version: $v"

# 4. usage of every command
ncmd=0
while IFS='	' read -r words spec; do
	ncmd=$((ncmd + 1))
	# shellcheck disable=SC2086
	"$FABRICCTL" $words --help > "$T/u.txt" || fail "$words --help: exit $?"
	# the synopsis: its first line and the lines it wraps onto (help is
	# at most 100 columns), up to the description under "usage:"
	syn=$(awk '/^       [^ ]/ { exit } { $1 = $1; printf "%s ", $0 }' "$T/u.txt" | sed 's/ $//')
	awk -v w="$words" 'length($0) > 100 { print "FAIL: " w " --help: a line of " length($0) " columns: " $0; exit 1 }' \
	    "$T/u.txt" || fail "help wider than 100 columns"
	for a in $spec; do
		case $a in
		--*) o=${a%%=*}
			if grep -Eq "^  $o( [A-Z_,.]+)? +required" "$T/u.txt"; then
				case "$syn " in *" $o "*|*" $o] "*) ;; *) fail "$words: required $o not bare: $syn" ;; esac
				case "$syn" in *"[$o"*) fail "$words: required $o in brackets: $syn" ;; esac
			else
				case "$syn" in *"[$o]"*|*"[$o "*) ;; *) fail "$words: option $o not in brackets: $syn" ;; esac
			fi ;;
		\[*) p=${a#[}; p=${p%]}
			case "$syn" in *"[$p]"*) ;; *) fail "$words: optional $p not in brackets: $syn" ;; esac ;;
		*) p=${a%...}
			case "$syn " in *" $p "*|*" $p... "*) ;; *) fail "$words: required $p missing: $syn" ;; esac
			case "$syn" in *"[$p]"*) fail "$words: required $p in brackets: $syn" ;; esac ;;
		esac
		name=${a%%=*}; name=${name#[}; name=${name%]}; name=${name%...}
		grep -q "^  $name [A-Z_,. ]*[a-z(]" "$T/u.txt" || grep -q "^  $name  *[a-z(0-9]" "$T/u.txt" ||
		    fail "$words: no description for $name: $(cat "$T/u.txt")"
	done
done < "$T/cmds"
"$FABRICCTL" help | awk 'length($0) > 100 { print "FAIL: help: a line of " length($0) " columns: " $0; exit 1 }' ||
    fail "the list of commands is wider than 100 columns"
echo "usage of $ncmd commands marks optional and required arguments and describes each, in 100 columns"

# 5. completion
"$FABRICCTL" completion bash > "$T/c.bash" || fail "completion bash"
bash -n "$T/c.bash" || fail "the completion script does not parse"
if [ -f "$FABRICD_BUILD/fabricctl.bash" ]; then
	cmp -s "$T/c.bash" "$FABRICD_BUILD/fabricctl.bash" || fail "build/fabricctl.bash is not fabricctl completion bash"
fi
complete_words() {	# WORD... : what completion offers after them, sorted
	bash -c '. "$1"; shift; COMP_WORDS=(fabricctl "$@"); COMP_CWORD=$#; _fabricctl; printf "%s\n" "${COMPREPLY[@]}"' \
	    _ "$T/c.bash" "$@" | sort -u
}
while read -r p; do
	# shellcheck disable=SC2086
	got=$(complete_words $p "")
	n=$(echo "$p" | wc -w)
	for w in $(grep "^$p " "$T/words" | cut -d' ' -f$((n + 1)) | sort -u); do
		printf '%s\n' "$got" | grep -qx "$w" || fail "completion after \"$p\" lacks $w: $got"
	done
done < "$T/prefixes"
top=$(complete_words "")
for w in $(cut -d' ' -f1 "$T/words" | sort -u); do
	printf '%s\n' "$top" | grep -qx "$w" || fail "completion lacks the command $w"
done
while IFS='	' read -r words spec; do
	# shellcheck disable=SC2086
	got=$(complete_words $words --)
	for a in $spec; do
		case $a in --*) printf '%s\n' "$got" | grep -qx -- "${a%%=*}" ||
			fail "completion of \"$words --\" lacks ${a%%=*}: $got" ;; esac
	done
done < "$T/cmds"
complete_words ports --state "" | grep -qx down || fail "completion of ports --state lacks down"
echo "completion offers every command word and option"

# 6. times
ctl --json events > "$T/ev.json" || fail "events"
jq -e '.events | length > 0' "$T/ev.json" >/dev/null || fail "no events recorded"
jq -r '.events[] | "\(.time_ms) \(.time_iso)"' "$T/ev.json" | while read -r ms iso; do
	printf '%s' "$iso" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([+-][0-9]{2}:[0-9]{2}|Z)$' ||
	    { echo "time_iso $iso is not ISO 8601 with a zone"; exit 1; }
	[ "$(date -d "$iso" +%s)" -eq $((ms / 1000)) ] || { echo "time_iso $iso is not $ms"; exit 1; }
done || fail "time_iso"
first_iso=$(jq -r '.events[0].time_iso' "$T/ev.json")
ctl events | head -1 | grep -q "^$first_iso " || fail "events line does not start with $first_iso: $(ctl events | head -1)"
TZ=UTC0 "$FABRICCTL" -s "$SOCK" events | head -1 | grep -Eq '^[0-9-]{10}T[0-9:]{8}\+00:00 ' || fail "UTC not written +00:00"
n=$(ctl --json events --since "$first_iso" | jq '.events | length')
[ "$n" -ge 1 ] || fail "events --since $first_iso (a printed time) found nothing"
ctl --json status | jq -e '.uptime_s >= 0 and (.uptime_human | type) == "string"' >/dev/null ||
    fail "status: no uptime_human next to uptime_s"
fd_stop
pass
