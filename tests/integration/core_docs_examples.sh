#!/bin/sh
# Every fabricctl example in README.md and docs/*.md runs, as written, on
# one simulated fabric, and exits as the doc says.
#
# An example is a line of a fenced code block that starts with `fabricctl`
# (after an optional `$ ` prompt) or holds `$(fabricctl`, or a `printf ...
# > build/sim/console` line for the simulator's console; in a block with
# `$ ` prompts only the prompt lines are commands (the rest is output).  A
# line is run by sh in a scratch folder, with `fabricctl` on PATH and
# FABRICD_SOCKET naming this test's daemon; a bracketed word (`[IF]`,
# `[--limited]`) is optional and left out.  Its status is that of the last
# fabricctl in it that failed, else the line's own; 0 unless the doc says
# otherwise.  The names are those of the simulated fabric (`make sim`):
# hosts host1..., leaves sw-l1..., spines sw-s1...; the scratch folder
# holds the files the examples read (plan.topo, cables.csv: the
# simulator's own cabling; opensm-partitions.conf: an OpenSM partitions
# file for this fabric) and SLURM_JOB_NODELIST is set as Slurm does.
#
# What the doc says: an HTML comment just before the block,
#   <!-- example "TEXT": DIRECTIVE -->   for the block's lines holding TEXT
#   <!-- example: DIRECTIVE -->          for every line of the block
# with DIRECTIVE one of
#   exit N              exits N
#   fails CODE          exits non-zero, naming the error code CODE
#   until-interrupted   runs until stopped (it is stopped after 3 s; an
#                       exit before that must be 0)
#   as COMMAND          COMMAND runs in its place (a path of the operator's
#                       machine, say); counted as run
#   not-runnable WHY    not run here: WHY is printed and counted
# A directive whose TEXT matches no line of its block fails the test, and
# so does an example in an indented code block or a line that runs
# fabricctl otherwise (`sudo fabricctl`, `x | fabricctl`): neither would run.
# DOCS_EX_DEBUG=1 prints every example's status and output.
#
# The fabric and the daemon are `make sim`'s (tools/sim.sh, its
# configuration as written there), on a 2-level fat tree of 4 leaves x 8
# hosts and 2 spines: fabricd as its SM (QoS classes), partitions, health,
# roce_qos (a fake host tree and the netlink double, as roce_apply_drift.sh)
# and validation (the fake launchers of validation_jobs.sh: nccl-tests
# replays a passing run; ib_write_bw takes 30 s, so that the job the doc
# cancels still runs), configured as the docs' YAML shows (blue-train of
# partitions.md, the classes of qos.md, h100-ring of validation.md).  Files run in the
# order README.md, then docs/*.md by name; a file's examples in order.
. "$FABRICD_SRC/tests/lib/sm.sh"
sim_test_setup

# ---- the examples, with what each must do ----
# One line per example: FILE, LINE, DIRECTIVE, ARGUMENT, COMMAND, separated
# by \037 (fields may be empty: a tab would collapse them)
# (DIRECTIVE "run" when the doc says nothing).
extract() {
	awk -v F="$1" '
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	function flush(   i, c, cmd, d, a, k, used) {
		prompt = 0
		for (i = 1; i <= nl; i++) if (bl[i] ~ /^\$ /) prompt = 1
		for (k = 1; k <= nd; k++) used[k] = 0
		for (i = 1; i <= nl; i++) {
			c = bl[i]
			if (prompt) { if (c !~ /^\$ /) continue }
			sub(/^\$ /, "", c)
			# a line for the console of the simulator (README: a cable pulled)
			if (c ~ /^printf .*> build\/sim\/console([ \t]|$)/) {
				printf "%s\037%d\037run\037\037%s\n", F, bn[i], c
				continue
			}
			if (c !~ /^fabricctl( |$)/ && c !~ /\$\(fabricctl/) {
				# a command line that runs fabricctl some other way
				if (c ~ /(^|[^-a-z_.\/])fabricctl [a-z-]/ && c !~ /^[ \t]*#/)
					printf "%s\037%d\037unrun\037\037%s\n", F, bn[i], c
				continue
			}
			d = "run"; a = ""
			for (k = 1; k <= nd; k++)
				if (dt[k] == "" || index(c, dt[k])) { d = dd[k]; a = da[k]; used[k] = 1; break }
			printf "%s\037%d\037%s\037%s\037%s\n", F, bn[i], d, a, c
		}
		for (k = 1; k <= nd; k++)
			if (!used[k]) printf "%s\037%d\037stale\037%s\037\n", F, dl[k], dt[k]
		nd = 0; nl = 0
	}
	/^[ \t]*```/ {
		if (infence) { flush(); infence = 0 } else infence = 1
		next
	}
	infence { bl[++nl] = $0; bn[nl] = NR; next }
	# an indented code block would escape this test
	/^(    |\t)[ \t]*(\$ )?fabricctl / { printf "%s\037%d\037indented\037\037%s\n", F, NR, $0 }
	/^<!-- example[ :"]/ {
		s = $0
		sub(/^<!-- example/, "", s); sub(/-->[ \t]*$/, "", s)
		t = ""
		if (s ~ /^ "/) { s = substr(s, 3); t = substr(s, 1, index(s, "\"") - 1); s = substr(s, index(s, "\"") + 1) }
		sub(/^:/, "", s); s = trim(s)
		d = s; sub(/[ \t].*/, "", d)
		a = substr(s, length(d) + 1); a = trim(a)
		nd++; dt[nd] = t; dd[nd] = d; da[nd] = a; dl[nd] = NR
		next
	}
	# a directive is for the block right after it
	/[^ \t]/ && nd > 0 && !infence { for (k = 1; k <= nd; k++) printf "%s\037%d\037stale\037%s\037\n", F, dl[k], dt[k]; nd = 0 }
	' "$FABRICD_SRC/$1"
}
: > "$T/examples"
for f in README.md $(cd "$FABRICD_SRC" && ls docs/*.md); do
	extract "$f" >> "$T/examples"
done
[ "$(wc -l < "$T/examples")" -ge 40 ] || fail "only $(wc -l < "$T/examples") examples found: $(cat "$T/examples")"
unrun=$(awk -F '\037' '$3 == "unrun" { print $1 ":" $2 }' "$T/examples")
[ -z "$unrun" ] || fail "lines that run fabricctl in a way this test does not (start the line with it): $unrun"
ind=$(awk -F '\037' '$3 == "indented" { print $1 ":" $2 }' "$T/examples")
[ -z "$ind" ] || fail "fabricctl examples in an indented block, not a fenced one: $ind"
stale=$(awk -F '\037' '$3 == "stale" { print $1 ":" $2 " (\"" $4 "\")" }' "$T/examples")
[ -z "$stale" ] || fail "example directives that apply to no example line: $stale"

# ---- the fabric and the daemon: make sim's own (tools/sim.sh) ----
# The configuration is the one `make sim` writes, doubles and all; only the
# tree is smaller than make sim's 324 hosts.
make_sim_up
grep -q "^export PATH=.*FABRICD_SOCKET=\"$SOCK\"" "$T/sim.out" ||
    fail "make sim printed no line to paste: $(cat "$T/sim.out")"
sm_wait_up 30 || fail "subnet not up"
health_wait_rounds 2 60

# The scratch folder the examples run in, and fabricctl on PATH: a wrapper
# that notes every failing status (a failure inside `$(...)`, or before a
# `;`, is still the example's).
W=$T/work
mkdir -p "$W" "$T/bin"
cp "$SIM_DIR/topo.net" "$W/plan.topo" || fail "no net file to plan with"
awk '/^(Switch|Ca|Hca)/ { split($0, q, "\""); me = q[2]; next }
    /^\[[0-9]+\]/ { split($0, q, "\""); p = substr($1, 2, index($1, "]") - 2)
	rp = $0; sub(/^[^"]*"[^"]*"\[/, "", rp); sub(/\].*/, "", rp)
	print me "," p "," q[2] "," rp }' "$SIM_DIR/topo.net" > "$W/cables.csv"
[ -s "$W/cables.csv" ] || fail "no cables.csv"
# an OpenSM partitions.conf for this fabric: blue-train as the doc's YAML
# has it (host1-host8 full, the switches limited), by port GUID
{
	echo "Default=0x7fff, ipoib : ALL=limited, SELF=full ;"
	printf 'blue-train=0x0a01 : ALL_SWITCHES=limited'
	for h in 1 2 3 4 5 6 7 8; do
		g=$(sim_port_guid "host$h")
		[ -n "$g" ] || fail "no port GUID for host$h"
		printf ', %s=full' "$g"
	done
	echo " ;"
} > "$W/opensm-partitions.conf"
# sim-reseat NODE PORT: the cable reseated on the simulator's console, for
# an example that needs the link to train again (ibsim never trains a port
# that PortInfo set to Polling: docs/sm.md's `port enable`)
printf '#!/bin/sh\nprintf '"'"'Unlink "%%s"[%%s]\\nReLink "%%s"[%%s]\\n'"'"' "$1" "$2" "$1" "$2" > "%s" && sleep 1\n' \
    "$SIM_DIR/console" > "$T/bin/sim-reseat"
chmod +x "$T/bin/sim-reseat"
cat > "$T/bin/fabricctl" <<EOF
#!/bin/sh
"$FABRICCTL" "\$@"
rc=\$?
[ \$rc -eq 0 ] || echo \$rc >> "$T/status"
exit \$rc
EOF
chmod +x "$T/bin/fabricctl"

# ---- run them ----
ran=0 xfail=0 nr=0 bad=0 sub=0
: > "$T/notrun"
: > "$T/subst"
us=$(printf '\037')
while IFS="$us" read -r file line dir arg cmd; do
	where="$file:$line"
	case $dir in
	not-runnable)
		nr=$((nr + 1))
		printf '  %s: %s\n      not runnable here: %s\n' "$where" "$cmd" "$arg" >> "$T/notrun"
		continue ;;
	as) run=$arg
		sub=$((sub + 1))
		printf '  %s: %s\n      ran: %s\n' "$where" "$cmd" "$arg" >> "$T/subst" ;;
	*) run=$cmd ;;
	esac
	[ -n "$run" ] || fail "$where: an example with no command (the extraction is broken)"
	# optional words ([IF], [--limited]) are left out
	run=$(printf '%s\n' "$run" | sed 's/ \[[^] '\''"]*\]//g')
	# the console of make sim's simulator is this test's (and ibsim takes
	# a line a moment after it is written)
	case $run in
	*"> build/sim/console"*) run="$(printf '%s\n' "$run" | sed "s|build/sim/console|$SIM_DIR/console|g")
sleep 1" ;;
	esac
	: > "$T/status"
	limit=60
	[ "$dir" = until-interrupted ] && limit=3
	(cd "$W" && PATH="$T/bin:$PATH" SLURM_JOB_NODELIST='host[1-4]' \
	    timeout "$limit" sh -c "$run" < /dev/null) > "$T/out" 2>&1
	rc=$?
	[ -n "${DOCS_EX_DEBUG:-}" ] && { echo "== $where rc=$rc: $run"; cat "$T/out"; }
	[ "$rc" -eq 124 ] || [ ! -s "$T/status" ] || rc=$(tail -1 "$T/status")
	why=""
	case $dir in
	run|as) [ "$rc" -eq 0 ] || why="exit $rc, the doc expects 0" ;;
	exit) [ "$rc" -eq "$arg" ] || why="exit $rc, the doc expects $arg" ;;
	fails)
		if [ "$rc" -eq 0 ]; then why="exit 0, the doc expects it to fail with $arg"
		elif ! grep -qw -- "$arg" "$T/out"; then why="exit $rc without the error code $arg the doc expects"
		fi ;;
	until-interrupted) [ "$rc" -eq 124 ] || [ "$rc" -eq 0 ] || why="exit $rc before it was stopped" ;;
	*) why="unknown directive \"$dir\"" ;;
	esac
	ran=$((ran + 1))
	[ "$dir" = fails ] && xfail=$((xfail + 1))
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		echo "FAIL $where: $cmd"
		[ "$run" = "$cmd" ] || echo "  (ran: $run)"
		echo "  $why; its output:"
		sed 's/^/    | /' "$T/out" | head -30
	fi
done < "$T/examples"

echo "core_docs_examples: $ran examples run ($xfail expected to fail, $sub in another form), $nr not runnable here, $bad wrong"
[ "$sub" -eq 0 ] || { echo "run in another form than the doc shows:"; cat "$T/subst"; }
[ "$nr" -eq 0 ] || { echo "not runnable here:"; cat "$T/notrun"; }
[ "$bad" -eq 0 ] || fail "$bad doc example(s) do not do what the doc says"
# make sim's fabricd ends on SIGTERM, cleanly (under ASan: no report)
pid=$(cat "$SIM_DIR/fabricd.pid")
kill -TERM "$pid" || fail "make sim's fabricd is gone before the end"
i=0
while [ -d "/proc/$pid" ]; do
	[ $i -ge 300 ] && fail "make sim's fabricd did not end within 30 s of SIGTERM"
	i=$((i + 1))
	sleep 0.1
done
! grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error' "$SIM_DIR/fabricd.log" ||
    fail "make sim's fabricd: a sanitizer report (above)"
pass
