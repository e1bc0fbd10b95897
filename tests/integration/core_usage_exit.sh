# One exit contract (0 pass, 1 a named fault, 2 usage or inconclusive),
# table-driven over common/commands.def: for every command, every usage
# error the spec allows exits 2, never 1 (which a Slurm prolog or a
# node-problem-detector reads as "this node is faulty"):
#   an unknown option; a value for a flag; a valued option without one;
#   a non-number for an INT option; a missing required positional; one
#   positional too many.  Then the usage errors only the daemon can judge
#   (preflight without --hosts, --timeout 0, a malformed hostlist, a bad
#   --since), a Slurm hostlist that is valid (exit is not 2), and an
#   unreachable daemon (2).
. "$FABRICD_SRC/tests/lib/common.sh"
fd_setup
fd_config
fd_start

# access<TAB>words<TAB>spec, as core_docs.sh reads commands.def
sed -n 's/^CMD([^,]*,[^"]*"[^"]*"[^,]*,[[:space:]]*\([A-Z]*\),[^"]*"\([^"]*\)",[^"]*"\([^"]*\)".*/\1	\2	\3/p' \
    "$FABRICD_SRC/common/commands.def" > "$T/cmds"
[ "$(wc -l < "$T/cmds")" -eq "$(grep -c '^CMD(' "$FABRICD_SRC/common/commands.def")" ] ||
    fail "could not read every CMD line"

cases=0 bad=0
expect2() {	# DESCRIPTION ARGS...: fabricctl ARGS must exit 2
	what=$1; shift
	cases=$((cases + 1))
	ctl "$@" >/dev/null 2>&1 </dev/null
	rc=$?
	[ $rc -eq 2 ] || { echo "exit $rc, not 2: $what: fabricctl $*"; bad=$((bad + 1)); }
}

while IFS='	' read -r access words spec; do
	# positionals filled with a placeholder, so that only the case under test is wrong
	pos="" req=0 variadic=0
	for w in $spec; do
		case $w in
		--*) ;;
		*...) variadic=1 ;;
		\[*) ;;
		*) pos="$pos x"; req=$((req + 1)) ;;
		esac
	done
	# shellcheck disable=SC2086
	{
	expect2 "unknown option" $words $pos --no-such-option
	for w in $spec; do
		case $w in
		--*=INT) expect2 "non-number" $words $pos "${w%%=*}=notanumber" ;;
		esac
		case $w in
		--*=*) expect2 "no value" $words $pos "${w%%=*}" ;;
		--*) expect2 "value for a flag" $words $pos "$w=1" ;;
		esac
	done
	[ $req -gt 0 ] && expect2 "missing positional" $words
	[ $variadic -eq 0 ] && expect2 "one positional too many" $words $pos x x x x
	}
done < "$T/cmds"
echo "$cases command-line usage errors over $(wc -l < "$T/cmds") commands"

# Usage errors the daemon judges (invalid_argument).
expect2 "preflight without --hosts" preflight
expect2 "preflight --timeout 0" preflight --hosts host1 --timeout 0
expect2 "malformed hostlist" preflight --hosts 'host[1-x]'
expect2 "reversed range" preflight --hosts 'host[4-1]'
expect2 "unbalanced bracket" preflight --hosts 'host[1-4'
expect2 "bad --since" events --since "not a time"
expect2 "nccl-env without --hosts" nccl-env
expect2 "--fail-on without --follow" validate nccl --hosts a1,a2 --fail-on inconclusive
expect2 "--fail-on fail" validate nccl --hosts a1,a2 --follow --fail-on fail
expect2 "preflight --format xml" preflight --hosts a1 --format xml
expect2 "--fanout rsh" preflight --hosts a1 --fanout rsh
# A valid Slurm hostlist is not a usage error (no fabric here: inconclusive
# or skipped, but the hosts were accepted).
ctl --json preflight --hosts 'host[1-4,7], h9' > "$T/pf.json" 2>&1
grep -q 'host7' "$T/pf.json" && grep -q '"h9"' "$T/pf.json" && ! grep -q invalid_argument "$T/pf.json" ||
    fail "hostlist not expanded: $(cat "$T/pf.json")"
fd_stop
expect2 "daemon unreachable" status
[ $bad -eq 0 ] || fail "$bad usage error(s) did not exit 2"
pass
